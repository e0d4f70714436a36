"""``inverse_dynamics`` of a Motion: frames, output conventions, and errors."""

import numpy as np
import pytest

from mocap_dynamics.solver.dynamics import inverse_dynamics, rnea
from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.kinematics.motion import Motion
from tests.unit.test_dynamics_models import analytic_motion, humanoid, smooth_motion

DT = 0.01


@pytest.fixture(scope="module")
def result():
    model = humanoid(weld_head=True)
    times = np.arange(30) * DT
    return inverse_dynamics(Motion.from_q(model, times, smooth_motion(model, np.random.default_rng(1), 30, DT),
                                          method="otm"))


def test_forward_differences_leave_all_but_the_last_two_frames(result):
    assert len(result.times) == 28 and result.times[-1] == pytest.approx(27 * DT)
    assert result.generalized_forces.shape == (28, result.model.nv)
    assert result.joint_torque_world.shape == result.joint_torque_parent.shape == (28, 15, 3)
    assert result.root_wrench.shape == (28, 6) and result.joint_power.shape == (28, 15)
    assert result.options == {"derivatives": "forward differences", "cutoff_hz": None, "first_frame": 0}


def test_output_frames_and_the_root_row(result):
    model = result.model
    rot, _ = model.forward_kinematics(result.q)
    np.testing.assert_array_equal(result.root_wrench[:, :3], result.joint_force[:, 0])
    np.testing.assert_array_equal(result.root_wrench[:, 3:], result.joint_torque_world[:, 0])
    np.testing.assert_allclose(result.generalized_forces[:, :3], result.root_wrench[:, :3])
    np.testing.assert_allclose(result.generalized_forces[:, 3:6],
                               np.einsum("tji,tj->ti", rot[:, 0], result.root_wrench[:, 3:]), atol=1e-9)
    for k, (s, start) in enumerate(zip(model.segments, model.v_starts)):
        if k == 0:
            continue
        parent_frame = np.einsum("tji,tj->ti", rot[:, s.parent], result.joint_torque_world[:, k])
        np.testing.assert_allclose(result.joint_torque_parent[:, k], parent_frame, atol=1e-9)
        if s.joint == "ball":  # the generalized force of a ball joint is its torque in the child frame
            child_frame = np.einsum("tji,tj->ti", rot[:, k], result.joint_torque_world[:, k])
            np.testing.assert_allclose(result.generalized_forces[:, start:start + 3], child_frame, atol=1e-9)


def test_poses_are_the_forward_kinematics_of_q_computed_once(result):
    rotations, origins = result.poses
    assert result.poses is result.poses
    expected = result.model.forward_kinematics(result.q)
    np.testing.assert_array_equal(rotations, expected[0])
    np.testing.assert_array_equal(origins, expected[1])


def test_axis_torques_are_torques_about_the_current_joint_axes(result):
    """Universal R = R(a0, θ0) R(a1, θ1): a0 turns with the parent, a1 with the child."""
    model = result.model
    rot, _ = model.forward_kinematics(result.q)
    axis_torques = result.axis_torques
    for k, s in enumerate(model.segments):
        if s.joint in ("hinge", "universal"):
            first = np.einsum("tij,j->ti", rot[:, s.parent], s.axes[0])
            np.testing.assert_allclose(axis_torques[:, k, 0],
                                       np.sum(first * result.joint_torque_world[:, k], axis=1), atol=1e-9)
        if s.joint == "universal":
            second = np.einsum("tij,j->ti", rot[:, k], s.axes[1])
            np.testing.assert_allclose(axis_torques[:, k, 1],
                                       np.sum(second * result.joint_torque_world[:, k], axis=1), atol=1e-9)
        else:
            assert np.all(np.isnan(axis_torques[:, k, 1]))
        if s.joint not in ("hinge", "universal"):
            assert np.all(np.isnan(axis_torques[:, k, 0]))


def test_joint_power_is_torque_times_rates(result):
    model = result.model
    for k, (s, start) in enumerate(zip(model.segments, model.v_starts)):
        expected = np.sum(result.generalized_forces[:, start:start + s.nv] * result.v[:, start:start + s.nv], axis=1)
        np.testing.assert_allclose(result.joint_power[:, k], expected, rtol=1e-12, atol=1e-12)
    assert np.all(result.joint_power[:, model.index("head")] == 0)  # welded


def test_many_frames_in_parallel_equal_one_frame_at_a_time():
    model = humanoid()
    times = np.arange(37) * DT
    q, v, a = analytic_motion(model, np.random.default_rng(2), times)
    whole = rnea(model, times, q, v, a)
    for t in (0, 17, 36):
        single = rnea(model, times[t:t + 1], q[t:t + 1], v[t:t + 1], a[t:t + 1])
        np.testing.assert_array_equal(single.generalized_forces[0], whole.generalized_forces[t])
        np.testing.assert_array_equal(single.joint_torque_parent[0], whole.joint_torque_parent[t])


def test_wrong_shapes_are_a_solver_error():
    model = humanoid()
    q = np.tile(model.neutral_q(), (3, 1))
    with pytest.raises(SolverError, match="shapes"):
        rnea(model, np.arange(3.0), q, np.zeros((3, model.nv - 1)), np.zeros((3, model.nv)))
