"""Badler et al. §2: the body model's joints as 1-DoF hinges, numbered as the paper numbers its dynamic tree;
the maps between hinge and model coordinates, and the hinges' torques of the floating body."""

import numpy as np
import pytest

from mocap_dynamics.solver.model.body import BodyModel, Segment
from mocap_dynamics.solver.rotations import quat_to_matrix
from mocap_dynamics.solver.zerog.hinges import ball_jacobian, hinge_coordinates, hinges, model_coordinates
from mocap_dynamics.solver.zerog.minimum_torque import _torques_and_partials
from tests.unit.test_dynamics_models import analytic_motion, humanoid


def three_link():
    """Badler's Fig. 11 body: a torso and two legs on ball hips."""
    legs = [Segment(f"thigh_{s}", 0, "ball", (0, y, -0.3), (), (0, 0, -0.8), 10.0, (0, 0, -0.4),
                    np.diag([0.5, 0.5, 0.05])) for s, y in (("r", -0.1), ("l", 0.1))]
    torso = Segment("torso", -1, "free", (0, 0, 0), (), (0, 0, 0.6), 40.0, (0, 0, 0.1), np.diag([1.5, 1.2, 0.4]))
    return BodyModel((torso, *legs))


def test_the_numbering_follows_the_paper():
    """Fig. 11: torso link 0; right hip joints 1-3, left hip joints 4-6 (a multi-DoF joint's hinges are
    consecutive, a left branch before a right one in the model's order)."""
    split = hinges(three_link())
    assert split.n_joints == 6
    assert split.names == ("torso:base", "thigh_r:0", "thigh_r:1", "thigh_r:2", "thigh_l:0", "thigh_l:1", "thigh_l:2")
    np.testing.assert_array_equal(split.segment, [0, 1, 1, 1, 2, 2, 2])
    np.testing.assert_array_equal(split.first, [-1, 1, 4])


@pytest.mark.parametrize("weld_head", [False, True])
def test_hinge_coordinates_and_back(weld_head):
    """Model -> hinges (scipy's Euler angles, ``ė = J⁻¹ ω``) -> model (the kernels' quaternion products,
    ``ω = J ė``, ``ω̇ = J ë + Σ w_j × w_k``) is the identity; a ball's hinge torques ``Q = Jᵀ n`` deliver the
    ball's power ``n · ω``."""
    model = humanoid(weld_head=weld_head)
    split = hinges(model)
    q, v, a = analytic_motion(model, np.random.default_rng(4), np.linspace(0, 2, 9))
    theta, rate, acc = hinge_coordinates(model, split, q, v, a)
    back_q, back_v, back_a = model_coordinates(model, split, theta, rate, acc, q[0])
    np.testing.assert_allclose(back_v[:, 6:], v[:, 6:], atol=1e-9)
    np.testing.assert_allclose(back_a[:, 6:], a[:, 6:], atol=1e-8 * np.abs(a).max())
    for k, (s, qs) in enumerate(zip(model.segments[1:], model.q_starts[1:]), start=1):
        if s.joint == "ball":  # the same rotation (a quaternion's sign is free)
            np.testing.assert_allclose(quat_to_matrix(back_q[:, qs:qs + 4]), quat_to_matrix(q[:, qs:qs + 4]),
                                       atol=1e-12)
            n = np.random.default_rng(k).normal(size=(len(q), 3))
            _, jac = ball_jacobian(q[:, qs:qs + 4])
            joints = slice(split.first[k], split.first[k] + 3)
            np.testing.assert_allclose(np.einsum("tij,ti,tj->t", jac, n, rate[:, joints]),
                                       np.einsum("ti,ti->t", n, v[:, model.v_starts[k]:model.v_starts[k] + 3]))
        else:
            np.testing.assert_array_equal(back_q[:, qs:qs + s.nq], q[:, qs:qs + s.nq])


def test_floating_hinge_torques_equal_the_free_floating_simulation():
    """Zero momentum, no gravity: the minimum-torque kernel's hinge torques are those of ``free_floating``
    (its base from the momentum equation, its torques from the RNEA of the whole motion), ``Q = Jᵀ n`` on the
    balls' hinges; and its partial derivatives in ``θ̈`` are those of a motion changed in ``θ̈`` alone."""
    from mocap_dynamics.solver.zerog import self_orientation
    model = humanoid()
    result = self_orientation(model, "sequence", angle_deg=50, duration_s=0.4, rate_hz=50)
    split = hinges(model)
    d = result.dynamics
    theta, rate, acc = hinge_coordinates(model, split, d.q, d.v, d.a)
    expected = np.zeros_like(theta)
    for k, (s, qs, vs) in enumerate(zip(model.segments, model.q_starts, model.v_starts)):
        if split.first[k] < 0:
            continue
        tau = d.generalized_forces[:, vs:vs + s.nv]
        if s.joint == "ball":
            tau = np.einsum("tij,ti->tj", ball_jacobian(d.q[:, qs:qs + 4])[1], tau)
        expected[:, split.first[k]:split.first[k] + tau.shape[1]] = tau
    moving = np.array([split.first[model.index("thigh_l")]])
    tau, partial = np.empty_like(theta), np.empty((len(theta), 3, 1, theta.shape[1]))
    _torques_and_partials(0, len(theta), model.tree, split.first, theta, rate, acc, moving, tau, partial)
    np.testing.assert_allclose(tau, expected, atol=1e-9 * np.abs(expected).max())
    assert np.abs(expected).max() > 0.5
    bumped = acc.copy()
    bumped[:, moving[0]] += 1.0
    changed = np.empty_like(tau)
    _torques_and_partials(0, len(theta), model.tree, split.first, theta, rate, bumped, moving, changed, partial.copy())
    np.testing.assert_allclose(changed - tau, partial[:, 2, 0], atol=1e-6 * np.abs(partial[:, 2, 0]).max())
