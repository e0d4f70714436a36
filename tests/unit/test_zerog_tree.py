"""Badler et al. §2: the dynamic tree of 1-DoF joints with dummy links is numbered as the paper says and has
exactly the dynamics of the body model it comes from (RNEA in joint frames vs our world-frame RNEA)."""

import numpy as np
import pytest

from mocap_dynamics.solver.dynamics import GRAVITY, rnea
from mocap_dynamics.solver.model.body import BodyModel, Segment
from mocap_dynamics.solver.rotations import quat_to_matrix
from mocap_dynamics.solver.zerog.tree import ball_jacobian, dynamic_tree, tree_motion, tree_rnea
from tests.unit.test_dynamics_models import analytic_motion, humanoid


def three_link():
    """Badler's Fig. 11 body: a torso and two legs on ball hips."""
    legs = [Segment(f"thigh_{s}", 0, "ball", (0, y, -0.3), (), (0, 0, -0.8), 10.0, (0, 0, -0.4),
                    np.diag([0.5, 0.5, 0.05])) for s, y in (("r", -0.1), ("l", 0.1))]
    torso = Segment("torso", -1, "free", (0, 0, 0), (), (0, 0, 0.6), 40.0, (0, 0, 0.1), np.diag([1.5, 1.2, 0.4]))
    return BodyModel((torso, *legs))


def test_the_numbering_follows_the_paper():
    """Fig. 11: torso link 0; right hip joints 1-3, left hip joints 4-6; links 1, 2, 4, 5 are dummies."""
    tree = dynamic_tree(three_link())
    assert tree.n_joints == 6
    np.testing.assert_array_equal(tree.parent, [-1, 0, 1, 2, 0, 4, 5])
    np.testing.assert_array_equal(np.flatnonzero(tree.dummy), [1, 2, 4, 5])
    assert tree.names[1:4] == ("thigh_r:0", "thigh_r:1", "thigh_r:2")
    # a link's root joint precedes its branch joints; a multi-DoF joint gets consecutive numbers
    assert all(tree.parent[i] < i for i in range(1, len(tree.parent)))
    # every joint local frame is a rotation and the hips' local z-axes are the split's axes
    np.testing.assert_allclose(np.einsum("jik,jil->jkl", tree.rotation, tree.rotation), np.tile(np.eye(3), (7, 1, 1)),
                               atol=1e-15)


@pytest.mark.parametrize("weld_head", [False, True])
def test_the_dynamic_tree_reproduces_the_inverse_dynamics(weld_head):
    model = humanoid(weld_head=weld_head)
    tree = dynamic_tree(model)
    assert tree.mass.sum() == pytest.approx(model.total_mass)
    times = np.linspace(0, 2, 9)
    q, v, a = analytic_motion(model, np.random.default_rng(4), times)
    ours = rnea(model, times, q, v, a, gravity=GRAVITY)
    Q, base = tree_rnea(tree, tree_motion(model, tree, q, v, a, gravity=GRAVITY))
    tau = ours.generalized_forces
    for k, (s, vs) in enumerate(zip(model.segments, model.v_starts)):
        joints = np.flatnonzero(tree.segment[1:] == k) + 1
        if k == 0 or s.joint == "weld":
            continue
        expected = tau[:, vs:vs + s.nv]
        if s.joint == "ball":  # Q = Jᵀ n with J the child-frame axes of the split
            _, jac = ball_jacobian(q[:, model.q_starts[k]:model.q_starts[k] + 4])
            expected = np.einsum("tij,ti->tj", jac, expected)
        np.testing.assert_allclose(Q[:, joints], expected, atol=1e-9 * np.abs(tau).max(), err_msg=s.name)
    rot = quat_to_matrix(q[:, 3:7])
    np.testing.assert_allclose(np.einsum("tij,tj->ti", rot, base[:, 3:]), ours.root_wrench[:, :3],
                               atol=1e-9 * np.abs(tau).max())
    np.testing.assert_allclose(np.einsum("tij,tj->ti", rot, base[:, :3]), ours.root_wrench[:, 3:],
                               atol=1e-9 * np.abs(tau).max())


def test_floating_tree_torques_equal_the_free_floating_simulation():
    """Zero momentum, no gravity: the tree's floating-base recursion gives the joint torques of
    ``free_floating`` (world-frame CRBA/RNEA of the body model), split per 1-DoF joint."""
    from mocap_dynamics.solver.zerog import self_orientation
    from mocap_dynamics.solver.zerog.tree import floating_torques
    model = humanoid()
    result = self_orientation(model, "sequence", angle_deg=50, duration_s=0.4, rate_hz=50)
    tree = dynamic_tree(model)
    d = result.dynamics
    motion = tree_motion(model, tree, d.q, d.v, d.a)
    Q = floating_torques(tree, motion.theta, motion.rate, motion.acceleration)
    full, _ = tree_rnea(tree, motion)
    np.testing.assert_allclose(Q, full, atol=1e-9 * np.abs(full).max())
    assert np.abs(full).max() > 0.5
