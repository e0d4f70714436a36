"""Gaps: the maximal runs of missing samples of each marker, found at once for every marker."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Gaps:
    """Runs of missing samples: gap ``g`` is marker ``marker[g]`` missing in frames ``start[g]:stop[g]``.

    Sorted by marker, then start. A gap at the start or end of the trial (``start == 0`` or
    ``stop == n_frames``) has only one measured end.
    """

    marker: np.ndarray
    start: np.ndarray
    stop: np.ndarray
    n_frames: int

    @property
    def length(self) -> np.ndarray:
        return self.stop - self.start

    @property
    def inside(self) -> np.ndarray:
        """True for gaps with a measured sample on both sides."""
        return (self.start > 0) & (self.stop < self.n_frames)

    def __len__(self) -> int:
        return len(self.marker)


def find_gaps(missing: np.ndarray) -> Gaps:
    """The gaps of a ``(T, M)`` missing-sample mask; markers missing in every frame have none (nothing to
    fill from)."""
    missing = np.asarray(missing, dtype=bool)
    n_frames = missing.shape[0]
    padded = np.zeros((n_frames + 2, missing.shape[1]), dtype=np.int8)
    padded[1:-1] = missing
    edges = np.diff(padded, axis=0).T  # (M, T + 1): +1 where a gap starts, -1 one past its end
    marker, start = np.nonzero(edges == 1)
    _, stop = np.nonzero(edges == -1)
    some_data = ~missing.all(axis=0)
    keep = some_data[marker]
    return Gaps(marker[keep], start[keep], stop[keep], n_frames)


def ramp(start: int, stop: int) -> np.ndarray:
    """``(stop - start, 1)`` weights rising linearly over a gap ``start:stop``, from 0 at the measured frame
    before it to 1 at the measured frame after it: how the fills blend what each end says."""
    return ((np.arange(start, stop) - (start - 1)) / (stop - start + 1))[:, None]
