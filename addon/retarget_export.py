"""Export an animated rig (the solved rig or a retargeted character) with Blender's own exporters, set up so
that the file holds exactly the rig, its rest pose and its active action at full precision.

The exporters' defaults do not round-trip: the FBX exporter simplifies the
baked curves (centimetres off) and glTF's default exports every action in the
file onto the armature. Here: BVH (``export_anim.bvh``) with the object's
scale applied (the file is in metres, in the armature's own axes: a Z-up
armature writes a Z-up file); FBX (``export_scene.fbx``) with the armature
and its meshes, the active action baked on every frame without
simplification and no leaf bones; glTF binary (``export_scene.gltf``, ``.glb``)
with the active action sampled on every frame. The file is written
under a temporary name and renamed, so a failed export leaves nothing.
Re-importing: BVH with the file's axes (``import_anim.bvh(axis_up="Z", axis_forward="Y")``
for a Z-up armature), FBX with ``anim_offset=0`` (its importer shifts keys one
frame by default).
"""

from __future__ import annotations

from pathlib import Path

import addon_utils
import bpy
from bpy.props import StringProperty

from ..solver.errors import InputError, MocapError
from ..solver.io.atomic import atomic_path
from .paths import PATH_OPTIONS, output_path

FORMATS = {".bvh": "io_anim_bvh", ".fbx": "io_scene_fbx", ".glb": "io_scene_gltf2"}


def _export(context: bpy.types.Context, ob: bpy.types.Object, path: Path, suffix: str) -> None:
    action = ob.animation_data.action if ob.animation_data else None
    start, end = (int(round(v)) for v in action.frame_range) if action else (context.scene.frame_start,
                                                                               context.scene.frame_end)
    if suffix == ".bvh":
        bpy.ops.export_anim.bvh(filepath=str(path), frame_start=start, frame_end=end,
                                global_scale=ob.matrix_world.to_scale()[0], rotate_mode="NATIVE")
    elif suffix == ".fbx":
        bpy.ops.export_scene.fbx(filepath=str(path), use_selection=True, object_types={"ARMATURE", "MESH"},
                                 add_leaf_bones=False, bake_anim=True, bake_anim_use_all_actions=False,
                                 bake_anim_use_nla_strips=False, bake_anim_simplify_factor=0.0,
                                 bake_anim_force_startend_keying=True)
    else:
        bpy.ops.export_scene.gltf(filepath=str(path), use_selection=True, export_format="GLB",
                                  export_animation_mode="ACTIVE_ACTIONS", export_force_sampling=True,
                                  export_anim_slide_to_zero=False)


def export_animation(context: bpy.types.Context, ob: bpy.types.Object, filepath: str | Path) -> Path:
    """Write ``ob`` (an armature) with its active action to ``filepath`` (.bvh, .fbx or .glb)."""
    path = Path(filepath)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise InputError(f"Cannot export {path.name}: unknown format", "name the file .bvh, .fbx or .glb")
    if ob is None or ob.type != "ARMATURE":
        raise InputError("Only an armature can be exported with its animation", "pick the rig or the character")
    addon_utils.enable(FORMATS[suffix], default_set=False)
    layer = context.view_layer
    selected, active = [o for o in layer.objects if o.select_get()], layer.objects.active
    try:
        for o in selected:
            o.select_set(False)
        for o in (ob, *(c for c in ob.children if c.type == "MESH")):
            o.hide_set(False)
            o.select_set(True)
        layer.objects.active = ob
        with atomic_path(path) as temporary:
            _export(context, ob, temporary, suffix)
            if not temporary.exists():
                raise InputError(f"Blender's exporter wrote no {path.name}", "see the console for its message")
    finally:
        for o in layer.objects:
            o.select_set(o in selected)
        layer.objects.active = active
    return path


class MOCAP_DYNAMICS_OT_export_animation(bpy.types.Operator):
    """Export a rig or character with its active action (BVH, FBX or glTF by the file's extension)"""

    bl_idname = "mocap_dynamics.export_animation"
    bl_label = "Export Animation"

    filepath: StringProperty(name="File", subtype="FILE_PATH", options=PATH_OPTIONS)
    target: StringProperty(name="Armature", description="The armature object to export (default: the active one)")

    def invoke(self, context, event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        ob = bpy.data.objects.get(self.target) if self.target else context.view_layer.objects.active
        try:
            path = export_animation(context, ob, output_path(self.filepath, '"File"', folder=False))
        except MocapError as error:
            self.report({"ERROR"}, error.one_line())
            return {"CANCELLED"}
        self.report({"INFO"}, f"Wrote {path}")
        return {"FINISHED"}


register, unregister = bpy.utils.register_classes_factory((MOCAP_DYNAMICS_OT_export_animation,))
