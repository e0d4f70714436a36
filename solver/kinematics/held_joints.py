"""A reconstruction of the ``tracked_model`` made a motion of the model itself: its held joints set.

The held joints (``model.held``: a marker-less head held upright, ``model.level_head``; a lower-body set's
trunk following the pelvis's slow motion, ``following_trunk``) follow their parents' orientations, so they are
set once the rest is reconstructed. A motion with its own velocities and accelerations (Lee's estimator) gets
the held joints' by differences of their quaternions (second order, one-sided at the ends), exact to O(Δt²)
for the smooth parent orientations that estimator returns.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..model.body import BodyModel
from ..model.held import held_segments
from ..model.level_head import level_joint
from ..rotations import body_rate, quat_continuity
from .following_trunk import following_joint
from .motion import Motion


def held_joint(rule: str, parent_rotation: np.ndarray, times: np.ndarray) -> np.ndarray:
    """The quaternions ``(T, 4)`` of a joint held by ``rule`` (``model.body.HELD_RULES``) under a parent of world
    rotations ``(T, 3, 3)`` at ``times`` [s]."""
    return level_joint(parent_rotation) if rule == "level" else following_joint(parent_rotation, times)


def set_held_joints(motion: Motion, model: BodyModel) -> Motion:
    """``motion`` (of ``tracked_model(model)``) as a motion of ``model``; unchanged if nothing is held."""
    held = held_segments(model)
    if not held:
        return motion
    quats = {k: quat_continuity(held_joint(model.segments[k].held, motion.rotations[:, model.segments[k].parent],
                                           motion.times)) for k in held}
    q = _insert(motion.q, quats, model.q_starts, 4)
    rotations, positions = model.forward_kinematics(q)
    extra = {}
    if motion.v is not None and motion.a is not None:
        dt = float(np.mean(np.diff(motion.times)))
        rate = {k: np.gradient(quat, dt, axis=0, edge_order=2) for k, quat in quats.items()}
        second = {k: np.gradient(r, dt, axis=0, edge_order=2) for k, r in rate.items()}
        extra["v"] = _insert(motion.v, {k: body_rate(quats[k], rate[k]) for k in held}, model.v_starts, 3)
        extra["a"] = _insert(motion.a, {k: body_rate(quats[k], second[k]) for k in held}, model.v_starts, 3)
    return replace(motion, model=model, q=q, rotations=rotations, positions=positions, **extra)


def _insert(tracked: np.ndarray, columns: dict, starts: np.ndarray, width: int) -> np.ndarray:
    """The tracked layout's ``(T, n)`` array with each held segment ``k``'s ``columns[k]`` ``(T, width)`` put at
    ``starts[k]`` (the model's ``q_starts`` or ``v_starts``)."""
    out = np.empty((len(tracked), tracked.shape[1] + width * len(columns)))
    kept = np.ones(out.shape[1], dtype=bool)
    for k, values in columns.items():
        first = starts[k]
        out[:, first:first + width] = values
        kept[first:first + width] = False
    out[:, kept] = tracked
    return out
