"""Characters whose bones follow constraints (a generated Rigify rig): let Blender evaluate the parents.

A control bone's keys depend on its parent's pose, and in such a rig a parent
may be a mechanism bone that copies half of another control's rotation (the
Rigify spine) or isolates a limb: no rest-pose rule predicts it. So for one
pass over the frames every keyed bone copies its target pose from a
temporary helper armature (``COPY_TRANSFORMS`` in armature space), Blender
evaluates the rig, and each keyed bone's basis follows from its parent's pose
as evaluated (``Skeleton.basis`` with ``parent_pose``): the rig's own
mechanism does the rest once the keys replace the constraints. The helper
and the constraints are removed afterwards, whatever happens. This steps
through the scene frame by frame (as Blender's own Bake Action does), which
is slower than the direct path; the frames are stepped in a scene of their own
that holds only the character and the helper, so nothing else is evaluated.
"""

from __future__ import annotations

import bpy
import numpy as np

from ..solver.retarget import Retargeted
from ..solver.retarget.skeleton import rigid_part
from ..solver.rotations import matrix_to_quat, quat_continuity
from .keying import key_channels, vector_channels
from .retarget_source import evaluated_pose

HELPER = "MocapDynamics retarget helper"


def _helper(stage: bpy.types.Scene, target: bpy.types.Object, names: list[str]) -> bpy.types.Object:
    """A parentless armature in ``stage`` with one bone per name, each at rest on the identity (head at the
    origin, +Y), placed like ``target``."""
    helper = bpy.data.objects.new(HELPER, bpy.data.armatures.new(HELPER))
    stage.collection.objects.link(helper)
    helper.matrix_world = target.matrix_world
    layer = stage.view_layers[0]
    layer.objects.active = helper
    with bpy.context.temp_override(scene=stage, view_layer=layer, active_object=helper, object=helper):
        bpy.ops.object.mode_set(mode="EDIT")
        for name in names:
            bone = helper.data.edit_bones.new(name)
            bone.head, bone.tail, bone.roll = (0.0, 0.0, 0.0), (0.0, 1.0, 0.0), 0.0
        bpy.ops.object.mode_set(mode="OBJECT")
    return helper


def _remove(helper: bpy.types.Object) -> None:
    action = helper.animation_data.action if helper.animation_data else None
    armature = helper.data
    bpy.data.objects.remove(helper)
    bpy.data.armatures.remove(armature)
    if action is not None:
        bpy.data.actions.remove(action)


def visual_basis(context: bpy.types.Context, target: bpy.types.Object, result: Retargeted, bones: list[int],
                 frames: np.ndarray) -> np.ndarray:
    """Basis transforms ``(T, len(bones), 4, 4)`` of ``bones`` (indices into ``result.skeleton``) that give the
    retargeted pose under the rig's own constraints, from one evaluation of every frame."""
    skeleton = result.skeleton
    names = [skeleton.names[b] for b in bones]
    constraints = []
    stage = bpy.data.scenes.new(HELPER)  # only the character and the helper: nothing else is evaluated
    helper = None
    try:
        stage.collection.objects.link(target)
        helper = _helper(stage, target, names)
        stage.render.fps, stage.render.fps_base = context.scene.render.fps, context.scene.render.fps_base
        channels = []
        for b, name in zip(bones, names):
            pose = result.pose[:, b]
            channels += vector_channels(f'pose.bones["{name}"].location', frames, pose[:, :3, 3], group=name)
            channels += vector_channels(f'pose.bones["{name}"].rotation_quaternion', frames,
                                        quat_continuity(matrix_to_quat(pose[:, :3, :3])), group=name)
        key_channels(helper, channels, action_name=HELPER)
        for name in names:
            constraint = target.pose.bones[name].constraints.new("COPY_TRANSFORMS")
            constraint.name = HELPER
            constraint.target, constraint.subtarget = helper, name
            constraint.target_space = constraint.owner_space = "POSE"
            constraints.append((name, constraint.name))
        rows = [target.pose.bones.find(skeleton.names[p]) if p >= 0 else -1 for p in skeleton.parents[bones]]
        parents = np.broadcast_to(np.eye(4), (len(frames), len(bones), 4, 4)).copy()
        with context.temp_override(scene=stage, view_layer=stage.view_layers[0]):
            for t, frame in enumerate(frames):
                whole = int(np.floor(frame))
                stage.frame_set(whole, subframe=float(frame - whole))
                evaluated = evaluated_pose(target.evaluated_get(bpy.context.evaluated_depsgraph_get()))
                parents[t] = [evaluated[r] if r >= 0 else np.eye(4) for r in rows]
    finally:
        for name, constraint in constraints:
            pose_bone = target.pose.bones[name]
            pose_bone.constraints.remove(pose_bone.constraints[constraint])
        bpy.data.scenes.remove(stage)
        if helper is not None:
            _remove(helper)
    parent_pose = np.zeros((len(frames), len(skeleton.names), 4, 4))
    for k, p in enumerate(skeleton.parents[bones]):
        if p >= 0:
            parent_pose[:, p] = rigid_part(parents[:, k])
    return skeleton.basis(result.pose, parent_pose, bones)
