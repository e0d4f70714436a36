"""Retarget: bake the active trial's motion (captured, or a zero-gravity variant) onto the animator's character.

``bpy.ops.mocap_dynamics.retarget(target="Character")`` works from the
sidebar and headless. The solver does the work (``solver.retarget``); here
the character and the solved motion are read from the scene and the result
is keyed whole into a new action ``"<character> <trial> <motion>"`` (the
character's other actions stay untouched; the one it had is kept with a fake
user). Bones are keyed in their own rotation mode. A rig whose controls sit
under constraint-driven bones (a generated Rigify rig) is keyed through
Blender's own evaluation (``retarget_bake``). The character also gets the
stances as keyed booleans, the switches its family needs (Rigify's IK/FK set
to FK), timeline markers at the contact events, and its own copies of the
force arrows and torque disks (``retarget_visuals``).
"""

from __future__ import annotations

import bpy
import numpy as np
from bpy.props import BoolProperty, FloatProperty, StringProperty

from ..solver.errors import MocapError, SolverError
from ..solver.retarget import Mapping, RetargetOptions, Retargeted, detect_mapping, read_preset, retarget
from ..solver.retarget.channels import rotation_channels
from .collections import trial_name
from .keying import Channel, assign_action, key_channels, vector_channels
from .process import all_or_nothing
from .retarget_bake import visual_basis
from .retarget_events import contact_channels, mark_events
from .retarget_mapping import is_solved_rig
from .retarget_source import CAPTURED, read_source, skeleton_of, source_rig
from .retarget_visuals import follow_character
from .paths import PATH_OPTIONS
from .steps import active_trial

ACTION_PROP = "mocap_dynamics_retarget"
PREVIOUS_ACTION_PROP = "mocap_previous_action"


def driven_bones(ob: bpy.types.Object) -> set[str]:
    """Bones whose pose does not simply follow their keys and parent: active constraints, drivers on their
    transforms, or not inheriting their parent's rotation. (How a bone inherits scale does not matter: the
    retarget scales nothing.)"""
    driven = {pb.name for pb in ob.pose.bones if any(not c.mute and c.influence > 0 for c in pb.constraints)}
    driven |= {b.name for b in ob.data.bones if not b.use_inherit_rotation}
    drivers = ob.animation_data.drivers if ob.animation_data else ()
    driven |= {d.data_path.split('"')[1] for d in drivers if d.data_path.startswith("pose.bones[")
               and d.data_path.rsplit(".", 1)[-1] in ("location", "rotation_quaternion", "rotation_euler",
                                                       "rotation_axis_angle", "scale")}
    return driven


def character_mapping(target: bpy.types.Object, table: dict | None = None, preset: str = "") -> Mapping:
    """The bone mapping to use: a preset file if given, else a table from the sidebar, else detected."""
    if preset:
        return read_preset(bpy.path.abspath(preset))
    if table:
        return Mapping(dict(table), "sidebar table", detect_mapping(*_names(target)).switches)
    names, parents = _names(target)
    return detect_mapping(names, parents, keyable=set(names) - driven_bones(target))


def _names(target: bpy.types.Object) -> tuple[tuple[str, ...], list[int]]:
    skeleton = skeleton_of(target)
    return skeleton.names, list(skeleton.parents)


def _start_action(target: bpy.types.Object, name: str) -> None:
    """Detach the character's action (kept with a fake user) and remove an older retarget of this name."""
    anim = target.animation_data
    if anim is not None and anim.action is not None:
        anim.action.use_fake_user = True
        if not anim.action.get(ACTION_PROP):
            target[PREVIOUS_ACTION_PROP] = anim.action.name
        anim.action = None
    old = bpy.data.actions.get(name)
    if old is not None and old.get(ACTION_PROP):
        bpy.data.actions.remove(old)


def _bone_channels(target: bpy.types.Object, result: Retargeted, bones: list[int], basis: np.ndarray,
                   frames: np.ndarray) -> list[Channel]:
    """Rotation channels (each bone's own mode) of ``bones``, the root's location, zero location for the
    other loose bones (a pose left on them would move their children)."""
    channels = []
    for k, b in enumerate(bones):
        name = result.skeleton.names[b]
        pose_bone = target.pose.bones[name]
        prop, values = rotation_channels(basis[:, k, :3, :3], pose_bone.rotation_mode)
        channels += vector_channels(f'pose.bones["{name}"].{prop}', frames, values, group=name)
        if b == result.root or not pose_bone.bone.use_connect:
            location = basis[:, k, :3, 3] if b == result.root else np.zeros((len(frames), 3))
            channels += vector_channels(f'pose.bones["{name}"].location', frames, location, group=name)
    return channels


def _key(context, target: bpy.types.Object, result: Retargeted, mapping: Mapping, frames: np.ndarray, name: str,
         driven: set[str]) -> bool:
    """Key the switches, stances and bones into the new action ``name``; True if through Blender's evaluation."""
    channels = [Channel(f'pose.bones["{bone}"]["{prop}"]', 0, frames[[0, -1]], np.full(2, value),
                        interpolation="CONSTANT", group="Switches")
                for bone, values in mapping.switches.items() for prop, value in values.items()]
    if result.stance is not None:
        channels += contact_channels(target, frames, result.stance)
    visual = any(result.skeleton.names[b] in driven for b in result.keyed)
    if visual:  # the switches first: the rig is evaluated with them
        key_channels(target, channels, action_name=name)
        channels, bones = [], list(result.turned)
        basis = visual_basis(context, target, result, bones, frames)
    else:
        bones = list(result.keyed)
        basis = result.basis[:, bones]
    key_channels(target, channels + _bone_channels(target, result, bones, basis, frames), action_name=name)
    target.animation_data.action[ACTION_PROP] = True
    target.animation_data.action.use_fake_user = True
    return visual


