"""Spline fill: a marker's missing samples from an interpolating spline through its measured ones."""

from __future__ import annotations

import numpy as np
from scipy.interpolate import make_interp_spline

#: Spline degree by name.
DEGREES = {"cubic": 3, "quintic": 5}


def spline_fill(times: np.ndarray, trajectory: np.ndarray, frames: np.ndarray, degree: int = 3) -> np.ndarray:
    """Positions ``(len(frames), 3)`` of one marker at the given missing frames.

    The interpolating B-spline of ``degree`` (3: cubic, 5: quintic; not-a-knot ends) through every
    measured sample of ``trajectory`` ``(T, 3)`` (NaN where missing), evaluated at ``times[frames]``:
    one spline per marker, so all of its gaps are filled in one call. Frames outside the measured span
    would be extrapolated: callers fill only gaps with measured samples on both sides.
    """
    measured = ~np.isnan(trajectory).any(axis=1)
    known = times[measured]
    degree = min(degree, len(known) - 1)  # e.g. linear between the only two samples
    spline = make_interp_spline(known, trajectory[measured], k=degree, axis=0)
    return spline(times[frames])
