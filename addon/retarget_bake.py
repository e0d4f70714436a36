"""Characters whose bones follow constraints (a generated Rigify rig): let Blender evaluate the parents.

A control bone's keys depend on its parent's pose, and in such a rig a parent
may be a mechanism bone that copies half of another control's rotation (the
Rigify spine) or isolates a limb: no rest-pose rule predicts it. So for one
pass over the frames Blender evaluates the rig with the keyed bones copying
their target poses from a temporary helper armature (``COPY_TRANSFORMS`` in
armature space), and each keyed bone's basis follows from its parent's pose
as evaluated (``Skeleton.basis`` with ``parent_pose``): the rig's own
mechanism does the rest once the keys replace the constraints.

The pass evaluates a copy of the rig cut down to the bones those parents
depend on (``rig_dependencies.dependency_closure``: 44 of a generated Rigify
rig's 706 bones), so it poses them exactly as the whole rig does in a
fraction of the time; the character itself is not touched. The frames are
stepped (as Blender's own Bake Action does: the rig's action, NLA and
drivers evaluate as they will play) in a scene of their own that holds only
the copy and the helper. Both are removed afterwards, whatever happens.
"""

from __future__ import annotations

from contextlib import contextmanager

import bpy
import numpy as np

from ..solver.retarget import Retargeted
from ..solver.retarget.skeleton import rigid_part
from ..solver.rotations import matrix_to_quat, quat_continuity
from .keying import key_channels, vector_channels
from .retarget_source import evaluated_pose
from .rig_dependencies import dependency_closure, path_bone, rig_drivers

HELPER = "MocapDynamics retarget helper"
_TARGETS = ("target", "pole_target", "space_object")


@contextmanager
def _edit_bones(stage: bpy.types.Scene, ob: bpy.types.Object):
    """Edit mode on ``ob`` (an armature in ``stage``) for the ``with`` block; yields its edit bones."""
    layer = stage.view_layers[0]
    layer.objects.active = ob
    with bpy.context.temp_override(scene=stage, view_layer=layer, active_object=ob, object=ob):
        bpy.ops.object.mode_set(mode="EDIT")
        try:
            yield ob.data.edit_bones
        finally:
            bpy.ops.object.mode_set(mode="OBJECT")


def _helper(stage: bpy.types.Scene, target: bpy.types.Object, names: list[str]) -> bpy.types.Object:
    """A parentless armature in ``stage`` with one bone per name, each at rest on the identity (head at the
    origin, +Y), placed like ``target``."""
    helper = bpy.data.objects.new(HELPER, bpy.data.armatures.new(HELPER))
    stage.collection.objects.link(helper)
    helper.matrix_world = target.matrix_world
    with _edit_bones(stage, helper) as bones:
        for name in names:
            bone = bones.new(name)
            bone.head, bone.tail, bone.roll = (0.0, 0.0, 0.0), (0.0, 1.0, 0.0), 0.0
    return helper


def _reduced_copy(stage: bpy.types.Scene, target: bpy.types.Object, keep: set[str]) -> bpy.types.Object:
    """A copy of ``target`` in ``stage`` with only the bones ``keep`` (a dependency closure) and their drivers;
    its constraints and drivers read the copy where they read ``target``."""
    copy = target.copy()
    copy.data = target.data.copy()
    copy.name = copy.data.name = f"{HELPER} rig"
    copy.hide_viewport = False
    stage.collection.objects.link(copy)
    for pose_bone in copy.pose.bones:
        for constraint in pose_bone.constraints:
            for attr in _TARGETS:
                if getattr(constraint, attr, None) == target:
                    setattr(constraint, attr, copy)
            for item in getattr(constraint, "targets", ()):
                if item.target == target:
                    item.target = copy
    for anim, fcurve in rig_drivers(copy):
        bone = path_bone(fcurve.data_path)
        if bone is not None and bone not in keep:
            anim.drivers.remove(fcurve)
            continue
        for variable in fcurve.driver.variables:
            for item in variable.targets:
                if item.id == target:
                    item.id = copy
                elif item.id == target.data:
                    item.id = copy.data
    with _edit_bones(stage, copy) as bones:  # every kept bone's parent is kept: no kept bone is re-parented
        for bone in [b for b in bones if b.name not in keep]:
            bones.remove(bone)
    return copy


def _remove(ob: bpy.types.Object) -> None:
    armature = ob.data
    bpy.data.objects.remove(ob)
    bpy.data.armatures.remove(armature)


def visual_basis(context: bpy.types.Context, target: bpy.types.Object, result: Retargeted, bones: list[int],
                 frames: np.ndarray) -> np.ndarray:
    """Basis transforms ``(T, len(bones), 4, 4)`` of ``bones`` (indices into ``result.skeleton``) that give the
    retargeted pose under the rig's own constraints, from one evaluation of every frame."""
    skeleton = result.skeleton
    parents = skeleton.parents[bones]
    keep = dependency_closure(target, [skeleton.names[p] for p in parents if p >= 0])
    leading = [b for b in bones if skeleton.names[b] in keep]  # keyed bones that keyed bones' parents follow
    names = [skeleton.names[b] for b in leading]
    stage = bpy.data.scenes.new(HELPER)  # only the copy and the helper: nothing else is evaluated
    copy = helper = None
    try:
        stage.render.fps, stage.render.fps_base = context.scene.render.fps, context.scene.render.fps_base
        copy = _reduced_copy(stage, target, keep)
        helper = _helper(stage, target, names)
        channels = []
        for b, name in zip(leading, names):
            pose = result.pose[:, b]
            channels += vector_channels(f'pose.bones["{name}"].location', frames, pose[:, :3, 3], group=name)
            channels += vector_channels(f'pose.bones["{name}"].rotation_quaternion', frames,
                                        quat_continuity(matrix_to_quat(pose[:, :3, :3])), group=name)
        key_channels(helper, channels, action_name=HELPER)
        for name in names:
            constraint = copy.pose.bones[name].constraints.new("COPY_TRANSFORMS")
            constraint.target, constraint.subtarget = helper, name
            constraint.target_space = constraint.owner_space = "POSE"
        rows = np.array([copy.pose.bones.find(skeleton.names[p]) if p >= 0 else -1 for p in parents], dtype=int)
        has = rows >= 0
        evaluated = np.broadcast_to(np.eye(4), (len(frames), len(bones), 4, 4)).copy()
        with context.temp_override(scene=stage, view_layer=stage.view_layers[0]):
            for t, frame in enumerate(frames):
                whole = int(np.floor(frame))
                stage.frame_set(whole, subframe=float(frame - whole))
                evaluated[t, has] = evaluated_pose(copy.evaluated_get(bpy.context.evaluated_depsgraph_get()))[rows[has]]
    finally:
        action = helper.animation_data.action if helper is not None and helper.animation_data else None
        bpy.data.scenes.remove(stage)
        for ob in (helper, copy):
            if ob is not None:
                _remove(ob)
        if action is not None:
            bpy.data.actions.remove(action)
    parent_pose = np.zeros((len(frames), len(skeleton.names), 4, 4))
    for k, p in enumerate(parents):
        if p >= 0:
            parent_pose[:, p] = rigid_part(evaluated[:, k])
    return skeleton.basis(result.pose, parent_pose, bones)
