"""The legend of a render: a swatch and a label per colour that shows in the picture, and the scale bars.

A colour is listed only when something of it can be seen in the rendered
frames: rays from the camera reach enough of one of its objects (through
see-through disks, a see-through body and what does not render) inside the
3D view that the part seen covers ``SEEN_AREA`` of the image, at one of up to
``CHECKED_FRAMES`` frames spread over the render. The centre-of-mass path is
listed when some of it has been drawn by then inside the view. Estimated forces
seen on a seat or off the feet (arrows that push, ``PUSHES_PROP``) make their
row "estimated contact force": not all of them come from the ground. The scale bars
measure at the subject's depth: a force bar and, with torque disks in the
picture, a disk-radius bar.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
from bpy_extras.object_utils import world_to_camera_view
from mathutils import Vector

from .arrows import PUSHES_PROP
from .materials import COLOURS
from .render_canvas import Canvas, flat_material
from .render_looks import Palette
from .render_sampling import TORQUE_PROP, rendered_objects

#: Legend rows: colour kind -> label, in this order.
LEGEND = {"force_measured": "measured GRF", "force_estimated": "estimated GRF",
          "torque_generating": "torque, generating", "torque_absorbing": "torque, absorbing",
          "force_residual": "root residual", "angular_momentum": "angular momentum",
          "contact_plane": "estimated ground", "contact_raised": "estimated raised surface",
          "cm_trail": "centre of mass"}
#: The estimated force's row when a force off the feet shows (a seat's, a hand's).
CONTACT_LABEL = "estimated contact force"
TEXT_SIZE = 0.026  # of the image height
CHECKED_FRAMES = 24
SEE_THROUGH_HITS = 6  # a ray goes on through at most this many see-through surfaces
SEEN_AREA = 0.015 ** 2  # a colour is listed when this much of the image height squared shows it
ROUND = 0.75  # a round shape's image over its bounding box's
BACKING_ALPHA = 0.75


def kind_of(ob: bpy.types.Object) -> str | None:
    """The colour kind of an object's first material (``"MocapDynamics <kind>"``), or None."""
    mats = [m for m in getattr(ob.data, "materials", []) if m is not None] if ob.data is not None else []
    return mats[0].name.removeprefix("MocapDynamics ") if mats else None


def _probes(ob: bpy.types.Object) -> list[Vector]:
    """Points spread over an object: a disk's face, else its axis and across it (arrow shafts and heads)."""
    matrix = ob.matrix_world
    if TORQUE_PROP in ob.parent:
        return [matrix @ Vector((r * math.cos(a), r * math.sin(a), 0.0)) for r in (0.0, 0.45, 0.85)
                for a in np.linspace(0, 2 * math.pi, 6, endpoint=False)]
    low, high = Vector(ob.bound_box[0]), Vector(ob.bound_box[6])
    return [matrix @ Vector((u * low.x + (1 - u) * high.x, 0.0, low.z + v * (high.z - low.z)))
            for u in (0.25, 0.5, 0.75) for v in (0.1, 0.3, 0.5, 0.7, 0.9)]


def _spread(ob: bpy.types.Object) -> list[Vector]:
    """A 5 x 5 grid of points across an object's bounding box (at mid height)."""
    low, high = Vector(ob.bound_box[0]), Vector(ob.bound_box[6])
    span = high - low
    return [ob.matrix_world @ Vector((low.x + u * span.x, low.y + v * span.y, low.z + 0.5 * span.z))
            for u in np.linspace(0, 1, 5) for v in np.linspace(0, 1, 5)]


def _rendered_collections(collection: bpy.types.Collection) -> set[bpy.types.Collection]:
    """``collection`` and its descendants that renders show (a hidden collection hides its children)."""
    if collection.hide_render:
        return set()
    return {collection}.union(*(_rendered_collections(child) for child in collection.children))


