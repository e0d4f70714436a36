"""C3D files (https://www.c3d.org/docs/C3D_User_Guide.pdf) through ezc3d, with force platforms.

Markers: ``POINT`` data; a sample whose residual is negative (the C3D flag
for "invalid", ezc3d ``meta_points['residuals']``) is missing. Units from
``POINT:UNITS``; up axis from ``POINT:Y_SCREEN`` (the axis drawn vertically).

Force platforms: ezc3d's filter (``extract_forceplat_data=True``) handles the
types it supports (1 to 4). What it returns, verified against
``sprint_forceplates_JA1Gait35.c3d`` (8 type-2 plates, running along +Y):

- frame: global (lab) axes. ezc3d rotates the plate's channels by the plate
  frame it builds from ``CORNERS`` (x = c1 - c2, y = c1 - c4, z = x × y);
  ``center_of_pressure`` is in global coordinates on the plate surface
  (``CORNERS`` plane), the moment already transported with ``ORIGIN``. It
  lies under the stance foot, between its heel and toe markers.
- units: force in ``FORCE_PLATFORM:UNITS`` (N), positions in ``POINT:UNITS``
  (mm), moments in their product (N·mm). Converted here to N, m, N·m.
- ``Tz``: the moment about the centre of pressure, i.e. the free moment, a
  global vector (vertical for a level plate; its x, y parts are ~1e-11).
- sign: ezc3d documents ``force`` as the force on the platform, but it only
  rotates what the amplifiers stored. In the sprint file it comes out
  positive up during stance (up to 2.4 kN, braking then propulsive along the
  running direction): that file stores the reaction on the subject. So each
  plate is oriented from its data: a floor can only push the subject up, so
  if ezc3d's vertical force points up while loaded the plate already holds
  the reaction and is kept; otherwise force and free moment are negated (the
  C3D/ezc3d convention of the force applied to the plate). ezc3d converts
  every type (1 to 4) the same way, rotating the stored channels, so plates
  of one ``FORCE_PLATFORM:TYPE`` share a convention: a plate never loaded
  follows the loaded ones of its type (else of the file, else ezc3d's
  convention), and loaded plates of one type that need opposite orientations
  get a warning (``plausibility.check_plate_signs``: one is set up wrong).
  Each decision is recorded in ``Trial.conversions``.

Writing (``write_c3d``): markers in mm, Z up (``Y_SCREEN '+Z'``), missing
samples with residual -1; plates as ``FORCE_PLATFORM:TYPE`` 2 (six analog
channels Fx Fy Fz Mx My Mz in the plate frame, moments about the plate
surface centre, ``ORIGIN`` 0) holding the force applied *to the plate*, the
convention ezc3d documents. C3D stores 32-bit floats: a round trip keeps
markers to about 1e-7 m and forces to about 1e-7 relative.
"""

from __future__ import annotations

from pathlib import Path

import ezc3d
import numpy as np

from ..errors import InputError
from .assemble import assemble_trial, one_subject
from .atomic import atomic_path
from .c3d_layout import check_c3d
from .c3d_layout import plate_problem as plate_problem_of
from .conventions import ImportOptions, length_scale, resolve_up_axis, to_z_up
from .plates import UNLOADED_BELOW_N, mask_unloaded, pushing
from .plausibility import check_plate_signs
from .trial import ForcePlate, Trial

_CHANNELS = ("Fx", "Fy", "Fz", "Mx", "My", "Mz")


