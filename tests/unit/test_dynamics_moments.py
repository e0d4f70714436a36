"""Clinical joint moments: the generalized forces of the clinical angles (power identity), with the angle
table's names and signs."""

import numpy as np
import pytest

from mocap_dynamics.solver.dynamics import dynamics_table, joint_moments, rnea
from mocap_dynamics.solver.kinematics import Motion, joint_angles
from tests.unit.test_dynamics_models import analytic_motion, humanoid

H = 1e-5


@pytest.fixture(scope="module")
def case():
    model = humanoid(weld_head=True)
    times = np.linspace(0.0, 0.5, 11)
    q, v, a = analytic_motion(model, np.random.default_rng(3), times)
    dynamics = rnea(model, times, q, v, a)
    rates = []
    for step in (H, -H):  # the same motion a moment later and earlier: clinical angle rates by central differences
        shifted, _, _ = analytic_motion(model, np.random.default_rng(3), times + step)
        rates.append(np.radians(joint_angles(Motion.from_q(model, times + step, shifted, "test")).degrees))
    return dynamics, (rates[0] - rates[1]) / (2 * H)


def test_moments_times_angle_rates_are_the_joint_power(case):
    """Σ_i M_i α̇_i = τ·ω_rel for every joint: the moments are the clinical angles' generalized forces."""
    dynamics, rates = case
    moments = joint_moments(dynamics)
    power = np.sum(moments.newton_metres * rates, axis=-1)
    for j, segment in enumerate(moments.segments[1:], start=1):
        k = dynamics.model.index(segment)
        np.testing.assert_allclose(power[:, j], dynamics.joint_power[:, k], rtol=1e-5, atol=1e-5 * np.abs(
            dynamics.joint_power[:, k]).max())


def test_root_moments_resolve_the_residual_torque(case):
    dynamics, rates = case
    rot, _ = dynamics.model.forward_kinematics(dynamics.q)
    omega = np.einsum("tij,tj->ti", rot[:, 0], dynamics.v[:, 3:6])  # root angular velocity in the world
    moments = joint_moments(dynamics)
    assert moments.joints[0] == "pelvis"
    np.testing.assert_allclose(np.sum(moments.newton_metres[:, 0] * rates[:, 0], axis=-1),
                               np.sum(dynamics.root_wrench[:, 3:] * omega, axis=-1), rtol=1e-5, atol=1e-6)


def test_a_hinge_knee_flexion_moment_is_its_axis_torque(case):
    dynamics, _ = case
    knee = dynamics.model.index("shank_l")  # hinge about +Y, the angle table's knee flexion axis
    moments = joint_moments(dynamics)
    np.testing.assert_allclose(moments.moment("knee_l", "flexion"), dynamics.axis_torques[:, knee, 0], atol=1e-9)
    assert moments.names[:3] == ["pelvis_rotation_left_moment", "pelvis_obliquity_left_up_moment",
                                 "pelvis_anterior_tilt_moment"]
    assert {"hip_l_flexion_moment", "knee_l_flexion_moment", "knee_l_adduction_moment"} <= set(moments.names)


def test_the_table_has_clinical_moments_and_raw_vectors(case):
    dynamics, _ = case
    table = dynamics_table(dynamics, per_kg=True)
    moments = joint_moments(dynamics)
    mass = dynamics.model.total_mass
    np.testing.assert_allclose(table.column("hip_r_internal_rotation_moment"),
                               moments.moment("hip_r", "internal_rotation") / mass)
    thigh = dynamics.model.index("thigh_r")
    np.testing.assert_allclose(table.column("thigh_r_moment_y"), dynamics.joint_torque_parent[:, thigh, 1] / mass)
    assert "head_moment_x" not in table.columns  # welded: no joint
    assert len(set(table.columns)) == len(table.columns)


def test_holding_a_flexed_leg_up_takes_a_hip_flexion_moment():
    """Thigh flexed 90° (knee forward) at rest: gravity pulls the leg down, the hip flexors hold it."""
    from mocap_dynamics.solver.model.frames import axis_rotation
    from mocap_dynamics.solver.rotations import matrix_to_quat
    model = humanoid(weld_head=True)
    q = model.neutral_q()
    k = model.index("thigh_l")
    q[model.q_starts[k]:model.q_starts[k] + 4] = matrix_to_quat(axis_rotation(np.array([0.0, 1.0, 0.0]), -np.pi / 2))
    assert joint_angles(Motion.from_q(model, np.zeros(1), q[None], "test")).angle("hip_l", "flexion")[0] == \
        pytest.approx(90.0)
    zeros = np.zeros((1, model.nv))
    moments = joint_moments(rnea(model, np.zeros(1), q[None], zeros, zeros))
    leg = [model.index(name) for name in ("thigh_l", "shank_l", "foot_l")]
    hip = model.forward_kinematics(q)[1][k]
    weight_arm = sum(model.segments[i].mass * (model.com_positions(q)[i, 0] - hip[0]) for i in leg)
    assert weight_arm > 0 and moments.moment("hip_l", "flexion")[0] == pytest.approx(9.81 * weight_arm, rel=1e-9)
