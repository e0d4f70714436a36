"""Segments without markers whose joints are set by a rule from their parents' orientations, not measured.

Beyond the papers, which carry such segments rigidly on their parents (``head="welded"`` keeps that). Two
rules, each a ``Segment.held`` value (``body.HELD_RULES``):

- ``"level"``: a head without markers, held upright facing where the torso faces (``level_head``);
- ``"follow"``: a lower-body marker set's head, arms and trunk (``templates.with_hat``), following the pelvis's
  slow motion, not its gait oscillations (``kinematics.following_trunk``).

Reconstruction (OTM, Lee) solves the ``tracked_model`` (held segments welded, as the markers see them) and the
held joints are set afterwards (``kinematics.held_joints``); inverse dynamics, the rig and the reports see the
model with them.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .body import BodyModel
from .level_head import HEAD

#: The segment of a lower-body marker set that follows the pelvis (``templates.with_hat``).
HAT = "hat"
#: What each rule does, in the calibration's notes.
DESCRIPTIONS = {"level": "held level (upright, facing where its parent faces)",
                "follow": "follows the pelvis's slow motion (its lean, not its gait oscillations)"}


def held_segments(model: BodyModel) -> list[int]:
    """Indices of the segments the model holds by a rule."""
    return [k for k, s in enumerate(model.segments) if s.held]


def with_held_segments(model: BodyModel) -> BodyModel:
    """``model`` with its marker-less welded head held level and a lower-body set's HAT following the pelvis,
    each on a ball joint (unchanged without them)."""
    rules = {HEAD: "level", HAT: "follow"}
    segments = [replace(s, joint="ball", axes=np.zeros((0, 3)), held=rules[s.name])
                if s.name in rules and s.joint == "weld" and not s.markers else s for s in model.segments]
    return replace(model, segments=tuple(segments))


def tracked_model(model: BodyModel) -> BodyModel:
    """``model`` as the markers see it: every held segment welded at its neutral posture."""
    if not held_segments(model):
        return model
    segments = [replace(s, joint="weld", held="") if s.held else s for s in model.segments]
    return replace(model, segments=tuple(segments))


def tracked_coordinates(model: BodyModel, q: np.ndarray) -> np.ndarray:
    """``q`` ``(..., nq)`` of ``model`` without the held segments' columns (``tracked_model``'s layout)."""
    keep = np.ones(model.nq, dtype=bool)
    for k in held_segments(model):
        start = model.q_starts[k]
        keep[start:start + model.segments[k].nq] = False
    return np.asarray(q)[..., keep]
