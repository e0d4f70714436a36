"""Rigid-body fill: a missing marker follows the other markers of its segment as one rigid body.

Over a gap, the segment's motion relative to a frame where the missing marker was seen is the
least-squares rigid motion of its other markers, the donors (``rigid_motions``; Söderkvist & Wedin 1993,
"Determining the movements of the skeleton using well-configured markers", J. Biomech. 26:1473, solve the
same least-squares problem by an SVD). Carried by that motion, the
marker's position in the last frame before the gap and in the first frame after it gives two estimates;
they are blended linearly over the gap, so the fill meets the measured samples at both ends (skin motion
between the two ends is spread evenly). A gap at the start or end of the trial uses its one measured end.
A donor that does not move rigidly with the others over the gap (RMS misfit above ``MAX_DONOR_MISFIT``,
e.g. a mislabelled marker) is dropped and the motion fitted again.

Beyond the paper, the donors are not only the segment's markers: up to ``MAX_NEIGHBOURS`` other markers
whose distance to the missing one varies by at most ``MAX_NEIGHBOUR_SD`` (standard deviation where both
are measured, the rigidity criterion of Kirk, O'Brien & Forsyth 2005) join them when, inside the gap,
their distances to the donors already taken stay within ``MAX_DONOR_MISFIT``. A marker near the joint
(the malleolus for a foot with two other markers, the epicondyles for the forearm, the pelvis markers for
a computed hip-joint centre) so fixes the spin that two segment markers leave free. The fit weighs each
donor by ``1 / (sd² + DISTANCE_SD_FLOOR²)``, so the segment's own markers count most.
"""

from __future__ import annotations

import numpy as np

from ...rotations import fit_rigid, quat_to_matrix
from .gaps import ramp

#: Fewest donors that fix a rigid motion; their spread [m] must exceed ``MIN_SPREAD`` in two directions.
MIN_DONORS = 3
MIN_SPREAD = 0.01
MAX_DONOR_MISFIT = 0.004  # m, RMS over the gap
#: Neighbours off the segment (measured on walking1, walking4 and a drop jump: six admit more false
#: neighbours, 3 mm misses the malleolus of walking1's left foot).
MAX_NEIGHBOURS = 3
MAX_NEIGHBOUR_SD = 0.005  # m
DISTANCE_SD_FLOOR = 0.0005  # m
MIN_SHARED_FRAMES = 10  # frames with both measured before a neighbour's distance spread counts


