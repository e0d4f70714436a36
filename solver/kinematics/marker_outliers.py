"""Gross marker jumps and swaps: samples that leap off their segment and back are dropped.

A marker on a rigid segment keeps its place on it, and moves with its neighbours. A mislabelled or swapped
sample does neither: it lies far from where its segment puts it, and it got there at once. Two measures,
per model marker, over the whole trial at once:

- off the segment: the marker's distance ``e(t)`` from its segment's least-squares rigid fit
  (``model.fit.fit_segments``, Lee 2009 §5.1) differs from its usual value (median over the trial), or,
  the median over the other markers of the segment, its distance to them does (a swap of two symmetric
  markers barely moves the fit, but changes those distances); "differs" is by more than ``OFF_FLOOR_M``
  and ``OFF_SPREADS`` robust spreads (1.4826 x median absolute deviation over the trial);
- a jump: the marker's acceleration relative to its segment, the second difference of its position less
  the median second difference of its neighbours (the other markers of its segment, and of its parent
  when the segment has fewer than three; a median, so one bad neighbour does not count), beyond
  ``JUMP_SPREADS`` robust spreads and ``JUMP_FLOOR_M`` (per frame squared): a step in position is a
  spike of the acceleration on either side.

A run of off-segment samples that starts or ends within a frame of a jump is dropped (a trial without
jumps is returned at once, without fitting). Skin motion drifts
off slowly (no jump) and is kept; a neighbour whose fit is pulled by the culprit is off the segment but
did not jump, so only the culprit goes. After dropping, the segments are fitted again and looked at again
(``ROUNDS``). Dropped samples become missing data (NaN), with one warning naming the markers and frames.
Lee's thesis fits every frame but does not screen markers; this step is ours and changes nothing in a
trial without such jumps.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np

from ..io.trial import Trial
from ..model import BodyModel
from ..model.fit import fit_segments, marker_indices

#: Off the segment: farther than this [m] from the usual distance, and this many robust spreads of it.
OFF_FLOOR_M, OFF_SPREADS = 0.015, 4.0
#: A jump: relative acceleration beyond this many robust spreads, and this [m per frame squared].
JUMP_SPREADS, JUMP_FLOOR_M = 8.0, 0.015
ROUNDS = 3
#: Frames per block when taking the neighbours' median acceleration (bounds the memory on long trials).
BLOCK = 4096
#: Slices this long and longer numpy's ``nanmedian`` partitions (``_median``).
SHORT_SLICES = 600


def drop_marker_outliers(trial: Trial, model: BodyModel) -> Trial:
    """The trial without samples that jump off their segment and back (see the module notes), with a warning."""
    columns = marker_indices(model, trial.labels)
    segment = np.concatenate([np.full(len(s.markers), k) for k, s in enumerate(model.segments)]).astype(int)
    measured = np.where(columns[None, :, None] >= 0, trial.markers[:, np.maximum(columns, 0)], np.nan)
    jumped = _jumps(measured, _neighbours(segment, model.parents))
    if not jumped.any():
        return trial
    markers = trial.markers.copy()
    dropped = np.zeros(measured.shape[:2], dtype=bool)
    off_by = np.zeros(dropped.shape)
    for _ in range(ROUNDS):
        errors = fit_segments(model, trial.labels, markers).marker_errors  # (T, model markers)
        off_mates, moved = _off_mates(np.where(dropped[..., None], np.nan, measured), segment)
        new = _runs_near(_beyond_usual(errors) | off_mates, jumped) & ~dropped
        if not new.any():
            break
        frames, ms = np.nonzero(new)
        markers[frames, columns[ms]] = np.nan
        dropped |= new
        off_by[new] = np.maximum(np.nan_to_num(np.abs(errors - _median(errors))), moved)[new]
    if not dropped.any():
        return trial
    return replace(trial, markers=markers, warnings=trial.warnings + (_warning(trial, model, dropped, off_by),))


def _neighbours(segment: np.ndarray, parents: np.ndarray) -> np.ndarray:
    """``(M, K)`` for each marker the other markers of its segment (and its parent's, when it has fewer than three
    others), padded with M."""
    lists = []
    for m, k in enumerate(segment):
        mates = [j for j in np.flatnonzero(segment == k) if j != m]
        if len(mates) < 3 and parents[k] >= 0:
            mates += list(np.flatnonzero(segment == parents[k]))
        lists.append(mates)
    width = max(1, max(map(len, lists)))
    return np.array([row + [len(segment)] * (width - len(row)) for row in lists], dtype=int)


def _median(values: np.ndarray, axis: int = 0) -> np.ndarray:
    """``np.nanmedian(values, axis)``, the same numbers (NaN where a slice has none). numpy takes slices shorter
    than ``SHORT_SLICES`` through masked arrays, three times slower than one sort of them all, as here (the
    neighbours' median acceleration, over a few markers at every frame); longer ones it partitions, faster."""
    values = np.moveaxis(np.asarray(values, dtype=float), axis, -1)
    if values.shape[-1] >= SHORT_SLICES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices
            return np.nanmedian(values, axis=-1)
    ordered = np.sort(values, axis=-1)  # NaN sort last
    if ordered.shape[-1] == 0:
        return np.full(ordered.shape[:-1], np.nan)
    count = np.count_nonzero(~np.isnan(ordered), axis=-1)[..., None]
    low = np.take_along_axis(ordered, np.maximum(count - 1, 0) // 2, axis=-1)[..., 0]
    high = np.take_along_axis(ordered, count // 2, axis=-1)[..., 0]
    return np.where(count[..., 0] > 0, (low + high) / 2, np.nan)


def _robust_spread(values: np.ndarray) -> np.ndarray:
    """1.4826 x the median absolute deviation along axis 0, ignoring NaN (an estimate of the standard deviation)."""
    return 1.4826 * _median(np.abs(values - _median(values)))


def _beyond_usual(values: np.ndarray) -> np.ndarray:
    """``values - their median`` beyond ``OFF_FLOOR_M`` and ``OFF_SPREADS`` robust spreads (along axis 0)."""
    with np.errstate(invalid="ignore"):
        return np.abs(values - _median(values)) > np.maximum(OFF_SPREADS * _robust_spread(values), OFF_FLOOR_M)


def _jumps(positions: np.ndarray, neighbours: np.ndarray) -> np.ndarray:
    """``(T, M)``: frames where a marker's acceleration relative to its neighbours' median is a spike."""
    n_frames, n_markers = positions.shape[:2]
    accel = np.full((n_frames, n_markers + 1, 3), np.nan)  # the extra column pads the neighbour lists
    accel[1:-1, :n_markers] = positions[2:] - 2.0 * positions[1:-1] + positions[:-2]
    relative = np.full((n_frames, n_markers), np.nan)
    for start in range(0, n_frames, BLOCK):
        block = accel[start:start + BLOCK]
        relative[start:start + BLOCK] = np.linalg.norm(block[:, :n_markers] - _median(block[:, neighbours], 2), axis=-1)
    limit = np.maximum(JUMP_SPREADS * _robust_spread(relative), JUMP_FLOOR_M)
    with np.errstate(invalid="ignore"):
        return relative > limit


def _off_mates(positions: np.ndarray, segment: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(T, M)`` samples whose distances to the other markers of their segment changed beyond the usual
    (median over those markers), and that median change [m]."""
    off, change = np.zeros(positions.shape[:2], dtype=bool), np.zeros(positions.shape[:2])
    for k in np.unique(segment):
        members = np.flatnonzero(segment == k)
        if len(members) < 2:
            continue
        points = positions[:, members]
        distance = np.linalg.norm(points[:, :, None] - points[:, None, :], axis=-1)  # (T, n, n)
        moved = np.abs(distance - _median(distance))
        with np.errstate(invalid="ignore"):
            beyond = moved / np.maximum(OFF_SPREADS * _robust_spread(distance), OFF_FLOOR_M)
        beyond[:, np.arange(len(members)), np.arange(len(members))] = np.nan
        moved[:, np.arange(len(members)), np.arange(len(members))] = np.nan
        with np.errstate(invalid="ignore"):
            off[:, members] = _median(beyond, 2) > 1.0
        change[:, members] = np.nan_to_num(_median(moved, 2))
    return off, change


def _runs_near(off: np.ndarray, jumped: np.ndarray) -> np.ndarray:
    """The runs of ``off`` (along axis 0, per column) that start or end within a frame of a ``jumped`` frame."""
    near = jumped.copy()
    near[1:] |= jumped[:-1]
    near[:-1] |= jumped[1:]
    padded = np.zeros((off.shape[0] + 2, off.shape[1]), dtype=np.int8)
    padded[1:-1] = off
    edges = np.diff(padded, axis=0)
    columns, starts = np.nonzero(edges.T == 1)  # column by column, each column's runs in order
    _, stops = np.nonzero(edges.T == -1)  # one past each run's end
    keep = near[starts, columns] | near[stops - 1, columns]
    out = np.zeros(off.shape, dtype=bool)
    for column, start, stop in zip(columns[keep], starts[keep], stops[keep]):
        out[start:stop, column] = True
    return out


def _warning(trial: Trial, model: BodyModel, dropped: np.ndarray, off_by: np.ndarray) -> str:
    """One line naming each marker with dropped samples, its frames (1-based, with times) and how far off."""
    parts = []
    for m in np.flatnonzero(dropped.any(axis=0)):
        frames = np.flatnonzero(dropped[:, m])
        runs = np.split(frames, np.flatnonzero(np.diff(frames) > 1) + 1)
        shown = ", ".join(f"{r[0] + 1}" if len(r) == 1 else f"{r[0] + 1}-{r[-1] + 1}" for r in runs[:4])
        more = f" and {len(runs) - 4} more" if len(runs) > 4 else ""
        first, last = trial.times[frames[[0, -1]]]
        when = f"{first:.3f} s" if len(frames) == 1 else f"{first:.3f}-{last:.3f} s"
        parts.append(f"{model.marker_labels[m]} frame{'s' if len(frames) > 1 else ''} {shown}{more} "
                     f"({when}, up to {1000 * off_by[frames, m].max():.0f} mm off)")
    count = int(dropped.sum())
    return (f"Dropped {count} marker sample{'s' if count > 1 else ''} that jumped off "
            f"{'their' if count > 1 else 'its'} segment (mislabelled or "
            "swapped), now missing: " + "; ".join(parts))