def read_c3d(path: Path, options: ImportOptions) -> Trial:
    """Read a C3D file (markers and force platforms) into a ``Trial`` (metres, newtons, Z up)."""
    source = path.name
    layout = check_c3d(path)  # before ezc3d: a corrupt parameter section would crash or hang it
    c3d, plate_problem = _open(path, plate_problem_of(layout))
    point = c3d["parameters"]["POINT"]
    points = c3d["data"]["points"]  # (4, M, T)
    n_markers = points.shape[1]
    if n_markers == 0:
        raise InputError(f"{source} has no markers (POINT:USED is 0)", "export the trial with its marker trajectories")
    header = c3d["header"]["points"]
    rate = layout.rate
    markers = np.moveaxis(points[:3], (0, 1, 2), (2, 1, 0)).astype(np.float64)  # (T, M, 3)
    flagged = c3d["data"]["meta_points"]["residuals"][0].T < 0  # (T, M)
    markers[flagged] = np.nan
    labels, markers, flagged, outputs_note = _without_model_outputs(point, _labels(point, n_markers), markers,
                                                                    flagged, source)
    keep, subject_notes, warnings = one_subject(source, labels, options.subject)
    labels, markers, flagged = [label for label, k in zip(labels, keep) if k], markers[:, keep], flagged[:, keep]
    units = _value(point, "UNITS", None)
    scale, units_note = length_scale(units, options.units, "POINT:UNITS", source)
    screen = str(_value(point, "Y_SCREEN", "")).strip()
    axis = screen.upper().lstrip("+")
    up_axis, axes_note, doubts = resolve_up_axis(options.up_axis, axis if axis in ("Y", "Z") else None,
                                                 f"POINT:Y_SCREEN {screen!r}", markers)
    warnings += doubts
    conversions = [units_note, axes_note] + ([outputs_note] if outputs_note else []) + subject_notes
    if flagged.any():
        conversions.append(f"samples: {flagged.sum()} marker samples flagged invalid by the capture system "
                           "(negative residual) read as missing")
    start_time = header["first_frame"] / rate
    plates = ()
    if plate_problem:
        warnings.append(f"Force plates not imported: ezc3d cannot read them ({plate_problem})")
    elif c3d["data"].get("platform"):
        types = layout.numbers("FORCE_PLATFORM", "TYPE")
        plates, plate_warnings = _plates(c3d, [int(t) for t in types], scale, up_axis, start_time)
        warnings += plate_warnings
    return assemble_trial(source, labels, markers, rate, start_time, scale=scale,
                          up_axis=up_axis, options=options, conversions=conversions, warnings=warnings,
                          plates=plates, metadata={"format": "c3d", "file_units": units, "file_up_axis": up_axis,
                                                   "point_descriptions": _descriptions(point, n_markers)})


def write_c3d(trial: Trial, path: str | Path) -> Path:
    """Write markers (mm, Z up) and force plates (type 2) to a C3D file, atomically; see the module notes."""
    path = Path(path)
    if path.suffix.lower() != ".c3d":
        raise InputError(f"Cannot write {path.name} as C3D: the name must end in .c3d", "add the .c3d extension")
    c3d = ezc3d.c3d()
    point = c3d["parameters"]["POINT"]
    point["RATE"]["value"] = [float(trial.rate)]
    point["LABELS"]["value"] = list(trial.labels)
    point["UNITS"]["value"] = ["mm"]
    c3d.add_parameter("POINT", "X_SCREEN", ["+X"])
    c3d.add_parameter("POINT", "Y_SCREEN", ["+Z"])
    missing = ~trial.present()  # (T, M)
    xyz = np.where(missing[..., None], 0.0, trial.markers * 1000.0)
    c3d["data"]["points"] = np.concatenate((np.moveaxis(xyz, (0, 1, 2), (2, 1, 0)),
                                            np.ones((1, trial.n_markers, trial.n_frames))))
    c3d["data"]["meta_points"] = {"residuals": np.where(missing.T, -1.0, 0.0)[None],
                                  "camera_masks": np.zeros((7, trial.n_markers, trial.n_frames), dtype=bool)}
    c3d["header"]["points"]["first_frame"] = int(round(trial.start_time * trial.rate))
    del c3d["data"]["rotations"]  # with no rotation block, readers take every frame of a trial over 65535 frames
    if trial.plates:
        _put_plates(c3d, trial)
    with atomic_path(path, suffix=".c3d") as temporary:
        c3d.write(str(temporary))
    return path


