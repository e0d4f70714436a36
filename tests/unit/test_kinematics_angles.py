"""Clinical joint angles: the Cardan decomposition and the sign of every named component, both sides."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.kinematics import Motion, joint_angles
from mocap_dynamics.solver.kinematics.angles import cardan
from mocap_dynamics.solver.model.body import BodyModel, Segment
from mocap_dynamics.solver.model.frames import axis_rotation
from mocap_dynamics.solver.rotations import matrix_to_quat

X, Y, Z = np.eye(3)


def segment(name, parent, joint="ball", axes=()):
    return Segment(name=name, parent=parent, joint=joint, joint_offset=(0.0, 0.0, -0.3), axes=axes,
                   tip=(0.0, 0.0, -0.3), mass=1.0, com=(0.0, 0.0, -0.1), inertia=np.eye(3) * 0.01)


@pytest.fixture(scope="module")
def body():
    return BodyModel(segments=(
        segment("pelvis", -1, "free"), segment("torso", 0), segment("head", 1, "weld"),
        segment("upper_arm_l", 1), segment("forearm_l", 3, "hinge", (-Y,)), segment("hand_l", 4),
        segment("upper_arm_r", 1),
        segment("thigh_l", 0), segment("shank_l", 7, "hinge", (Y,)), segment("foot_l", 8),
        segment("thigh_r", 0), segment("shank_r", 10, "hinge", (Y,)), segment("foot_r", 11),
        segment("tail", 0)))


def angles_with(body, **rotations):
    """Joint angles with the given segments turned relative to their parents (name -> rotation or angle)."""
    q = body.neutral_q()
    for name, value in rotations.items():
        k = body.index(name)
        i = body.q_starts[k]
        if body.segments[k].joint == "hinge":
            q[i] = value
        else:
            q[i + (3 if k == 0 else 0):i + (7 if k == 0 else 4)] = matrix_to_quat(value)
    return joint_angles(Motion.from_q(body, np.zeros(1), q[None], "test"))


@pytest.mark.parametrize("sequence", ["yxz", "zxy", "xyz", "zyx"])
def test_cardan_round_trip(sequence):
    rng = np.random.default_rng(0)
    for _ in range(20):
        angles = rng.uniform(-3, 3), rng.uniform(-1.5, 1.5), rng.uniform(-3, 3)
        axes = [np.eye(3)["xyz".index(a)] for a in sequence]
        rotation = axis_rotation(axes[0], angles[0]) @ axis_rotation(axes[1], angles[1]) @ axis_rotation(axes[2],
                                                                                                           angles[2])
        np.testing.assert_allclose(cardan(rotation, sequence), angles, atol=1e-12)


def test_neutral_is_zero_and_welds_have_no_angles(body):
    result = angles_with(body)
    np.testing.assert_allclose(result.degrees, 0.0, atol=1e-12)
    assert "head" not in result.segments and "neck" not in result.joints
    assert result.joints[:4] == ("pelvis", "lumbar", "shoulder_l", "elbow_l")
    assert result.components[result.joints.index("tail")] == ("about_y", "about_x", "about_z")


@pytest.mark.parametrize("side", ["l", "r"])
def test_hip_signs_mirror_between_sides(body, side):
    lateral = 1.0 if side == "l" else -1.0  # +Y is lateral on the left
    thigh = f"thigh_{side}"
    flexed = angles_with(body, **{thigh: axis_rotation(Y, np.radians(-30))})  # knee forward
    assert flexed.angle(f"hip_{side}", "flexion")[0] == pytest.approx(30)
    abducted = angles_with(body, **{thigh: axis_rotation(X, lateral * np.radians(20))})  # knee moves laterally
    assert abducted.angle(f"hip_{side}", "adduction")[0] == pytest.approx(-20)
    internal = angles_with(body, **{thigh: axis_rotation(Z, -lateral * np.radians(15))})  # front turns medially
    assert internal.angle(f"hip_{side}", "internal_rotation")[0] == pytest.approx(15)
    ankle = angles_with(body, **{f"foot_{side}": axis_rotation(Y, np.radians(-10))})  # toes up
    assert ankle.angle(f"ankle_{side}", "dorsiflexion")[0] == pytest.approx(10)
    inverted = angles_with(body, **{f"foot_{side}": axis_rotation(X, -lateral * np.radians(12))})  # sole medially
    assert inverted.angle(f"ankle_{side}", "inversion")[0] == pytest.approx(12)
    knee = angles_with(body, **{f"shank_{side}": 0.5})
    assert knee.angle(f"knee_{side}", "flexion")[0] == pytest.approx(np.degrees(0.5))


@pytest.mark.parametrize("side", ["l", "r"])
def test_shoulder_abduction_is_positive_on_both_sides(body, side):
    lateral = 1.0 if side == "l" else -1.0
    result = angles_with(body, **{f"upper_arm_{side}": axis_rotation(X, lateral * np.radians(40))})
    assert result.angle(f"shoulder_{side}", "abduction")[0] == pytest.approx(40)
    forward = angles_with(body, **{f"upper_arm_{side}": axis_rotation(Y, np.radians(-50))})  # elbow forward
    assert forward.angle(f"shoulder_{side}", "flexion")[0] == pytest.approx(50)


def test_elbow_wrist_trunk_and_pelvis(body):
    assert angles_with(body, forearm_l=0.7).angle("elbow_l", "flexion")[0] == pytest.approx(np.degrees(0.7))
    wrist = angles_with(body, hand_l=axis_rotation(Z, np.radians(-25)))  # palm turns medially: pronation
    assert wrist.angle("wrist_l", "pronation")[0] == pytest.approx(25)
    trunk = angles_with(body, torso=axis_rotation(Y, np.radians(25)) @ axis_rotation(X, np.radians(-10)))
    assert trunk.angle("lumbar", "flexion")[0] == pytest.approx(25)
    assert trunk.angle("lumbar", "lateral_bending_left")[0] == pytest.approx(10)
    pelvis = angles_with(body, pelvis=axis_rotation(Z, np.radians(30)) @ axis_rotation(Y, np.radians(8)))
    assert pelvis.angle("pelvis", "rotation_left")[0] == pytest.approx(30)
    assert pelvis.angle("pelvis", "anterior_tilt")[0] == pytest.approx(8)
    assert pelvis.angle("pelvis", "obliquity_left_up")[0] == pytest.approx(0, abs=1e-9)


def test_angles_are_unwrapped_over_time(body):
    turns = np.radians(np.linspace(0, 400, 50))
    q = np.tile(body.neutral_q(), (50, 1))
    q[:, 3:7] = matrix_to_quat(axis_rotation(Z, turns))
    result = joint_angles(Motion.from_q(body, np.arange(50) / 100, q, "test"))
    np.testing.assert_allclose(result.angle("pelvis", "rotation_left"), np.degrees(turns), atol=1e-9)
