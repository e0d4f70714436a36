"""Per-segment rigid fits of a calibrated model to a trial's markers, every frame at once.

Each segment's markers are fitted by least squares (``rotations.fit_rigid``,
Lee 2009 §5.1); a segment with fewer than three markers adds its proximal
joint centre, placed by its parent's fit (one with a single marker turns
toward it, about its hinge or by the shortest arc: ``turn_towards``); a
segment held level follows its rule (``level_head``), and one following the
pelvis's slow motion, which needs a time base, starts welded (``model.held``).
The per-frame fit gives the cluster residuals (how rigid each marker cluster
is). The fitted rotations, reduced to what each joint allows
(``frames.project_joint``) and chained from the root, give generalized
coordinates ``q`` in the ``BodyModel`` layout: a starting pose per frame for
reconstruction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rotations import fit_rigid, matrix_to_quat, quat_from_axis_angle, quat_to_matrix
from .body import BodyModel
from .frames import project_joint
from .level_head import level_joint
from .markersets import normalize


@dataclass(frozen=True)
class SegmentFit:
    """``q`` ``(T, nq)`` (NaN where a segment could not be fitted), ``valid`` ``(T,)`` frames where every
    segment was fitted, ``marker_errors`` ``(T, M)`` [m] distance of each model marker (``marker_labels``
    order) from its segment's rigid fit (NaN where the marker is missing)."""

    q: np.ndarray
    valid: np.ndarray
    marker_errors: np.ndarray


def marker_indices(model: BodyModel, labels) -> np.ndarray:
    """Index in ``labels`` of each model marker (-1 where the trial lacks it); labels match as in marker sets."""
    index = {normalize(label): i for i, label in enumerate(labels)}
    return np.array([index.get(normalize(m), -1) for m in model.marker_labels], dtype=int)


def turn_towards(joint: str, axes: np.ndarray, local: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Quaternions (T, 4) of the joint's turns that bring the vector ``local`` nearest the vectors ``target``
    (T, 3): a segment with one marker and its joint centre, two points, which a rigid fit cannot place. A hinge
    turns about its unit axis ``axes[0]``; a ball joint swings by the shortest arc, without turning about the
    line (the chain's other markers fix that turn in reconstruction)."""
    if joint == "hinge":
        axis = axes[0]

        def across(v: np.ndarray) -> np.ndarray:
            return v - np.sum(v * axis, axis=-1, keepdims=True) * axis

        v, u = across(local), across(target)
        return quat_from_axis_angle(axis, np.arctan2(np.sum(axis * np.cross(v, u), axis=-1), np.sum(v * u, axis=-1)))
    v = local / np.linalg.norm(local)
    u = target / np.linalg.norm(target, axis=-1, keepdims=True)
    q = np.concatenate([1.0 + np.sum(v * u, axis=-1, keepdims=True), np.cross(v, u)], axis=-1)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def fit_segments(model: BodyModel, labels, markers: np.ndarray) -> SegmentFit:
    """Fit every segment of ``model`` to ``markers`` ``(T, M, 3)`` labelled ``labels``."""
    markers = np.asarray(markers, dtype=float)
    n_frames = markers.shape[0]
    where = marker_indices(model, labels)
    measured = np.where(where >= 0, 1.0, np.nan)[None, :, None] * markers[:, np.maximum(where, 0)]
    rot = np.empty((n_frames, len(model.segments), 3, 3))
    pos = np.empty((n_frames, len(model.segments), 3))
    q = np.empty((n_frames, model.nq))
    errors = np.full(measured.shape[:2], np.nan)
    first = 0
    for k, (s, i) in enumerate(zip(model.segments, model.q_starts)):
        cols = slice(first, first + len(s.markers))
        first += len(s.markers)
        points, local = measured[:, cols], s.marker_offsets
        if k:
            joint_centre = pos[:, s.parent] + np.einsum("tij,j->ti", rot[:, s.parent], s.joint_offset)
        if k and s.joint != "weld" and len(s.markers) < 3:
            points = np.concatenate([points, joint_centre[:, None]], axis=1)
            local = np.concatenate([local, np.zeros((1, 3))])
        if k and (s.joint == "weld" or s.held == "follow"):
            fit_rot, fit_pos = rot[:, s.parent], joint_centre
        elif k and s.joint in ("hinge", "ball") and len(s.markers) == 1:
            fit_rot = rot[:, s.parent] @ quat_to_matrix(turn_towards(
                s.joint, s.axes, s.marker_offsets[0],
                np.einsum("tji,tj->ti", rot[:, s.parent], points[:, 0] - joint_centre)))
            fit_pos = joint_centre
        elif s.held == "level":
            fit_rot, fit_pos = rot[:, s.parent] @ quat_to_matrix(level_joint(rot[:, s.parent])), joint_centre
        else:
            quat, fit_pos = fit_rigid(points, local)
            fit_rot = quat_to_matrix(quat)
        if s.markers:
            model_pts = fit_pos[:, None] + np.einsum("tij,mj->tmi", fit_rot, s.marker_offsets)
            errors[:, cols] = np.linalg.norm(measured[:, cols] - model_pts, axis=-1)
        if k == 0:
            rot[:, 0], pos[:, 0] = fit_rot, fit_pos
            q[:, 0:3], q[:, 3:7] = fit_pos, matrix_to_quat(fit_rot)
            continue
        parent_rot = rot[:, s.parent]
        joint_rot, coords = project_joint(s.joint, s.axes, np.swapaxes(parent_rot, -1, -2) @ fit_rot)
        rot[:, k] = parent_rot @ joint_rot
        pos[:, k] = joint_centre
        q[:, i:i + s.nq] = coords
    return SegmentFit(q=q, valid=~np.isnan(q).any(axis=1), marker_errors=errors)
