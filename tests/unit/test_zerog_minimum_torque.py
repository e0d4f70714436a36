"""Badler et al. §6: B-spline joint trajectories that minimise Σ∫τ² dt between two postures of a floating body."""

import numpy as np
import pytest

from mocap_dynamics.solver.model import calibrate
from mocap_dynamics.solver.rotations import quat_to_matrix
from mocap_dynamics.solver.zerog import minimum_torque
from mocap_dynamics.solver.zerog.manoeuvres import limb_posture
from mocap_dynamics.solver.zerog.minimum_torque import Problem
from mocap_dynamics.solver.zerog.hinges import ball_jacobian, hinge_coordinates, hinges

RATE = 50.0


@pytest.fixture(scope="module")
def lift(sample_walk):
    model = calibrate(sample_walk.trial, "full15")
    start, end = model.neutral_q(), limb_posture(model, 60, 20)
    return model, start, end, minimum_torque(model, start, end, 1.0, n_knots=4, rate_hz=RATE)


def test_the_optimum_needs_less_torque_than_the_quintic(lift):
    model, start, end, (result, quintic_cost, optimal_cost) = lift
    assert optimal_cost < 0.99 * quintic_cost
    assert result.info["torque_reduction_percent"] == pytest.approx(100 * (1 - optimal_cost / quintic_cost))
    q = result.motion.q
    for name in ("thigh_l", "thigh_r"):  # the postures are met (rotation matrices: quaternion signs may differ)
        k = model.q_starts[model.index(name)]
        np.testing.assert_allclose(quat_to_matrix(q[[0, -1], k:k + 4]),
                                   quat_to_matrix(np.stack([start, end])[:, k:k + 4]), atol=1e-12)
    k = model.v_starts[model.index("thigh_l")]
    np.testing.assert_allclose(result.motion.v[[0, -1], k:k + 3], 0, atol=1e-12)  # at rest at both ends
    assert result.momentum_drift <= 1e-9 and result.motion.method == "minimum_torque"


def test_the_cost_is_the_torque_of_the_floating_simulation(lift):
    """Σ∫τ² from the world-frame inverse dynamics of the simulated optimum (ball torques split onto the
    hinges, Q = Jᵀ n) is the optimiser's cost."""
    model, _, _, (result, _, optimal_cost) = lift
    d = result.dynamics
    total = np.zeros(len(d.times))
    for s, qs, vs in zip(model.segments[1:], model.q_starts[1:], model.v_starts[1:]):
        tau = d.generalized_forces[:, vs:vs + s.nv]
        if s.joint == "ball":
            tau = np.einsum("tij,ti->tj", ball_jacobian(d.q[:, qs:qs + 4])[1], tau)
        total += np.sum(tau ** 2, axis=1)
    weights = np.full(len(total), 1 / RATE)
    weights[[0, -1]] /= 2
    assert weights @ total == pytest.approx(optimal_cost, rel=1e-9)


def test_the_gradient_matches_differences_of_the_cost(lift):
    model, start, end, _ = lift
    split = hinges(model)
    zero = np.zeros((1, model.nv))
    angles = [hinge_coordinates(model, split, q[None], zero, zero)[0][0] for q in (start, end)]
    problem = Problem(model, split, *angles, 1.0, 4, np.arange(51) / RATE)
    rng = np.random.default_rng(0)
    x, direction = rng.normal(0, 0.3, (2, 4 * len(problem.moving)))
    _, gradient = problem(x)
    h = 1e-4
    differences = (problem(x + h * direction)[0] - problem(x - h * direction)[0]) / (2 * h)
    assert gradient @ direction == pytest.approx(differences, rel=1e-6)
