"""Characters for the retarget tests, built in real Blender: Rigify's human metarig and a rig generated from
it (Rigify ships with Blender), and armatures named and posed like a Mixamo character (imported from FBX: the
object turned 90° about X and scaled 0.01, bones in centimetres, T-pose) and the Unreal mannequin (A-pose,
twist and IK bones)."""

from __future__ import annotations

import bpy
import numpy as np
from mathutils import Matrix, Vector


def rigify_metarig() -> bpy.types.Object:
    """Rigify's human metarig, as Add > Armature > Human (Meta-Rig) makes it."""
    bpy.ops.preferences.addon_enable(module="rigify")
    bpy.ops.object.armature_human_metarig_add()
    return bpy.context.object


def rigify_rig() -> bpy.types.Object:
    """A rig generated from the human metarig (the metarig is hidden afterwards)."""
    metarig = rigify_metarig()
    bpy.ops.pose.rigify_generate()
    rig = bpy.context.object
    metarig.hide_set(True)
    return rig


def _armature(name: str, bones: dict, matrix_world: Matrix) -> bpy.types.Object:
    """An armature from ``{bone: (head, tail, parent)}`` in world metres, under ``matrix_world``."""
    ob = bpy.data.objects.new(name, bpy.data.armatures.new(name))
    bpy.context.scene.collection.objects.link(ob)
    ob.matrix_world = matrix_world
    bpy.context.view_layer.objects.active = ob
    bpy.ops.object.mode_set(mode="EDIT")
    inverse = matrix_world.inverted()
    for bone, (head, tail, parent) in bones.items():
        edit = ob.data.edit_bones.new(bone)
        edit.head, edit.tail = inverse @ Vector(head), inverse @ Vector(tail)
        edit.roll = 0.0
        if parent:
            edit.parent = ob.data.edit_bones[parent]
            edit.use_connect = np.allclose(ob.data.edit_bones[parent].tail, edit.head, atol=1e-4)
    bpy.ops.object.mode_set(mode="OBJECT")
    return ob


def _fingers(prefix: str, hand: str, wrist, out, forward, side_word: str) -> dict:
    bones = {}
    for f, finger in enumerate(("Thumb", "Index", "Middle")):
        base = np.add(wrist, 0.09 * out + (0.035 - 0.02 * f) * forward) if finger != "Thumb" else \
            np.add(wrist, 0.03 * out + 0.035 * forward)
        direction = out if finger != "Thumb" else (out + forward) / np.linalg.norm(out + forward)
        parent = hand
        for k in range(1, 4):
            name = f"{prefix}{side_word}Hand{finger}{k}"
            bones[name] = (tuple(base), tuple(base + 0.025 * direction), parent)
            base, parent = base + 0.025 * direction, name
    return bones


def mixamo_character(name: str = "Mixamo character") -> bpy.types.Object:
    """A Mixamo-named character in T-pose facing -Y, as Blender imports Mixamo's FBX (object +90° about X,
    scale 0.01): hips 1.0 m high, with fingers, toe and head-top end bones."""
    p = "mixamorig:"
    bones = {f"{p}Hips": ((0, 0, 1.0), (0, 0, 1.1), None), f"{p}Spine": ((0, 0, 1.1), (0, 0, 1.22), f"{p}Hips"),
             f"{p}Spine1": ((0, 0, 1.22), (0, 0, 1.34), f"{p}Spine"),
             f"{p}Spine2": ((0, 0, 1.34), (0, 0, 1.48), f"{p}Spine1"),
             f"{p}Neck": ((0, 0, 1.48), (0, -0.01, 1.58), f"{p}Spine2"),
             f"{p}Head": ((0, -0.01, 1.58), (0, -0.01, 1.75), f"{p}Neck"),
             f"{p}HeadTop_End": ((0, -0.01, 1.75), (0, -0.01, 1.85), f"{p}Head")}
    forward = np.array([0.0, -1.0, 0.0])
    for side, word in ((1.0, "Left"), (-1.0, "Right")):
        out = np.array([side, 0.0, 0.0])
        shoulder, elbow, wrist = (side * 0.17, 0, 1.43), (side * 0.45, 0, 1.43), (side * 0.71, 0, 1.43)
        bones.update({f"{p}{word}Shoulder": ((side * 0.05, 0, 1.43), shoulder, f"{p}Spine2"),
                      f"{p}{word}Arm": (shoulder, elbow, f"{p}{word}Shoulder"),
                      f"{p}{word}ForeArm": (elbow, wrist, f"{p}{word}Arm"),
                      f"{p}{word}Hand": (wrist, (side * 0.80, 0, 1.43), f"{p}{word}ForeArm")})
        bones.update(_fingers(p, f"{p}{word}Hand", wrist, out, forward, word))
        bones.update({f"{p}{word}UpLeg": ((side * 0.09, 0, 0.98), (side * 0.09, -0.01, 0.54), f"{p}Hips"),
                      f"{p}{word}Leg": ((side * 0.09, -0.01, 0.54), (side * 0.09, 0.02, 0.09), f"{p}{word}UpLeg"),
                      f"{p}{word}Foot": ((side * 0.09, 0.02, 0.09), (side * 0.09, -0.11, 0.02), f"{p}{word}Leg"),
                      f"{p}{word}ToeBase": ((side * 0.09, -0.11, 0.02), (side * 0.09, -0.18, 0.02), f"{p}{word}Foot"),
                      f"{p}{word}Toe_End": ((side * 0.09, -0.18, 0.02), (side * 0.09, -0.21, 0.02),
                                            f"{p}{word}ToeBase")})
    return _armature(name, bones, Matrix.Rotation(np.pi / 2, 4, "X") @ Matrix.Scale(0.01, 4))


