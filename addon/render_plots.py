"""The plot panel beside the render: vertical GRF and one joint's torque over time, with a cursor at the frame.

Drawn in Blender itself, in the overlay canvas (render_canvas.py), so it
renders wherever the extension runs (no matplotlib): the top plot shows the
vertical ground reaction force [N], measured by the plates (orange) and
estimated from the motion (green), as the arrows are coloured, with the
subject's body weight dashed; where the estimate found raised surfaces (a
box, a seat), green is its share on the floor, where the plates are, and
violet, as their grids, the share on the raised ones, which no plate sees
(the total would part from the plates in every seated or box phase); the
bottom plot the chosen joint's sagittal moment, signed as the angle table and the torques table
(``knee_r_flexion_moment``, ``ankle_r_dorsiflexion_moment``, ...: positive flexes or dorsiflexes), or its
torque's magnitude [N·m] (what the disk's radius shows), drawn magenta while the joint generates power and
cyan while it absorbs it, as its disk is; where those are the plates' torques, the same moment from the
motion alone (the contact estimated) is drawn thin in the estimate's green beside it. A vertical cursor and
a dot on each curve are keyed to the frame, so they move along a sequence or a movie.

The values are read from the keyed curves, at every frame: the rig's ``GRF
vertical total measured``/``estimated`` (or ``floor``/``raised estimated``) and its joint moment curves
(in ``rig["dynamics units"]``), and the joint disk's ``torque_Nm`` and ``power_W`` (keyed linearly, so
interpolating the keys is what Blender evaluates).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import bpy
import numpy as np

from ..solver.errors import InputError
from ..solver.kinematics.angles import CONVENTIONS
from ..solver.model.templates import ANATOMY
from .collections import child, trial_name
from .dynamics_visuals import MOTION_ALONE
from .keying import Channel, fcurve, key_channels
from .materials import COLOURS
from .render_canvas import Canvas, flat_material
from .render_looks import Palette
from .render_sampling import POWER_PROP, TORQUE_PROP

DEFAULT_JOINT = "knee_r"
#: What the torque plot shows: the joint's sagittal moment, signed (default), or its torque's magnitude.
TORQUE_PLOTS = ("moment", "magnitude")
GRF_MEASURED, GRF_ESTIMATED = "GRF vertical total measured", "GRF vertical total estimated"
GRF_FLOOR, GRF_RAISED = "GRF vertical floor estimated", "GRF vertical raised estimated"
TEXT_SIZE = 0.024  # of the image height
LINE, THIN = 3.0, 1.2  # curve and grid widths at 720 lines [px]
KEY_ROW = 1.2  # the height of a row of a plot's key, in text sizes
TORQUE_KINDS = ("torque_absorbing", "torque_generating")  # the torque's colour while its power is <= 0, > 0
#: A joint by the segment it moves: joint name (e.g. "knee_r") -> segment name ("shank_r").
JOINT_SEGMENT = {a.origin: a.name for a in ANATOMY if a.parent is not None}


def keyed_values(owner: bpy.types.ID, prop: str, frames: np.ndarray) -> np.ndarray:
    """The custom property ``prop`` of ``owner`` at ``frames`` from its keys (NaN outside them or unkeyed)."""
    curve = fcurve(owner, f'["{prop}"]')
    if curve is None or not len(curve.keyframe_points):
        return np.full(len(frames), np.nan)
    co = np.empty(2 * len(curve.keyframe_points), dtype=np.float32)
    curve.keyframe_points.foreach_get("co", co)
    keys = co.reshape(-1, 2).astype(float)
    return np.interp(frames, keys[:, 0], keys[:, 1], left=np.nan, right=np.nan)


@dataclass(frozen=True)
class PlotData:
    """What the panel plots, read at every sampled frame: property sources and how to draw them."""

    sources: list[tuple[bpy.types.Object, str]]
    grf: list[tuple[int, str, str]]  # (source index, colour kind, label)
    torque: int | None  # source index of the plotted torque; the power is the next one
    alone: int | None  # source index of the same moment from the motion alone (beside the plates'), if keyed
    torque_title: str  # e.g. "Right knee flexion moment"
    torque_unit: str  # "N·m" or "N·m/kg"
    signed: bool  # a moment (either sign) rather than a magnitude
    body_weight: float | None

    def values(self, frames: np.ndarray) -> np.ndarray:
        """Every source at ``frames`` ``(T, len(sources))``."""
        return np.column_stack([keyed_values(owner, prop, frames) for owner, prop in self.sources])


def _joint_label(joint: str) -> str:
    """``knee_r`` -> ``Right knee``."""
    side = {"_l": "left ", "_r": "right "}.get(joint[-2:], "")
    return f"{side}{(joint[:-2] if side else joint).replace('_', ' ')}".capitalize()


def _sagittal(segment: str) -> tuple[str, str]:
    """The joint moving ``segment`` and its first (sagittal) angle, as the angle table names them (it names
    every jointed segment): ``shank_r`` -> ``("knee_r", "flexion")``."""
    side = segment[-2:] if segment[-2:] in ("_l", "_r") else ""
    joint, angles = CONVENTIONS[segment[:len(segment) - len(side)]][:2]
    return joint + side, angles[0]


def plot_data(collection: bpy.types.Collection, rig: bpy.types.Object | None, joint: str, plates: bool,
              body_weight: float | None, torque_plot: str = TORQUE_PLOTS[0]) -> PlotData:
    """The sources of the panel for the trial; ``joint`` by its name (``knee_r``) or its segment's;
    ``torque_plot`` one of ``TORQUE_PLOTS``."""
    sources, grf = [], []
    if rig is not None:
        curves = [(GRF_MEASURED, "force_measured", "measured")] * plates + (
            [(GRF_FLOOR, "force_estimated", "estimated, floor"), (GRF_RAISED, "contact_raised", "estimated, raised")]
            if GRF_RAISED in rig else [(GRF_ESTIMATED, "force_estimated", "estimated")])
        for prop, kind, label in curves:
            if prop in rig:
                grf.append((len(sources), kind, label))
                sources.append((rig, prop))
    segment = JOINT_SEGMENT.get(joint, joint)
    dynamics = child(collection, f"{trial_name(collection)} dynamics")
    disks = {ob.name: ob for ob in dynamics.objects if TORQUE_PROP in ob} if dynamics else {}
    disk = disks.get(f"{segment} torque")
    if disks and disk is None:
        joints = [j for j, s in JOINT_SEGMENT.items() if f"{s} torque" in disks]
        raise InputError(f"No joint {joint!r} in the trial's dynamics", f"give one of {', '.join(joints)}")
    name = next((j for j, s in JOINT_SEGMENT.items() if s == segment), segment)
    torque, alone, title, unit = None, None, f"{_joint_label(name)} torque", "N·m"
    if disk is not None and torque_plot == "moment":
        moved, component = _sagittal(segment)
        prop = f"{moved}_{component}_moment"
        if prop not in rig:
            raise InputError(f"The rig has no curve {prop!r} to plot",
                             "run Dynamics again, or plot the torque's magnitude")
        title = f"{_joint_label(name)} {component} moment"
        unit = "N·m/kg" if str(rig.get("dynamics units", "")).startswith("N/kg") else "N·m"
        torque = len(sources)
        sources += [(rig, prop), (disk, POWER_PROP)]
        if prop + MOTION_ALONE in rig:
            alone = len(sources)
            sources.append((rig, prop + MOTION_ALONE))
    elif disk is not None:
        torque = len(sources)
        sources += [(disk, TORQUE_PROP), (disk, POWER_PROP)]
    if not sources:
        raise InputError(f"The trial {collection.name!r} has no forces or torques to plot",
                         "run Dynamics or Contact first, or render without plots")
    return PlotData(sources, grf, torque, alone, title, unit, torque_plot == "moment", body_weight)


def _step(span: float, most: int) -> float:
    """The smallest 1-2-5 step that cuts ``span`` into at most ``most`` intervals."""
    power = 10.0 ** math.floor(math.log10(max(span, 1e-9) / most))
    return next(m * power for m in (1.0, 2.0, 5.0, 10.0) if span / (m * power) <= most)


def _runs(x: np.ndarray, y: np.ndarray, sign: np.ndarray | None) -> tuple[list[np.ndarray], list[int]]:
    """The curve cut where it is missing (NaN) and, with ``sign`` (0 or 1), where the sign changes; a run
    ends on the next run's first point, so the colours join. Returns the runs ``(N, 2)`` and their signs."""
    key = np.where(np.isfinite(y), 0 if sign is None else sign, -1)
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    runs, colours = [], []
    for start, end in zip(starts, np.r_[starts[1:], len(y)]):
        end += int(end < len(y) and key[end] >= 0)
        if key[start] >= 0 and end - start >= 2:
            runs.append(np.column_stack([x[start:end], y[start:end]]))
            colours.append(int(key[start]))
    return runs, colours


