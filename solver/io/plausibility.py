"""Is the recording plausible as read? Checks of what a file cannot say is wrong, one function each.

- ``check_marker_spread``: a person spans about 1-2 m; markers spanning 17 m or 17 cm were read in the wrong
  length unit (a factor 10 or 1000 off), and the warning names the unit that fits;
- ``check_plate_times``: the plates' time base against the markers' (a GRF file timed in milliseconds looks
  like a 1 Hz recording);
- ``check_plate_signs``: plates of one type share their amplifiers' sign convention, so if one of them had to
  be negated to push the subject up and another not, one is set up wrong.

Body size and mass against the calibrated model are checked in ``solver.plausibility``.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, option
from .conventions import LENGTH_UNITS, UNIT_OVERRIDES
from .trial import ForcePlate

#: Extent of a person's markers [m] (median over frames of the largest extent along an axis): typical, and
#: the range outside which the length unit is taken to be wrong (a wrong unit is off by 10 at least).
BODY_SPAN_M, SPAN_RANGE_M = 1.7, (0.25, 8.0)
#: The fewest markers a frame needs for its extent to say something about the body.
SPAN_MARKERS = 8
#: Force plates sample at tens of hertz at the very least.
MIN_PLATE_RATE_HZ = 10.0
#: Plates covering less than this fraction of the markers' time span are worth a warning.
MIN_COVERAGE = 0.5


def fitting_unit(scale: float, size: float, typical: float) -> str | None:
    """The length unit ("m", "cm", "mm") under which ``size`` [m], read at ``scale`` [m per file unit], comes
    closest to ``typical``; None if that is the unit already used."""
    wanted = scale * typical / size
    unit = min(UNIT_OVERRIDES, key=lambda u: abs(np.log(LENGTH_UNITS[u] / wanted)))
    return None if np.isclose(LENGTH_UNITS[unit], scale) else unit


def check_marker_spread(markers: np.ndarray, scale: float) -> list[str]:
    """A warning when the markers ``(T, M, 3)`` [m] span no human size; the unit that would fit, if any."""
    present = ~np.isnan(markers).any(axis=2)
    frames = np.flatnonzero(present.sum(axis=1) >= SPAN_MARKERS)
    if frames.size == 0:
        return []
    frames = frames[::max(1, frames.size // 500)]
    with np.errstate(invalid="ignore"):
        extent = np.nanmax(markers[frames], axis=1) - np.nanmin(markers[frames], axis=1)
    span = float(np.median(extent.max(axis=1)))
    if SPAN_RANGE_M[0] <= span <= SPAN_RANGE_M[1]:
        return []
    unit = fitting_unit(scale, span, BODY_SPAN_M)
    fix = (f"if the file is in {unit}, import with {option('import.units', unit)}" if unit else
           "check the file's length units")
    return [f"The markers span {span:.3g} m (median over frames): no person is that "
            f"{'large' if span > SPAN_RANGE_M[1] else 'small'}, so the length unit is probably wrong; {fix}"]


def check_plate_times(plates: tuple[ForcePlate, ...], times: np.ndarray) -> list[str]:
    """``InputError`` when the plates' rate is no force plate's (time in milliseconds, say); warnings when they
    cover little of the markers' time ``times``."""
    span = times[-1] - times[0]
    warnings = []
    for plate in plates:
        t = plate.times
        if plate.rate < MIN_PLATE_RATE_HZ:
            looks = (": its time column looks like milliseconds" if span > 0 and 300 < (t[-1] - t[0]) / span < 3000
                     else "")
            raise InputError(f"Force plate {plate.name!r} has a sample every {1 / plate.rate:g} s "
                             f"({plate.rate:g} Hz), no force plate's rate, while the markers run "
                             f"{times[0]:g}-{times[-1]:g} s{looks}",
                             f"give {option('grf', hint='path')} with its time in seconds")
        covered = min(t[-1], times[-1]) - max(t[0], times[0])
        if span > 0 and covered < MIN_COVERAGE * span:
            warnings.append(f"Force plate {plate.name!r} covers {t[0]:g}-{t[-1]:g} s, only "
                            f"{100 * max(covered, 0) / span:.0f} % of the markers' {times[0]:g}-{times[-1]:g} s: "
                            f"check that {option('grf', hint='path')} belongs to this trial")
    return warnings


def check_plate_signs(names: list[str], types: list[int], negated: list[bool | None]) -> list[str]:
    """Warnings for plates of one type that needed opposite orientations (``negated``: True, False, or None
    for a plate never loaded) to push the subject up."""
    warnings = []
    for kind in sorted(set(types)):
        group = [(name, flip) for name, t, flip in zip(names, types, negated) if t == kind and flip is not None]
        if len({flip for _, flip in group}) > 1:
            flipped = ", ".join(name for name, flip in group if flip)
            kept = ", ".join(name for name, flip in group if not flip)
            warnings.append(f"Force plates {flipped} and {kept} are all type {kind} (one sign convention), but "
                            f"{flipped} had to be negated and {kept} kept for the floor to push the subject up: "
                            "the sign, CORNERS or zero of one of them is wrong, so their forces and a body mass "
                            f"from them are suspect; check the plates' setup, or set {option('mass', hint='kg')}")
    return warnings
