"""Rest-pose alignment, two-bone IK and the foot lock against closed forms and constructed motions."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.retarget.alignment import facing, frame_alignment, swing, turn_about_up
from mocap_dynamics.solver.retarget.foot_lock import pins
from mocap_dynamics.solver.retarget.ik import two_bone_ik


def _is_rotation(r):
    np.testing.assert_allclose(r @ np.swapaxes(r, -1, -2), np.broadcast_to(np.eye(3), r.shape), atol=1e-12)
    np.testing.assert_allclose(np.linalg.det(r), 1.0, atol=1e-12)


def test_swing_is_the_shortest_arc_including_opposite_directions():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(50, 3)), rng.normal(size=(50, 3))
    a[0], b[0] = [0, 0, 1], [0, 0, -3]  # opposite
    r = swing(a, b)
    _is_rotation(r)
    unit = lambda v: v / np.linalg.norm(v, axis=-1, keepdims=True)  # noqa: E731
    np.testing.assert_allclose(np.einsum("nij,nj->ni", r, unit(a)), unit(b), atol=1e-12)
    angle = np.arccos(np.clip((np.trace(r, axis1=1, axis2=2) - 1) / 2, -1, 1))
    np.testing.assert_allclose(angle, np.arccos(np.clip(np.sum(unit(a) * unit(b), 1), -1, 1)), atol=1e-9)


def test_facing_turn_and_frame_alignment():
    assert facing(np.array([0.0, 1.0, 0.0])) == pytest.approx([1.0, 0.0, 0.0])  # left +Y: faces +X
    assert facing(np.array([1.0, 0.0, 0.3])) == pytest.approx([0.0, -1.0, 0.0])  # left +X: faces -Y
    turn = turn_about_up(np.array([0.0, -1.0, 0.0]), np.array([1.0, 0.0, 0.0]))
    assert turn @ [0.0, -1.0, 0.0] == pytest.approx([1.0, 0.0, 0.0]) and turn[2] == pytest.approx([0, 0, 1])
    r = frame_alignment(np.array([1.0, 0, 0]), np.array([0.2, 0, 1.0]), np.array([0, 0, -1.0]), np.array([1.0, 0, 0]))
    assert r @ [1.0, 0, 0] == pytest.approx([0, 0, -1.0]) and r @ [0, 0, 1.0] == pytest.approx([1.0, 0, 0])


def test_two_bone_ik_reaches_keeps_lengths_and_bends_towards_the_pole():
    rng = np.random.default_rng(1)
    hip = rng.normal(size=(200, 3))
    goal = hip + rng.normal(size=(200, 3)) * 0.4
    pole = rng.normal(size=(200, 3))
    l1, l2 = 0.45, 0.42
    knee, ankle = two_bone_ik(hip, goal, l1, l2, pole)
    np.testing.assert_allclose(np.linalg.norm(knee - hip, axis=1), l1, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(ankle - knee, axis=1), l2, atol=1e-12)
    dist = np.linalg.norm(goal - hip, axis=1)
    reachable = (dist < 0.999 * (l1 + l2)) & (dist > abs(l1 - l2) * 1.001)
    assert reachable.sum() > 100
    np.testing.assert_allclose(ankle[reachable], goal[reachable], atol=1e-12)
    u = (goal - hip) / dist[:, None]
    bend = knee - hip - np.sum((knee - hip) * u, axis=1, keepdims=True) * u
    side = pole - np.sum(pole * u, axis=1, keepdims=True) * u
    assert np.all(np.sum(bend * side, axis=1) > 0), "the knee points to the pole's side"
    far = ~reachable & (dist > l1)
    np.testing.assert_allclose(np.linalg.norm(ankle[far] - hip[far], axis=1), 0.999 * (l1 + l2), atol=1e-12)


def test_pins_hold_each_stance_at_its_stillest_frame_and_ease_in_and_out():
    planted = np.zeros(60, bool)
    planted[10:25] = planted[31:50] = True
    speed = np.abs(np.arange(60) - 18.0)
    speed[31:50] = np.abs(np.arange(31, 50) - 40.0)
    weight, pin, anchor = pins(planted, speed, blend=5)
    assert np.all(weight[planted] == 1.0) and set(pin[10:25]) == {18} and set(pin[31:50]) == {40}
    assert np.all(weight[:5] == 0) and 0 < weight[5] < weight[9] < 1, "eases in over five frames"
    assert np.all(weight[25:28] > 0) and np.all(weight[28:31] > 0), "a six-frame gap is shared: three each"
    assert anchor[27] == 24 and anchor[28] == 31 and anchor[12] == 12
    assert np.all(np.diff(weight[50:56]) < 0) and weight[55] == 0