class _Axes:
    """One plot's box in pixels and its value range."""

    def __init__(self, left, bottom, width, height, low, high):
        self.left, self.bottom, self.width, self.height, self.low, self.high = left, bottom, width, height, low, high

    def y(self, values):
        return self.bottom + (np.asarray(values) - self.low) / (self.high - self.low) * self.height


def _key_rows(keys: list[tuple[str, str]], left: float, right: float, size: float) -> list[list[tuple]]:
    """A plot's key (label, kind) laid out from ``left`` [px]: ``(x, label, kind)`` per entry, row by row, a new
    row where an entry would pass ``right`` (a swatch of 1.6 text sizes, then about half a size a letter)."""
    rows, x = [[]], left
    for label, kind in keys:
        if rows[-1] and x + (1.6 + 0.5 * len(label)) * size > right:
            rows.append([])
            x = left
        rows[-1].append((x, label, kind))
        x += (2.4 + 0.5 * len(label)) * size
    return rows


def _plot(canvas: Canvas, palette: Palette, box: _Axes, title: str, unit: str,
          rows: list[list[tuple]], size: float, time_ticks: list[tuple[float, str]], name: str) -> None:
    """Title, key (``_key_rows``), grid, value ticks and axes of one plot (the curves come after)."""
    ink, faint = flat_material("ink", palette.ink), flat_material("faint", palette.faint)
    scale = canvas.height / 720.0
    top = box.bottom + box.height
    canvas.text(f"{title} ({unit})", box.left - 3.0 * size, top + (2.3 + KEY_ROW * (len(rows) - 1)) * size,
                1.1 * size, ink)
    for r, row in enumerate(rows):
        y = top + (0.95 + KEY_ROW * (len(rows) - 1 - r)) * size
        for kx, label, kind in row:
            canvas.rect(f"{name} key {label}", kx, y, 1.2 * size, 0.25 * size,
                        flat_material(kind, COLOURS[kind] if kind in COLOURS else palette.faint))
            canvas.text(label, kx + 1.6 * size, y + 0.1 * size, 0.9 * size, ink)
    step = _step(box.high - box.low, 4)
    for value in np.arange(math.ceil(box.low / step) * step, box.high + 0.5 * step, step):
        if value > box.high + 1e-9:
            break
        y = float(box.y(value))
        canvas.rect(f"{name} grid {value:g}", box.left, y - 0.5 * THIN * scale, box.width, THIN * scale, faint,
                    z=-1.0)
        canvas.text(f"{value:g}", box.left - 0.5 * size, y, 0.9 * size, ink, align="RIGHT")
    for t, label in time_ticks:
        tx = float(np.interp(t, [0.0, 1.0], [box.left, box.left + box.width]))
        canvas.text(label, tx, box.bottom - 0.9 * size, 0.9 * size, ink, align="CENTER")
    canvas.rect(f"{name} x axis", box.left, box.bottom - THIN * scale, box.width, 1.5 * THIN * scale, ink)
    canvas.rect(f"{name} y axis", box.left - THIN * scale, box.bottom, 1.5 * THIN * scale, box.height, ink)