def _open(path: Path, plate_problem: str | None):
    """The ezc3d object and, if its force platform filter must not run or failed, why (else None)."""
    if plate_problem is None:
        try:
            return ezc3d.c3d(str(path), extract_forceplat_data=True), None
        except Exception as error:  # ezc3d raises RuntimeError, OSError, ... for any problem in the file
            plate_problem = str(error)
    try:
        return ezc3d.c3d(str(path)), plate_problem
    except Exception as error:
        raise InputError(f"{path.name} is not a readable C3D file (ezc3d: {error})",
                         "check that it is a complete C3D export; copy or export it again") from None


def _text(value):
    """Text from ezc3d with the bytes UTF-8 cannot read (ezc3d keeps them as surrogates, which no file can
    hold) read as Latin-1, as older C3D writers store accented labels; anything else as it is."""
    if not isinstance(value, str):
        return value
    raw = value.encode("utf-8", "surrogateescape")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _value(group: dict, name: str, default):
    """First value of a C3D parameter, or ``default`` when it is absent or empty."""
    values = group.get(name, {}).get("value", [])
    return _text(values[0]) if len(values) else default


def _labels(point: dict, n_markers: int, name: str = "LABELS") -> list[str]:
    """POINT:LABELS, LABELS2, ... (C3D splits more than 255 labels), padded to the marker count; a parameter
    stored as numbers rather than text counts as blank."""
    labels, i = list(point.get(name, {}).get("value", [])), 2
    while f"{name}{i}" in point:
        labels += list(point[f"{name}{i}"]["value"])
        i += 1
    return ([_text(label) if isinstance(label, str) else "" for label in labels] + [""] * n_markers)[:n_markers]


#: POINT parameters that list a model's outputs stored as points (Vicon's Plug-in Gait: joint angles, forces,
#: moments and powers), not markers.
MODEL_OUTPUTS = ("ANGLES", "FORCES", "MOMENTS", "POWERS", "REACTIONS", "SCALARS")


def _without_model_outputs(point: dict, labels: list[str], markers: np.ndarray, flagged: np.ndarray, source: str
                           ) -> tuple[list[str], np.ndarray, np.ndarray, str | None]:
    """The points that ``MODEL_OUTPUTS`` do not name (labels, markers (T, M, 3), flagged (T, M)), and a note of
    those left out (None: none)."""
    names = [value for group in MODEL_OUTPUTS for value in point.get(group, {}).get("value", [])]
    outputs = {_text(name).strip() for name in names if isinstance(name, str) and name.strip()}
    kept = [i for i, label in enumerate(labels) if label.strip() not in outputs]
    if len(kept) == len(labels):
        return labels, markers, flagged, None
    if not kept:
        raise InputError(f"{source} holds only model outputs (POINT:ANGLES, FORCES, MOMENTS, POWERS, SCALARS), "
                         "no markers", "export the trial with its marker trajectories")
    left = [label.strip() for label in labels if label.strip() in outputs]
    note = (f"model outputs: {len(left)} points that POINT:ANGLES, FORCES, MOMENTS, POWERS, REACTIONS or SCALARS "
            f"name ({', '.join(left[:4])}{', ...' if len(left) > 4 else ''}) are a model's results, not markers: "
            "left out")
    return [labels[i] for i in kept], markers[:, kept], flagged[:, kept], note


def _descriptions(point: dict, n_markers: int) -> dict[str, str]:
    """Label -> its POINT:DESCRIPTIONS text, where that says more than the label ("Unknown" and blanks
    are left out); the marker set reads them for generic labels such as "M001"."""
    pairs = zip(_labels(point, n_markers), _labels(point, n_markers, "DESCRIPTIONS"))
    return {label.strip(): text.strip() for label, text in pairs
            if text.strip() and text.strip().lower() not in ("unknown", "none", label.strip().lower())}