def rigid_motions(reference: np.ndarray, current: np.ndarray,
                  weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Rotations ``(F, 3, 3)`` and translations ``(F, 3)`` with ``current[f] ≈ R[f] @ reference + t[f]``
    in the (``weights``-weighted) least-squares sense, ``reference`` ``(N, 3)``, ``current`` ``(F, N, 3)``,
    all frames at once (``rotations.fit_rigid``: Davenport's q-method on the centred marker sets)."""
    quaternions, translations = fit_rigid(current, reference, weights)
    return quat_to_matrix(quaternions), translations


def well_spread(points: np.ndarray) -> bool:
    """True when ``points`` ``(N, 3)`` are at least ``MIN_DONORS`` spanning a plane (the motion is unique)."""
    return len(points) >= MIN_DONORS and np.linalg.svd(points - points.mean(axis=0), compute_uv=False)[1] > MIN_SPREAD


def rigid_fill(markers: np.ndarray, present: np.ndarray, marker: int, start: int, stop: int,
               mates, candidates: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray | None:
    """Positions ``(stop - start, 3)`` of ``marker`` over its gap ``start:stop`` from its ``mates`` (the other
    markers of its segment) and its rigid neighbours (``donor_candidates``, computed here unless given: they
    depend on the marker only), ``markers`` ``(T, M, 3)``; None when too few of them are measured throughout
    the gap and at its measured ends and move rigidly together."""
    ends = [f for f in (start - 1, stop) if 0 <= f < len(markers)]
    frames = np.r_[start:stop, ends]
    candidates, spread = candidates or donor_candidates(markers, marker, mates)
    measured = present[frames][:, candidates].all(axis=0)
    n_mates = len(mates)
    window = markers[frames]
    donors = []
    for k in np.flatnonzero(measured):
        if k < n_mates or rigid_with(window, candidates[donors], candidates[k]):
            donors.append(k)
    weights = 1.0 / (spread[donors] ** 2 + DISTANCE_SD_FLOOR ** 2)
    donors = candidates[donors]
    estimates = [_carried(markers, marker, end, start, stop, donors, weights) for end in ends]
    if not estimates or any(e is None for e in estimates):
        return None
    if len(estimates) == 1:
        return estimates[0]
    weight = ramp(start, stop)
    return (1 - weight) * estimates[0] + weight * estimates[1]


def donor_candidates(markers: np.ndarray, marker: int, mates) -> tuple[np.ndarray, np.ndarray]:
    """The markers that may carry ``marker`` through a gap, and how much their distance to it varies [m]
    (standard deviation over the frames where both are measured): its segment ``mates``, and up to
    ``MAX_NEIGHBOURS`` other markers whose distance to it varies by at most ``MAX_NEIGHBOUR_SD``."""
    distances = np.linalg.norm(markers - markers[:, marker:marker + 1], axis=2)  # (T, M)
    both = ~np.isnan(distances)
    count = both.sum(axis=0)
    values = np.where(both, distances, 0.0)
    mean = values.sum(axis=0) / np.maximum(count, 1)
    spread = np.sqrt((np.where(both, distances - mean, 0.0) ** 2).sum(axis=0) / np.maximum(count, 1))
    mates = np.asarray(list(mates), dtype=int)
    other = np.ones(len(spread), dtype=bool)
    other[mates] = other[marker] = False
    other &= (count >= MIN_SHARED_FRAMES) & (spread <= MAX_NEIGHBOUR_SD)
    neighbours = np.flatnonzero(other)
    neighbours = neighbours[np.argsort(spread[neighbours])][:MAX_NEIGHBOURS]
    chosen = np.r_[mates, neighbours].astype(int)
    return chosen, spread[chosen]


def rigid_with(markers: np.ndarray, donors: np.ndarray, candidate: int) -> bool:
    """True when ``candidate``'s distances to the ``donors`` stay within ``MAX_DONOR_MISFIT`` (RMS about their
    mean) over the frames of ``markers`` ``(F, M, 3)``: a neighbour off the segment moves with it in the gap."""
    distances = np.linalg.norm(markers[:, donors] - markers[:, candidate:candidate + 1], axis=2)
    return not len(donors) or np.sqrt(np.mean((distances - distances.mean(axis=0)) ** 2, axis=0)).max() \
        <= MAX_DONOR_MISFIT


def _carried(markers: np.ndarray, marker: int, end: int, start: int, stop: int, donors: np.ndarray,
             weights: np.ndarray):
    """``marker``'s position in frame ``end`` carried over frames ``start:stop`` by the donors' rigid motion
    (weighted least squares), dropping the donor that fits worst while one misfits; None when too few donors
    are left."""
    donors, weights = list(donors), list(weights)
    while well_spread(markers[end, donors]):
        reference, current = markers[end, donors], markers[start:stop, donors]
        rotations, translations = rigid_motions(reference, current, np.array(weights))
        moved = np.einsum("fij,nj->fni", rotations, reference) + translations[:, None]
        misfit = np.sqrt(np.mean(np.sum((moved - current) ** 2, axis=2), axis=0))
        if misfit.max() <= MAX_DONOR_MISFIT:
            return rotations @ markers[end, marker] + translations
        worst = int(np.argmax(misfit))
        donors.pop(worst)
        weights.pop(worst)
    return None
