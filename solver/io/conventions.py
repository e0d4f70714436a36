"""Units and up axis at the file boundary, shared by every reader and writer.

Inside the solver everything is metres and a right-handed world with Z up.
A file that is Y up (OpenSim's convention: X forward, Y up, Z right) is turned
Z up by a rotation of +90° about X, ``(x, y, z) -> (x, -z, y)``: right-handed
stays right-handed, X stays forward, and OpenSim's Z (right) becomes -Y
(Y is then the subject's left), the same rotation Blender's glTF importer uses.

Where the up axis comes from, first match wins: ``ImportOptions.up_axis``,
then the file's own convention (OpenSim TRC/.mot: Y up; C3D: the axis named by
``POINT:Y_SCREEN``, the axis drawn vertically on screen) unless the markers
clearly say otherwise, then ``guess_up_axis``: a standing or moving person is
taller than wide, so the axis (Y or Z) along which the markers spread furthest,
frame by frame, is up. "Clearly" is ``CLEARLY`` times further: TRC files are
written Z up by many tools (Mokka, Cortex, this project's own for a Z-up C3D),
and read as Y up an upright subject lies on its side and every later stage is
wrong; a subject who really lies down in a Y-up file is the rarer case, and the
warning names the option that keeps the convention. On the project's ten
trials the markers spread 1.2-6.1 times further along the true up axis.
Marker trajectories only: an OpenSim .mot keeps its convention.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, option

#: Length unit spellings found in C3D POINT:UNITS and TRC "Units" -> metres per unit.
LENGTH_UNITS = {
    "m": 1.0, "meter": 1.0, "meters": 1.0, "metre": 1.0, "metres": 1.0,
    "cm": 0.01, "centimeter": 0.01, "centimeters": 0.01, "centimetre": 0.01, "centimetres": 0.01,
    "mm": 0.001, "millimeter": 0.001, "millimeters": 0.001, "millimetre": 0.001, "millimetres": 0.001,
}
UNIT_OVERRIDES = ("m", "cm", "mm")
UP_AXES = ("Y", "Z")
#: The largest force plate delay behind the markers one may give [s] (``plate_timing`` looks 0.2 s either way).
MAX_PLATE_DELAY = 0.5


@dataclass(frozen=True)
class ImportOptions:
    """How to read a recording when the file alone does not say it right.

    ``units`` overrides the file's length unit ("m", "cm" or "mm"); ``up_axis``
    says which file axis points up ("Y" or "Z"); ``strip_prefix`` turns
    ``Subject:LFHD`` into ``LFHD``; ``subject`` names the one whose markers to read from a file that holds
    several (``A`` of ``A:LASI`` and ``B:LASI``; None: the one with most markers, with a warning);
    ``plate_delay`` [s] how late the force plates run behind the markers (they are moved that much earlier;
    ``contact.plate_timing`` measures it and the report warns where it matters).
    """

    units: str | None = None
    up_axis: str | None = None
    strip_prefix: bool = True
    subject: str | None = None
    plate_delay: float = 0.0

    def __post_init__(self):
        if self.units is not None and self.units not in UNIT_OVERRIDES:
            raise InputError(f"Unknown units override {option('import.units', self.units)}",
                             f"use one of {', '.join(UNIT_OVERRIDES)}")
        if self.up_axis is not None and str(self.up_axis).upper() not in UP_AXES:
            raise InputError(f"Unknown up axis override {option('import.up_axis', self.up_axis)}", "use Y or Z")
        if self.up_axis is not None:
            object.__setattr__(self, "up_axis", self.up_axis.upper())
        delay = self.plate_delay
        if isinstance(delay, bool) or not isinstance(delay, (int, float)) or not abs(delay) <= MAX_PLATE_DELAY:
            raise InputError(f"Plate delay {option('import.plate_delay', delay)} is not a time within "
                             f"±{MAX_PLATE_DELAY:g} s", "give how late the plates run behind the markers in "
                                                        "seconds, e.g. 0.01 (negative: ahead)")
        object.__setattr__(self, "plate_delay", float(delay))
        if self.subject is not None:  # "A:" as written before a label, "" as an empty field: none
            object.__setattr__(self, "subject", str(self.subject).strip().rstrip(":").strip() or None)


def length_scale(found: str | None, override: str | None, where: str, source: str) -> tuple[float, str]:
    """Metres per file unit, and a sentence saying what was done.

    ``found`` is the unit written in the file (``where`` names the field), e.g. "mm".
    """
    if override is not None:
        scale = LENGTH_UNITS[override]
        return scale, (f"lengths: read as {override} as requested (the file says {found!r}), "
                       f"scaled by {scale:g} to metres")
    key = (found or "").strip().lower()
    if key not in LENGTH_UNITS:
        raise InputError(f"{source}: unknown length units {found!r} in {where}",
                         f"import with {option('import.units', 'mm')} (or cm, m) to say which units the file uses")
    scale = LENGTH_UNITS[key]
    if scale == 1.0:
        return scale, f"lengths: file is in metres ({where} {found!r}), kept"
    return scale, f"lengths: file is in {key} ({where} {found!r}), scaled by {scale:g} to metres"


def file_convention(metadata: dict, options: ImportOptions) -> tuple[str, str]:
    """The length unit ("m", "cm" or "mm") and up axis ("Y" or "Z") of a trial's own file, for writing
    its markers back the way they came: the import's overrides, else what the reader recorded in
    ``Trial.metadata`` (``file_units``, ``file_up_axis``), else OpenSim's metres and Y up."""
    found = options.units or str(metadata.get("file_units", "m")).strip().lower()
    scale = LENGTH_UNITS.get(found, 1.0)
    units = next(name for name in UNIT_OVERRIDES if LENGTH_UNITS[name] == scale)
    return units, options.up_axis or metadata.get("file_up_axis", "Y")


