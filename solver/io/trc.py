"""TRC marker files, OpenSim flavour (``PathFileType 4``), read and written.

Layout (OpenSim's TRCFileAdapter): line 1 ``PathFileType 4 (X/Y/Z) name``;
line 2 header keys (``DataRate CameraRate NumFrames NumMarkers Units
OrigDataRate OrigDataStartFrame OrigNumFrames``); line 3 their values; line 4
``Frame# Time`` and one name per marker (each followed by two empty cells);
line 5 ``X1 Y1 Z1 X2 ...``; then, after an optional blank line, one row per
frame: frame number, time, x y z per marker. Cells are separated by tabs (or
spaces); an empty cell is a missing sample. OpenSim files are Y up.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InputError
from .assemble import assemble_trial, one_subject
from .atomic import write_text
from .conventions import LENGTH_UNITS, UNIT_OVERRIDES, UP_AXES, ImportOptions, from_z_up, length_scale, \
    resolve_up_axis
from .tabular import data_rows, increasing_times, parse_rows, read_lines
from .trial import Trial

_REQUIRED = ("DataRate", "NumFrames", "NumMarkers", "Units")


def read_trc(path: Path, options: ImportOptions) -> Trial:
    """Read an OpenSim TRC file into a ``Trial`` (metres, Z up)."""
    source = path.name
    lines = read_lines(path, "TRC")
    if not lines[0].startswith("PathFileType") or len(lines) < 5:
        raise InputError(f"{source} is not a TRC file (it does not start with 'PathFileType')",
                         "choose an OpenSim TRC file, or a C3D file")
    header = _header(lines, source)
    rate, n_frames, n_markers = header["DataRate"], header["NumFrames"], header["NumMarkers"]
    names = [cell.strip() for cell in _cells(lines[3])[2:] if cell.strip()]
    if len(names) != n_markers:
        raise InputError(f"{source}: the header says NumMarkers={n_markers} but the marker name row lists "
                         f"{len(names)} markers", "fix NumMarkers or the marker name row")
    axis_row = lines[4].split()  # "X1 Y1 Z1 ...", absent in some writers' files
    first_data = 5 if axis_row and axis_row[0][:1] in "XYZxyz" else 4
    rows, numbers = data_rows(lines, first_data)
    n_columns = 2 + 3 * n_markers
    values, notes = parse_rows(rows, numbers, n_columns,
                               f"the header says NumMarkers={n_markers}, so {n_columns} columns", source)
    if not len(values):
        raise InputError(f"{source} has no data rows", "export the trial with its marker trajectories")
    if len(values) != n_frames:
        raise InputError(f"{source}: the header says NumFrames={n_frames} but the file has {len(values)} data rows",
                         "fix NumFrames or the data rows (was the file cut short?)")
    times, rounded = increasing_times(values[:, 1], numbers, source, rate if rate > 0 else None)
    keep, subject_notes, warnings = one_subject(source, names, options.subject)
    markers = values[:, 2:].reshape(len(values), n_markers, 3)[:, keep]
    names = [name for name, k in zip(names, keep) if k]
    scale, units_note = length_scale(header["Units"], options.units, "the header's Units", source)
    up_axis, axes_note, doubts = resolve_up_axis(options.up_axis, "Y", "the OpenSim TRC convention", markers)
    warnings += doubts
    rate = _rate(times, rate, source, warnings)
    return assemble_trial(source, names, markers, rate, float(times[0]), scale=scale, up_axis=up_axis,
                          options=options, conversions=[units_note, axes_note, *rounded, *notes, *subject_notes],
                          warnings=warnings,
                          metadata={"format": "trc", "file_units": header["Units"], "file_up_axis": up_axis})


def _rate(times: np.ndarray, header_rate: float, source: str, warnings: list[str]) -> float:
    """The trial's rate [Hz]: the header's DataRate where the Time column follows it (within half a frame), else
    the Time column's own where it steps evenly, as OpenSim times a TRC by its Time column (a header copied
    from the cameras' rate over resampled data, or a DataRate of 0); a warning says which and why. A DataRate
    that is no rate (0, negative) with a Time column that does not step evenly: InputError."""
    stated = bool(np.isfinite(header_rate) and header_rate > 0)
    frames = np.arange(len(times))
    if stated and (len(times) < 2 or np.max(np.abs(times - times[0] - frames / header_rate)) <= 0.5 / header_rate):
        return header_rate
    step = (times[-1] - times[0]) / (len(times) - 1) if len(times) > 1 else 0.0
    if step > 0 and np.max(np.abs(times - times[0] - frames * step)) <= 0.25 * step:
        warnings.append(f"The Time column steps at {1 / step:.6g} Hz but DataRate says {header_rate:g} Hz: the trial "
                        "follows the Time column, as OpenSim does" if stated else
                        f"DataRate={header_rate:g} is not a rate: the trial follows the Time column, {1 / step:.6g} Hz")
        return float(1.0 / step)
    if not stated:
        raise InputError(f"{source}: DataRate={header_rate:g} is not a positive rate, and the Time column does not "
                         "step evenly", "fix the third line of the file")
    warnings.append(f"The Time column does not follow DataRate={header_rate:g} Hz, nor steps evenly; the trial uses "
                    "DataRate and the first time")
    return header_rate


def write_trc(trial: Trial, path: str | Path, up_axis: str = "Y", units: str = "m") -> Path:
    """Write the trial's markers as an OpenSim TRC file; missing samples are empty cells.

    ``up_axis="Y"`` (default) writes OpenSim's Y-up axes, so OpenSim reads the
    file as is (and ``load_trial`` turns it back to Z up); ``"Z"`` keeps the
    solver's Z-up axes. ``units``: "m" (default), "cm" or "mm". The write is atomic.
    """
    if up_axis not in UP_AXES:
        raise InputError(f"Unknown up axis {up_axis!r} for the TRC file", "use 'Y' (OpenSim) or 'Z'")
    if units not in UNIT_OVERRIDES:
        raise InputError(f"Unknown length unit {units!r} for the TRC file", f"use one of {', '.join(UNIT_OVERRIDES)}")
    path = Path(path)
    n_frames, n_markers = trial.n_frames, trial.n_markers
    first_frame = int(round(trial.start_time * trial.rate)) + 1
    rate = f"{trial.rate:.10g}"
    header = [
        f"PathFileType\t4\t(X/Y/Z)\t{path.name}",
        "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames",
        f"{rate}\t{rate}\t{n_frames}\t{n_markers}\t{units}\t{rate}\t{first_frame}\t{n_frames}",
        "Frame#\tTime\t" + "\t".join(f"{label}\t\t" for label in trial.labels),
        "\t\t" + "\t".join(f"X{i}\tY{i}\tZ{i}" for i in range(1, n_markers + 1)),
        "",
    ]
    table = np.column_stack((np.arange(1, n_frames + 1), trial.times,
                             from_z_up(trial.markers, up_axis).reshape(n_frames, 3 * n_markers)
                             / LENGTH_UNITS[units]))
    row = "%d" + "\t%.10g" * (table.shape[1] - 1)
    body = "\n".join(row % tuple(r) for r in table).replace("nan", "")
    return write_text(path, "\n".join(header) + "\n" + body + "\n")


def _cells(line: str) -> list[str]:
    return line.split("\t") if "\t" in line else line.split()


def _header(lines: list[str], source: str) -> dict:
    header = dict(zip((k.strip() for k in _cells(lines[1])), (v.strip() for v in _cells(lines[2]))))
    missing = [key for key in _REQUIRED if key not in header]
    if missing:
        raise InputError(f"{source}: the TRC header lacks {', '.join(missing)}",
                         "the second and third lines must name and give DataRate, NumFrames, NumMarkers and Units")
    try:
        parsed = {"DataRate": float(header["DataRate"]), "NumFrames": int(header["NumFrames"]),
                  "NumMarkers": int(header["NumMarkers"]), "Units": header["Units"]}
    except ValueError:
        raise InputError(f"{source}: the TRC header values are not numbers where they should be "
                         f"(DataRate={header['DataRate']!r}, NumFrames={header['NumFrames']!r}, "
                         f"NumMarkers={header['NumMarkers']!r})", "fix the third line of the file") from None
    return parsed