def _cursor(canvas: Canvas, palette: Palette, box: _Axes, frames: np.ndarray, x: np.ndarray,
            dots: list[tuple[np.ndarray, bpy.types.Material]], name: str) -> None:
    """The cursor line over ``box`` and a dot per curve, keyed to follow the frame."""
    scale = canvas.height / 720.0
    ink = flat_material("ink", palette.ink)
    line = canvas.lines(f"{name} cursor", [np.array([[0.0, box.bottom], [0.0, box.bottom + box.height]])],
                        max(1.5, 1.8 * scale), [ink], z=2.0)
    ends = [frames[0], frames[-1]]
    key_channels(line, [Channel("location", 0, ends, [x[0], x[-1]], group="Cursor")])
    for i, (values, mat) in enumerate(dots):
        dot = canvas.dot(f"{name} cursor dot {i}", x[0], 0.0, 4.5 * scale, mat, z=3.0)
        key_channels(dot, [Channel("location", 0, ends, [x[0], x[-1]], group="Cursor"),
                           Channel("location", 1, frames, box.y(np.nan_to_num(values)), group="Cursor")])


def draw(canvas: Canvas, palette: Palette, panel: float, data: PlotData, frames: np.ndarray,
         times: np.ndarray) -> None:
    """The panel in the right ``panel`` fraction of the canvas over ``frames``, whose times in the trial are
    ``times`` [s]."""
    values = data.values(frames)
    width, height = canvas.width, canvas.height
    size, scale = TEXT_SIZE * height, height / 720.0
    left = width * (1.0 - panel)
    canvas.rect("plot panel card", left, 0.0, width - left, height, flat_material("card", palette.card), z=-2.0)
    plots = [name for name, wanted in (("grf", data.grf), ("torque", data.torque is not None)) if wanted]
    pad = 1.2 * size
    block = (height - 2.0 * pad) / len(plots)
    box_left, box_right = left + pad + 3.2 * size, width - pad
    span = times[-1] - times[0] if len(times) > 1 else 1.0
    step = _step(span, 5)
    ticks = [((t - times[0]) / span, f"{t:g}") for t in np.arange(math.ceil(times[0] / step - 1e-9) * step,
                                                                    times[-1] + 1e-9, step)]
    if ticks:
        ticks[-1] = (ticks[-1][0], f"{ticks[-1][1]} s")
    x = box_left + (times - times[0]) / span * (box_right - box_left)
    for i, name in enumerate(plots):
        top = height - pad - i * block
        bottom = top - block + 2.0 * size
        if name == "grf":
            series = [(values[:, index], kind, label) for index, kind, label in data.grf]
            keys = [(label, kind) for _, kind, label in series] + [("body weight", "faint")] * bool(data.body_weight)
        else:
            keys = [("generating", TORQUE_KINDS[1]), ("absorbing", TORQUE_KINDS[0])] + \
                [("motion alone", "force_estimated")] * (data.alone is not None)
        rows = _key_rows(keys, box_left - 3.0 * size, box_right, size)
        box_top = top - (3.2 + KEY_ROW * (len(rows) - 1)) * size
        if name == "grf":
            high = max([np.nanmax(v) for v, _, _ in series if np.isfinite(v).any()] + [data.body_weight or 0.0, 1.0])
            box = _Axes(box_left, bottom, box_right - box_left, box_top - bottom, 0.0, 1.05 * high)
            _plot(canvas, palette, box, "Vertical ground reaction force", "N", rows, size, ticks, name)
            if data.body_weight:
                weight = float(box.y(data.body_weight))
                dashes = [np.array([[a, weight], [min(a + 8 * scale, box_right), weight]])
                          for a in np.arange(box_left, box_right, 14 * scale)]
                canvas.lines("body weight", dashes, THIN * 1.5 * scale, [flat_material("faint", palette.faint)],
                             z=-0.5)
            for values_k, kind, label in series:
                runs, _ = _runs(x, box.y(values_k), None)
                if runs:
                    canvas.lines(f"grf {label}", runs, LINE * scale, [flat_material(kind, COLOURS[kind])])
            _cursor(canvas, palette, box, frames, x, [(v, flat_material(kind, COLOURS[kind])) for v, kind, _ in series],
                    name)
        else:
            torque, power = values[:, data.torque], values[:, data.torque + 1]
            alone = values[:, data.alone] if data.alone is not None else np.full(len(torque), np.nan)
            seen = np.concatenate([torque, alone])
            seen = seen[np.isfinite(seen)]
            high = max(float(seen.max()) if len(seen) else 0.0, 0.0)
            low = min(float(seen.min()) if len(seen) else 0.0, 0.0) if data.signed else 0.0
            margin = 0.05 * (high - low) if high > low else 1.0
            box = _Axes(box_left, bottom, box_right - box_left, box_top - bottom, low - margin * data.signed,
                        high + margin)
            _plot(canvas, palette, box, data.torque_title, data.torque_unit, rows, size, ticks, name)
            runs, _ = _runs(x, box.y(alone), None)
            if runs:
                canvas.lines("joint torque motion alone", runs, THIN * 1.5 * scale,
                             [flat_material("force_estimated", COLOURS["force_estimated"])], z=-0.25)
            runs, colours = _runs(x, box.y(torque), (np.nan_to_num(power) > 0).astype(int))
            if runs:
                canvas.lines("joint torque", runs, LINE * scale, [flat_material(k, COLOURS[k]) for k in TORQUE_KINDS],
                             colours)
            _cursor(canvas, palette, box, frames, x, [(torque, flat_material("ink", palette.ink))], name)
