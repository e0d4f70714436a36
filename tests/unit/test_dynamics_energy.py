"""Badler et al. §7 energy and effort measures on motions whose values are known by hand."""

import numpy as np

from mocap_dynamics.solver.dynamics import energy_measures, momentum, rnea, segment_motion
from mocap_dynamics.solver.model.body import BodyModel, Segment
from mocap_dynamics.solver.rotations import quat_to_matrix
from tests.unit.test_dynamics_models import analytic_motion, chain, humanoid, smooth_motion

G = 9.81


def pendulum():
    """A held base with one hinged arm (axis +Y), centre of mass 0.4 m below the hinge."""
    return BodyModel((
        Segment("base", -1, "free", (0, 0, 0), (), (0, 0, 0.1), 2.0, (0, 0, 0), np.diag([0.1, 0.2, 0.3])),
        Segment("arm", 0, "hinge", (0, 0, 0), ((0, 1, 0),), (0, 0, -0.5), 3.0, (0, 0, -0.4),
                np.diag([0.05, 0.07, 0.02]))))


def swing(model, times, theta, rate, acc, gravity=(0, 0, -G)):
    n = len(times)
    q = np.tile(model.neutral_q(), (n, 1))
    q[:, 7] = theta
    v, a = np.zeros((n, model.nv)), np.zeros((n, model.nv))
    v[:, 6], a[:, 6] = rate, acc
    return rnea(model, times, q, v, a, gravity=np.array(gravity))


def test_kinetic_energy_of_one_rigid_body():
    model = chain([])
    body = model.segments[0]
    rng = np.random.default_rng(1)
    q = smooth_motion(model, rng, 1, 0.01)
    v = rng.normal(size=(1, 6))
    rot = quat_to_matrix(q[0, 3:7])
    w_body = v[0, 3:]
    v_com = v[0, :3] + rot @ np.cross(w_body, body.com)
    expected = 0.5 * body.mass * v_com @ v_com + 0.5 * w_body @ body.inertia @ w_body
    _, com_velocity, _, kinetic = segment_motion(model, q, v)
    np.testing.assert_allclose(kinetic[0, 0], expected, rtol=1e-13)
    np.testing.assert_allclose(com_velocity[0, 0], v_com, rtol=1e-13)
    linear, _ = momentum(model, q, v)
    np.testing.assert_allclose(linear[0], body.mass * v_com, rtol=1e-13)


def test_pendulum_energy_power_and_weighted_torque():
    model = pendulum()
    times = np.linspace(0, 2, 2001)
    w = 2.0
    theta, rate, acc = 0.8 * np.sin(w * times), 0.8 * w * np.cos(w * times), -0.8 * w ** 2 * np.sin(w * times)
    measures = energy_measures(swing(model, times, theta, rate, acc))
    pivot_inertia = 0.07 + 3.0 * 0.4 ** 2
    tau = pivot_inertia * acc + 3.0 * G * 0.4 * np.sin(theta)

    np.testing.assert_allclose(measures.kinetic_energy, 0.5 * pivot_inertia * rate ** 2, rtol=1e-12, atol=1e-14)
    base_height = 0.0  # the base's centre of mass is at the origin
    np.testing.assert_allclose(measures.potential_energy, -3.0 * G * 0.4 * np.cos(theta) + base_height, rtol=1e-12)
    np.testing.assert_allclose(measures.joint_power[:, 1], tau * rate, rtol=1e-12, atol=1e-12)
    assert np.all(np.isnan(measures.joint_power[:, 0]))
    expected_rho = np.where(tau * rate >= 0, np.abs(tau), np.abs(tau) / 3)
    np.testing.assert_allclose(measures.weighted_torque[:, 1], expected_rho, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(measures.weighted_torque_sum, expected_rho, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(measures.effort, expected_rho.sum() * (times[1] - times[0]), rtol=1e-12)
    power = tau * rate
    np.testing.assert_allclose(measures.power_generated, np.clip(power, 0, None), atol=1e-12)
    np.testing.assert_allclose(measures.power_absorbed, np.clip(power, None, 0), atol=1e-12)
    np.testing.assert_allclose(measures.weighted_power, np.where(power >= 0, power, -power / 3), atol=1e-12)
    # Work-energy: the joint is the only source of work on the swinging arm (the base is held still).
    work = np.concatenate([[0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(times))])
    np.testing.assert_allclose(measures.mechanical_energy_change, work, atol=1e-5)


def test_joint_work_and_root_work_change_the_energy_of_a_free_body():
    """Σ joint powers + root wrench power = dE/dt for any motion (here in gravity, root free)."""
    model = humanoid()
    times = np.linspace(0, 1, 4001)
    dyn = rnea(model, times, *analytic_motion(model, np.random.default_rng(2), times))
    measures = energy_measures(dyn)
    total_power = dyn.joint_power.sum(1)  # the joints and the root wrench
    work = np.concatenate([[0], np.cumsum(0.5 * (total_power[1:] + total_power[:-1]) * np.diff(times))])
    scale = np.abs(measures.mechanical_energy_change).max()
    np.testing.assert_allclose(measures.mechanical_energy_change, work, atol=1e-5 * scale)  # trapezoid rule


def test_jerk_of_a_cubic_is_constant():
    model = pendulum()
    times = np.linspace(0, 1, 11)
    c = 0.7
    measures = energy_measures(swing(model, times, c * times ** 3, 3 * c * times ** 2, 6 * c * times))
    np.testing.assert_allclose(measures.jerk[:-1, 1], 6 * c, rtol=1e-9)
    np.testing.assert_allclose(measures.jerk_sum[:-1], 6 * c, rtol=1e-9)
    assert np.isnan(measures.jerk[-1, 1]) and np.all(np.isnan(measures.jerk[:, 0]))


def test_zero_gravity_has_no_potential_energy():
    model = pendulum()
    times = np.linspace(0, 1, 5)
    measures = energy_measures(swing(model, times, times, np.ones(5), np.zeros(5), gravity=(0, 0, 0)))
    np.testing.assert_array_equal(measures.potential_energy, 0.0)