def _plates(c3d, types: list[int], scale: float, up_axis: str,
            start_time: float) -> tuple[tuple[ForcePlate, ...], list[str]]:
    """ezc3d's platforms (``types``: their FORCE_PLATFORM:TYPE) in SI units and world axes, oriented as the
    reaction on the subject."""
    analog_rate = float(c3d["header"]["analogs"]["frame_rate"])  # what ezc3d read the samples at
    if not analog_rate > 0:
        return (), ["Force plates not imported: the file gives no analog rate (ANALOG:RATE)"]
    platforms = c3d["data"]["platform"]
    force_units = {_text(str(p["unit_force"])).strip() for p in platforms}
    if force_units != {"N"}:
        return (), [f"Force plates not imported: force unit {', '.join(sorted(force_units))} is not N"]
    measured = []
    for i, p in enumerate(platforms):
        force = to_z_up(p["force"].T.astype(np.float64), up_axis)
        measured.append((f"FP{i + 1}", p, force, pushing(force)))

    def stores_reaction(kind: int | None) -> bool:  # what a never-loaded plate of type ``kind`` follows
        same = [sign for (*_, sign), t in zip(measured, types) if t == kind and sign] or [s for *_, s in measured]
        return sum(same) > 0

    groups = {"kept": [], "negated": [], "unloaded": []}
    plates = []
    for (name, p, force, sign), kind in zip(measured, types):
        keep = sign > 0 or (sign == 0 and stores_reaction(kind))
        groups["unloaded" if sign == 0 else "kept" if keep else "negated"].append(name)
        free_moment = to_z_up(p["Tz"].T * scale, up_axis)
        if not keep:
            force, free_moment = -force, -free_moment
        cop, free_moment = mask_unloaded(force, to_z_up(p["center_of_pressure"].T * scale, up_axis), free_moment)
        plates.append((name, to_z_up(p["corners"].T * scale, up_axis), force, cop, free_moment))
    notes = [f"force plates: ezc3d's values in N, N·{_unit(scale)} and {_unit(scale)} converted to N, N·m and m"]
    if groups["kept"]:
        notes.append(f"force plates {', '.join(groups['kept'])}: ezc3d's force points up while loaded, so the file "
                     "stores the reaction on the subject; kept")
    if groups["negated"]:
        notes.append(f"force plates {', '.join(groups['negated'])}: ezc3d's force (the force on the plate) negated "
                     "to the reaction on the subject")
    if groups["unloaded"]:
        notes.append(f"force plates {', '.join(groups['unloaded'])}: never loaded above {UNLOADED_BELOW_N:g} N; "
                     "oriented like the loaded plates of their type (else of the file, else ezc3d's convention: "
                     "the force on the plate, negated)")
    warnings = check_plate_signs([m[0] for m in measured], types,
                                 [None if sign == 0 else sign < 0 for *_, sign in measured])
    return tuple(ForcePlate(name=name, corners=corners, rate=analog_rate, start_time=start_time, force=force,
                            cop=cop, free_moment=free_moment, notes=tuple(notes))
                 for name, corners, force, cop, free_moment in plates), warnings


def _unit(scale: float) -> str:
    return {1.0: "m", 0.01: "cm", 0.001: "mm"}.get(scale, f"({scale:g} m)")


