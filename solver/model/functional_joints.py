"""Functional joint centres and hinge axes from the relative motion of two marker groups (vectorized).

A marker group has a *frame* per frame of the trial when it has at least three
points: its rigid pose is the least-squares fit of its reference shape
(``cluster_shape``, a generalized Procrustes mean) to the points present
(``rotations.fit_rigid``). Two estimators, both linear least squares over
every frame at once:

- ``sphere_fit``: points of the child expressed in the parent frame, each on
  its own sphere about one common centre ``c``: the algebraic least-squares
  sphere fit ``|pᵢₜ - c|² = rᵢ²``, i.e. ``2 pᵢₜ·c + kᵢ = |pᵢₜ|²`` with
  ``kᵢ = rᵢ² - |c|²`` (the multi-marker problem of Gamage & Lasenby 2002, J
  Biomech 35:87, solved here by eliminating the ``kᵢ``). Works for a child of
  one or two markers.
- ``score``: SCoRE (Ehrig et al. 2006, J Biomech 39:2798): the point fixed in
  both frames, ``min Σₜ |R₁ₜ c₁ + t₁ₜ - R₂ₜ c₂ - t₂ₜ|²``.
  Its ``axis`` and ``child_axis`` are SARA's (Ehrig et al. 2007, J Biomech
  40:2150): for a hinge, the system's right singular vector of the smallest
  singular value is the axis, in both frames.

A joint that moved little about one axis (a hinge, or a ball joint used like
one) leaves the centre poorly determined along that axis. The solves are
therefore damped (Tikhonov, ``λ = DAMPING × s_max``): directions whose
singular value is far below the largest keep the centre near a reference
(where the two groups touch: midway between their closest points) instead of
following noise; well-determined directions are hardly moved. The papers
solve undamped (``damping=0`` gives their solution); the damping and the
reference are ours. Every fit returns the least-determined direction (the
rotation axis; SARA's axis for ``score``) and its ``conditioning`` (smallest
over second-smallest singular value; near 0 for a clean hinge).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rotations import fit_rigid, quat_to_matrix

#: Tikhonov damping of the centre, relative to the largest singular value.
DAMPING = 0.01
#: Below this conditioning a joint is reported as a hinge.
HINGE_CONDITIONING = 0.3
#: A fit needs every point seen in this many frames (with the other side's frame).
MIN_SAMPLES = 20


@dataclass(frozen=True)
class Frames:
    """Rigid poses of a point group: ``rot`` ``(T, 3, 3)``, ``origin`` ``(T, 3)``; NaN where fewer than three
    points were seen. ``shape`` ``(S, 3)`` is the group's reference shape (its points in the frame)."""

    rot: np.ndarray
    origin: np.ndarray
    shape: np.ndarray

    def to_local(self, points: np.ndarray) -> np.ndarray:
        """World points ``(T, ..., 3)`` in this frame."""
        rel = points - self.origin.reshape(self.origin.shape[:1] + (1,) * (points.ndim - 2) + (3,))
        return np.einsum("tji,t...j->t...i", self.rot, rel)

    def to_world(self, local: np.ndarray) -> np.ndarray:
        """A fixed local point ``(3,)`` as a world trajectory ``(T, 3)``."""
        return self.origin + np.einsum("tij,j->ti", self.rot, local)

    def to_world_points(self) -> np.ndarray:
        """The reference shape's points as world trajectories ``(T, S, 3)``."""
        return self.origin[:, None] + np.einsum("tij,sj->tsi", self.rot, self.shape)


@dataclass(frozen=True)
class JointFit:
    """A functional joint: centre in the parent (and, for SCoRE, child) frame, its world trajectory
    ``(T, 3)``, the RMS residual [m], the conditioning and the rotation axis (unit, least-determined
    direction; parent frame, and child frame for SCoRE) (see the module docstring)."""

    centre: np.ndarray
    world: np.ndarray
    rms: float
    conditioning: float
    axis: np.ndarray
    child_centre: np.ndarray | None = None
    child_axis: np.ndarray | None = None

    @property
    def hinge(self) -> bool:
        return self.conditioning < HINGE_CONDITIONING


def cluster_shape(points: np.ndarray, iterations: int = 3) -> np.ndarray:
    """Reference shape ``(S, 3)`` of a point group ``(T, S, 3)`` (NaN = missing): generalized Procrustes mean,
    started from the frame that sees the most points, centred on its centroid."""
    seen = ~np.isnan(points).any(-1)
    first = points[int(np.argmax(seen.sum(1)))]
    shape = first - np.nanmean(first, axis=0)
    if np.isnan(shape).any():  # points unseen in that frame: their median offset from the frame's centroid
        centred = points - np.nanmean(points, axis=1, keepdims=True)
        shape = np.where(np.isnan(shape), np.nanmedian(centred, axis=0), shape)
    for _ in range(iterations):
        frames = rigid_frames(points, shape)
        local = frames.to_local(points)
        shape = np.nanmedian(local, axis=0)
        shape = shape - shape.mean(axis=0)
    return shape


def rigid_frames(points: np.ndarray, shape: np.ndarray | None = None) -> Frames:
    """Per-frame rigid poses of ``points`` ``(T, S, 3)`` (at least three points) fitted to ``shape``."""
    shape = cluster_shape(points) if shape is None else shape
    with np.errstate(invalid="ignore"):
        quat, origin = fit_rigid(points, shape)
    return Frames(quat_to_matrix(quat), origin, shape)


