"""Natural coordinates of a BodyModel: counts, constraints, Jacobian, markers linear in x, conversions."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.kinematics.natural import natural_model
from mocap_dynamics.solver.model.held import tracked_model
from mocap_dynamics.solver.kinematics.synthetic import linkage_model, smooth_motion


@pytest.fixture(params=["linkage", "walking_full15", "cmu_brubaker12"])
def model(request):
    return linkage_model() if request.param == "linkage" else request.getfixturevalue(request.param)


def hinges(model) -> int:
    return sum(s.joint == "hinge" for s in model.segments)


def test_degrees_of_freedom_and_redundant_constraints(model):
    """n - rank Φ_x = nv at every solution; one redundant constraint per hinge (the paper's case)."""
    nat = natural_model(model)
    for q in smooth_motion(model, 60, seed=3, amplitude=1.5)[::20]:
        x = nat.from_q(q)
        assert np.abs(nat.constraints(x)).max() < 1e-13
        rank = np.linalg.matrix_rank(nat.jacobian(x), tol=1e-9)
        assert nat.n - rank == model.nv
        assert nat.m - rank == nat.redundant == hinges(model)


def test_full15_sizes(walking_full15):
    """The calibrated full15 of the walking trial: 12 bodies as OTM solves it (``tracked_model``: the hands and
    the marker-less head welded), 4 hinges; 13 with the head on its neck held level."""
    tracked = tracked_model(walking_full15)
    nat = natural_model(tracked)
    assert (nat.n, nat.m, nat.redundant, tracked.nv) == (152, 125, 4, 31)
    assert nat.kinds.count("rigid") == 72 and nat.kinds.count("relative") == 8
    assert natural_model(walking_full15).n == 164 and walking_full15.nv == 34


def test_jacobian_and_exact_second_order_expansion(model):
    nat = natural_model(model)
    rng = np.random.default_rng(0)
    x = nat.from_q(smooth_motion(model, 1, seed=1)[0]) + rng.normal(scale=0.2, size=nat.n)
    step = rng.normal(size=nat.n)
    h = 1e-6
    central = (nat.constraints(x + h * step) - nat.constraints(x - h * step)) / (2 * h)
    np.testing.assert_allclose(nat.jacobian(x) @ step, central, atol=1e-8)
    alpha = 0.7
    expansion = nat.constraints(x) + alpha * nat.jacobian(x) @ step + alpha ** 2 * nat.second_order(step)
    np.testing.assert_allclose(nat.constraints(x + alpha * step), expansion, atol=1e-12)


def test_markers_are_a_constant_linear_map(model):
    nat = natural_model(model)
    q = smooth_motion(model, 30, seed=2, amplitude=1.0)
    s = nat.marker_matrix()
    markers = (nat.from_q(q) @ s.T).reshape(len(q), -1, 3)
    np.testing.assert_allclose(markers, model.marker_positions(q), atol=1e-14)


def test_round_trip_to_generalized_coordinates(model):
    nat = natural_model(model)
    q = smooth_motion(model, 30, seed=4, amplitude=1.2)
    back = nat.to_q(nat.from_q(q))
    for a, b in zip(model.forward_kinematics(back), model.forward_kinematics(q)):
        np.testing.assert_allclose(a, b, atol=1e-13)
    angles = [i + k for s, i in zip(model.segments, model.q_starts) if s.joint in ("hinge", "universal")
              for k in range(s.nq)]
    np.testing.assert_allclose(np.angle(np.exp(1j * (back[:, angles] - q[:, angles]))), 0.0, atol=1e-13)


def test_frames_stay_right_handed():
    """u × v = w is a constraint: a reflected frame violates it (the dot-product form would not)."""
    model = linkage_model()
    nat = natural_model(model)
    x = nat.from_q(model.neutral_q())
    x[9:12] *= -1  # the root's w
    assert np.abs(nat.constraints(x)[:6]).max() == pytest.approx(2.0)