def _put_plates(c3d, trial: Trial) -> None:
    """Type-2 force platform parameters and analog channels for the trial's plates."""
    rates = {plate.rate for plate in trial.plates}
    ratio = next(iter(rates)) / trial.rate
    if len(rates) > 1 or abs(ratio - round(ratio)) > 1e-9 or round(ratio) < 1:
        raise InputError(f"Cannot write force plates at {', '.join(f'{r:g}' for r in sorted(rates))} Hz with "
                         f"markers at {trial.rate:g} Hz: C3D needs one analog rate, a whole multiple of the "
                         "marker rate", "resample the plates first")
    outline = next((plate.name for plate in trial.plates if not np.isfinite(plate.corners).all()), None)
    if outline is not None:
        raise InputError(f"Cannot write force plate {outline!r} to C3D: it has no outline (an OpenSim GRF file "
                         "gives none), and C3D's FORCE_PLATFORM needs its four corners", "give the plates their "
                         "corners, or write the markers alone")
    ratio = int(round(ratio))
    analog_rate = trial.rate * ratio
    n_samples = trial.n_frames * ratio
    analogs, corners = [], []
    for plate in trial.plates:
        force, cop, free_moment = _on_analog_grid(plate, trial.start_time, analog_rate, n_samples)
        plate_corners = plate.corners * 1000.0
        rotation = _plate_frame(plate_corners)
        centre = plate_corners.mean(axis=0)
        arm = np.where(np.isfinite(cop), cop * 1000.0 - centre, 0.0)
        on_plate = -force  # the C3D convention: the force applied to the plate
        moment = np.cross(arm, on_plate) - free_moment * 1000.0
        analogs += [on_plate @ rotation, moment @ rotation]  # world -> plate axes: R^T v, row-wise
        corners.append(plate_corners)
    n_plates = len(trial.plates)
    analog = c3d["parameters"]["ANALOG"]
    analog["RATE"]["value"] = [analog_rate]
    analog["LABELS"]["value"] = [f"{c}{i + 1}" for i in range(n_plates) for c in _CHANNELS]
    analog["UNITS"]["value"] = ["N", "N", "N", "Nmm", "Nmm", "Nmm"] * n_plates
    analog["SCALE"]["value"] = np.ones(6 * n_plates)
    analog["OFFSET"]["value"] = np.zeros(6 * n_plates, dtype=int)
    c3d["data"]["analogs"] = np.concatenate(analogs, axis=1).T[None]  # (1, 6P, n_samples)
    _integer_parameter(c3d, "FORCE_PLATFORM", "USED", [n_plates])
    _integer_parameter(c3d, "FORCE_PLATFORM", "TYPE", [2] * n_plates)
    _integer_parameter(c3d, "FORCE_PLATFORM", "ZERO", [0, 0])
    _integer_parameter(c3d, "FORCE_PLATFORM", "CHANNEL", np.arange(1, 6 * n_plates + 1).reshape(n_plates, 6).T)
    c3d.add_parameter("FORCE_PLATFORM", "CORNERS", np.stack(corners, axis=2).transpose(1, 0, 2))  # (3, 4, P)
    c3d.add_parameter("FORCE_PLATFORM", "ORIGIN", np.zeros((3, n_plates)))
    c3d.add_parameter("FORCE_PLATFORM", "UNITS", ["N"])


def _integer_parameter(c3d, group: str, name: str, values) -> None:
    """Add a C3D INT parameter (ezc3d's Python ``add_parameter`` would store floats)."""
    c3d.add_parameter(group, name, np.asarray(values, dtype=float))
    entry = c3d["parameters"][group][name]
    entry["type"] = ezc3d.ezc3d.INT
    entry["value"] = np.asarray(values, dtype=int)


def _plate_frame(corners: np.ndarray) -> np.ndarray:
    """ezc3d's plate axes from the corners (columns x, y, z): x = c1 - c2, y = c1 - c4, z = x × y.

    Any corner order works for a round trip; the C3D order has z pointing down into the floor.
    """
    x, y = corners[0] - corners[1], corners[0] - corners[3]
    z = np.cross(x, y)
    y = np.cross(z, x)
    return np.stack([v / np.linalg.norm(v) for v in (x, y, z)], axis=1)


def _on_analog_grid(plate: ForcePlate, start_time: float, rate: float, n_samples: int):
    """The plate's force, COP and free moment on the C3D analog samples (zero force where it has no data)."""
    offset = (plate.start_time - start_time) * rate
    if abs(offset - round(offset)) > 1e-6:
        raise InputError(f"Cannot write force plate {plate.name!r}: its samples do not fall on the C3D analog "
                         "samples (start times differ by a fraction of a sample)", "resample the plate first")
    target = np.arange(len(plate.force)) + int(round(offset))
    keep = (target >= 0) & (target < n_samples)
    force, free_moment = np.zeros((n_samples, 3)), np.zeros((n_samples, 3))
    cop = np.full((n_samples, 3), np.nan)
    force[target[keep]] = np.nan_to_num(plate.force[keep])
    cop[target[keep]] = plate.cop[keep]
    free_moment[target[keep]] = np.nan_to_num(plate.free_moment[keep])
    return force, cop, free_moment
