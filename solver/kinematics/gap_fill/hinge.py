"""Hinge fill: a missing marker carried by two donor markers, the spin about their axis from a third point or
interpolated, trusted only where the trial shows it works.

Two markers that move rigidly with the missing one fix its position but for a rotation about the line
through them (the donor axis). Each frame gets a frame of reference: origin at donor ``a``, ``e1`` along
``b - a``, ``e2`` towards a spin point's component off the axis (``e3 = e1 × e2``). The spin point is a
third candidate off the axis whose distances to the two donors stay within ``rigid.MAX_DONOR_MISFIT``
through the gap (``rigid.rigid_with``; a malleolus for a shank cluster, an epicondyle for the forearm);
without one, ``e2`` is the reference end's off-axis direction turned by the smallest rotation that takes
that end's axis to the frame's (no spin about the axis). The marker's cylindrical coordinates in this
frame (along the axis, distance from it, angle about it) are measured at both ends of the gap and
interpolated linearly across it (the angle the short way round), so the fill meets both ends and a
uniform spin or a slow skin drift between them is spread evenly; a gap at the start or end of the trial
keeps its one end's coordinates.

The assumption (the marker's coordinates in the frame hold) is tested on the trial itself before a fill is
trusted (``expected_error``): each end's coordinates are carried to every frame up to the gap's length
away where the marker is measured, and the RMS miss over those frames is the expected error. Of the donor
pairs among the ``PAIR_CANDIDATES`` most rigid candidates and their spin choices, the one with the
smallest expected error fills the gap; ``fill.GapFillOptions.hinge_trusted_error_m`` says how small it
must be. The test sees only the postures where the marker is measured: on walking1 it trusts fills that
miss by up to 15 mm RMS (``scripts/bench_gap_fill.py``).

Beyond the rigid fill of Söderkvist & Wedin (1993), which needs three donors: the two-donor case, with the
one unknown (the spin) taken from a looser third point or interpolated, and judged by the test above.
"""

from __future__ import annotations

import numpy as np

from ...model.frames import triad, unit
from ...rotations import swing
from .gaps import ramp
from .rigid import MIN_SPREAD, rigid_with

PAIR_CANDIDATES = 4  # donor pairs are taken among this many most rigid candidates
MIN_TEST_FRAMES = 10  # measured frames within reach of the gap's ends the test needs


def hinge_fill(markers: np.ndarray, present: np.ndarray, marker: int, start: int, stop: int,
               candidates: np.ndarray, spread: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Positions ``(stop - start, 3)`` of ``marker`` over its gap ``start:stop`` and their expected RMS error
    [m] (``expected_error``), from the best of its ``candidates`` (``rigid.donor_candidates``, with ``spread``
    the SD of their distance to the marker); None when no two candidates are measured through the gap and its
    ends, stay rigid with each other there, and can be tested."""
    ends = [f for f in (start - 1, stop) if 0 <= f < len(markers)]
    window = np.r_[start:stop, ends]
    measured = [int(c) for c in candidates[np.argsort(spread, kind="stable")] if present[window, c].all()]
    at = markers[window]
    best = None
    for i, a in enumerate(measured[:PAIR_CANDIDATES]):
        for b in measured[i + 1:PAIR_CANDIDATES]:
            if np.linalg.norm(at[:, b] - at[:, a], axis=1).min() < MIN_SPREAD or not rigid_with(at, [a], b):
                continue
            for spin in [None, *(c for c in measured if c not in (a, b) and rigid_with(at, [a, b], c)
                                 and _off_axis(at, a, b, c) >= MIN_SPREAD)]:
                error = expected_error(markers, present, marker, ends, stop - start, (a, b, spin))
                if error is not None and (best is None or error < best[0]):
                    best = error, (a, b, spin)
    if best is None:
        return None
    error, donors = best
    gap = np.arange(start, stop)
    origin, axes = _frames(markers, np.r_[gap, ends], donors, ends[0])
    coordinates = _cylindrical(np.einsum("fij,fj->fi", axes[len(gap):], markers[ends, marker] - origin[len(gap):]))
    if len(ends) == 2:
        turn = (coordinates[1, 2] - coordinates[0, 2] + np.pi) % (2 * np.pi) - np.pi
        coordinates[1, 2] = coordinates[0, 2] + turn
        weight = ramp(start, stop)
        coordinates = (1 - weight) * coordinates[0] + weight * coordinates[1]
    else:
        coordinates = np.repeat(coordinates, len(gap), axis=0)
    along, radius, angle = coordinates.T
    local = np.stack([along, radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    return origin[:len(gap)] + np.einsum("fji,fj->fi", axes[:len(gap)], local), error


def expected_error(markers: np.ndarray, present: np.ndarray, marker: int, ends: list[int], length: int,
                   donors: tuple[int, int, int | None]) -> float | None:
    """RMS miss [m] of ``marker``'s coordinates at each end frame in ``ends``, in the frame of ``donors``
    (``a``, ``b``, spin point or None), carried to the frames up to ``length + 1`` away where it and the donors
    are measured; None when fewer than ``MIN_TEST_FRAMES`` such frames exist."""
    needed = [marker, *(d for d in donors if d is not None)]
    seen = np.flatnonzero(present[:, needed].all(axis=1))
    squared = []
    for end in ends:
        near = seen[(np.abs(seen - end) <= length + 1) & (seen != end)]
        origin, axes = _frames(markers, np.r_[end, near], donors, end)
        local = axes[0] @ (markers[end, marker] - origin[0])
        carried = origin[1:] + np.einsum("fji,j->fi", axes[1:], local)
        squared.append(np.sum((carried - markers[near, marker]) ** 2, axis=1))
    squared = np.concatenate(squared)
    return float(np.sqrt(squared.mean())) if len(squared) >= MIN_TEST_FRAMES else None


def _frames(markers: np.ndarray, frames: np.ndarray, donors: tuple[int, int, int | None],
            reference: int) -> tuple[np.ndarray, np.ndarray]:
    """Origins ``(F, 3)`` and axes ``(F, 3, 3)`` (rows ``e1, e2, e3``) of the donors' frame at ``frames``;
    without a spin point, ``e2`` is transported from frame ``reference`` by the smallest rotation of the axis."""
    a, b, spin = donors
    origin = markers[frames, a]
    if spin is not None:
        towards = markers[frames, spin] - origin
    else:
        axis = unit(markers[reference, b] - markers[reference, a])
        normal = unit(np.cross(axis, np.eye(3)[np.argmin(np.abs(axis))]))
        towards = swing(axis, markers[frames, b] - origin) @ normal
    return origin, triad("x", markers[frames, b] - origin, "y", towards).swapaxes(-1, -2)


def _off_axis(window: np.ndarray, a: int, b: int, c: int) -> float:
    """Smallest distance [m] of marker ``c`` from the line through ``a`` and ``b`` over the frames of ``window``."""
    axis = unit(window[:, b] - window[:, a])
    offset = window[:, c] - window[:, a]
    return float(np.linalg.norm(offset - np.sum(offset * axis, axis=1, keepdims=True) * axis, axis=1).min())


def _cylindrical(local: np.ndarray) -> np.ndarray:
    """``(N, 3)`` coordinates along, from and about the axis (``e1``) of ``(N, 3)`` local ``e1, e2, e3`` ones."""
    return np.stack([local[:, 0], np.hypot(local[:, 1], local[:, 2]), np.arctan2(local[:, 2], local[:, 1])], axis=1)

