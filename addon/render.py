"""Presentation renders of a trial: a camera that frames the subject, a legend with scale bars, the CM trail.

Everything the overlay adds (camera, sun, legend, trail) lives in the trial's
child collection ``"<trial> render"``, rebuilt on every run, so setting it up
twice gives the same scene. The look is part of the setup and stays with the
scene (F12 renders the same picture): engine, resolution, the "Standard" view
transform (the PNG shows the material colours of ``materials.COLOURS``), a
light grey world, measured-plate arrows and model markers shown or hidden in
renders. The CM trail, the scale bars and their labels use the near-black of
the plate outlines.

The camera frames the armature (or, without one, the marker empties) over the
frames to render, seen from the subject's right (side), front or front-right
(three-quarter); its top band is kept free for the legend.
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

import bmesh
import bpy
import numpy as np
from mathutils import Matrix

from ..solver.errors import InputError
from ..solver.io.atomic import atomic_path
from ..solver.pipeline import Progress
from .armature import RIG_PROP
from .arrows import FORCE_SCALE_PROP
from .collections import child_collection
from .dynamics_visuals import TORQUE_SCALE_PROP
from .markers import LABEL_PROP
from .materials import material
from .meshes import shared_mesh

ENGINES = ("WORKBENCH", "EEVEE")
#: View -> (weight of the subject's forward direction, of its right, camera elevation [deg]) of the camera offset.
VIEWS = {"side": (0.0, 1.0, 5.0), "front": (1.0, 0.0, 5.0), "three_quarter": (1.0, 1.0, 18.0)}
#: Legend rows: colour kind -> label, in this order; a row appears when its kind renders in the trial.
LEGEND = {"force_measured": "measured GRF", "force_estimated": "estimated GRF",
          "torque_generating": "joint torque, generating", "torque_absorbing": "joint torque, absorbing",
          "force_residual": "root residual force", "contact_plane": "estimated ground",
          "angular_momentum": "angular momentum"}
INK = "legend_ink"  # scale bars and their labels
TRAVEL_MIN = 0.5  # m: a shorter root path does not define the forward direction (the pelvis does)
BODY_MARGIN = 0.2  # m around the bones (the body mesh's radius) or the markers
LEGEND_BAND = 0.2  # fraction of the frame height kept free at the top for the legend
TEXT_SIZE = 0.035  # fraction of the frame height
LENS_MM, SENSOR_MM = 35.0, 36.0
BACKGROUND = (0.6, 0.6, 0.6)  # linear grey
AMBIENT, SUN = 0.35, 1.8  # EEVEE: world light strength and sun irradiance [W/m²]
TRAIL_RADIUS = 0.006  # m


@dataclass(frozen=True)
class RenderOptions:
    """What to render and how.

    ``frames``: first and last frame (inclusive) the camera frames and the
    sequence and movie cover; None is the scene's frame range. ``still``: the
    frame of the still (None: no still). ``plates``: show the measured
    force-plate arrows. ``samples``: EEVEE render samples (Workbench ignores it).
    """

    engine: str = "WORKBENCH"
    resolution: tuple[int, int] = (1280, 720)
    view: str = "side"
    frames: tuple[int, int] | None = None
    still: int | None = None
    sequence: bool = False
    movie: bool = False
    plates: bool = True
    model_markers: bool = False
    samples: int = 16


def check(scene: bpy.types.Scene, options: RenderOptions) -> tuple[int, int]:
    """Check ``options`` for ``scene``; returns the first and last frame to frame and render."""
    if options.engine not in ENGINES:
        raise InputError(f"Unknown render engine {options.engine!r}", f"use one of {', '.join(ENGINES)}")
    if options.view not in VIEWS:
        raise InputError(f"Unknown view {options.view!r}", f"use one of {', '.join(VIEWS)}")
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
    if options.still is not None and not scene.frame_start <= options.still <= scene.frame_end:
        raise InputError(f"Frame {options.still} is not within {keyed}", "pick a frame inside that range")
    return first, last


def _framed_objects(collection: bpy.types.Collection) -> list[bpy.types.Object]:
    """What the camera frames: the trial's armatures (its own rig first), or without one its marker empties."""
    rigs = sorted((ob for ob in collection.all_objects if ob.type == "ARMATURE"), key=lambda ob: not ob.get(RIG_PROP))
    objects = rigs or [ob for ob in collection.all_objects if LABEL_PROP in ob]
    if not objects:
        raise InputError(f"The trial {collection.name!r} has neither an armature nor markers", "import it again")
    return objects


