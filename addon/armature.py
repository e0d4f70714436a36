"""The subject's armature: one bone per segment, the body mesh (meshes.py), and keying of any ``Motion``.

Rest pose = the model's neutral pose (anatomical neutral, every segment frame
parallel to the world), standing on the floor at the origin. Bones are built
with Y along the segment towards its tip and Z anterior (up for the feet), so
rolls are consistent on both sides. Because every segment frame is the world
frame at rest, a bone's rest rotation ``C`` (read back from Blender, which may
adjust a roll) maps bone axes to segment axes; a pose bone's rotation is then
the joint rotation in bone axes, ``Cᵀ J C``, and the root bone's location is
``Cᵀ (p − p_rest)``: keying is a change of basis, nothing more.

Segment mass, centre of mass and inertia are custom properties of each bone.
Rebuilding the armature of a trial updates the same object in place.
"""

from __future__ import annotations

import bpy
import numpy as np
from mathutils import Matrix

from ..solver.kinematics.motion import Motion
from ..solver.model.body import BodyModel
from ..solver.rotations import matrix_to_quat, quat_continuity
from .collections import remove_objects
from .keying import key_channels, vector_channels
from .meshes import body_mesh

RIG_PROP = "mocap_dynamics_rig"
BODY_PROP = "mocap_dynamics_body"
MIN_BONE_LENGTH = 0.01  # m; Blender deletes zero-length bones


def _intended_axes(model: BodyModel) -> np.ndarray:
    """Per segment, the bone's X, Y, Z axes in the segment frame as columns ``(S, 3, 3)``, as we ask Blender."""
    out = np.empty((len(model.segments), 3, 3))
    for k, seg in enumerate(model.segments):
        y = seg.tip / max(np.linalg.norm(seg.tip), 1e-12)
        ref = np.array([0.0, 0.0, 1.0]) if abs(y[0]) > 0.7 else np.array([1.0, 0.0, 0.0])
        z = ref - (ref @ y) * y
        z /= np.linalg.norm(z)
        out[k] = np.column_stack([np.cross(y, z), y, z])
    return out


def _rest_root_position(model: BodyModel) -> np.ndarray:
    """Where the root stands at rest: above the origin, lowest contact point or marker on the floor."""
    q = model.neutral_q()
    rot, pos = model.forward_kinematics(q)
    points = [pos[k] + rot[k] @ p for k, s in enumerate(model.segments)
              for p in (*s.contact_points, *s.marker_offsets, s.tip)]
    return np.array([0.0, 0.0, -min(p[2] for p in points)])


def _rest_matrices(model: BodyModel) -> tuple[np.ndarray, np.ndarray]:
    """Bone rest rotations ``(S, 3, 3)`` and heads ``(S, 3)`` in armature space."""
    q = model.neutral_q()
    q[:3] = _rest_root_position(model)
    rot, pos = model.forward_kinematics(q)
    return rot @ _intended_axes(model), pos


def build_armature(context: bpy.types.Context, model: BodyModel, collection: bpy.types.Collection,
                   name: str) -> bpy.types.Object:
    """Create (or rebuild in place) the armature of ``model`` in ``collection``; returns the armature object."""
    arm_ob = next((ob for ob in collection.all_objects if ob.get(RIG_PROP)), None)
    if arm_ob is None:
        arm_ob = bpy.data.objects.new(name, bpy.data.armatures.new(name))
        arm_ob[RIG_PROP] = True
        arm_ob.show_in_front = True
        collection.objects.link(arm_ob)
    rest_rot, heads = _rest_matrices(model)
    view_layer = context.view_layer
    previous = view_layer.objects.active
    view_layer.objects.active = arm_ob
    bpy.ops.object.mode_set(mode="EDIT")
    edit_bones = arm_ob.data.edit_bones
    for bone in list(edit_bones):
        edit_bones.remove(bone)
    for k, seg in enumerate(model.segments):
        bone = edit_bones.new(seg.name)
        bone.tail = (0.0, max(seg.length, MIN_BONE_LENGTH), 0.0)  # a new bone has no length for the matrix to keep
        matrix = Matrix(rest_rot[k].tolist()).to_4x4()
        matrix.translation = heads[k]
        bone.matrix = matrix
        if seg.parent >= 0:
            bone.parent = edit_bones[model.segments[seg.parent].name]
    bpy.ops.object.mode_set(mode="OBJECT")
    view_layer.objects.active = previous
    for seg in model.segments:
        bone = arm_ob.data.bones[seg.name]
        bone["mass_kg"] = seg.mass
        bone["com_m"] = seg.com.tolist()
        bone["inertia_kg_m2"] = seg.inertia.ravel().tolist()
        bone["joint"] = seg.joint
        arm_ob.pose.bones[seg.name].rotation_mode = "QUATERNION"
    _attach_body(model, arm_ob, collection, heads)
    return arm_ob


def _attach_body(model: BodyModel, arm_ob, collection, heads) -> None:
    """(Re)create the body mesh, rigidly skinned to the bones through an Armature modifier.

    The mesh's deform weights refer to vertex groups by index (segment order), so
    a rebuild replaces the whole object rather than editing its groups.
    """
    remove_objects([ob for ob in collection.all_objects  # a rig deleted by the user leaves its body unparented
                    if ob.get(BODY_PROP) and ob.parent in (arm_ob, None)])
    body = bpy.data.objects.new(f"{arm_ob.name} body", body_mesh(model, heads))
    body[BODY_PROP] = True
    body.parent = arm_ob
    collection.objects.link(body)
    for seg in model.segments:
        body.vertex_groups.new(name=seg.name)
    body.modifiers.new("Armature", "ARMATURE").object = arm_ob


def bone_axes(arm_ob: bpy.types.Object, model: BodyModel) -> np.ndarray:
    """Each bone's rest rotation ``C`` (bone axes in the segment frame, segment order) ``(S, 3, 3)``, as built."""
    return np.array([np.array(arm_ob.data.bones[s.name].matrix_local)[:3, :3] for s in model.segments])


def key_motion(arm_ob: bpy.types.Object, motion: Motion, frames: np.ndarray, action_name: str) -> None:
    """Key root location and every bone's rotation quaternion from ``motion`` at ``frames``.

    The keys go into the rig's current action, or a new one named ``action_name`` when it has none."""
    model = motion.model
    axes = bone_axes(arm_ob, model)
    rest_root = np.array(arm_ob.data.bones[model.segments[0].name].head_local)
    joint = model.joint_rotations(motion.q)  # (T, S, 3, 3); the root's is its world rotation
    quats = quat_continuity(matrix_to_quat(np.einsum("sji,tsjk,skl->tsil", axes, joint, axes)))
    root = model.segments[0].name
    location = np.einsum("ji,tj->ti", axes[0], motion.q[:, :3] - rest_root)
    channels = vector_channels(f'pose.bones["{root}"].location', frames, location, group=root)
    for k, seg in enumerate(model.segments):
        channels += vector_channels(f'pose.bones["{seg.name}"].rotation_quaternion', frames, quats[:, k],
                                    group=seg.name)
    key_channels(arm_ob, channels, action_name=action_name)