class _Sight:
    """What the scene camera sees at the current frame, of the trial ``collection``.

    Rays pass through see-through kinds and through what does not render;
    only points inside the 3D view (left of ``view_right``, the image
    fraction where a plot panel starts) count.
    """

    def __init__(self, scene, collection, view_right: float, see_through: set[str]):
        self.scene, self.view_right, self.see_through = scene, view_right, see_through
        self.shown = rendered_objects(collection)
        self.rendered = _rendered_collections(scene.collection)

    def update(self) -> None:
        """Follow the scene to its current frame."""
        self.depsgraph = bpy.context.evaluated_depsgraph_get()
        self.camera = self.scene.camera
        self.position = self.camera.matrix_world.translation.copy()

    def in_view(self, point: Vector) -> bool:
        x, y, depth = world_to_camera_view(self.scene, self.camera, point)
        return depth > 0 and 0.0 <= x <= self.view_right and 0.0 <= y <= 1.0

    def _blocks(self, ob: bpy.types.Object) -> bool:
        """Whether ``ob`` hides what is behind it: it renders and is not see-through."""
        rendered = not ob.hide_render and (ob.name in self.scene.collection.objects
                                           or any(c in self.rendered for c in ob.users_collection))
        return rendered and kind_of(ob) not in self.see_through

    def reaches(self, point: Vector, target: bpy.types.Object) -> bool:
        """Whether a ray from the camera to ``point`` meets ``target`` before anything that hides it."""
        origin, direction = self.position, (point - self.position).normalized()
        for _ in range(SEE_THROUGH_HITS):
            hit, location, _, _, ob, _ = self.scene.ray_cast(self.depsgraph, origin, direction)
            if not hit or ob.original == target:
                return hit
            if self._blocks(ob.original):
                return False
            origin = location + 1e-4 * direction
        return False

    def pixels(self, ob: bpy.types.Object) -> float:
        """The image area [px²] of the object: its local bounding box's projection (the parallelogram sum of
        its three faces' images), times ``ROUND`` for round shapes (cylinders, cones, disks)."""
        low, high = Vector(ob.bound_box[0]), Vector(ob.bound_box[6])
        centre, half = 0.5 * (low + high), 0.5 * (high - low)
        size = np.array([self.scene.render.resolution_x, self.scene.render.resolution_y])
        at = np.array(self.camera_xy(ob.matrix_world @ centre)) * size
        axes = []
        for i in range(3):
            offset = centre.copy()
            offset[i] += half[i]
            axes.append(np.array(self.camera_xy(ob.matrix_world @ offset)) * size - at)
        faces = sum(abs(axes[i][0] * axes[j][1] - axes[i][1] * axes[j][0]) for i, j in ((0, 1), (1, 2), (2, 0)))
        return ROUND * 4.0 * float(faces)

    def camera_xy(self, point: Vector) -> tuple[float, float]:
        return tuple(world_to_camera_view(self.scene, self.camera, point)[:2])

    def sees(self, ob: bpy.types.Object) -> bool:
        """Whether ``ob`` shows: scenery (no parent) where it is in view; visuals where rays reach enough of
        them that the part seen (the share of probe points reached times the box's image area) covers
        ``SEEN_AREA`` of the image height squared."""
        if abs(ob.matrix_world.to_3x3().determinant()) < 1e-12:  # a zero force or torque: nothing drawn
            return False
        if ob.parent is None:  # scenery (the estimated ground's wire grid)
            return any(self.in_view(p) for p in _spread(ob))
        needed = SEEN_AREA * self.scene.render.resolution_y ** 2
        area = self.pixels(ob)
        if area < needed:
            return False
        probes = _probes(ob)
        reached = 0
        for p in probes:
            reached += self.in_view(p) and self.reaches(p, ob)
            if reached * area >= needed * len(probes):
                return True
        return False


def label_of(ob: bpy.types.Object, kind: str) -> str:
    """The legend row an object of colour ``kind`` belongs to."""
    pushes = kind == "force_estimated" and ob.parent is not None and ob.parent.get(PUSHES_PROP, False)
    return CONTACT_LABEL if pushes else LEGEND[kind]


