"""How our models map onto Lee's bodies: welds merged, hinges as two joint points, and the way back from body
states to the model's q, v, a (ball, hinge, universal, weld) checked against exact motions."""

from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.kinematics.lee import bodies_of
from mocap_dynamics.solver.kinematics.lee.assemble import motion_coordinates
from mocap_dynamics.solver.kinematics.lee.bodies import HINGE_HALF_WIDTH
from mocap_dynamics.solver.kinematics.lee.joints import project_rotations, universal_constraints
from mocap_dynamics.solver.kinematics.lee.residuals import (
    joint_acceleration_gaps, joint_position_gaps, joint_velocity_gaps,
)
from mocap_dynamics.solver.rotations import matrix_to_quat, quat_from_axis_angle, quat_to_matrix

from test_dynamics_models import analytic_motion
from test_dynamics_models import humanoid as dynamics_humanoid


def humanoid(weld_head=False):
    """The dynamics tests' humanoid with perpendicular universal axes: ``frames.project_joint`` reads a
    universal joint's angles exactly only then (its right foot has axes 79° apart)."""
    model = dynamics_humanoid(weld_head=weld_head)
    segments = [replace(s, axes=(s.axes[0], s.axes[1] - (s.axes[1] @ s.axes[0]) * s.axes[0]))
                if s.joint == "universal" else s for s in model.segments]
    return replace(model, segments=tuple(segments))


def body_states(model, bodies, times, seed, h=1e-4):
    """World body states at ``times`` by central differences of the exact motion (5 points per frame)."""
    offsets = np.arange(-2, 3) * h
    q, v, a = analytic_motion(model, np.random.default_rng(seed), (times[:, None] + offsets).ravel())
    q = q.reshape(len(times), 5, -1)
    rot, _ = model.forward_kinematics(q)
    rot = rot[:, :, bodies.first_segment]  # (T, 5, n, 3, 3)
    masses = np.array([s.mass for s in model.segments])
    seg_com = model.com_positions(q)
    com = np.stack([np.einsum("s,tksi->tki", masses * (bodies.segment_body == b), seg_com) / bodies.mass[b]
                    for b in range(bodies.n)], axis=2)
    spin = np.einsum("tkbij,tkblj->tkbil", (rot[:, 2:] - rot[:, :-2]) / (2 * h), rot[:, 1:-1])  # Ṙ Rᵀ = [ω]
    omega = np.stack([spin[..., 2, 1], spin[..., 0, 2], spin[..., 1, 0]], axis=-1)  # (T, 3, n, 3)
    return (rot[:, 2], com[:, 2], (com[:, 3] - com[:, 1]) / (2 * h), omega[:, 1],
            (com[:, 3] - 2 * com[:, 2] + com[:, 1]) / h ** 2, (omega[:, 2] - omega[:, 0]) / (2 * h)), \
        (q[:, 2], v.reshape(len(times), 5, -1)[:, 2], a.reshape(len(times), 5, -1)[:, 2])


def test_welded_segments_become_one_body_with_composite_inertia():
    model = humanoid(weld_head=True)
    bodies = bodies_of(model)
    torso, head = model.index("torso"), model.index("head")
    assert bodies.n == len(model.segments) - 1
    assert bodies.segment_body[head] == bodies.segment_body[torso]
    b = bodies.segment_body[torso]
    segs = [model.segments[torso], model.segments[head]]
    points = [s.com for s in segs[:1]] + [segs[1].joint_offset + segs[1].com]
    mass = sum(s.mass for s in segs)
    com = (segs[0].mass * points[0] + segs[1].mass * points[1]) / mass
    inertia = sum(s.inertia + s.mass * ((p - com) @ (p - com) * np.eye(3) - np.outer(p - com, p - com))
                  for s, p in zip(segs, points))
    assert bodies.mass[b] == pytest.approx(mass)
    np.testing.assert_allclose(bodies.com[b], com, atol=1e-14)
    np.testing.assert_allclose(bodies.inertia[b], inertia, atol=1e-12)
    np.testing.assert_allclose(bodies.segment_offset[head], segs[1].joint_offset)