def _damped_solve(a: np.ndarray, b: np.ndarray, damping: float) -> tuple[np.ndarray, float, np.ndarray]:
    """Least squares ``a x = b``, Tikhonov-damped by ``damping × s_max``; returns x, the conditioning
    (smallest / second-smallest singular value) and the least-determined direction."""
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    conditioning = float(s[-1] / s[-2]) if s[-2] > 0 else 0.0
    lam = damping * s[0]
    x = vt.T @ ((s / (s ** 2 + lam ** 2)) * (u.T @ b))
    return x, conditioning, vt[-1]


def sphere_fit(local: np.ndarray, reference: np.ndarray | None = None, damping: float = DAMPING):
    """Common centre of points ``(T, K, 3)`` each moving on its own sphere (parent-frame coordinates).

    The radii are eliminated by centring each point's equations on its mean (the least-squares
    solution for ``c`` is unchanged), leaving ``2 (pᵢₜ - p̄ᵢ)·c = |pᵢₜ|² - mean(|pᵢ|²)``, solved relative
    to ``reference`` (default the points' mean). Returns ``(centre, rms, conditioning, axis)``: the RMS
    of ``|p - c| - rᵢ`` over samples and the least-determined direction.
    """
    reference = np.nanmean(local.reshape(-1, 3), axis=0) if reference is None else np.asarray(reference, float)
    p = local - reference
    t_idx, k_idx = np.nonzero(~np.isnan(p).any(-1))
    pts = p[t_idx, k_idx]
    n_points = local.shape[1]
    counts = np.maximum(np.bincount(k_idx, minlength=n_points), 1)
    mean = np.stack([np.bincount(k_idx, pts[:, j], n_points) for j in range(3)], axis=1) / counts[:, None]
    square = np.sum(pts ** 2, axis=1)
    rhs = square - (np.bincount(k_idx, square, n_points) / counts)[k_idx]
    centre, conditioning, axis = _damped_solve(2 * (pts - mean[k_idx]), rhs, damping)
    dist = np.linalg.norm(pts - centre, axis=1)
    radius = np.bincount(k_idx, dist, n_points) / counts
    rms = float(np.sqrt(np.mean((dist - radius[k_idx]) ** 2)))
    return centre + reference, rms, conditioning, axis


def fit_in_parent(parent: Frames, child_points: np.ndarray, damping: float = DAMPING) -> JointFit | None:
    """Sphere fit of the child's points ``(T, K, 3)`` (world) in the parent frame; None when a point was
    seen with the parent's frame in fewer than ``MIN_SAMPLES`` frames."""
    local = parent.to_local(child_points)
    if (~np.isnan(local).any(-1)).sum(axis=0).min() < MIN_SAMPLES:
        return None
    centre, rms, conditioning, axis = sphere_fit(local, _contact(parent.shape, local), damping)
    return JointFit(centre, parent.to_world(centre), rms, conditioning, axis)


def _contact(shape: np.ndarray, local: np.ndarray) -> np.ndarray:
    """Where two groups touch (in the first group's frame): midway between the closest pair of their points
    (``shape`` ``(S, 3)`` and the other group's points ``(T, K, 3)``), the reference of a damped fit."""
    other = np.nanmedian(local, axis=0)
    dist = np.linalg.norm(shape[:, None] - other[None], axis=-1)
    i, k = np.unravel_index(np.nanargmin(dist), dist.shape)
    return 0.5 * (shape[i] + other[k])


def _score_system(parent: Frames, child: Frames) -> tuple[np.ndarray, np.ndarray]:
    """SCoRE's stacked system ``[R₁ -R₂] [c₁; c₂] = t₂ - t₁`` over the frames where both have a pose."""
    ok = ~(np.isnan(parent.rot).any((1, 2)) | np.isnan(child.rot).any((1, 2)))
    a = np.concatenate([parent.rot[ok], -child.rot[ok]], axis=2).reshape(-1, 6)
    b = (child.origin[ok] - parent.origin[ok]).reshape(-1)
    return a, b


def score(parent: Frames, child: Frames, damping: float = DAMPING) -> JointFit | None:
    """SCoRE: the point fixed in both frames; its ``axis``/``child_axis`` are SARA's. None with
    fewer than ``MIN_SAMPLES`` frames where both groups have a pose."""
    a, b = _score_system(parent, child)
    if len(a) < 3 * MIN_SAMPLES:
        return None
    contact_parent = _contact(parent.shape, parent.to_local(child.to_world_points()))
    contact_child = _contact(child.shape, child.to_local(parent.to_world_points()))
    reference = np.concatenate([contact_parent, contact_child])
    x, conditioning, null = _damped_solve(a, b - a @ reference, damping)
    c_parent, c_child = x[:3] + reference[:3], x[3:] + reference[3:]
    world_parent, world_child = parent.to_world(c_parent), child.to_world(c_child)
    with np.errstate(invalid="ignore"):
        rms = float(np.sqrt(np.nanmean(np.sum((world_parent - world_child) ** 2, axis=1)) / 4))
    return JointFit(c_parent, 0.5 * (world_parent + world_child), rms, conditioning, _unit(null[:3]), c_child,
                    _unit(null[3:]))


def turned(parent: Frames, child: Frames) -> float:
    """How far the child turns relative to the parent [deg]: the 95th percentile over frames of the angle from
    its relative orientation in the first frame where both have a pose (0 when there is none). A fit needs the
    joint to move: still (a static trial), any point is fixed in both frames."""
    rel = np.einsum("tji,tjk->tik", parent.rot, child.rot)
    ok = ~np.isnan(rel).any((1, 2))
    if not ok.any():
        return 0.0
    rel = rel[ok]
    cos = (np.einsum("ji,tji->t", rel[0], rel) - 1) / 2
    return float(np.degrees(np.percentile(np.arccos(np.clip(cos, -1, 1)), 95)))


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)
