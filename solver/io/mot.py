"""OpenSim storage tables (``.mot``, ``.sto``) and ground reaction force files.

Layout (OpenSim's Storage / STOFileAdapter): an optional name line, then
``key=value`` lines (``version``, ``nRows``, ``nColumns``, ``inDegrees``, ...)
up to ``endheader``; one line of column names (the first is ``time``); then
one row per sample, cells separated by tabs or spaces. A table without the
header (its first line the column names, ``time`` first) is read too, and
one separated by commas (the ``.csv`` tables ``write_table`` writes).

GRF files (``read_grf_mot``) hold, per force plate, the force on the subject
``<stem>v{x,y,z}`` [N], its point of application (the centre of pressure)
``<stem>p{x,y,z}`` [m] and the torque about that point, which is the free
moment, ``<stem>m{x,y,z}`` or ``<stem with force->torque>{x,y,z}`` [N·m], in
ground axes, Y up (e.g. ``ground_force_1_vx`` ... ``ground_force_1_mz``, or
``ground_force_vx`` ... ``ground_torque_x``). They carry no plate outline.
A file whose loaded plates push ``CLEARLY`` times harder along Z than along
Y was written Z up (a C3D lab's axes kept) and is read so, with a note: a
floor pushes the subject up, and friction keeps its level force well below
that (``forces_up_axis``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError
from .atomic import write_text
from .conventions import CLEARLY, to_z_up
from .plates import UNLOADED_BELOW_N, mask_unloaded, moment_about_cop, pushing, unloaded_where_missing
from .tabular import data_rows, increasing_times, parse_rows, read_lines
from .trial import ForcePlate

_FORCE_X = re.compile(r"^(.*)v(x)$")
_RESERVED = ("version", "nRows", "nColumns", "inDegrees")


@dataclass(frozen=True)
class Table:
    """One OpenSim table: column names, data ``(T, C)``, the header's ``key=value`` pairs, angles in degrees?"""

    columns: tuple[str, ...]
    data: np.ndarray
    header: dict = field(default_factory=dict)
    in_degrees: bool = False
    name: str = ""
    notes: tuple[str, ...] = ()  # what the reader changed (a time column rebuilt), in words

    def column(self, name: str) -> np.ndarray:
        """One column by name."""
        try:
            return self.data[:, self.columns.index(name)]
        except ValueError:
            raise InputError(f"The table has no column {name!r}",
                             f"columns are {', '.join(self.columns[:8])}{' ...' if len(self.columns) > 8 else ''}"
                             ) from None

    @property
    def time(self) -> np.ndarray:
        return self.data[:, 0]


def read_table(path: str | Path) -> Table:
    """Read an OpenSim .mot/.sto file; InputError if the header disagrees with the data or time runs backwards."""
    path = Path(path)
    source = path.name
    lines = read_lines(path, "OpenSim .mot/.sto")
    end = next((i for i, line in enumerate(lines) if line.strip().lower() == "endheader"), None)
    if end is None:  # no header: a plain table whose first line names the columns, time first
        first = next((i for i, line in enumerate(lines) if line.strip()), None)
        if first is None or lines[first].replace(",", " ").split()[0].lower() != "time":
            raise InputError(f"{source} is not an OpenSim table: it has no 'endheader' line, nor column names "
                             "starting with 'time' on its first line", "choose an OpenSim .mot or .sto file")
        end = first - 1
    name, header = "", {}
    for line in lines[:end]:
        if "=" in line:
            key, value = line.split("=", 1)
            header[key.strip()] = value.strip()
        elif line.strip() and not name:
            name = line.strip()
    names_at = next((i for i in range(end + 1, len(lines)) if lines[i].strip()), None)
    if names_at is None:
        raise InputError(f"{source} has no column names after 'endheader'", "check the file")
    if "," in lines[names_at] and "\t" not in lines[names_at]:  # comma-separated (the .csv tables we write)
        lines = lines[:names_at] + [line.replace(",", "\t") for line in lines[names_at:]]
    columns = tuple(lines[names_at].split("\t") if "\t" in lines[names_at] else lines[names_at].split())
    columns = tuple(c.strip() for c in columns if c.strip())
    rows, numbers = data_rows(lines, names_at + 1)
    data, row_notes = parse_rows(rows, numbers, len(columns), f"the column name row has {len(columns)} names", source)
    for key, actual in (("nColumns", len(columns)), ("nRows", len(data))):
        if key in header and header[key].strip().isdigit() and int(header[key]) != actual:
            raise InputError(f"{source}: the header says {key}={header[key]} but the file has {actual}",
                             f"fix {key} or the data")
    notes = tuple(f"{source}: {note}" for note in row_notes)
    if len(data) and columns[0].lower() == "time":
        data[:, 0], time_notes = increasing_times(data[:, 0], numbers, source)
        notes += time_notes
    in_degrees = header.get("inDegrees", "no").strip().lower() == "yes"
    return Table(columns=columns, data=data, header=header, in_degrees=in_degrees, name=name, notes=notes)