def test_hinge_is_two_joint_points_on_its_axis():
    model = humanoid()
    bodies = bodies_of(model)
    knee = model.index("shank_l")
    points = np.flatnonzero(bodies.joint_segment == knee)
    assert len(points) == 2
    child = bodies.segment_body[knee]
    axis = model.segments[knee].axes[0]
    # in the child frame the points sit at ±h along the axis from the joint centre (the frame origin)
    np.testing.assert_allclose(bodies.joint_arms[points, 1] + bodies.com[child],
                               [HINGE_HALF_WIDTH * axis, -HINGE_HALF_WIDTH * axis], atol=1e-14)
    balls = [k for k, s in enumerate(model.segments) if s.joint in ("ball", "universal")]
    assert len(bodies.joint_bodies) == len(balls) + 2 * sum(s.joint == "hinge" for s in model.segments)
    laplacian = bodies.laplacian()
    np.testing.assert_allclose(laplacian.sum(axis=1), 0.0)
    assert laplacian[child, child] == 3  # two points with the thigh, one with the foot (universal)


@pytest.mark.parametrize("weld_head", [False, True])
def test_body_states_back_to_q_v_a(weld_head):
    """Exact body states of a motion with ball, hinge, universal (and weld) joints give back its q, v, a."""
    model = humanoid(weld_head=weld_head)
    bodies = bodies_of(model)
    times = np.linspace(0.1, 0.9, 7)
    (rot, com, vel, omega, acc, alpha), (q, v, a) = body_states(model, bodies, times, seed=4)
    assert joint_position_gaps(bodies, rot, com).max() < 1e-12
    assert joint_velocity_gaps(bodies, rot, vel, omega).max() < 1e-5  # central differences, h = 1e-4
    assert joint_acceleration_gaps(bodies, rot, acc, omega, alpha).max() < 1e-3
    q2, v2, a2 = motion_coordinates(model, bodies, matrix_to_quat(rot), com, vel, omega, acc, alpha)
    rot_q, _ = model.forward_kinematics(q)
    rot_q2, pos_q2 = model.forward_kinematics(q2)
    np.testing.assert_allclose(rot_q2, rot_q, atol=1e-10)
    np.testing.assert_allclose(pos_q2, model.forward_kinematics(q)[1], atol=1e-10)
    np.testing.assert_allclose(v2, v, atol=5e-5)  # the reference states are central differences
    np.testing.assert_allclose(a2, a, atol=1e-3)
    pairs, normals, offsets = universal_constraints(model, bodies, rot, omega)
    assert len(pairs) == 4  # hands and feet
    rates = np.einsum("tui,tui->tu", normals, omega[:, pairs[:, 1]] - omega[:, pairs[:, 0]])
    np.testing.assert_allclose(rates, 0.0, atol=1e-5)
    accels = np.einsum("tui,tui->tu", normals, alpha[:, pairs[:, 1]] - alpha[:, pairs[:, 0]])
    np.testing.assert_allclose(accels, offsets, atol=1e-3)


def test_projection_makes_relative_rotations_allowed():
    model = humanoid()
    bodies = bodies_of(model)
    rng = np.random.default_rng(5)
    axes = rng.normal(size=(bodies.n, 3))
    quats = quat_from_axis_angle(axes / np.linalg.norm(axes, axis=1, keepdims=True), np.full(bodies.n, 0.7))
    rot = project_rotations(model, bodies, quat_to_matrix(quats)[None])
    for k, s in enumerate(model.segments):
        if s.joint == "hinge":
            rel = rot[0, bodies.segment_body[s.parent]].T @ rot[0, bodies.segment_body[k]]
            np.testing.assert_allclose(rel @ s.axes[0], s.axes[0], atol=1e-12)  # a rotation about the axis
        if s.joint == "universal":
            rel = rot[0, bodies.segment_body[s.parent]].T @ rot[0, bodies.segment_body[k]]
            assert s.axes[0] @ rel @ s.axes[1] == pytest.approx(s.axes[0] @ s.axes[1], abs=1e-12)
        if s.joint == "ball":
            b = bodies.segment_body[k]
            np.testing.assert_allclose(rot[0, b], quat_to_matrix(quats[b]), atol=1e-15)