def _posed(scene: bpy.types.Scene, objects: list[bpy.types.Object], first: int,
           last: int) -> tuple[np.ndarray, np.ndarray]:
    """World matrices ``(T, N, 4, 4)`` at frames ``first``..``last`` of the pose bones of each armature in
    ``objects`` and of the other objects themselves, and each one's length along its Y axis (bones; else 0).

    Blender evaluates the keyed scene (``frame_set``, one ``foreach_get`` per
    armature and frame), so what is framed is what renders, whatever keyed it;
    about 1 ms a frame, small beside rendering one.
    """
    sizes = [len(ob.pose.bones) if ob.type == "ARMATURE" else 1 for ob in objects]
    lengths = np.concatenate([[b.length for b in ob.data.bones] if ob.type == "ARMATURE" else [0.0]
                              for ob in objects])
    current = scene.frame_current
    out = np.empty((last - first + 1, sum(sizes), 4, 4))
    starts = np.cumsum([0] + sizes)
    for t, frame in enumerate(range(first, last + 1)):
        scene.frame_set(frame)
        for ob, start, size in zip(objects, starts, sizes):
            if ob.type == "ARMATURE":
                buffer = np.empty(16 * size, dtype=np.float32)
                ob.pose.bones.foreach_get("matrix", buffer)  # column-major, in armature space
                out[t, start:start + size] = np.array(ob.matrix_world) @ buffer.reshape(-1, 4, 4).transpose(0, 2, 1)
            else:
                out[t, start] = np.array(ob.matrix_world)
    scene.frame_set(current)
    return out, lengths


def centre_of_mass(bones: np.ndarray, rig: bpy.types.Object) -> np.ndarray | None:
    """Whole-body centre of mass ``(T, 3)`` from posed bones ``(T, B, 4, 4)`` and their ``mass_kg``/``com_m``.

    A segment's CM ``com_m`` is in its segment frame, which is the bone frame
    turned back by the bone's rest rotation ``C`` (see armature.py): world CM
    = head + R_bone Cᵀ com. None when the bones carry no masses.
    """
    data = rig.data.bones
    if not all("mass_kg" in b and "com_m" in b for b in data):
        return None
    mass = np.array([b["mass_kg"] for b in data])
    rest = np.array([np.array(b.matrix_local)[:3, :3] for b in data])
    com = np.einsum("bji,bj->bi", rest, np.array([b["com_m"] for b in data]))  # Cᵀ com, in bone axes
    points = bones[:, :, :3, 3] + np.einsum("tbij,bj->tbi", bones[:, :, :3, :3], com)
    return np.einsum("b,tbi->ti", mass / mass.sum(), points)


def _forward(posed: np.ndarray, rig: bpy.types.Object | None) -> np.ndarray:
    """The subject's horizontal forward direction: where it travels, else where the pelvis faces, else +X.

    ``posed``: the rig's bones (root first) or, without a rig, the markers.
    """
    root = posed[:, 0, :3, 3] if rig is not None else posed[:, :, :3, 3].mean(axis=1)
    travel = (root[-1] - root[0]) * [1.0, 1.0, 0.0]
    if np.linalg.norm(travel) > TRAVEL_MIN:
        return travel / np.linalg.norm(travel)
    if rig is not None:  # the root segment's X (anterior): the bone frame turned back by its rest rotation
        rest = np.array(rig.data.bones[0].matrix_local)[:3, :3]
        facing = (posed[:, 0, :3, :3] @ rest.T)[:, :, 0].mean(axis=0) * [1.0, 1.0, 0.0]
        if np.linalg.norm(facing) > 1e-6:
            return facing / np.linalg.norm(facing)
    return np.array([1.0, 0.0, 0.0])


