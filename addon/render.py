"""Presentation renders of a trial for slides: stills, PNG sequences and MP4 movies with the force overlays.

Setting up a render (``setup_overlay``) reads the scene over the rendered
frames (render_sampling.py), solves the camera (render_framing.py: a still
frames the subject at its frame, sequences and movies follow it or hold a
wide shot), applies the slide look (render_looks.py), and draws the legend
(render_legend.py) and, if asked, the plot panel (render_plots.py) on a 2D
canvas composited over the render (render_canvas.py).

What the overlay adds to the 3D scene (camera, sun, ground, centre-of-mass
path) lives in the trial's child collection ``"<trial> render"``, the canvas
in the scene ``"<trial> overlay"``; both are rebuilt on every set-up, so
setting up twice gives the same scene. The look stays with the scene, so F12
renders the same picture afterwards: engine, resolution, view transform,
world, compositor, which visuals render, the arrows' width and the force
scale when long forces had to be shortened to fit.

The zero-gravity twin renders only when asked, moved (``delta_location``)
beside the subject across the picture.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import uuid
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path

import bpy
import numpy as np
from mathutils import Vector

from ..solver.constants import STANDARD_GRAVITY
from ..solver.errors import InputError
from ..solver.pipeline import Progress
from . import render_framing, render_legend, render_looks, render_plots
from .arrows import FORCE_SCALE_PROP
from .collections import child_collection
from .dynamics_visuals import TORQUE_SCALE_PROP
from .keying import Channel, key_channels
from .markers import LABEL_PROP
from .render_canvas import Canvas, remove_objects
from .render_framing import CAMERAS, VIEWS
from .render_looks import BACKGROUNDS, ENGINES, PALETTES
from .render_movie import encode_movie, png_frames
from .render_sampling import centre_of_mass, forward, sample, subject_rig, twin_rigs
from .trial_scene import trial_metadata

TRAIL_RADIUS = 0.005  # m
STILL_SAMPLES = 40  # a still reads the scene at this many frames (the CM path, the floor), sequences at all
HEAD_ALLOWANCE = 1.5  # framing allows for arrow heads this much longer than drawn at scale 1
GROUND_BELOW = 0.005  # m: EEVEE's ground under the lowest contact grid and sole
RENDER_SCALE_PROP = "mocap_render_force_scale"  # (scale the user chose, scale a render drew the forces at)
POINT_ARROW = re.compile(r" contact \d+$")  # contact_visuals.py: the arrow of one contact point


@dataclass(frozen=True)
class RenderOptions:
    """What to render and how.

    ``frames``: first and last frame (inclusive) that sequences, movies and
    the plots cover; None is the scene's frame range. ``still``: the frame of
    the still (None: no still). ``camera``: ``follow`` (a still frames the
    subject at its frame; sequences and movies follow it) or ``fixed`` (one
    wide shot of every frame). ``plates``: the measured force-plate arrows;
    ``contact_points``: an arrow per loaded contact point beside each foot's
    total; ``twin``: the zero-gravity twin, beside the subject. ``plots``:
    the plot panel, with the torque of ``joint`` (e.g. ``knee_r``): its sagittal moment, signed, or its
    magnitude (``torque_plot``, one of ``render_plots.TORQUE_PLOTS``).
    ``transparent_body``: see the arrows through the body. ``samples``: EEVEE
    render samples (Workbench ignores it).
    """

    engine: str = "WORKBENCH"
    resolution: tuple[int, int] = (1280, 720)
    view: str = "side"
    camera: str = "follow"
    frames: tuple[int, int] | None = None
    still: int | None = None
    sequence: bool = False
    movie: bool = False
    plates: bool = True
    contact_points: bool = False
    model_markers: bool = False
    twin: bool = False
    plots: bool = False
    joint: str = render_plots.DEFAULT_JOINT
    torque_plot: str = render_plots.TORQUE_PLOTS[0]
    background: str = "light"
    transparent_body: bool = False
    samples: int = 16


def check(scene: bpy.types.Scene, options: RenderOptions,
          collection: bpy.types.Collection | None = None) -> tuple[int, int]:
    """Check ``options`` for ``scene`` (and the trial ``collection``: its twin and the plotted joint); returns
    the first and last frame of sequences, movies and plots."""
    for name, value, allowed in (("render engine", options.engine, ENGINES), ("view", options.view, VIEWS),
                                 ("camera", options.camera, CAMERAS), ("background", options.background, BACKGROUNDS),
                                 ("torque plot", options.torque_plot, render_plots.TORQUE_PLOTS)):
        if value not in allowed:
            raise InputError(f"Unknown {name} {value!r}", f"use one of {', '.join(allowed)}")
    width, height = options.resolution
    if min(width, height) < 16 or max(width, height) > 16384:
        raise InputError(f"Resolution {width}x{height} is out of range", "give sizes between 16 and 16384 pixels")
    if options.movie and (width % 2 or height % 2):
        raise InputError(f"Resolution {width}x{height} has an odd size; H.264 movies need even sizes",
                         "give even numbers, e.g. 1280x720")
    if options.samples < 1:
        raise InputError(f"{options.samples} render samples", "give at least 1")
    keyed = f"the trial's frames {scene.frame_start}:{scene.frame_end}"
    first, last = options.frames or (scene.frame_start, scene.frame_end)
    if not scene.frame_start <= first <= last <= scene.frame_end:
        raise InputError(f"Frames {first}:{last} are not within {keyed}", "give A:B with A <= B inside that range")
    if options.still is not None and not first <= options.still <= last:
        raise InputError(f"Frame {options.still} is not within the frames {first}:{last}",
                         "pick a frame inside that range")
    if collection is not None:
        if subject_rig(collection) is None:
            raise InputError(f"The trial {collection.name!r} has no body to render (markers do not render)",
                             "build its body model (Body Model, or process_trial.py) first")
        if options.twin and not twin_rigs(collection):
            raise InputError(f"The trial {collection.name!r} has no zero-gravity twin to show",
                             "run Zero Gravity with the twin beside the subject, or render without the twin")
        if options.plots:
            _plot_data(collection, options)
    return first, last


def _plot_data(collection: bpy.types.Collection, options: RenderOptions) -> render_plots.PlotData:
    rig = subject_rig(collection)
    weight = STANDARD_GRAVITY * sum(b["mass_kg"] for b in rig.data.bones) if rig and all(
        "mass_kg" in b for b in rig.data.bones) else None
    return render_plots.plot_data(collection, rig, options.joint, options.plates, weight, options.torque_plot)


@dataclass(frozen=True)
class Overlay:
    """What a set-up made: the camera, the solved framing, the legend's rows (colour kind -> label) and the
    force scale drawn."""

    camera: bpy.types.Object
    framing: render_framing.Framing
    kinds: dict[str, str]
    force_scale_changed: bool


def _overlay_collection(collection: bpy.types.Collection) -> bpy.types.Collection:
    """The trial's empty ``"<trial> render"`` child collection; a previous overlay's objects, data and actions
    removed."""
    name = f"{collection.name} render"
    previous = next((c for c in collection.children if c.name.startswith(name)), None)
    if previous is not None:
        remove_objects(previous.objects)
    return child_collection(collection, name)


def _show_in_renders(collection: bpy.types.Collection, options: RenderOptions) -> None:
    """Which visuals render: measured-plate arrows, per-point contact arrows, model markers, the twin."""
    measured = bpy.data.materials.get("MocapDynamics force_measured")
    twins = twin_rigs(collection)
    for ob in list(collection.all_objects):  # a list: changing hide_render rebuilds all_objects
        if LABEL_PROP + "_model" in ob:
            ob.hide_render = not options.model_markers
        elif ob.parent is not None and POINT_ARROW.search(ob.parent.name) and ob.type == "MESH":
            ob.hide_render = not options.contact_points
        elif ob.type == "MESH" and measured is not None and measured in ob.data.materials[:]:
            ob.hide_render = not options.plates
    for rig in twins:
        for twin_collection in rig.users_collection:
            twin_collection.hide_render = not options.twin
            for ob in twin_collection.all_objects:
                ob.delta_location = (0.0, 0.0, 0.0)


def _move_twin(twins: list[bpy.types.Object], offset: np.ndarray) -> None:
    """Put the twin's rig and visuals ``offset`` [m] from where they were keyed (children follow parents)."""
    for rig in twins:
        for twin_collection in rig.users_collection:
            for ob in twin_collection.all_objects:
                if ob.parent is None:
                    ob.delta_location = offset


