"""A reconstruction of the ``tracked_model`` made a motion of the model itself: its held joints set.

The held joints (``model.level_head``: a marker-less head held upright) follow their parents' orientations,
so they are set once the rest is reconstructed. A motion with its own velocities and accelerations (Lee's
estimator) gets the held joints' by differences of their quaternions (second order, one-sided at the ends),
exact to O(Δt²) for the smooth parent orientations that estimator returns.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..model.body import BodyModel
from ..model.level_head import held_segments, level_joint
from ..rotations import quat_conj, quat_continuity, quat_mul
from .motion import Motion


def hold_level(motion: Motion, model: BodyModel) -> Motion:
    """``motion`` (of ``tracked_model(model)``) as a motion of ``model``; unchanged if nothing is held."""
    held = held_segments(model)
    if not held:
        return motion
    quats = {k: quat_continuity(level_joint(motion.rotations[:, model.segments[k].parent])) for k in held}
    q = _insert(model, motion.q, quats, "q_starts", 4)
    rotations, positions = model.forward_kinematics(q)
    extra = {}
    if motion.v is not None and motion.a is not None:
        dt = float(np.mean(np.diff(motion.times)))
        rate = {k: np.gradient(quat, dt, axis=0, edge_order=2) for k, quat in quats.items()}
        second = {k: np.gradient(r, dt, axis=0, edge_order=2) for k, r in rate.items()}
        extra["v"] = _insert(model, motion.v, {k: _body(quats[k], rate[k]) for k in held}, "v_starts", 3)
        extra["a"] = _insert(model, motion.a, {k: _body(quats[k], second[k]) for k in held}, "v_starts", 3)
    return replace(motion, model=model, q=q, rotations=rotations, positions=positions, **extra)


def _body(quat: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """``2 vec(q* ⊗ q̇)``: a unit quaternion's rate as the body-frame angular velocity (or acceleration, given q̈)."""
    return 2.0 * quat_mul(quat_conj(quat), rate)[..., 1:]


def _insert(model: BodyModel, tracked: np.ndarray, columns: dict, starts: str, width: int) -> np.ndarray:
    """The tracked layout's ``(T, n)`` array with each held segment's ``columns`` ``(T, width)`` put at its place
    in ``model``'s layout (``starts``: ``"q_starts"`` or ``"v_starts"``)."""
    out = np.empty((len(tracked), tracked.shape[1] + width * len(columns)))
    kept = np.ones(out.shape[1], dtype=bool)
    for k, values in columns.items():
        first = getattr(model, starts)[k]
        out[:, first:first + width] = values
        kept[first:first + width] = False
    out[:, kept] = tracked
    return out