def to_z_up(vectors: np.ndarray, up_axis: str) -> np.ndarray:
    """File axes -> world axes (Z up); vectors along the last axis."""
    if up_axis == "Z":
        return vectors
    x, y, z = np.moveaxis(vectors, -1, 0)
    return np.stack((x, -z, y), axis=-1)


def from_z_up(vectors: np.ndarray, up_axis: str) -> np.ndarray:
    """World axes (Z up) -> file axes; the inverse of ``to_z_up``."""
    if up_axis == "Z":
        return vectors
    x, y, z = np.moveaxis(vectors, -1, 0)
    return np.stack((x, z, -y), axis=-1)


#: How many times further the markers must spread along the other axis to overrule a file's convention.
CLEARLY = 1.5


def frame_extents(markers: np.ndarray) -> np.ndarray:
    """Each frame's extent of its markers ``(T, M, 3)`` along each axis, ``(T, 3)``; NaN in a frame without any.
    (Reduced over markers laid out first: numpy's ``nanmax`` over the middle axis took 7 times longer, 1.3 ms of
    a 20 ms import.)"""
    by_marker = np.ascontiguousarray(np.swapaxes(markers, 0, 1))
    return np.fmax.reduce(by_marker, axis=0) - np.fmin.reduce(by_marker, axis=0)


def guess_up_axis(markers: np.ndarray) -> tuple[str, float]:
    """The file axis ("Y" or "Z") along which the markers ``(T, M, 3)`` spread furthest, and by what factor.

    The spread is the per-frame extent of all markers, median over at most
    about 500 evenly spaced frames (plenty for a median).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN frames
        extent = np.nan_to_num(np.nanmedian(frame_extents(markers[::max(1, len(markers) // 500)]), axis=0))
    y, z = extent[1], extent[2]
    return ("Y", y / max(z, 1e-12)) if y > z else ("Z", z / max(y, 1e-12))


def resolve_up_axis(override: str | None, convention: str | None, convention_source: str,
                    markers: np.ndarray) -> tuple[str, str, list[str]]:
    """The file's up axis, a sentence saying why and what was done, and warnings for the user.

    ``convention`` is what the file format says (None when it says nothing); markers that spread ``CLEARLY``
    times further along the other axis overrule it, with a warning (module docstring).
    """
    doubts = []
    guess, factor = guess_up_axis(markers)
    if override is not None:
        axis, why = override, "as requested"
        if guess != override and factor > CLEARLY:  # said, not warned: the user chose it
            why += f"; the markers spread {factor:.1f} times further along {guess}: the subject lies in this import"
    elif convention is not None:
        axis, why = convention, f"by {convention_source}"
        if guess != convention and factor > CLEARLY:
            axis, why = guess, (f"not {convention} up as {convention_source} has it: the markers spread "
                                f"{factor:.1f} times further along {guess}, as an upright subject's do")
            doubts.append(f"The file is taken as {guess} up, not {convention} up ({convention_source}): its "
                          f"markers spread {factor:.1f} times further along {guess}. If the subject lies down, "
                          f"import with {option('import.up_axis', convention)}")
    else:
        axis = guess
        why = ("guessed: the file does not say, and the markers spread furthest along "
               f"{axis}; import with {option('import.up_axis', 'Y' if axis == 'Z' else 'Z')} if that is wrong")
    if axis == "Z":
        return axis, f"axes: file is Z up ({why}), kept", doubts
    return axis, f"axes: file is Y up ({why}), rotated +90° about X to Z up: (x, y, z) -> (x, -z, y)", doubts