def _sampled_frames(first: int, last: int, still: int | None) -> np.ndarray:
    """The frames to read the scene at: all of them, or for a still ``STILL_SAMPLES`` spread and the still's."""
    frames = np.arange(first, last + 1)
    if still is None or len(frames) <= STILL_SAMPLES:
        return frames
    return np.unique(np.r_[np.linspace(first, last, STILL_SAMPLES).round().astype(int), still])


def _trail(collection: bpy.types.Collection, points: np.ndarray, frames: np.ndarray, mat: bpy.types.Material,
           grow: bool) -> None:
    """The CM path at ``frames`` as a round poly curve; ``grow``: drawn up to the frame (its end keyed from the
    first frame to the last; one point a frame)."""
    curve = bpy.data.curves.new("centre of mass trail", "CURVE")
    curve.dimensions, curve.bevel_depth, curve.bevel_resolution = "3D", TRAIL_RADIUS, 2
    spline = curve.splines.new("POLY")
    spline.points.add(len(points) - 1)
    spline.points.foreach_set("co", np.column_stack([points, np.ones(len(points))]).astype(np.float32).ravel())
    curve.materials.append(mat)
    if grow:
        curve.bevel_factor_mapping_end = "SEGMENTS"
        key_channels(curve, [Channel("bevel_factor_end", 0, [frames[0], frames[-1]], [0.0, 1.0], group="Trail")])
    collection.objects.link(bpy.data.objects.new("centre of mass trail", curve))