def visible_kinds(scene: bpy.types.Scene, collection: bpy.types.Collection, frames: np.ndarray,
                  trail: tuple[np.ndarray, np.ndarray] | None, view_right: float,
                  see_through: set[str]) -> dict[str, str]:
    """The legend kinds seen at ``frames`` (spread to at most ``CHECKED_FRAMES``), in legend order, with their
    labels.

    ``trail``: the frames and points ``(T, 3)`` of the centre-of-mass path (drawn up to the frame), or None;
    ``view_right``: the image fraction from the left where the plot panel starts (1 without one).
    """
    sight = _Sight(scene, collection, view_right, see_through)
    candidates: dict[tuple[str, str], list[bpy.types.Object]] = {}
    for ob in sight.shown:
        kind = kind_of(ob) if ob.type == "MESH" else None
        if kind in LEGEND:
            candidates.setdefault((kind, label_of(ob, kind)), []).append(ob)
    chosen = np.unique(np.linspace(0, len(frames) - 1, min(CHECKED_FRAMES, len(frames))).round().astype(int))
    found: set[tuple[str, str]] = set()
    current = scene.frame_current
    for frame in frames[chosen]:
        scene.frame_set(int(frame))
        sight.update()
        found |= {row for row, objects in candidates.items()
                  if row not in found and any(sight.sees(ob) for ob in objects)}
        drawn = trail[1][trail[0] <= frame] if trail is not None else []
        if len(drawn) > 1 and any(sight.in_view(Vector(p)) for p in drawn[::max(1, len(drawn) // 20)]):
            found.add(("cm_trail", LEGEND["cm_trail"]))
    scene.frame_set(current)
    labels = {}
    for kind, label in found:  # feet and a seat both seen: one row, the contact force's
        if kind not in labels or label == CONTACT_LABEL:
            labels[kind] = label
    return {kind: labels[kind] for kind in LEGEND if kind in labels}


def _nice(value: float) -> float:
    """The largest 1, 2 or 5 times a power of ten not above ``value``."""
    power = 10.0 ** math.floor(math.log10(value))
    return max(m * power for m in (1.0, 2.0, 5.0) if m * power <= value)


def draw(canvas: Canvas, kinds: dict[str, str], palette: Palette, column: float, metres_per_pixel: float,
         force_scale: float, torque_scale: float) -> None:
    """The legend rows (colour kind -> label) and scale bars in the canvas's top left, within ``column`` pixels
    of width (the centre-of-mass path has the palette's colour)."""
    size = TEXT_SIZE * canvas.height
    ink = flat_material("ink", palette.ink)
    x, y = 0.5 * size, canvas.height - 1.2 * size
    for kind, label in kinds.items():
        swatch = flat_material("trail", palette.trail) if kind == "cm_trail" else flat_material(kind, COLOURS[kind])
        canvas.rect(f"legend {kind} swatch", x, y - 0.35 * size, 1.1 * size, 0.7 * size, swatch)
        canvas.text(label, x + 1.6 * size, y, size, ink)
        y -= 1.45 * size
    y -= 0.6 * size
    bars = []
    if force_scale > 0 and any(kind.startswith("force") for kind in kinds):
        force = _nice(0.6 * column * metres_per_pixel / force_scale)
        bars.append((f"{force:g} N", force * force_scale / metres_per_pixel))
    if torque_scale > 0 and any(kind.startswith("torque") for kind in kinds):
        torque = _nice(0.4 * column * metres_per_pixel / torque_scale)
        bars.append((f"{torque:g} N·m disk radius", torque * torque_scale / metres_per_pixel))
    for text, length in bars:
        canvas.text(text, x, y, size, ink)
        canvas.rect(f"legend {text} bar", x, y - 1.0 * size, length, 0.22 * size, ink)
        y -= 2.3 * size
    if kinds or bars:  # a veil of the background behind it, so lines passing under it do not cross the text
        canvas.rect("legend backing", 0.0, y + size, column, canvas.height - y - size,
                    flat_material("veil", palette.background, BACKING_ALPHA), z=-1.0)
