"""OTM paper mode on single frames: the KKT solve with dependent constraints (eqs. 10-11), both
globalization strategies, redundant constraints, incompatible linearized constraints at a bad start,
weights W_m and exactly satisfied driving constraints W_s (eqs. 12-13)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import null_space

from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.kinematics.natural import natural_model
from mocap_dynamics.solver.kinematics.otm import STRATEGIES, Driving, kkt_step, solve_frame
from mocap_dynamics.solver.kinematics.synthetic import linkage_model, smooth_motion


@pytest.fixture(scope="module")
def linkage():
    model = linkage_model()
    nat = natural_model(model)
    q = smooth_motion(model, 1, seed=5, amplitude=1.0)[0]
    return model, nat, q


def tracked(nat, x_true, noise=0.0, seed=0):
    s = nat.marker_matrix()
    d = s @ x_true + np.random.default_rng(seed).normal(scale=noise, size=len(s))
    return Driving(s, d, np.ones(len(d)))


def test_kkt_step_sets_dependent_multipliers_to_zero():
    """A duplicated constraint row: one more dependent multiplier, and the step is the QP minimizer."""
    jac = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    phi = np.array([-1.0, -1.0, -0.5])
    hessian, gradient = np.eye(3), np.array([-1.0, 0.0, 0.3])
    step, multipliers, dependent, deficient = kkt_step(hessian, gradient, jac.T @ jac, -jac.T @ phi)
    assert dependent == 1 and not deficient
    # the same QP by the null space of the constraints: x0 + x1 = 1, x2 = 0.5
    particular = np.array([0.5, 0.5, 0.5])
    z = null_space(jac)
    expected = particular + z @ np.linalg.solve(z.T @ hessian @ z, -z.T @ (gradient + hessian @ particular))
    np.testing.assert_allclose(step, expected, atol=1e-12)
    np.testing.assert_allclose(hessian @ step + gradient, jac.T @ jac @ multipliers, atol=1e-12)


def test_kkt_step_reports_a_singular_reduced_hessian():
    """Nothing drives the third coordinate and no constraint fixes it: ZᵀHZ is singular."""
    jac = np.array([[1.0, 0.0, 0.0]])
    hessian = np.diag([0.0, 1.0, 0.0])
    *_, deficient = kkt_step(hessian, np.zeros(3), jac.T @ jac, np.zeros(3))
    assert deficient


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_exact_recovery_with_redundant_constraints(linkage, strategy):
    """Two hinges: two redundant constraints. At the solution the KKT solve drops nv multipliers of
    A = Φ_xᵀΦ_x (rank n - nv, §4.1) and the reduced Hessian stays positive definite."""
    model, nat, q = linkage
    x_true = nat.from_q(q)
    solution = solve_frame(nat, nat.from_q(model.neutral_q()), tracked(nat, x_true), strategy=strategy,
                           tolerance=1e-10)
    assert nat.redundant == 2
    assert solution.converged and solution.iterations <= 25
    assert solution.constraint_norm <= 1e-10
    np.testing.assert_allclose(solution.x, x_true, atol=1e-9)
    assert solution.dependent == model.nv and not solution.rank_deficient


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("start", ["zeros", "collapsed_vectors"])
def test_incompatible_linearized_constraints_at_a_bad_start(linkage, strategy, start):
    """Where Φ_x Δx = -Φ (eq. 2) has no solution, the normal equations (6) still lead OTM home."""
    model, nat, q = linkage
    x0 = np.zeros(nat.n) if start == "zeros" else nat.from_q(model.neutral_q())
    if start == "collapsed_vectors":
        x0[3:6] = x0[15:18] = 0.0  # the u vectors of the first two bodies
    jac, phi = nat.jacobian(x0), nat.constraints(x0)
    least_squares = np.linalg.lstsq(jac, -phi, rcond=None)[0]
    assert np.linalg.norm(jac @ least_squares + phi) > 0.5  # incompatible
    solution = solve_frame(nat, x0, tracked(nat, nat.from_q(q)), strategy=strategy, tolerance=1e-10)
    assert solution.converged
    np.testing.assert_allclose(solution.x, nat.from_q(q), atol=1e-9)


def test_both_strategies_reach_the_same_minimizer_with_noise(linkage):
    model, nat, q = linkage
    driving = tracked(nat, nat.from_q(q), noise=0.01)
    start = nat.from_q(model.neutral_q())
    merit, maxmin = (solve_frame(nat, start, driving, strategy=s) for s in STRATEGIES)
    assert merit.converged and maxmin.converged
    assert merit.constraint_norm <= 1e-7 and maxmin.constraint_norm <= 1e-7
    np.testing.assert_allclose(merit.x, maxmin.x, atol=1e-6)
    assert merit.objective == pytest.approx(maxmin.objective, rel=1e-9)


def test_zero_weight_is_a_missing_marker(linkage):
    model, nat, q = linkage
    driving = tracked(nat, nat.from_q(q), noise=0.005, seed=1)
    weights = driving.weights.copy()
    weights[:3] = 0.0  # the first marker
    start = nat.from_q(model.neutral_q())
    weighted = solve_frame(nat, start, Driving(driving.matrix, driving.target, weights))
    removed = solve_frame(nat, start, Driving(driving.matrix[3:], driving.target[3:], driving.weights[3:]))
    np.testing.assert_allclose(weighted.x, removed.x, atol=1e-7)
    heavier = weights.copy()
    heavier[3:6] = 100.0  # the second marker, trusted more, is fitted closer
    trusted = solve_frame(nat, start, Driving(driving.matrix, driving.target, heavier))

    def error(solution, marker):
        rows = slice(3 * marker, 3 * marker + 3)
        return np.linalg.norm(driving.matrix[rows] @ solution.x - driving.target[rows])

    assert error(trusted, 1) < 0.2 * error(weighted, 1)


def test_exactly_satisfied_driving_constraints(linkage):
    """W_s = 1: the marker is matched exactly while the others are fitted; W_s = 0: inactive."""
    model, nat, q = linkage
    driving = tracked(nat, nat.from_q(q), noise=0.01, seed=2)
    start = nat.from_q(model.neutral_q())
    free = solve_frame(nat, start, driving)
    rows = slice(6, 9)  # the third marker
    exact = Driving(driving.matrix[rows], driving.target[rows], np.ones(3))
    pinned = solve_frame(nat, start, driving, exact=exact)
    assert pinned.converged and pinned.constraint_norm <= 1e-7
    assert np.linalg.norm(driving.matrix[rows] @ pinned.x - driving.target[rows]) < 1e-7
    assert np.linalg.norm(driving.matrix[rows] @ free.x - driving.target[rows]) > 1e-3
    inactive = solve_frame(nat, start, driving, exact=Driving(exact.matrix, exact.target, np.zeros(3)))
    np.testing.assert_allclose(inactive.x, free.x, atol=1e-7)


def test_locking_a_hinge_through_its_relative_coordinates(linkage):
    """Driving cos θ and sin θ of the elbow exactly: two linear constraints, one redundant with the
    implicit cos² + sin² = 1, and the angle is held while the markers are fitted."""
    model, nat, q = linkage
    forearm = model.index("forearm")
    start_index = nat.relative_start[forearm]
    lock = np.zeros((2, nat.n))
    lock[0, start_index], lock[1, start_index + 1] = 1.0, 1.0
    angle = 0.4
    exact = Driving(lock, np.array([np.cos(angle), np.sin(angle)]), np.ones(2))
    solution = solve_frame(nat, nat.from_q(model.neutral_q()), tracked(nat, nat.from_q(q)), exact=exact)
    assert solution.converged
    assert nat.to_q(solution.x)[model.q_starts[forearm]] == pytest.approx(angle, abs=1e-7)


def test_unknown_strategy(linkage):
    model, nat, q = linkage
    with pytest.raises(SolverError, match="strategy"):
        solve_frame(nat, nat.from_q(q), tracked(nat, nat.from_q(q)), strategy="bisection")
