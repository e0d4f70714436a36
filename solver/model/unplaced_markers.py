"""Which segment a marker the labels leave out moves with: a hint for mapping it, never applied by itself.

Beyond the papers. A marker whose label the vocabulary does not know (the sprint's ``P1``-``P3``) or that has no
name (``*52``) is left out of the body model and reported. If it rides on a segment it keeps its distances to that
segment's markers, and the spread of those distances over the trial (``rigid_clusters.distance_spread``, Kirk et al.
2005) is as small as the spread among the segment's own markers (soft tissue, noise). So a left-out marker *moves
with* segment S when

- the median spread of its distances to S's markers is at most ``RIGID_FACTOR`` times the median spread among S's
  own markers (or, for a segment of one marker, among all segments' markers), and
- it is at most ``CLEAR_FACTOR`` times the median spread to any other segment's markers (a marker at a joint moves
  with both sides, and is said to move with neither).

The report says so and the user decides: placed on the pelvis by hand, the sprint's ``P1``-``P3`` (3-4 mm from the
pelvis's markers, whose own spread is 5.4 mm) made its forces worse (marker RMS 11.8 -> 12.5 mm, vertical GRF from
motion alone 22.1 -> 24.6 % BW from the plates; 2026-12-07, before ``contact.sliding``), so nothing is placed
without being asked.
"""

from __future__ import annotations

import numpy as np

from .markersets import NOT_IN_SET, normalize
from .rigid_clusters import distance_spread
from .vocabulary import GENERIC_NAME, UNKNOWN_NAME

#: A left-out marker moves with a segment when its spread to it is at most this many times the segment's own ...
RIGID_FACTOR = 1.5
#: ... and at most this many times its spread to any other segment.
CLEAR_FACTOR = 0.5
#: The spreads are measured over at most this many frames, evenly spaced (the figure is a standard deviation).
MAX_FRAMES = 500


def unnamed(ignored: dict) -> list[str]:
    """The labels of ``ignored`` (label -> why it is left out) left out because nothing says what they are (an
    unknown or generic name, or one the given marker set lacks), not on purpose (a patella, a second hip-centre
    estimate, a video keypoint)."""
    return [label for label, why in ignored.items()
            if why in (UNKNOWN_NAME, GENERIC_NAME) or why.startswith(NOT_IN_SET)]


def unplaced_hints(model, trial, ignored: dict) -> dict[str, tuple[str, float]]:
    """``moving_with`` for the ``unnamed`` markers of ``trial`` against ``model``'s segments."""
    return moving_with(trial.markers, trial.labels, {s.name: s.markers for s in model.segments}, unnamed(ignored))


def moving_with(markers: np.ndarray, labels, segments: dict, candidates) -> dict[str, tuple[str, float]]:
    """``{label: (segment, median spread [m])}`` for the ``candidates`` (labels of ``labels``, whose trajectories
    ``markers`` (T, M, 3) holds) that move with one of ``segments`` ({segment: its labels}; module docstring)."""
    index = {normalize(label): i for i, label in enumerate(labels)}
    members = {name: [index[normalize(x)] for x in used if normalize(x) in index] for name, used in segments.items()}
    members = {name: idx for name, idx in members.items() if idx}
    candidates = [x for x in candidates if normalize(x) in index]
    if not candidates or len(members) < 2:
        return {}
    columns = sorted({i for idx in members.values() for i in idx} | {index[normalize(x)] for x in candidates})
    where = {i: k for k, i in enumerate(columns)}
    members = {name: [where[i] for i in idx] for name, idx in members.items()}  # now columns of ``spread``
    frames = np.unique(np.linspace(0, len(markers) - 1, min(len(markers), MAX_FRAMES)).round().astype(int))
    spread = distance_spread(np.asarray(markers, dtype=float)[frames][:, columns])
    own = {name: _median(spread[np.ix_(cols, cols)]) for name, cols in members.items() if len(cols) > 1}
    typical = float(np.nanmedian(list(own.values()))) if own else np.nan
    found = {}
    for label in candidates:
        row = spread[where[index[normalize(label)]]]
        to = sorted((float(np.nanmedian(row[cols])), name) for name, cols in members.items()
                    if np.isfinite(row[cols]).any())
        if len(to) < 2:
            continue
        (best, name), (second, _) = to[0], to[1]
        if best <= RIGID_FACTOR * own.get(name, typical) and best <= CLEAR_FACTOR * second:
            found[label] = (name, best)
    return found


def _median(block: np.ndarray) -> float:
    """The median spread among a segment's own markers (the block's pairs above its diagonal)."""
    return float(np.nanmedian(block[np.triu_indices(len(block), 1)]))