def _chosen_force_scale(scene: bpy.types.Scene) -> float:
    """The force scale the user chose: the scene's, unless a render shortened the arrows since."""
    scale = scene.get(FORCE_SCALE_PROP, 0.0)
    chosen, drawn = scene.get(RENDER_SCALE_PROP, (scale, scale))
    return chosen if abs(scale - drawn) <= 1e-12 else scale


def _draw_forces_at(scene: bpy.types.Scene, chosen: float, drawn: float) -> bool:
    """Set the scene's force scale to ``drawn`` (remembering ``chosen``); whether that shortens the arrows."""
    if not chosen:
        return False
    scene[FORCE_SCALE_PROP] = drawn
    if drawn == chosen:
        scene.pop(RENDER_SCALE_PROP, None)
        return False
    scene[RENDER_SCALE_PROP] = (chosen, drawn)
    return True


def _frame(scene: bpy.types.Scene, sampled, index: np.ndarray, options: RenderOptions,
           layout: render_framing.Layout) -> tuple[render_framing.Framing, np.ndarray | None, bool]:
    """Place the twin and solve the camera; returns the framing, the centre-of-mass path at the sampled
    frames (None without masses) and whether the force arrows were shortened."""
    axes = render_framing.camera_axes(forward(sampled), options.view)
    if sampled.twin is not None:
        offset = render_framing.place_twin(sampled, axes, index)
        _move_twin(sampled.twin_objects, offset)
        sampled.move_twin(offset)
    cm = centre_of_mass(sampled.bones, sampled.rig)
    chosen = _chosen_force_scale(scene)
    framing = render_framing.solve(sampled, index, axes, layout, options.camera, chosen,
                                   scene.get(TORQUE_SCALE_PROP, 0.0), HEAD_ALLOWANCE, cm,
                                   scene.render.fps / scene.render.fps_base)
    return framing, cm, _draw_forces_at(scene, chosen, framing.force_scale)


def _ground_height(collection: bpy.types.Collection, sampled) -> float:
    """EEVEE's ground: ``GROUND_BELOW`` under the lowest of the subject and the estimated contact surfaces'
    grids, so that it never hides a grid."""
    lowest = [float(sampled.subject[..., 2].min())]
    for ob in collection.all_objects:
        if render_legend.kind_of(ob) in ("contact_plane", "contact_raised"):
            lowest += [(ob.matrix_world @ Vector(corner)).z for corner in ob.bound_box]
    return min(lowest) - GROUND_BELOW


