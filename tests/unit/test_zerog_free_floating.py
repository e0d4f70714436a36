"""Badler et al. §4: a free-floating body with prescribed joints keeps its spatial momentum; the base
follows, the joints need torques that explain the motion with no root wrench (any model, every joint type)."""

import numpy as np
import pytest

from mocap_dynamics.solver.dynamics import forward_dynamics, momentum, segment_motion
from mocap_dynamics.solver.rotations import quat_from_axis_angle
from mocap_dynamics.solver.zerog import free_floating, posture_sequence
from tests.unit.test_dynamics_models import humanoid

RATE = 200.0


def random_posture(model, rng, start=None):
    """Every joint of ``model`` turned randomly (balls up to about 60°, angles up to 0.8 rad)."""
    q = model.neutral_q() if start is None else start.copy()
    for s, qs in zip(model.segments[1:], model.q_starts[1:]):
        if s.joint == "ball":
            axis = rng.normal(size=3)
            q[qs:qs + 4] = quat_from_axis_angle(axis / np.linalg.norm(axis), rng.uniform(0.2, 1.0))
        elif s.nq:
            q[qs:qs + s.nq] = rng.uniform(-0.8, 0.8, s.nq)
    return q


@pytest.fixture(scope="module")
def floating():
    """The 15-segment test tree through three random postures, with a non-zero initial momentum."""
    model, rng = humanoid(), np.random.default_rng(5)
    start = random_posture(model, rng)
    start[:3] = [0.3, -0.2, 1.0]
    start[3:7] = quat_from_axis_angle(np.array([0.6, 0.0, 0.8]), 0.7)
    path = posture_sequence(model, [start, random_posture(model, rng), random_posture(model, rng), start], 0.6, RATE)
    h0 = np.array([4.0, -2.0, 1.0, 3.0, 5.0, -2.5])
    return model, free_floating(model, path, initial_momentum=h0), path


def test_momentum_stays_at_its_initial_value(floating):
    model, result, _ = floating
    linear, angular = momentum(model, result.motion.q, result.motion.v)  # independent of the integrator
    h = np.hstack([linear, angular])
    assert np.abs(h - result.initial_momentum).max() <= 1e-9 * np.linalg.norm(result.initial_momentum)
    assert result.momentum_drift <= 1e-9


def test_the_centre_of_mass_drifts_on_a_straight_line(floating):
    """Constant linear momentum p: the CM moves at p/m whatever the joints do (closed form)."""
    model, result, _ = floating
    times = result.motion.times
    expected = model.body_com(result.motion.q[0]) + np.outer(times - times[0], result.initial_momentum[:3]) \
        / model.total_mass
    np.testing.assert_allclose(model.body_com(result.motion.q), expected, atol=1e-9)


def test_joints_follow_the_path_and_the_root_wrench_vanishes(floating):
    model, result, path = floating
    np.testing.assert_array_equal(result.motion.q[:, 7:], path.q[::2, 7:])
    np.testing.assert_array_equal(result.motion.v[:, 6:], path.v[::2, 6:])
    wrench = result.dynamics.root_wrench
    torques = result.dynamics.generalized_forces[:, 6:]
    assert np.abs(wrench).max() <= 1e-9 * np.abs(torques).max()
    assert np.abs(torques).max() > 1.0  # the joints do work


def test_joint_power_is_the_rate_of_kinetic_energy(floating):
    """No external force: d/dt KE = Σ joint torque · joint rate (checked by central differences)."""
    model, result, _ = floating
    _, _, _, kinetic = segment_motion(model, result.motion.q, result.motion.v)
    energy = kinetic.sum(1)
    rate = (energy[2:] - energy[:-2]) * RATE / 2
    power = result.dynamics.joint_power[:, 1:].sum(1)[1:-1]
    assert np.abs(rate - power).max() <= 1e-3 * np.abs(power).max()


def test_the_torques_drive_forward_dynamics_to_the_same_accelerations(floating):
    model, result, _ = floating
    d = result.dynamics
    accelerations = forward_dynamics(model, d.q, d.v, d.generalized_forces, gravity=np.zeros(3))
    np.testing.assert_allclose(accelerations, d.a, atol=1e-8 * np.abs(d.a).max())


def test_angular_momentum_about_the_centre_of_mass_is_constant(floating):
    _, result, _ = floating
    spin = result.angular_momentum
    assert np.abs(spin - spin[0]).max() <= 1e-9 * np.abs(result.initial_momentum).max()
    assert np.linalg.norm(spin[0]) > 0.1