def write_table(table: Table, path: str | Path) -> Path:
    """Write an OpenSim .mot/.sto file (storage version 1), or CSV when ``path`` ends in .csv; atomically."""
    path = Path(path)
    data = np.asarray(table.data, dtype=np.float64).reshape(-1, len(table.columns))
    separator = "," if path.suffix.lower() == ".csv" else "\t"
    lines = []
    if separator == "\t":
        lines += [table.name or path.stem, "version=1", f"nRows={len(data)}", f"nColumns={len(table.columns)}",
                  f"inDegrees={'yes' if table.in_degrees else 'no'}"]
        lines += [f"{k}={v}" for k, v in table.header.items() if k not in _RESERVED]
        lines.append("endheader")
    lines.append(separator.join(table.columns))
    row = separator.join(["%.10g"] * len(table.columns))
    lines += [row % tuple(r) for r in data]
    return write_text(path, "\n".join(lines) + "\n")


def read_grf_mot(path: str | Path, up_axis: str = "Y") -> tuple[ForcePlate, ...]:
    """Force plates from an OpenSim GRF .mot (forces on the subject, COP, free moment), in world axes (Z up).

    The file has no plate outlines, so ``corners`` are NaN (unknown) and the
    notes say so. OpenSim GRF files often hold one "plate" per foot, combined
    over several physical plates, so no outline would be honest.
    """
    if up_axis not in ("Y", "Z"):
        raise InputError(f"Unknown up axis {up_axis!r} for the GRF file", "use 'Y' (OpenSim) or 'Z'")
    table = read_table(path)
    source = Path(path).name
    if table.columns[0].lower() != "time" or len(table.data) < 2:
        raise InputError(f"{source}: a GRF file needs a 'time' column and at least two rows",
                         "choose an OpenSim ground reaction force .mot")
    time = table.time
    steps = np.diff(time)
    rate = float(np.round(1.0 / np.median(steps), 6))
    if np.max(np.abs(steps * rate - 1.0)) > 0.01:
        raise InputError(f"{source}: the samples are not evenly spaced in time",
                         "resample the GRF file to a constant rate")
    stems = [m.group(1) for c in table.columns if (m := _FORCE_X.match(c))]
    if not stems:
        raise InputError(f"{source} has no force columns (names ending in 'vx', e.g. ground_force_1_vx)",
                         "choose an OpenSim ground reaction force .mot")
    up_axis, axes_note = forces_up_axis(table, stems, up_axis)
    forces = [_vector(table, stem, f"{stem}v", up_axis, source) for stem in stems]
    pushes = [pushing(force) for force in forces]
    on_plate = sum(pushes) < 0  # what a plate never loaded follows: the file's loaded plates
    return tuple(_plate(table, stem, force, rate, up_axis, axes_note, source, push < 0 or (push == 0 and on_plate))
                 for stem, force, push in zip(stems, forces, pushes))


