"""Initial guesses from markers (Lee §5.1, eq. 5.13 with its sign restored, 5.15, 5.16) and the spline stages."""

import numpy as np

from mocap_dynamics.solver.kinematics.lee import bodies_of
from mocap_dynamics.solver.kinematics.lee.initial import (
    angular_acceleration, angular_velocity, cm_rate, marker_products,
)
from mocap_dynamics.solver.kinematics.lee.splines import quaternion_rates, spline_derivatives
from mocap_dynamics.solver.model.body import BodyModel, Segment
from mocap_dynamics.solver.rotations import (
    davenport_matrix, fit_rigid, quat_from_axis_angle, quat_mul, quat_normalize,
    quat_to_matrix, skew,
)

MARKERS = ((0.1, 0.05, 0.0), (-0.1, 0.08, 0.02), (0.0, -0.1, 0.1), (0.05, 0.0, -0.12))


def rigid_body(markers=MARKERS):
    return BodyModel((Segment("body", -1, "free", (0, 0, 0), (), (0, 0, 0.3), 2.0, (0.01, -0.02, 0.05),
                              np.diag([0.02, 0.03, 0.04]), tuple(f"m{k}" for k in range(len(markers))), markers),))


def moving_markers(bodies, rng, n_frames=6):
    """Random rigid states and the exact marker positions, velocities and accelerations (T, M, 3)."""
    rot = quat_to_matrix(quat_normalize(rng.normal(size=(n_frames, 4))))[:, None]
    r, v, acc, w, alpha = rng.normal(size=(5, n_frames, 1, 3))
    arms = np.einsum("tbij,mj->tmi", rot, bodies.marker_local)
    p = r + arms
    dp = v + np.cross(w, arms)
    ddp = acc + np.cross(alpha, arms) + np.cross(w, np.cross(w, arms))
    return rot, r, v, acc, w, alpha, p, dp, ddp


def test_marker_rates_give_the_rigid_body_rates_exactly():
    bodies = bodies_of(rigid_body())
    rot, r, v, acc, w, alpha, p, dp, ddp = moving_markers(bodies, np.random.default_rng(0))
    prior = np.zeros_like(w)
    omega = angular_velocity(bodies, rot, dp, prior)
    np.testing.assert_allclose(omega, w, atol=1e-9)
    np.testing.assert_allclose(angular_acceleration(bodies, rot, omega, ddp, prior), alpha, atol=1e-8)
    np.testing.assert_allclose(cm_rate(bodies, rot, dp, omega, prior), v, atol=1e-9)
    np.testing.assert_allclose(cm_rate(bodies, rot, ddp, omega, prior, alpha=alpha), acc, atol=1e-8)


def test_printed_equation_5_13_has_the_wrong_sign():
    """Erratum 1 of the notes: without the minus sign eq. 5.13 returns -ω."""
    bodies = bodies_of(rigid_body())
    rot, _, _, _, w, _, _, dp, _ = moving_markers(bodies, np.random.default_rng(1), n_frames=1)
    arms = np.einsum("ij,mj->mi", rot[0, 0], bodies.marker_local - bodies.marker_local.mean(0))
    rates = dp[0] - dp[0].mean(0)
    ss = sum(skew(x).T @ skew(x) for x in arms)
    printed = np.linalg.solve(ss, sum(skew(x).T @ y for x, y in zip(arms, rates)))
    np.testing.assert_allclose(printed, -w[0, 0], atol=1e-10)


def test_collinear_markers_take_the_unseen_rotation_rate_from_the_prior():
    bodies = bodies_of(rigid_body(((0.1, 0.0, 0.0), (-0.1, 0.0, 0.0))))
    rot, _, _, _, w, _, _, dp, _ = moving_markers(bodies, np.random.default_rng(2))
    prior = w + np.random.default_rng(3).normal(size=w.shape)
    omega = angular_velocity(bodies, rot, dp, prior)
    line = np.einsum("tbij,j->tbi", rot, (1.0, 0.0, 0.0))
    along = lambda x: np.sum(x * line, axis=-1)  # noqa: E731
    np.testing.assert_allclose(along(omega), along(prior), atol=1e-9)
    np.testing.assert_allclose(omega - along(omega)[..., None] * line, w - along(w)[..., None] * line, atol=1e-9)


def test_marker_products_are_wahbas_data_term():
    bodies = bodies_of(rigid_body())
    rot, _, _, _, _, _, p, _, _ = moving_markers(bodies, np.random.default_rng(4))
    p[0, 1] = np.nan  # a missing marker weighs nothing
    b = marker_products(bodies, p)[:, 0]
    quats, _ = fit_rigid(p, bodies.marker_local)
    top = np.linalg.eigh(davenport_matrix(np.broadcast_to(np.eye(3), b.shape), b))[1][..., -1]
    np.testing.assert_allclose(np.abs(np.sum(top * quats, axis=-1)), 1.0, atol=1e-10)


def test_spline_derivatives_are_exact_for_cubics():
    t = np.linspace(0.0, 1.0, 21)
    x = np.stack([1 + 2 * t - t ** 2 + 0.5 * t ** 3, t ** 3], axis=1)
    d1, d2 = spline_derivatives(t, x)
    np.testing.assert_allclose(d1, np.stack([2 - 2 * t + 1.5 * t ** 2, 3 * t ** 2], axis=1), atol=1e-10)
    np.testing.assert_allclose(d2, np.stack([-2 + 3 * t, 6 * t], axis=1), atol=1e-9)


def test_quaternion_spline_gives_world_angular_velocity_and_acceleration():
    t = np.arange(101) / 100.0
    axis = np.array([1.0, 2.0, -0.5]) / np.linalg.norm([1.0, 2.0, -0.5])
    theta, rate, acc = np.sin(2 * t) + 0.3 * t, 2 * np.cos(2 * t) + 0.3, -4 * np.sin(2 * t)
    start = quat_normalize(np.array([0.3, -0.2, 0.8, 0.4]))
    q = quat_mul(quat_from_axis_angle(axis, theta), start)  # turning about a world-fixed axis
    omega, alpha = quaternion_rates(t, q)
    inner = slice(3, -3)
    np.testing.assert_allclose(omega[inner], np.outer(rate, axis)[inner], atol=1e-5)
    np.testing.assert_allclose(alpha[inner], np.outer(acc, axis)[inner], atol=2e-3)
    np.testing.assert_allclose(omega, np.outer(rate, axis), atol=1e-3)  # not-a-knot ends are less accurate
