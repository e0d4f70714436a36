"""Force arrows that render: a keyed root with a shaft and a head whose size follows the force.

The arrow's root sits at the point of application and turns +Z onto the force
direction; its custom property ``force_N`` holds the keyed magnitude (so it is
a curve in the Graph Editor). The arrow starts at the root (a ground reaction
force at its centre of pressure, drawn up the leg), or, ``pushes``, ends there:
it comes from below and its head touches the body where a seat pushes it
(drawn from the root up, a seat's force would lie inside the pelvis and the
torso, hidden by the body); ``PUSHES_PROP`` marks those. The shaft's length
and the head's size follow ``force_N`` times the scene's ``mocap_force_scale``
[m/N] through drivers with simple expressions (they run even when Python
auto-run is off), so changing the scale re-sizes every arrow without
re-keying. A zero force gives a zero-size, invisible arrow.
"""

from __future__ import annotations

import bpy
import bmesh
import numpy as np

from ..solver.rotations import quat_continuity, quat_z_to
from .keying import Channel, key_channels, vector_channels
from .meshes import shared_mesh

FORCE_SCALE_PROP = "mocap_force_scale"
DEFAULT_FORCE_SCALE = 0.001  # m per N: body weight of a 70 kg subject is a 0.69 m arrow
HEAD_LENGTH = 0.06  # m
SHAFT_RADIUS = 0.008  # m
PUSHES_PROP = "pushes"


def _shaft_mesh(kind: str) -> bpy.types.Mesh:
    """Unit-length cylinder from z = 0 to z = 1 (scaled along Z to the force)."""
    def build(bm):
        bmesh.ops.create_cone(bm, cap_ends=True, segments=12, radius1=SHAFT_RADIUS, radius2=SHAFT_RADIUS, depth=1.0)
        bmesh.ops.translate(bm, verts=bm.verts, vec=(0.0, 0.0, 0.5))
    return shared_mesh("MocapDynamics arrow shaft", kind, build)


def _head_mesh(kind: str, pushes: bool) -> bpy.types.Mesh:
    """Cone with its base at z = 0 and its tip at z = HEAD_LENGTH, or (``pushes``) its base at z = -HEAD_LENGTH
    and its tip at z = 0."""
    def build(bm):
        bmesh.ops.create_cone(bm, cap_ends=True, segments=12, radius1=2.5 * SHAFT_RADIUS, radius2=0.0,
                              depth=HEAD_LENGTH)
        bmesh.ops.translate(bm, verts=bm.verts, vec=(0.0, 0.0, -0.5 * HEAD_LENGTH if pushes else 0.5 * HEAD_LENGTH))
    return shared_mesh(f"MocapDynamics arrow head{' pushing' if pushes else ''}", kind, build)


def _drive(target: bpy.types.Object, data_path: str, index: int, root: bpy.types.Object, scene: bpy.types.Scene,
           expression: str) -> None:
    """Driver ``expression`` of ``f`` (the root's force_N) and ``s`` (the scene's force scale)."""
    driver = target.driver_add(data_path, index).driver
    driver.type = "SCRIPTED"
    for name, id_type, id_, path in (("f", "OBJECT", root, '["force_N"]'),
                                     ("s", "SCENE", scene, f'["{FORCE_SCALE_PROP}"]')):
        var = driver.variables.new()
        var.name = name
        var.type = "SINGLE_PROP"
        var.targets[0].id_type = id_type
        var.targets[0].id = id_
        var.targets[0].data_path = path
    driver.expression = expression


def create_arrow(name: str, collection: bpy.types.Collection, kind: str, scene: bpy.types.Scene,
                 pushes: bool = False) -> bpy.types.Object:
    """A new arrow (root empty + shaft + head) in ``collection``, starting at its root or (``pushes``) ending
    there; returns the root."""
    if FORCE_SCALE_PROP not in scene:
        scene[FORCE_SCALE_PROP] = DEFAULT_FORCE_SCALE
    root = bpy.data.objects.new(name, None)
    root.empty_display_type = "PLAIN_AXES"
    root.empty_display_size = 0.02
    root.rotation_mode = "QUATERNION"
    root["force_N"] = 0.0
    if pushes:
        root[PUSHES_PROP] = True
    collection.objects.link(root)
    for part, mesh in (("shaft", _shaft_mesh(kind)), ("head", _head_mesh(kind, pushes))):
        ob = bpy.data.objects.new(f"{name} {part}", mesh)
        ob.parent = root
        collection.objects.link(ob)
        if part == "shaft":
            _drive(ob, "scale", 2, root, scene, "f * s")
            if pushes:  # the shaft ends where the head begins, below the root
                _drive(ob, "location", 2, root, scene, f"-(f * s + min({HEAD_LENGTH}, f * s))")
        else:
            if not pushes:
                _drive(ob, "location", 2, root, scene, "f * s")
            for axis in range(3):  # the head shrinks away for forces shorter than itself
                _drive(ob, "scale", axis, root, scene, f"min(1.0, f * s / {HEAD_LENGTH})")
    return root


def key_arrow(root: bpy.types.Object, frames: np.ndarray, points: np.ndarray, forces: np.ndarray) -> None:
    """Key an arrow at ``points`` ``(N, 3)`` showing ``forces`` ``(N, 3)``; NaN forces show as zero."""
    forces = np.nan_to_num(np.asarray(forces, dtype=float))
    magnitude = np.linalg.norm(forces, axis=1)
    rotation = quat_continuity(quat_z_to(forces))
    key_channels(root, vector_channels("location", frames, points, group="Arrow")
                 + vector_channels("rotation_quaternion", frames, rotation, group="Arrow")
                 + [Channel('["force_N"]', 0, frames, magnitude, group="Force")])