def forces_up_axis(table: Table, stems: list[str], convention: str) -> tuple[str, str]:
    """The up axis of a GRF file's columns ("Y" or "Z") and a sentence on how it was read: ``convention``,
    unless the loaded plates' forces (above ``UNLOADED_BELOW_N``) sum ``CLEARLY`` times larger along the other
    axis (module docstring)."""
    along = np.zeros(2)
    for stem in stems:
        force = np.nan_to_num(np.stack([table.column(f"{stem}v{a}") for a in "yz"], axis=1))
        along += np.abs(force[np.linalg.norm(force, axis=1) >= UNLOADED_BELOW_N]).sum(0)
    other = "Z" if convention == "Y" else "Y"
    found = along[1] / max(along[0], 1e-12) if other == "Z" else along[0] / max(along[1], 1e-12)
    axis = other if along.any() and found > CLEARLY else convention
    how = ("Y up (OpenSim), rotated +90° about X to Z up: (x, y, z) -> (x, -z, y)" if axis == "Y" else
           "Z up, kept")
    if axis == convention:
        return axis, f"axes: GRF file is {how}"
    return axis, (f"axes: GRF file is {how}: its loaded plates push {found:.1f} times harder along {axis} than "
                  f"along {convention}, the up axis the file was expected to have")


def _vector(table: Table, stem: str, prefix: str, up_axis: str, source: str) -> np.ndarray:
    """The columns ``prefix`` x, y, z (T, 3), world axes."""
    names = [f"{prefix}{a}" for a in "xyz"]
    if not set(names) <= set(table.columns):
        raise InputError(f"{source}: found {stem}vx but not all of {', '.join(names)}",
                         "a GRF file needs force (v), point (p) and torque columns for every plate")
    return to_z_up(np.stack([table.column(n) for n in names], axis=1), up_axis)


def _plate(table: Table, stem: str, force: np.ndarray, rate: float, up_axis: str, axes_note: str, source: str,
           on_plate: bool) -> ForcePlate:
    """One plate of the file, its ``force`` (T, 3) read; ``on_plate``: the file holds the force on the plate
    (pulling the subject down while loaded, against OpenSim's convention, as some exports write it), negated
    with the free moment to the reaction on the subject, as the C3D reader orients its plates (``c3d``)."""
    name = stem.strip("_") or "ground_force"
    point = _vector(table, stem, f"{stem}p", up_axis, source)
    torque_prefix = next((p for p in (f"{stem}m", stem.replace("force", "torque"), stem.replace("force", "moment"))
                          if f"{p}x" in table.columns), None)
    notes = [f"force plates: read from {source} (N, m, N·m, forces on the subject)", axes_note, *table.notes]
    if torque_prefix is None:
        free_moment = np.zeros_like(force)
        notes.append(f"{name}: no torque columns, free moment set to zero")
    else:
        free_moment = _vector(table, stem, torque_prefix, up_axis, source)
    force, free_moment, blank = unloaded_where_missing(force, free_moment)
    if blank:
        notes.append(f"{name}: {blank} samples without a value (NaN) read as the plate unloaded (zero force)")
    if on_plate:
        force, free_moment = -force, -free_moment
        notes.append(f"{name}: its vertical force points down while loaded, so the file holds the force on the "
                     "plate; negated to the reaction on the subject")
    free_moment, moved = moment_about_cop(force, point, free_moment)  # the reaction's: loaded means pushing up
    if moved:
        notes.append(f"{name}: its torque columns are the moment about the lab's origin, not the free moment about "
                     "the centre of pressure (OpenSim's): moved to the centre of pressure")
    cop, free_moment = mask_unloaded(force, point, free_moment)
    notes.append(f"{name}: the file gives no plate outline (OpenSim GRF columns may combine several plates)")
    return ForcePlate(name=name, corners=np.full((4, 3), np.nan), rate=float(rate), start_time=float(table.time[0]),
                      force=force, cop=cop, free_moment=free_moment, notes=tuple(notes))