def unreal_mannequin(name: str = "UE mannequin") -> bpy.types.Object:
    """An armature named like the Unreal mannequin (root, pelvis, spine_01-03, thigh_l, calf_l, ball_l, twist
    and IK bones) in an A-pose facing +Y, arms 45° down."""
    bones = {"root": ((0, 0, 0), (0, 0.2, 0), None), "pelvis": ((0, 0, 0.96), (0, 0, 1.06), "root"),
             "spine_01": ((0, 0, 1.06), (0, 0, 1.2), "pelvis"), "spine_02": ((0, 0, 1.2), (0, 0, 1.33), "spine_01"),
             "spine_03": ((0, 0, 1.33), (0, 0, 1.46), "spine_02"),
             "neck_01": ((0, 0, 1.46), (0, 0.01, 1.56), "spine_03"),
             "head": ((0, 0.01, 1.56), (0, 0.01, 1.76), "neck_01"), "ik_foot_root": ((0, 0, 0), (0, 0, 0.1), "root")}
    for side, s in ((1.0, "l"), (-1.0, "r")):
        out = np.array([side * np.cos(np.pi / 4), 0.0, -np.sin(np.pi / 4)])
        shoulder = np.array([side * 0.18, 0.0, 1.42])
        elbow, wrist = shoulder + 0.27 * out, shoulder + 0.52 * out
        bones.update({f"clavicle_{s}": ((side * 0.03, 0, 1.42), tuple(shoulder), "spine_03"),
                      f"upperarm_{s}": (tuple(shoulder), tuple(elbow), f"clavicle_{s}"),
                      f"upperarm_twist_01_{s}": (tuple(shoulder), tuple(shoulder + 0.1 * out), f"upperarm_{s}"),
                      f"lowerarm_{s}": (tuple(elbow), tuple(wrist), f"upperarm_{s}"),
                      f"hand_{s}": (tuple(wrist), tuple(wrist + 0.08 * out), f"lowerarm_{s}"),
                      f"thumb_01_{s}": (tuple(wrist + 0.02 * out + [0, 0.03, 0]),
                                        tuple(wrist + 0.04 * out + [0, 0.06, 0]), f"hand_{s}"),
                      f"thigh_{s}": ((side * 0.1, 0, 0.94), (side * 0.1, 0.01, 0.52), "pelvis"),
                      f"thigh_twist_01_{s}": ((side * 0.1, 0, 0.94), (side * 0.1, 0.0, 0.8), f"thigh_{s}"),
                      f"calf_{s}": ((side * 0.1, 0.01, 0.52), (side * 0.1, -0.02, 0.1), f"thigh_{s}"),
                      f"foot_{s}": ((side * 0.1, -0.02, 0.1), (side * 0.1, 0.11, 0.025), f"calf_{s}"),
                      f"ball_{s}": ((side * 0.1, 0.11, 0.025), (side * 0.1, 0.17, 0.025), f"foot_{s}"),
                      f"ik_foot_{s}": ((side * 0.1, -0.02, 0.1), (side * 0.1, 0.1, 0.1), "ik_foot_root")})
    return _armature(name, bones, Matrix.Identity(4))