def _camera_axes(forward: np.ndarray, view: str) -> np.ndarray:
    """Camera X, Y, Z (Z points from the subject to the camera) as columns."""
    along, right, elevation = VIEWS[view]
    up = np.array([0.0, 0.0, 1.0])
    horizontal = along * forward + right * np.cross(forward, up)
    horizontal /= np.linalg.norm(horizontal)
    z = math.cos(math.radians(elevation)) * horizontal + math.sin(math.radians(elevation)) * up
    x = np.cross(up, z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def _fit_distance(corners: np.ndarray, centre: np.ndarray, axes: np.ndarray, tan_x: float, tan_y: float) -> float:
    """Smallest camera distance to ``centre`` along the camera Z at which every corner is inside the frame.

    A point at camera coordinates (a, b, h) relative to the centre is at depth
    D − h; it is inside when |a| ≤ (D − h) tan_x and |b| ≤ (D − h) tan_y.
    """
    a, b, h = ((corners - centre) @ axes).T
    return float(np.max(np.maximum(h + np.abs(a) / tan_x, h + np.abs(b) / tan_y)))


def _camera(collection: bpy.types.Collection, points: np.ndarray, forward: np.ndarray,
            options: RenderOptions) -> tuple[bpy.types.Object, float, float, float]:
    """A perspective camera framing ``points`` ``(N, 3)``; returns it, its distance and the frame's half-size there."""
    low, high = points.min(axis=0) - BODY_MARGIN, points.max(axis=0) + BODY_MARGIN
    corners = np.array([[x, y, z] for x in (low[0], high[0]) for y in (low[1], high[1]) for z in (low[2], high[2])])
    centre = 0.5 * (low + high)
    axes = _camera_axes(forward, options.view)
    width, height = options.resolution
    tan_x = 0.5 * SENSOR_MM / LENS_MM
    tan_y = tan_x * height / width
    distance = 1.03 * _fit_distance(corners, centre, axes, tan_x, (1.0 - LEGEND_BAND) * tan_y)
    data = bpy.data.cameras.new("MocapDynamics render camera")
    data.lens, data.sensor_width, data.sensor_fit = LENS_MM, SENSOR_MM, "HORIZONTAL"
    data.shift_y = LEGEND_BAND * height / (2.0 * width)  # frame up by LEGEND_BAND half-heights: the subject below
    data.clip_start, data.clip_end = 0.05, 2.0 * distance + float(np.linalg.norm(high - low)) + 10.0
    camera = bpy.data.objects.new("render camera", data)
    matrix = Matrix(axes.tolist()).to_4x4()
    matrix.translation = centre + distance * axes[:, 2]
    camera.matrix_world = matrix
    collection.objects.link(camera)
    return camera, distance, distance * tan_x, distance * tan_y


def _nice(value: float) -> float:
    """The largest 1, 2 or 5 times a power of ten not above ``value``."""
    power = 10.0 ** math.floor(math.log10(value))
    return max(m * power for m in (1.0, 2.0, 5.0) if m * power <= value)


def _square_mesh(kind: str) -> bpy.types.Mesh:
    """A unit square from x = 0 to 1, y = -0.5 to 0.5 (swatches and scale bars, stretched along X)."""
    return shared_mesh("MocapDynamics legend square", kind, lambda bm: bmesh.ops.translate(
        bm, verts=bmesh.ops.create_grid(bm, x_segments=1, y_segments=1, size=0.5)["verts"], vec=(0.5, 0.0, 0.0)))


def _in_camera(collection, camera, ob: bpy.types.Object, x: float, y: float, depth: float) -> None:
    ob.parent = camera
    ob.location = (x, y, -depth)
    collection.objects.link(ob)


def _patch(collection, camera, kind: str, name: str, x: float, y: float, width: float, height: float,
           depth: float) -> None:
    """A rectangle of ``kind``'s colour from camera coordinates (x, y − height/2) to (x + width, y + height/2)."""
    patch = bpy.data.objects.new(name, _square_mesh(kind))
    patch.scale = (width, height, 1.0)
    _in_camera(collection, camera, patch, x, y, depth)


def _label(collection, camera, kind: str, text: str, x: float, y: float, size: float, depth: float,
           align: str = "LEFT") -> None:
    """``text`` in ``kind``'s colour, vertically centred on camera coordinates (x, y), starting or ending at x."""
    curve = bpy.data.curves.new(f"legend {text}", "FONT")
    curve.body, curve.size, curve.align_x, curve.align_y = text, size, align, "CENTER"
    curve.materials.append(material(kind))
    _in_camera(collection, camera, bpy.data.objects.new(f"legend {text}", curve), x, y, depth)


def _legend(scene, collection, camera, kinds: list[str], depth: float, half_w: float, half_h: float) -> None:
    """The legend in the frame's top band, at the subject's depth (so scale bars measure what is drawn there):
    a swatch and a label per colour in two columns on the left, and the force and torque scale bars, each under
    its value, on the right."""
    top = 2.0 * half_w * camera.data.shift_y + half_h
    size = TEXT_SIZE * 2.0 * half_h
    per_column = math.ceil(len(kinds) / 2)
    for i, kind in enumerate(kinds):
        column, row = divmod(i, per_column)
        x, y = -half_w + size + column * 2.0 * half_w / 3.0, top - (1.2 + 1.5 * row) * size
        _patch(collection, camera, kind, f"legend {LEGEND[kind]} swatch", x, y, size, 0.7 * size, depth)
        _label(collection, camera, kind, LEGEND[kind], x + 1.4 * size, y, size, depth)
    bars = []
    if scene.get(FORCE_SCALE_PROP, 0.0) > 0:
        force = _nice(0.25 * half_w / scene[FORCE_SCALE_PROP])
        bars.append((f"{force:g} N force", force * scene[FORCE_SCALE_PROP]))
    if scene.get(TORQUE_SCALE_PROP, 0.0) > 0 and "torque_generating" in kinds:
        torque = _nice(0.1 * half_w / scene[TORQUE_SCALE_PROP])
        bars.append((f"{torque:g} N·m torque (disk radius)", torque * scene[TORQUE_SCALE_PROP]))
    right = half_w - size
    for row, (text, length) in enumerate(bars):
        y = top - (1.2 + 2.4 * row) * size
        _label(collection, camera, INK, text, right, y, size, depth, align="RIGHT")
        _patch(collection, camera, INK, f"legend {text} bar", right - length, y - 0.9 * size, length, 0.2 * size,
               depth)


def _trail(collection: bpy.types.Collection, points: np.ndarray) -> bpy.types.Object:
    """The CM path as a poly curve with a round bevel (it renders in every engine)."""
    curve = bpy.data.curves.new("centre of mass trail", "CURVE")
    curve.dimensions, curve.bevel_depth, curve.bevel_resolution = "3D", TRAIL_RADIUS, 2
    spline = curve.splines.new("POLY")
    spline.points.add(len(points) - 1)
    spline.points.foreach_set("co", np.column_stack([points, np.ones(len(points))]).astype(np.float32).ravel())
    curve.materials.append(material("cm_trail"))
    trail = bpy.data.objects.new("centre of mass trail", curve)
    collection.objects.link(trail)
    return trail


def _kinds_rendered(collection: bpy.types.Collection) -> set[str]:
    """Colour kinds of the meshes that render in the trial (the legend lists only what is there)."""
    kinds = set()
    for ob in collection.all_objects:
        if ob.type == "MESH" and not ob.hide_render and ob.data.materials and ob.data.materials[0] is not None:
            kinds.add(ob.data.materials[0].name.removeprefix("MocapDynamics "))
    return kinds


def _show_in_renders(collection: bpy.types.Collection, options: RenderOptions) -> None:
    """Measured-plate arrows and model markers shown or hidden in renders, as ``options`` ask."""
    measured = bpy.data.materials.get("MocapDynamics force_measured")
    for ob in list(collection.all_objects):  # a list: changing hide_render rebuilds all_objects
        if LABEL_PROP + "_model" in ob:
            ob.hide_render = not options.model_markers
        elif ob.type == "MESH" and measured is not None and measured in ob.data.materials[:]:
            ob.hide_render = not options.plates


def _eevee_engine() -> str:
    """'BLENDER_EEVEE_NEXT' on Blender 4.2 to 4.5, 'BLENDER_EEVEE' on 5.0."""
    names = bpy.types.RenderSettings.bl_rna.properties["engine"].enum_items.keys()
    return next(name for name in ("BLENDER_EEVEE_NEXT", "BLENDER_EEVEE") if name in names)


def _world(scene: bpy.types.Scene) -> None:
    """A light grey background in every engine: the world colour (Workbench) and, for EEVEE, a world that
    shows that grey to the camera but lights the scene more dimly (``AMBIENT``), so colours do not wash out."""
    world = bpy.data.worlds.get("MocapDynamics render") or bpy.data.worlds.new("MocapDynamics render")
    world.color = BACKGROUND
    if world.node_tree is None:  # Blender < 5.0 creates worlds without nodes
        world.use_nodes = True
    nodes, links = world.node_tree.nodes, world.node_tree.links
    nodes.clear()
    seen, lighting = nodes.new("ShaderNodeBackground"), nodes.new("ShaderNodeBackground")
    for node, strength in ((seen, 1.0), (lighting, AMBIENT)):
        node.inputs["Color"].default_value = (*BACKGROUND, 1.0)
        node.inputs["Strength"].default_value = strength
    mix = nodes.new("ShaderNodeMixShader")
    links.new(nodes.new("ShaderNodeLightPath").outputs["Is Camera Ray"], mix.inputs["Fac"])
    links.new(lighting.outputs["Background"], mix.inputs[1])
    links.new(seen.outputs["Background"], mix.inputs[2])
    links.new(mix.outputs["Shader"], nodes.new("ShaderNodeOutputWorld").inputs["Surface"])
    scene.world = world


def _sun(collection: bpy.types.Collection, camera: bpy.types.Object) -> None:
    """A sun from above the camera's left shoulder (EEVEE; Workbench uses its studio light)."""
    data = bpy.data.lights.new("MocapDynamics render sun", "SUN")
    data.energy = SUN
    sun = bpy.data.objects.new("render sun", data)
    sun.rotation_euler = (camera.matrix_world.to_3x3() @ Matrix.Rotation(math.radians(-35), 3, "X")
                          @ Matrix.Rotation(math.radians(-25), 3, "Y")).to_euler()
    collection.objects.link(sun)


def _render_settings(scene: bpy.types.Scene, options: RenderOptions) -> None:
    render = scene.render
    render.engine = "BLENDER_WORKBENCH" if options.engine == "WORKBENCH" else _eevee_engine()
    render.resolution_x, render.resolution_y = options.resolution
    render.resolution_percentage = 100
    render.film_transparent = False
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.look = "None"
    scene.view_settings.exposure, scene.view_settings.gamma = 0.0, 1.0
    shading = scene.display.shading
    shading.light, shading.color_type = "STUDIO", "MATERIAL"
    shading.show_specular_highlight = shading.show_shadows = shading.show_cavity = False
    if options.engine == "EEVEE":
        scene.eevee.taa_render_samples = options.samples


def _image_format(scene: bpy.types.Scene, movie: bool) -> None:
    """PNG images or an H.264 MP4 (Blender 5.0 chooses images or video by ``media_type`` first)."""
    settings = scene.render.image_settings
    if "media_type" in settings.bl_rna.properties:
        settings.media_type = "VIDEO" if movie else "IMAGE"
    settings.file_format = "FFMPEG" if movie else "PNG"
    if movie:
        ffmpeg = scene.render.ffmpeg
        ffmpeg.format, ffmpeg.codec = "MPEG4", "H264"
        ffmpeg.constant_rate_factor, ffmpeg.ffmpeg_preset = "MEDIUM", "GOOD"
        ffmpeg.audio_codec = "NONE"
    else:
        settings.color_mode, settings.color_depth = "RGB", "8"


#: Where the data of the overlay's objects lives, to remove it with them.
_POOLS = ((bpy.types.Camera, "cameras"), (bpy.types.Light, "lights"), (bpy.types.Curve, "curves"),
          (bpy.types.Mesh, "meshes"))


def _overlay_collection(collection: bpy.types.Collection) -> bpy.types.Collection:
    """The trial's empty ``"<trial> render"`` child collection; a previous overlay's objects and data removed."""
    name = f"{collection.name} render"
    previous = next((c for c in collection.children if c.name.startswith(name)), None)
    data = set(ob.data for ob in previous.objects if ob.data is not None) if previous else set()
    overlay = child_collection(collection, name)
    for block in data:
        if block.users == 0:
            getattr(bpy.data, next(pool for kind, pool in _POOLS if isinstance(block, kind))).remove(block)
    return overlay


def setup_overlay(scene: bpy.types.Scene, collection: bpy.types.Collection,
                  options: RenderOptions = RenderOptions()) -> bpy.types.Object:
    """(Re)build the overlay of the trial ``collection`` and the render settings; returns the camera."""
    first, last = check(scene, options)
    overlay = _overlay_collection(collection)
    objects = _framed_objects(collection)
    posed, lengths = _posed(scene, objects, first, last)
    heads = posed[:, :, :3, 3]
    points = np.concatenate([heads, heads + posed[:, :, :3, 1] * lengths[:, None]], axis=1)  # bone tails too
    rig = objects[0] if objects[0].get(RIG_PROP) else None
    own = posed[:, :len(rig.data.bones)] if rig is not None else posed
    camera, depth, half_w, half_h = _camera(overlay, points.reshape(-1, 3), _forward(own, rig), options)
    scene.camera = camera
    _sun(overlay, camera)
    _show_in_renders(collection, options)
    kinds = _kinds_rendered(collection)
    cm = centre_of_mass(own, rig) if rig is not None else None
    if cm is not None:
        _trail(overlay, cm)
    _legend(scene, overlay, camera, [kind for kind in LEGEND if kind in kinds], depth, half_w, half_h)
    _world(scene)
    _render_settings(scene, options)
    return camera


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


def _render(scene: bpy.types.Scene, filepath: Path, animation: bool) -> None:
    scene.render.filepath = str(filepath)
    if bpy.ops.render.render(animation=animation, write_still=not animation, scene=scene.name) != {"FINISHED"}:
        raise InputError(f"Blender could not render {filepath.name}", "see Blender's messages above")


def render_overlay(scene: bpy.types.Scene, collection: bpy.types.Collection, folder: str | os.PathLike,
                   options: RenderOptions, progress: Progress | None = None) -> list[Path]:
    """Set up the overlay of the trial ``collection`` and render what ``options`` ask into ``folder``.

    Writes ``<trial>_still_<frame>.png``, the sequence ``<trial>_<frame>.png``
    and ``<trial>.mp4`` (H.264); each file is rendered under a temporary name
    and renamed when complete. Returns the files written.
    """
    progress = progress or (lambda fraction, message: None)
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"The output folder {folder} does not exist", "create it or choose another one")
    first, last = check(scene, options)
    progress(0.0, f"setting up the overlay of {collection.name!r} ({options.engine.lower()}, {options.view} view)")
    setup_overlay(scene, collection, options)
    stem = bpy.path.clean_name(collection.name)
    written = []
    if options.still is not None:
        _image_format(scene, movie=False)
        path = folder / f"{stem}_still_{options.still:04d}.png"
        with _rendering(scene, first, last), atomic_path(path) as temporary:
            scene.frame_set(options.still)
            _render(scene, temporary, animation=False)
        written.append(path)
        progress(1.0, f"rendered {path}")
    if options.sequence:
        _image_format(scene, movie=False)
        temporary = folder / f".{stem}.{uuid.uuid4().hex[:8]}.partial"
        temporary.mkdir()
        try:
            with _rendering(scene, first, last):
                _render(scene, temporary / f"{stem}_", animation=True)
                frames = [Path(scene.render.frame_path(frame=f)) for f in range(first, last + 1)]
            for frame in frames:
                os.replace(frame, folder / frame.name)
                written.append(folder / frame.name)
        finally:
            shutil.rmtree(temporary, ignore_errors=True)
        progress(1.0, f"rendered {len(frames)} frames to {folder / f'{stem}_####.png'}")
    if options.movie:
        _image_format(scene, movie=True)
        path = folder / f"{stem}.mp4"
        with _rendering(scene, first, last), atomic_path(path) as temporary:
            _render(scene, temporary, animation=True)
        written.append(path)
        progress(1.0, f"rendered {path}")
    return written