def retarget_character(context: bpy.types.Context, trial: bpy.types.Collection, target: bpy.types.Object,
                       source: str = CAPTURED, mapping: Mapping | None = None,
                       options: RetargetOptions = RetargetOptions(), visuals: bool = True) -> Retargeted:
    """Key the trial's motion ``source`` onto ``target`` as a new action; see the module docstring."""
    if target is None or target.type != "ARMATURE":
        raise SolverError("The character to retarget onto must be an armature object",
                          "pick the character's armature (not its mesh)")
    if is_solved_rig(target):
        raise SolverError(f"{target.name!r} is a solved rig, not a character", "pick the character's armature")
    rig, action = source_rig(trial, source)
    scene = context.scene
    motion, frames = read_source(rig, action, scene.render.fps / scene.render.fps_base)
    mapping = mapping or character_mapping(target)
    mapping.check()
    driven = driven_bones(target)
    clashing = sorted(set(mapping.bones) & driven)
    if clashing:
        raise SolverError(f"Bone(s) {', '.join(clashing)} of {target.name!r} follow constraints or drivers, so "
                          "keys would not move them", "map the rig's control bones instead")
    result = retarget(motion, skeleton_of(target), mapping, options)
    trial_named = trial_name(trial)
    label = "captured" if source == CAPTURED else action.name.removeprefix(f"{trial_named} ")
    name = f"{target.name} {trial_named} {label}"
    previous = target.animation_data.action.name if target.animation_data and target.animation_data.action else ""
    _start_action(target, name)
    try:
        visual = _key(context, target, result, mapping, frames, name, driven)
    except BaseException:  # the new action is removed by the caller's all_or_nothing; the old one comes back
        if bpy.data.actions.get(previous) is not None:
            assign_action(target, bpy.data.actions[previous])
        raise
    if result.stance is not None:
        mark_events(scene, frames, result.stance)
    followed = 0
    if visuals:
        _, heads = motion.skeleton.to_world(motion.pose)
        followed = follow_character(context, trial, source, action, target, result, frames, heads,
                                    motion.skeleton.names)
    target[ACTION_PROP] = {"trial": trial_named, "motion": label, "action": name, "family": mapping.family,
                           "frames": len(frames), "leg_length_ratio": result.scale,
                           "stances": len(result.slides), "max_contact_slide_m": result.max_slide,
                           "max_hip_drop_m": float(result.hip_drop.max()), "visuals": followed,
                           "keyed_through_constraints": visual}
    return result


class MOCAP_DYNAMICS_OT_retarget(bpy.types.Operator):
    """Bake the active trial's motion onto a character's armature as a new action, feet planted"""

    bl_idname = "mocap_dynamics.retarget"
    bl_label = "Retarget"
    bl_options = {"REGISTER", "UNDO"}

    target: StringProperty(name="Character", description="Name of the character's armature object")
    source: StringProperty(name="Motion", default=CAPTURED,
                           description="'captured', or the name of one of the trial's zero-gravity actions")
    foot_lock: BoolProperty(name="Plant Feet", default=True)
    blend: FloatProperty(name="Blend", default=RetargetOptions().blend_s, min=0.0, soft_max=0.5,
                         unit="TIME_ABSOLUTE")
    visuals: BoolProperty(name="Visuals Follow", default=True)
    belt_travel: BoolProperty(name="Walk On", default=False,
                              description="On a treadmill, walk on over still ground as far as the belt travelled")
    preset: StringProperty(name="Bone Mapping", subtype="FILE_PATH", options=PATH_OPTIONS,
                           description="A bone-mapping preset (TOML) to use instead of detecting the bones")
    use_table: BoolProperty(name="Use the Sidebar's Bone Table", default=False,
                            description="Use the bone table edited in the sidebar (if made for this character)")

    @classmethod
    def poll(cls, context):
        return active_trial(context)[1] is not None

    def execute(self, context):
        trial = active_trial(context)[0]
        target = bpy.data.objects.get(self.target)
        if target is None:
            self.report({"ERROR"}, f"No object named {self.target!r}: pick the Character's armature.")
            return {"CANCELLED"}
        table = context.scene.mocap_dynamics_retarget.table(target) if self.use_table else None
        try:
            with all_or_nothing():
                result = retarget_character(context, trial, target, self.source or CAPTURED,
                                            character_mapping(target, table, self.preset),
                                            RetargetOptions(self.foot_lock, self.blend,
                                                                belt_travel=self.belt_travel), self.visuals)
        except MocapError as error:
            self.report({"ERROR"}, error.one_line())
            return {"CANCELLED"}
        summary = target[ACTION_PROP]
        message = (f"{target.name}: {summary['frames']} frames as {summary['action']!r}, legs x{result.scale:.2f}")
        if result.slides:
            message += (f"; feet planted in {len(result.slides)} stances (contact slide "
                        f"{1000 * result.max_slide:.1f} mm, hips lowered up to {1000 * result.hip_drop.max():.0f} mm)")
        self.report({"INFO"}, message)
        return {"FINISHED"}


register, unregister = bpy.utils.register_classes_factory((MOCAP_DYNAMICS_OT_retarget,))
