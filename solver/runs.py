"""Runs of True in a boolean track: stances, contacts, the stretches of frames with a pose."""

from __future__ import annotations

import numpy as np


def runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """``[start, end)`` of every run of True in a 1-D bool array."""
    edges = np.diff(np.concatenate(([0], np.asarray(flags).astype(np.int8), [0])))
    return list(zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist()))