def _look(scene: bpy.types.Scene, collection: bpy.types.Collection, overlay: bpy.types.Collection, sampled,
          framing: render_framing.Framing, options: RenderOptions) -> None:
    """The slide look: arrow widths and transparency, world, sun, EEVEE's ground, the render settings."""
    palette = PALETTES[options.background]
    height = options.resolution[1]
    render_looks.visuals(collection, *render_looks.arrow_widths(framing.metres_per_pixel(height), height),
                         options.transparent_body)
    render_looks.world(scene, palette)
    render_looks.sun(overlay, framing.axes)
    if options.engine == "EEVEE":
        floor = np.r_[framing.aims.mean(axis=0)[:2], _ground_height(collection, sampled)]
        reach = np.ptp(framing.aims[:, :2], axis=0).max() if len(framing.aims) > 1 else 0.0
        render_looks.ground(overlay, floor, 0.5 * reach + 3.0, palette)
    render_looks.render_settings(scene, options.engine, options.resolution, options.samples, palette)


def setup_overlay(scene: bpy.types.Scene, collection: bpy.types.Collection,
                  options: RenderOptions = RenderOptions(), still: bool | None = None) -> Overlay:
    """(Re)build the overlay of the trial ``collection`` and the render settings, for the still (``still``
    True, the default when ``options.still`` is set) or for the sequence and movie."""
    first, last = check(scene, options, collection)
    still = options.still is not None if still is None else still
    palette = PALETTES[options.background]
    overlay = _overlay_collection(collection)
    _show_in_renders(collection, options)
    plots = _plot_data(collection, options) if options.plots else None
    frames = _sampled_frames(first, last, options.still if still else None)
    sampled = sample(scene, collection, frames)
    index = np.flatnonzero(frames == options.still) if still else np.arange(len(frames))
    width, height = options.resolution
    layout = render_framing.Layout(width, height, panel=render_framing.PANEL_WIDTH if options.plots else 0.0)
    framing, cm, shortened = _frame(scene, sampled, index, options, layout)
    scene.camera = render_framing.build_camera(overlay, framing, frames[index], layout)
    _look(scene, collection, overlay, sampled, framing, options)
    if cm is not None and len(cm) > 1:
        drawn = frames <= (options.still if still else last)
        _trail(overlay, cm[drawn], frames[drawn], render_looks.solid_material("trail", palette.trail),
               grow=not still)
    see_through = {"torque_generating", "torque_absorbing"} | ({"body"} if options.transparent_body else set())
    kinds = render_legend.visible_kinds(scene, collection, frames[index], (frames, cm) if cm is not None else None,
                                        1.0 - layout.panel, see_through)
    canvas = Canvas(scene, f"{collection.name} overlay")
    render_legend.draw(canvas, kinds, palette, layout.legend * width, framing.metres_per_pixel(height),
                       scene.get(FORCE_SCALE_PROP, 0.0), scene.get(TORQUE_SCALE_PROP, 0.0))
    if plots is not None:
        render_plots.draw(canvas, palette, layout.panel, plots, *_plotted(collection, first, last))
    canvas.composite_over(scene)
    return Overlay(scene.camera, framing, kinds, shortened)


