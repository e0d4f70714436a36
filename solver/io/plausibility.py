"""Is the recording plausible as read? Checks of what a file cannot say is wrong, one function each.

- ``check_marker_spread``: a person spans about 1-2 m; markers spanning 17 m or 17 cm were read in the wrong
  length unit (a factor 10 or 1000 off), and the warning names the unit that fits;
- ``check_plate_times``: the plates' time base against the markers' (a GRF file timed in milliseconds looks
  like a 1 Hz recording);
- ``check_plate_signs``: plates of one type share their amplifiers' sign convention, so if one of them had to
  be negated to push the subject up and another not, one is set up wrong;
- ``cop_unit``: a loaded plate's centre of pressure lies under a foot, so one hundreds of metres from every
  marker was written in millimetres (or centimetres) and read as metres.

Body size and mass against the calibrated model are checked in ``solver.plausibility``.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, option
from .conventions import LENGTH_UNITS, UNIT_OVERRIDES, frame_extents
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
#: A loaded plate's centre of pressure lies under a foot: within this [m] of the nearest marker, seen from above
#: (median over the frames it is loaded: 0.8-4 cm on the shared trials); read in the wrong unit it lies hundreds
#: of metres off, and in the right one within ``COP_FITS_M`` (a centre of pressure off the subject, scaled down
#: toward the lab's origin, lands 0.11-1.7 m from the nearest marker on those trials).
COP_NEAR_M, COP_FITS_M = 1.0, 0.08


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
    span = float(np.median(frame_extents(markers[frames[::max(1, frames.size // 500)]]).max(axis=1)))
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


def cop_distance(cop: np.ndarray, markers: np.ndarray) -> float:
    """Median over frames of the distance [m] seen from above from a plate's centre of pressure ``cop`` (T, 3),
    NaN while unloaded, to the nearest of ``markers`` (T, M, 3); NaN if never loaded beside a marker."""
    frames = np.flatnonzero(np.isfinite(cop).all(axis=1) & np.isfinite(markers).all(axis=2).any(axis=1))
    frames = frames[::max(1, frames.size // 500)]
    if not frames.size:
        return float("nan")
    gap = np.linalg.norm(markers[frames, :, :2] - cop[frames, None, :2], axis=2)
    return float(np.median(np.nanmin(gap, axis=1)))


def cop_unit(name: str, cop: np.ndarray, markers: np.ndarray) -> tuple[float, str | None]:
    """The factor (1, 0.01 or 0.001) that puts plate ``name``'s centre of pressure ``cop`` (T, 3) [m as read]
    under the subject's feet (``markers`` (T, M, 3) [m]), and a warning where none does (the plates are not in
    the markers' frame)."""
    distance = cop_distance(cop, markers)
    if not distance > COP_NEAR_M:
        return 1.0, None
    fits = {factor: cop_distance(cop * factor, markers) for factor in (0.01, 0.001)}
    factor = min(fits, key=fits.get)
    if fits[factor] < COP_FITS_M:
        return factor, None
    return 1.0, (f"Force plate {name!r}'s centre of pressure lies {distance:.3g} m from the nearest marker while "
                 "loaded (median): the plates and the markers are not in one lab frame, so the torques and a body "
                 f"mass from the plates are wrong; check {option('grf', hint='path')} against the markers' axes")

