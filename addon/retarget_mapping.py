"""The sidebar's retarget settings and its editable bone table, saved and loaded as presets.

The table lists the character's bones with the segment each follows; Detect
fills it (``solver.retarget.detect_mapping``), every row can be changed or
removed, and a table is saved as a TOML preset in the extension's user
folder (``retarget_presets``), from where any later character can load it.
"""

from __future__ import annotations

from pathlib import Path

import bpy
from bpy.props import (BoolProperty, CollectionProperty, EnumProperty, FloatProperty, IntProperty, PointerProperty,
                       StringProperty)

from ..solver.errors import MocapError
from ..solver.retarget import ROLES, Mapping, read_preset, write_preset
from .armature import RIG_PROP
from .retarget_source import CAPTURED, motion_sources

ROLE_ITEMS = [(role, role.replace("_", " ").replace(" l", " (left)").replace(" r", " (right)"), "") for role in ROLES]
_cache: dict = {}  # Blender needs the dynamic enum items kept alive while the UI shows them


def presets_dir() -> Path:
    """Where presets are saved: the extension's user folder (a user config folder when run from a checkout)."""
    package = __package__.rsplit(".", 1)[0]
    try:
        return Path(bpy.utils.extension_path_user(package, path="retarget_presets", create=True))
    except ValueError:
        return Path(bpy.utils.user_resource("CONFIG", path="mocap_dynamics/retarget_presets", create=True))


def _source_items(self, context):
    from .steps import active_trial
    trial = active_trial(context)[0]
    _cache["sources"] = [(key, label, "") for key, label in (motion_sources(trial) if trial else [(CAPTURED,
                                                                                                 "Captured motion")])]
    return _cache["sources"]


def _preset_items(self, context):
    _cache["presets"] = [(str(p), p.stem, str(p)) for p in sorted(presets_dir().glob("*.toml"))] \
        or [("", "(no presets saved yet)", "")]
    return _cache["presets"]


def is_solved_rig(ob: bpy.types.Object) -> bool:
    """A trial's own rig, or a zero-gravity rig sharing its armature (its bones carry the segments' masses)."""
    return bool(ob.get(RIG_PROP)) or (ob.type == "ARMATURE" and len(ob.data.bones) > 0
                                      and "mass_kg" in ob.data.bones[0])


def _is_character(self, ob: bpy.types.Object) -> bool:
    return ob.type == "ARMATURE" and not is_solved_rig(ob)


class MocapDynamicsBoneMapping(bpy.types.PropertyGroup):
    bone: StringProperty(name="Bone", description="A bone of the character")
    segment: EnumProperty(name="Segment", items=ROLE_ITEMS, description="The body segment whose motion it follows")


class MocapDynamicsRetargetSettings(bpy.types.PropertyGroup):
    target: PointerProperty(type=bpy.types.Object, name="Character", poll=_is_character,
                            description="The character's armature to retarget the motion onto")
    source: EnumProperty(name="Motion", items=_source_items,
                         description="The captured motion or one of the trial's zero-gravity variants")
    foot_lock: BoolProperty(name="Plant Feet", default=True,
                            description="Keep the feet where they land while the contact estimate says they carry "
                                        "load (IK on the legs)")
    blend: FloatProperty(name="Blend", default=0.1, min=0.0, soft_max=0.5, unit="TIME_ABSOLUTE",
                         description="Seconds over which a foot blends to and from where it is planted")
    visuals: BoolProperty(name="Visuals Follow", default=True,
                          description="Copies of the force arrows and torque disks that follow the character")
    belt_travel: BoolProperty(name="Walk On", default=False,
                              description="On a treadmill, the character walks on over still ground as far as the "
                                          "belt carried the subject back (root motion); off, it walks in place")
    mapping: CollectionProperty(type=MocapDynamicsBoneMapping)
    mapping_index: IntProperty()
    mapping_target: StringProperty(description="The character the bone table was made for")
    preset: EnumProperty(name="Preset", items=_preset_items, description="A saved bone table")

    def table(self, target: bpy.types.Object) -> dict | None:
        """The bone table as bone -> segment, if it was made for ``target``."""
        if target is None or self.mapping_target != target.name or not len(self.mapping):
            return None
        return {row.bone: row.segment for row in self.mapping if row.bone}

    def fill(self, target: bpy.types.Object, mapping: Mapping) -> None:
        self.mapping.clear()
        for bone, role in mapping.bones.items():
            row = self.mapping.add()
            row.bone, row.segment = bone, role
        self.mapping_target = target.name


