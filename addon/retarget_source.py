"""Read what the retarget needs from the scene: armatures as skeletons, and a trial's solved motion.

The source is the trial's solved rig with one of its actions: the captured
motion, or a zero-gravity variant (on the rig, or on its second rig beside
it). Its keys are read back whole (``keying.read_channels``) at the action's
keyed frames, with the stances the contact step keyed on it.
"""

from __future__ import annotations

import bpy
import numpy as np

from ..solver.errors import SolverError
from ..solver.retarget import Skeleton, SourceMotion
from ..solver.retarget.skeleton import rigid
from ..solver.rotations import quat_normalize, quat_to_matrix
from .armature import RIG_PROP
from .collections import trial_name
from .keying import read_channels
from .retarget_events import read_floor_velocity, read_stance
from .zero_gravity import CAPTURED_ACTION_PROP

CAPTURED = "captured"


def _matrices(collection, prop: str) -> np.ndarray:
    """A matrix property of every item, ``(N, 4, 4)`` row-major (``foreach_get`` gives them column by column)."""
    flat = np.empty(len(collection) * 16, dtype=np.float32)
    collection.foreach_get(prop, flat)
    return np.swapaxes(flat.reshape(-1, 4, 4), 1, 2).astype(float)


def skeleton_of(ob: bpy.types.Object) -> Skeleton:
    """The armature object's bones as a ``Skeleton`` (rest matrices, lengths, parents, object matrix)."""
    bones = ob.data.bones
    lengths = np.empty(len(bones), dtype=np.float32)
    bones.foreach_get("length", lengths)
    return Skeleton.from_bones([b.name for b in bones], [b.parent.name if b.parent else None for b in bones],
                               _matrices(bones, "matrix_local"), lengths, np.array(ob.matrix_world))


def evaluated_pose(ob: bpy.types.Object) -> np.ndarray:
    """Every pose bone's matrix ``(B, 4, 4)`` (armature space) as Blender last evaluated it."""
    return _matrices(ob.pose.bones, "matrix")


def trial_rigs(collection: bpy.types.Collection) -> list[bpy.types.Object]:
    """The trial's solved rig first, then the rigs of its zero-gravity variants."""
    rigs = [ob for ob in collection.all_objects if ob.type == "ARMATURE"]
    return sorted(rigs, key=lambda ob: not ob.get(RIG_PROP))


def motion_sources(collection: bpy.types.Collection) -> list[tuple[str, str]]:
    """``(key, label)`` of every motion of the trial that can be retargeted: ``captured`` and each
    zero-gravity action by name."""
    out = [(CAPTURED, "Captured motion")]
    for rig in trial_rigs(collection):
        action = rig.animation_data.action if rig.animation_data else None
        if action is not None and (not rig.get(RIG_PROP) or CAPTURED_ACTION_PROP in rig):
            out.append((action.name, action.name.removeprefix(f"{trial_name(collection)} ").capitalize()))
    return out


def source_rig(collection: bpy.types.Collection, source: str) -> tuple[bpy.types.Object, bpy.types.Action]:
    """The rig and action of the motion ``source`` (``captured`` or a zero-gravity action's name)."""
    rigs = trial_rigs(collection)
    if not rigs or not rigs[0].get(RIG_PROP):
        raise SolverError(f"Trial {collection.name!r} has no solved rig", "reconstruct its motion first")
    rig = rigs[0]
    if source == CAPTURED:
        action = bpy.data.actions.get(rig.get(CAPTURED_ACTION_PROP, "")) or \
            (rig.animation_data.action if rig.animation_data else None)
        if action is None:
            raise SolverError(f"Trial {collection.name!r} has no reconstructed motion", "reconstruct it first")
        return rig, action
    for ob in rigs:
        if ob.animation_data is not None and ob.animation_data.action is not None \
                and ob.animation_data.action.name == source:
            return ob, ob.animation_data.action
    raise SolverError(f"Trial {collection.name!r} has no motion {source!r}",
                      f"use {', '.join(key for key, _ in motion_sources(collection))}")


def read_source(rig: bpy.types.Object, action: bpy.types.Action, rate: float) -> tuple[SourceMotion, np.ndarray]:
    """The solved motion keyed in ``action`` (root location, bone quaternions, stances) at its keyed frames."""
    skeleton = skeleton_of(rig)
    channels = {(ch.data_path, ch.index): ch for ch in read_channels(rig, action)}
    root = skeleton.names[0]
    location = [channels.get((f'pose.bones["{root}"].location', i)) for i in range(3)]
    if any(ch is None for ch in location):
        raise SolverError(f"Action {action.name!r} does not move the rig's root bone {root!r}",
                          "reconstruct the motion again")
    frames = location[0].frames
    basis = np.broadcast_to(np.eye(4), (len(frames), len(skeleton.names), 4, 4)).copy()
    for b, name in enumerate(skeleton.names):
        quat = [channels.get((f'pose.bones["{name}"].rotation_quaternion', i)) for i in range(4)]
        if all(ch is not None for ch in quat):
            basis[:, b, :3, :3] = quat_to_matrix(quat_normalize(np.column_stack([ch.at(frames) for ch in quat])))
    basis[:, 0] = rigid(basis[:, 0, :3, :3], np.column_stack([ch.at(frames) for ch in location]))
    return SourceMotion(skeleton, skeleton.forward(basis), rate, read_stance(rig, action, frames),
                        read_floor_velocity(rig)), frames
