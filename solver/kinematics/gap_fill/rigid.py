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
"""

from __future__ import annotations

import numpy as np

from ...rotations import fit_rigid, quat_to_matrix
from .gaps import ramp

#: Fewest donors that fix a rigid motion; their spread [m] must exceed ``MIN_SPREAD`` in two directions.
MIN_DONORS = 3
MIN_SPREAD = 0.01
MAX_DONOR_MISFIT = 0.004  # m, RMS over the gap


def rigid_motions(reference: np.ndarray, current: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotations ``(F, 3, 3)`` and translations ``(F, 3)`` with ``current[f] ≈ R[f] @ reference + t[f]``
    in the least-squares sense, ``reference`` ``(N, 3)``, ``current`` ``(F, N, 3)``, all frames at once
    (``rotations.fit_rigid``: Davenport's q-method on the centred marker sets)."""
    quaternions, translations = fit_rigid(current, reference)
    return quat_to_matrix(quaternions), translations


def well_spread(points: np.ndarray) -> bool:
    """True when ``points`` ``(N, 3)`` are at least ``MIN_DONORS`` spanning a plane (the motion is unique)."""
    return len(points) >= MIN_DONORS and np.linalg.svd(points - points.mean(axis=0), compute_uv=False)[1] > MIN_SPREAD


def rigid_fill(markers: np.ndarray, present: np.ndarray, marker: int, start: int, stop: int,
               candidates) -> np.ndarray | None:
    """Positions ``(stop - start, 3)`` of ``marker`` over its gap ``start:stop`` from the ``candidates``
    (the other markers of its segment), ``markers`` ``(T, M, 3)``; None when too few of them are measured
    throughout the gap and at its measured ends and move rigidly together."""
    ends = [f for f in (start - 1, stop) if 0 <= f < len(markers)]
    frames = np.r_[start:stop, ends]
    donors = [d for d in candidates if present[frames, d].all()]
    estimates = [_carried(markers, marker, end, start, stop, donors) for end in ends]
    if not estimates or any(e is None for e in estimates):
        return None
    if len(estimates) == 1:
        return estimates[0]
    weight = ramp(start, stop)
    return (1 - weight) * estimates[0] + weight * estimates[1]


def _carried(markers: np.ndarray, marker: int, end: int, start: int, stop: int, donors: list[int]):
    """``marker``'s position in frame ``end`` carried over frames ``start:stop`` by the donors' rigid motion,
    dropping the donor that fits worst while one misfits; None when too few donors are left."""
    donors = list(donors)
    while well_spread(markers[end, donors]):
        reference, current = markers[end, donors], markers[start:stop, donors]
        rotations, translations = rigid_motions(reference, current)
        moved = np.einsum("fij,nj->fni", rotations, reference) + translations[:, None]
        misfit = np.sqrt(np.mean(np.sum((moved - current) ** 2, axis=2), axis=0))
        if misfit.max() <= MAX_DONOR_MISFIT:
            return rotations @ markers[end, marker] + translations
        donors.pop(int(np.argmax(misfit)))
    return None
