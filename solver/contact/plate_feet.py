"""Which foot a force plate measures, frame by frame, for the comparison with the plates.

Beyond the papers. A plate's stance (a run of frames with its vertical force above the contact threshold) need not
belong to one foot: on a split-belt treadmill a foot lands across both belts while the other is still leaving one of
them (a crossover step), and overground one foot may step on a plate the other has not yet left. Given to one foot
for the whole run, the other foot's load counted as its own: a split-belt walk's per-foot vertical force from motion
alone missed its plates by 12.6 and 12.1 % BW RMS and its offsets by 147 and 41 ms, where it followed the belts'
total within 3.7 % BW; attributed as below, and each belt split between the feet where it carries both, 5.4 and 4.5
% BW and 9 ms on average (docs/validation.md).

So the plate's load goes, in each frame, to the foot owning the contact point nearest the plate's centre of
pressure, as the torques with the plates apply it (``dynamics.plates``); the frames without a centre of pressure or
a pose take the foot whose points lie nearest it over the whole stance, and a plate split between the feet
(``shared_plates``) its own foot. Where the estimate loads both feet inside a plate's outline, the plate measures
their sum: the pipeline splits it between them (``shared_plates``), and compared unsplit those frames are left out.
A stance is cut where its foot changes: a hand-over, which is neither the first foot's offset nor the second's onset
(their timing is not measured there).
"""

from __future__ import annotations

import numpy as np


#: A plate frame that the estimate has two feet load, inside the plate's outline, with the comparison's contact
#: threshold each: neither foot's share is measured.
SHARED = -2


def feet_of_plates(positions: np.ndarray, segments: np.ndarray, load: np.ndarray, feet: list[int],
                   corners: np.ndarray, cop: np.ndarray, threshold: float) -> np.ndarray:
    """(T, P) the index into ``feet`` (segment indices) of the foot each plate measures in each frame: the foot
    owning the contact point nearest its centre of pressure ``cop`` (T, P, 3), -1 where that or the feet's pose is
    missing; ``SHARED`` where the estimate's vertical ``load`` (T, K) [N] on the points inside the plate's outline
    (``corners`` (P, 4, 3); none without corners) reaches ``threshold`` [N] on two feet. ``positions`` (T, K, 3) and
    ``segments`` (K,): the contact points'."""
    if not feet:
        return np.full(cop.shape[:2], -1)
    distance = np.full(cop.shape[:2] + (len(feet),), np.inf)
    inside = np.zeros(cop.shape[:2] + (len(feet),))
    load = np.nan_to_num(load).clip(0.0)
    for k, foot in enumerate(feet):
        mine = segments == foot
        apart = np.linalg.norm(positions[:, None, mine] - cop[:, :, None], axis=-1)  # (T, P, K_f)
        if apart.shape[-1]:
            distance[..., k] = np.where(np.isnan(apart), np.inf, apart).min(axis=-1)
        for p, outline in enumerate(corners):
            if has_outline(outline):
                inside[:, p, k] = np.where(outside(outline, positions[:, mine, :2], 0.0), 0.0, load[:, mine]).sum(1)
    owner = np.where(np.isfinite(distance).any(axis=-1), np.argmin(distance, axis=-1), -1)
    return np.where((inside >= threshold).sum(axis=-1) >= 2, SHARED, owner)


def has_outline(corners: np.ndarray) -> bool:
    """Whether a plate's ``corners`` (4, 3) make an outline (not NaN, as OpenSim GRF files give, nor zeros)."""
    c = corners[:, :2]
    return bool(np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1).min() > 0)


def outside(corners: np.ndarray, points: np.ndarray, margin: float) -> np.ndarray:
    """(...) whether each horizontal point (..., 2) lies over ``margin`` [m] outside the convex outline of
    ``corners`` (4, 3), in order around the plate (NaN points, and corners that make no outline, such as the
    zeros some files write: not outside)."""
    c = corners[:, :2]
    edges = np.roll(c, -1, axis=0) - c
    if not np.linalg.norm(edges, axis=1).min() > margin:
        return np.zeros(points.shape[:-1], dtype=bool)
    turning = np.sign(np.sum(c[:, 0] * np.roll(c[:, 1], -1) - np.roll(c[:, 0], -1) * c[:, 1]))
    outward = turning * np.stack([edges[:, 1], -edges[:, 0]], axis=1) / np.linalg.norm(edges, axis=1)[:, None]
    with np.errstate(invalid="ignore"):
        return np.einsum("...ej,ej->...e", points[..., None, :] - c, outward).max(-1) > margin


def pieces(owner: np.ndarray, whole: int) -> list[tuple[int, int, int]]:
    """A plate stance's frames cut where the foot ``owner`` (per frame, -1: the stance's foot ``whole``; or
    ``SHARED``) changes: ``(start, end, foot)`` relative to the stance's first frame."""
    owner = np.where(owner == -1, whole, owner)
    bounds = [0, *(np.flatnonzero(np.diff(owner)) + 1).tolist(), len(owner)]
    return [(a, b, int(owner[a])) for a, b in zip(bounds[:-1], bounds[1:])]