def _plotted(collection: bpy.types.Collection, first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
    """The frames the plot panel spans, ``first`` to ``last`` within the trial's keyed frames (all of them if
    none is), and their times in the trial [s], as the tables' time column has them."""
    keyed = trial_metadata(collection)["scene"]
    low, high = max(first, keyed["start_frame"]), min(last, keyed["start_frame"] + keyed["keyed_frames"] - 1)
    frames = np.arange(low, high + 1) if low < high else np.arange(first, last + 1)
    return frames, keyed["start_time_s"] + (frames - keyed["start_frame"]) / keyed["keyed_rate_hz"]


@contextlib.contextmanager
def _rendering(scene: bpy.types.Scene, first: int, last: int):
    """The scene's frame range set to ``first``..``last`` for the block; range, frame and output path restored."""
    start, end, current, filepath = scene.frame_start, scene.frame_end, scene.frame_current, scene.render.filepath
    scene.frame_start, scene.frame_end = first, last
    try:
        yield
    finally:
        scene.frame_start, scene.frame_end, scene.render.filepath = start, end, filepath
        scene.frame_set(current)


def _render_frame(scene: bpy.types.Scene, frame: int, filepath: Path) -> None:
    """Render ``frame`` (composited) as a PNG at ``filepath``."""
    scene.frame_set(frame)
    scene.render.filepath = str(filepath)
    if bpy.ops.render.render(write_still=True, scene=scene.name) != {"FINISHED"} or not filepath.is_file():
        raise InputError(f"Blender could not render {filepath.name}", "see Blender's messages above")


def _overlay_lines(overlay: Overlay, what: str) -> list[str]:
    framing = overlay.framing
    lines = [f"{what}: the subject spans {100 * framing.subject_height:.0f} % of the image height"]
    if overlay.force_scale_changed:
        lines.append(f"force arrows drawn at {1000 * framing.force_scale:g} mm/N so the forces fit the frame")
    return lines


def render_steps(scene: bpy.types.Scene, collection: bpy.types.Collection, folder: str | os.PathLike,
                 options: RenderOptions) -> Generator[tuple[float, str], None, list[Path]]:
    """Set up the overlay of the trial ``collection`` and render what ``options`` ask into ``folder``, one piece
    of work per step: a generator that yields ``(fraction done, message)`` after each set-up, each frame and the
    movie's encoding, and returns the files written. The caller drives it on Blender's main thread: all at once
    (``render_overlay``) or a step per timer tick (the sidebar's background job, ``render_operator``).

    Writes ``<trial>_still_<frame>.png``, the sequence ``<trial>_<frame>.png`` and ``<trial>.mp4`` (H.264,
    encoded from the sequence's frames). Everything is rendered into a hidden folder inside ``folder`` and moved
    into place once all of it is complete, in the step that ends the generator: stopped before (closed, Esc, an
    error), it leaves no file in ``folder`` and restores the scene's frame range, frame and output path.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"The output folder {folder} does not exist", "create it or choose another one")
    first, last = check(scene, options, collection)
    stem = bpy.path.clean_name(collection.name)
    animated = options.sequence or options.movie
    frames = range(first, last + 1) if animated else range(0)
    total = (2 if options.still is not None else 0) + len(frames) + (1 if animated else 0) + options.movie
    done, finished = 0, {}  # finished: final path -> rendered file

    def step(message: str) -> tuple[float, str]:
        nonlocal done
        done += 1
        return done / total, message

    temporary = folder / f".{stem}.{uuid.uuid4().hex[:8]}.partial"
    try:
        temporary.mkdir()
    except OSError as error:
        raise InputError(f"Cannot write into {folder}: {error.strerror}", "choose a folder you can write to") \
            from None
    try:
        with _rendering(scene, first, last):
            if options.still is not None:
                yield done / total, f"setting up the still of {collection.name!r} ({options.engine.lower()}, " \
                                    f"{options.view} view)"
                lines = _overlay_lines(setup_overlay(scene, collection, options, still=True), f"frame {options.still}")
                for line in lines[:-1]:
                    yield done / total, line
                yield step(lines[-1])
                png_frames(scene)
                path = folder / f"{stem}_still_{options.still:04d}.png"
                _render_frame(scene, options.still, temporary / path.name)
                finished[path] = temporary / path.name
                yield step(f"rendered {path}")
            if animated:
                yield done / total, f"setting up frames {first}:{last} of {collection.name!r} ({options.camera} camera)"
                lines = _overlay_lines(setup_overlay(scene, collection, options, still=False), f"frames {first}:{last}")
                for line in lines[:-1]:
                    yield done / total, line
                yield step(lines[-1])
                png_frames(scene)
                scene.render.filepath = str(folder / f"{stem}_")
                names = [Path(scene.render.frame_path(frame=f)).name for f in frames]  # <trial>_0001.png ...
                for frame, name in zip(frames, names):
                    _render_frame(scene, frame, temporary / name)
                    yield step(f"rendered frame {frame} ({frame - first + 1}/{len(frames)})")
                if options.sequence:
                    finished.update({folder / name: temporary / name for name in names})
                    yield done / total, f"rendered {len(names)} frames to {folder / f'{stem}_####.png'}"
                if options.movie:
                    path = folder / f"{stem}.mp4"
                    encode_movie(scene, [temporary / name for name in names], temporary / path.name)
                    finished[path] = temporary / path.name
                    yield step(f"encoded {path}")
        for path, rendered in finished.items():
            os.replace(rendered, path)
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    return list(finished)


def render_overlay(scene: bpy.types.Scene, collection: bpy.types.Collection, folder: str | os.PathLike,
                   options: RenderOptions, progress: Progress | None = None) -> list[Path]:
    """``render_steps`` all at once (headless, scripts): its messages to ``progress``; returns the files written."""
    steps = render_steps(scene, collection, folder, options)
    while True:
        try:
            fraction, message = next(steps)
        except StopIteration as done:
            return done.value
        if progress is not None:
            progress(fraction, message)