class MOCAP_DYNAMICS_UL_bone_mapping(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        target = context.scene.mocap_dynamics_retarget.target
        row = layout.row(align=True)
        if target is not None:
            row.prop_search(item, "bone", target.data, "bones", text="")
        else:
            row.prop(item, "bone", text="")
        row.prop(item, "segment", text="")


def _settings(context) -> MocapDynamicsRetargetSettings:
    return context.scene.mocap_dynamics_retarget


class MOCAP_DYNAMICS_OT_detect_mapping(bpy.types.Operator):
    """Fill the bone table from the character's bone names (Rigify, Mixamo, Unreal, or by their words)"""

    bl_idname = "mocap_dynamics.detect_mapping"
    bl_label = "Detect Bones"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        from .retarget import character_mapping
        settings = _settings(context)
        if settings.target is None:
            self.report({"ERROR"}, "Pick the Character (an armature) first.")
            return {"CANCELLED"}
        mapping = character_mapping(settings.target)
        settings.fill(settings.target, mapping)
        missing = mapping.missing()
        level, note = ("WARNING", f"; not found: {', '.join(missing)}") if missing else ("INFO", "")
        self.report({level}, f"{mapping.family}: {len(mapping.bones)} bones mapped{note}")
        return {"FINISHED"}


class MOCAP_DYNAMICS_OT_mapping_row(bpy.types.Operator):
    """Add a row to the bone table, or remove the selected one"""

    bl_idname = "mocap_dynamics.mapping_row"
    bl_label = "Edit Bone Table"
    bl_options = {"REGISTER", "UNDO"}

    remove: BoolProperty()

    def execute(self, context):
        settings = _settings(context)
        if self.remove:
            if 0 <= settings.mapping_index < len(settings.mapping):
                settings.mapping.remove(settings.mapping_index)
                settings.mapping_index = max(0, settings.mapping_index - 1)
        else:
            settings.mapping.add()
            settings.mapping_index = len(settings.mapping) - 1
            if settings.target is not None:
                settings.mapping_target = settings.target.name
        return {"FINISHED"}


class MOCAP_DYNAMICS_OT_save_mapping_preset(bpy.types.Operator):
    """Save the bone table as a preset (a TOML file in the extension's user folder)"""

    bl_idname = "mocap_dynamics.save_mapping_preset"
    bl_label = "Save Preset"

    name: StringProperty(name="Name", default="My character")

    def invoke(self, context, event):
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context):
        settings = _settings(context)
        table = {row.bone: row.segment for row in settings.mapping if row.bone}
        if not table or not self.name.strip():
            self.report({"ERROR"}, "Fill the bone table (Detect Bones) and give the preset a name.")
            return {"CANCELLED"}
        safe = "".join(c if c.isalnum() or c in " -_" else "_" for c in self.name.strip())
        try:
            path = write_preset(presets_dir() / f"{safe}.toml", Mapping(table, self.name.strip()))
        except MocapError as error:
            self.report({"ERROR"}, error.one_line())
            return {"CANCELLED"}
        self.report({"INFO"}, f"Saved {path}")
        return {"FINISHED"}


class MOCAP_DYNAMICS_OT_load_mapping_preset(bpy.types.Operator):
    """Fill the bone table from the chosen preset"""

    bl_idname = "mocap_dynamics.load_mapping_preset"
    bl_label = "Load Preset"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        settings = _settings(context)
        if settings.target is None or not settings.preset:
            self.report({"ERROR"}, "Pick the Character and a saved preset first.")
            return {"CANCELLED"}
        try:
            mapping = read_preset(settings.preset)
        except MocapError as error:
            self.report({"ERROR"}, error.one_line())
            return {"CANCELLED"}
        unknown = sorted(set(mapping.bones) - set(settings.target.data.bones.keys()))
        settings.fill(settings.target, mapping)
        if unknown:
            self.report({"WARNING"}, f"{settings.target.name!r} has no bone(s) {', '.join(unknown)}")
        return {"FINISHED"}


CLASSES = (MocapDynamicsBoneMapping, MocapDynamicsRetargetSettings, MOCAP_DYNAMICS_UL_bone_mapping,
           MOCAP_DYNAMICS_OT_detect_mapping, MOCAP_DYNAMICS_OT_mapping_row, MOCAP_DYNAMICS_OT_save_mapping_preset,
           MOCAP_DYNAMICS_OT_load_mapping_preset)
_register, _unregister = bpy.utils.register_classes_factory(CLASSES)


def register():
    _register()
    bpy.types.Scene.mocap_dynamics_retarget = PointerProperty(type=MocapDynamicsRetargetSettings)


def unregister():
    del bpy.types.Scene.mocap_dynamics_retarget
    _unregister()
