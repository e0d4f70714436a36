"""Skeletons for the retarget tests, built in numpy: the solved rig of a model, and characters with the
proportions, rest poses and bone rolls of common rigs (a Mixamo-like armature imported from FBX: Y-up bones,
centimetres, the object turned 90° about X and scaled 0.01)."""

from __future__ import annotations

import numpy as np

from mocap_dynamics.solver.retarget import Skeleton, SourceMotion
from mocap_dynamics.solver.retarget.alignment import swing
from mocap_dynamics.solver.retarget.skeleton import rigid

Y = np.array([0.0, 1.0, 0.0])


def bone_rest(head, tail, roll: float) -> np.ndarray:
    """A rest matrix with Y from head to tail, turned by ``roll`` about Y."""
    c, s = np.cos(roll), np.sin(roll)
    about_y = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    return rigid(swing(Y, np.subtract(tail, head)) @ about_y, np.asarray(head, float))


def rig_skeleton(model) -> Skeleton:
    """The solved rig of ``model`` at its neutral pose standing on the floor (its lowest contact point, marker
    or tip at z = 0, as the add-on builds it): a bone per segment, Y along the segment to its tip."""
    rot, pos = model.forward_kinematics(model.neutral_q())
    pos[:, 2] -= min((pos[k] + rot[k] @ p)[2] for k, s in enumerate(model.segments)
                     for p in (*s.contact_points, *s.marker_offsets, s.tip))
    rest = np.array([bone_rest(pos[k], pos[k] + rot[k] @ s.tip, 0.3 * k) for k, s in enumerate(model.segments)])
    lengths = np.array([np.linalg.norm(s.tip) for s in model.segments])
    return Skeleton.from_bones(model.names, [model.segments[s.parent].name if s.parent >= 0 else None
                                             for s in model.segments], rest, lengths)


def source_from_motion(motion, stance=None, place=np.zeros(3)) -> SourceMotion:
    """The solved rig's pose matrices for ``motion`` (moved by ``place``), as the add-on keys them."""
    skeleton = rig_skeleton(motion.model)
    order = [motion.model.index(n) for n in skeleton.names]
    rest_rot = skeleton.rest[:, :3, :3]
    pose = rigid(motion.rotations[:, order] @ rest_rot, motion.positions[:, order] + place)
    return SourceMotion(skeleton, pose, motion.rate, stance)


def _arm(side: float, pose: str) -> dict:
    angle = np.radians(0.0 if pose == "T" else 45.0)
    out = np.array([side * np.cos(angle), 0.0, -np.sin(angle)])
    shoulder = np.array([side * 0.17, 0.0, 1.43])
    elbow, wrist = shoulder + 0.28 * out, shoulder + 0.53 * out
    thumb = wrist + 0.02 * out + np.array([0.0, -0.03, 0.0])  # palm down: the thumb points forward (-Y)
    return {"Shoulder": ((side * 0.05, 0.0, 1.43), shoulder), "Arm": (shoulder, elbow), "ForeArm": (elbow, wrist),
            "Hand": (wrist, wrist + 0.08 * out), "HandThumb1": (thumb, thumb + np.array([0.0, -0.03, 0.0]))}


def _leg(side: float, hip_height: float) -> dict:
    hip, knee, ankle = (side * 0.09, 0.0, hip_height), (side * 0.09, -0.01, 0.53), (side * 0.09, 0.02, 0.09)
    ball = (side * 0.09, -0.11, 0.02)
    return {"UpLeg": (hip, knee), "Leg": (knee, ankle), "Foot": (ankle, ball),
            "ToeBase": (ball, (side * 0.09, -0.18, 0.02))}


def mixamo_skeleton(pose: str = "T", hip_height: float = 0.98, seed: int = 0) -> Skeleton:
    """A Mixamo-named character facing -Y (left is +X) in a T- or A-pose, random bone rolls, as FBX imports it."""
    bones = {"Hips": ((0, 0, 1.0), (0, 0, 1.1)), "Spine": ((0, 0, 1.1), (0, 0, 1.22)),
             "Spine1": ((0, 0, 1.22), (0, 0, 1.34)), "Spine2": ((0, 0, 1.34), (0, 0, 1.48)),
             "Neck": ((0, 0, 1.48), (0, -0.01, 1.58)), "Head": ((0, -0.01, 1.58), (0, -0.01, 1.78))}
    parents = {"Hips": None, "Spine": "Hips", "Spine1": "Spine", "Spine2": "Spine1", "Neck": "Spine2",
               "Head": "Neck"}
    for side, word in ((1.0, "Left"), (-1.0, "Right")):
        for part, (head, tail) in {**_arm(side, pose), **_leg(side, hip_height)}.items():
            bones[word + part] = (head, tail)
        parents.update({f"{word}Shoulder": "Spine2", f"{word}Arm": f"{word}Shoulder", f"{word}ForeArm": f"{word}Arm",
                        f"{word}Hand": f"{word}ForeArm", f"{word}HandThumb1": f"{word}Hand",
                        f"{word}UpLeg": "Hips", f"{word}Leg": f"{word}UpLeg", f"{word}Foot": f"{word}Leg",
                        f"{word}ToeBase": f"{word}Foot"})
    rolls = np.random.default_rng(seed).uniform(-np.pi, np.pi, len(bones))
    world = np.array([bone_rest(h, t, r) for (h, t), r in zip(bones.values(), rolls)])
    lengths = np.array([np.linalg.norm(np.subtract(t, h)) for h, t in bones.values()])
    matrix_world = np.diag([0.01, 0.01, 0.01, 1.0])
    matrix_world[:3, :3] = 0.01 * np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])  # +90° about X
    inverse = np.linalg.inv(matrix_world)
    rest = rigid(np.einsum("ji,bjk->bik", matrix_world[:3, :3] / 0.01, world[:, :3, :3]),
                 np.einsum("ij,bj->bi", inverse[:3, :3], world[:, :3, 3]))
    names = [f"mixamorig:{n}" for n in bones]
    return Skeleton.from_bones(names, [f"mixamorig:{p}" if p else None for p in parents.values()], rest,
                               lengths / 0.01, matrix_world)
