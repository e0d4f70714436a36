"""What a render has to show, read from the evaluated scene over the rendered frames.

One pass over the frames (``frame_set``, then one ``foreach_get`` per
armature and a read of each visual's root) gives the subject's body surface,
the zero-gravity twin's, the whole-body centre of mass, and where every force
arrow and torque disk that renders is and how big it is. Blender evaluates
the keyed scene, so what is framed is what renders, whatever keyed it; about
1.5 ms a frame, small beside rendering one.

The body surface is the body mesh's vertices (every tenth) moved by their bones
(rigid skinning, so exact); without a body mesh, the bone ends padded by
``BONE_MARGIN``.
"""

from __future__ import annotations

from dataclasses import dataclass

import bpy
import numpy as np

from .armature import BODY_PROP, RIG_PROP
from .arrows import HEAD_LENGTH, PUSHES_PROP

SHORTEST_ARROW = 0.01  # m: shorter arrows are not framed (a plate without load, a force near zero)
BONE_MARGIN = 0.12  # m around bone ends when there is no body mesh
VERTEX_STRIDE = 10  # every tenth body vertex is enough for a bounding box to a few millimetres
TRAVEL_MIN = 0.5  # m: a shorter root path does not define the forward direction (the pelvis does)
FORCE_PROP, TORQUE_PROP, POWER_PROP = "force_N", "torque_Nm", "power_W"


def rendered_objects(collection: bpy.types.Collection) -> list[bpy.types.Object]:
    """The objects of ``collection`` and its children that renders show (collections and objects not hidden)."""
    if collection.hide_render:
        return []
    out = [ob for ob in collection.objects if not ob.hide_render]
    for child in collection.children:
        out += rendered_objects(child)
    return out


@dataclass
class Rig:
    """An armature and its body surface points at rest: armature-space points ``(V, 4)`` (homogeneous), the
    bone index of each, and the inverse rest matrices of the bones ``(B, 4, 4)``."""

    ob: bpy.types.Object
    points: np.ndarray
    bone_of_point: np.ndarray
    rest_inverse: np.ndarray

    @classmethod
    def of(cls, ob: bpy.types.Object) -> Rig:
        bones = ob.data.bones
        rest = np.array([np.array(b.matrix_local) for b in bones])
        body = next((child for child in ob.children if child.get(BODY_PROP) and child.type == "MESH"), None)
        if body is not None and len(body.data.vertices) and body.vertex_groups:
            co = np.empty(3 * len(body.data.vertices), dtype=np.float32)
            body.data.vertices.foreach_get("co", co)
            index = {group.index: bones.find(group.name) for group in body.vertex_groups}
            selected = range(0, len(body.data.vertices), VERTEX_STRIDE)
            groups = [body.data.vertices[i].groups for i in selected]
            bone = np.array([index.get(g[0].group, -1) if len(g) else -1 for g in groups])
            to_armature = np.linalg.inv(np.array(ob.matrix_world)) @ np.array(body.matrix_world)
            points = co.reshape(-1, 3)[::VERTEX_STRIDE] @ to_armature[:3, :3].T + to_armature[:3, 3]
            keep = bone >= 0
            return cls(ob, np.column_stack([points[keep], np.ones(keep.sum())]), bone[keep], np.linalg.inv(rest))
        # No body mesh: each bone's head and tail with a margin around them, as points of a box per bone.
        pad = [np.array([x, y, z]) * BONE_MARGIN for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
        points, bone = [], []
        for k, b in enumerate(bones):
            for end in (b.head_local, b.tail_local):
                points += [np.array(end) + p for p in pad]
                bone += [k] * len(pad)
        points = np.array(points)
        return cls(ob, np.column_stack([points, np.ones(len(points))]), np.array(bone), np.linalg.inv(rest))

    def surface(self, bones: np.ndarray) -> np.ndarray:
        """World positions ``(T, V, 3)`` of the surface points for posed world bone matrices ``(T, B, 4, 4)``."""
        skin = bones @ self.rest_inverse  # world from armature rest space, per bone
        return np.einsum("tvij,vj->tvi", skin[:, self.bone_of_point, :3, :], self.points)


@dataclass
class Sample:
    """The scene over ``frames`` ``(T,)``.

    ``subject``/``twin``: body surface points ``(T, V, 3)`` (twin None when it
    does not render). ``bones``: the subject rig's world bone matrices
    ``(T, B, 4, 4)``. ``arrows``: the roots of the
    force arrows that render, with their world matrices ``(T, A, 4, 4)`` and
    forces [N] ``(T, A)``; ``disks``: the roots of the torque disks that
    render, their world matrices and torques [N·m] ``(T, D)``.
    """

    frames: np.ndarray
    rig: bpy.types.Object
    subject: np.ndarray
    bones: np.ndarray
    twin_objects: list[bpy.types.Object]
    twin: np.ndarray | None
    arrows: list[bpy.types.Object]
    arrow_matrices: np.ndarray
    forces: np.ndarray
    disks: list[bpy.types.Object]
    disk_matrices: np.ndarray
    torques: np.ndarray
    twin_arrows: np.ndarray
    twin_disks: np.ndarray

    def move_twin(self, offset: np.ndarray) -> None:
        """Move the twin's points, arrows and disks by ``offset`` [m] (where ``delta_location`` puts them)."""
        if self.twin is not None:
            self.twin = self.twin + offset
        self.arrow_matrices[:, self.twin_arrows, :3, 3] += offset
        self.disk_matrices[:, self.twin_disks, :3, 3] += offset

    def arrow_ends(self, force_scale: float, head_scale: float = 1.0) -> np.ndarray:
        """Root and far end of every arrow at every frame ``(T, 2A, 3)`` for a force scale [m/N] (its tip, or the
        tail of one that pushes); NaN where an arrow is shorter than ``SHORTEST_ARROW`` (nothing to frame)."""
        roots = self.arrow_matrices[:, :, :3, 3]
        length = self.forces * force_scale
        shown = (length >= SHORTEST_ARROW)[..., None]
        length = length + head_scale * HEAD_LENGTH * np.minimum(1.0, length / HEAD_LENGTH)
        towards = np.where([ob.get(PUSHES_PROP, False) for ob in self.arrows], -1.0, 1.0)[:, None]  # (A, 1)
        tips = roots + self.arrow_matrices[:, :, :3, 2] * towards * length[..., None]
        return np.concatenate([np.where(shown, roots, np.nan), np.where(shown, tips, np.nan)], axis=1)

    def disk_rims(self, torque_scale: float, right: np.ndarray, up: np.ndarray) -> np.ndarray:
        """The left, right, bottom and top of every disk as the camera sees it ``(T, 4D, 3)``, to frame."""
        centres = self.disk_matrices[:, :, :3, 3]
        radius = (self.torques * torque_scale)[..., None]
        return np.concatenate([centres + sign * radius * axis for axis in (right, up) for sign in (-1.0, 1.0)],
                              axis=1)


def _world_bones(ob: bpy.types.Object) -> np.ndarray:
    """The armature's world bone matrices ``(B, 4, 4)`` as evaluated now."""
    buffer = np.empty(16 * len(ob.pose.bones), dtype=np.float32)
    ob.pose.bones.foreach_get("matrix", buffer)  # column-major, in armature space
    return np.array(ob.matrix_world) @ buffer.reshape(-1, 4, 4).transpose(0, 2, 1)


def subject_rig(collection: bpy.types.Collection) -> bpy.types.Object | None:
    """The trial's own armature (built by the body model step)."""
    return next((ob for ob in collection.all_objects if ob.type == "ARMATURE" and ob.get(RIG_PROP)), None)


def twin_rigs(collection: bpy.types.Collection) -> list[bpy.types.Object]:
    """The zero-gravity rigs beside the subject: the trial's other armatures."""
    return [ob for ob in collection.all_objects if ob.type == "ARMATURE" and not ob.get(RIG_PROP)]


def sample(scene: bpy.types.Scene, collection: bpy.types.Collection, frames: np.ndarray) -> Sample:
    """Read the trial ``collection`` (which has a rig: see ``subject_rig``) at ``frames`` (the scene's frame is
    restored)."""
    shown = rendered_objects(collection)
    rig = subject_rig(collection)
    twins = [Rig.of(ob) for ob in twin_rigs(collection) if ob in shown]
    twin_shown = {ob for r in twins for c in r.ob.users_collection for ob in rendered_objects(c)}
    rigs = [Rig.of(rig)] + twins
    arrows = [ob for ob in shown if FORCE_PROP in ob and any(child in shown for child in ob.children)]
    disks = [ob for ob in shown if TORQUE_PROP in ob and any(child in shown for child in ob.children)]
    current = scene.frame_current
    bones = [np.empty((len(frames), len(r.ob.pose.bones), 4, 4)) for r in rigs]
    arrow_matrices, forces = np.empty((len(frames), len(arrows), 4, 4)), np.empty((len(frames), len(arrows)))
    disk_matrices, torques = np.empty((len(frames), len(disks), 4, 4)), np.empty((len(frames), len(disks)))
    for t, frame in enumerate(frames):
        scene.frame_set(int(frame))
        for r, out in zip(rigs, bones):
            out[t] = _world_bones(r.ob)
        arrow_matrices[t] = np.reshape([ob.matrix_world for ob in arrows], (-1, 4, 4))
        forces[t] = [ob[FORCE_PROP] for ob in arrows]
        disk_matrices[t] = np.reshape([ob.matrix_world for ob in disks], (-1, 4, 4))
        torques[t] = [ob[TORQUE_PROP] for ob in disks]
    scene.frame_set(current)
    surfaces = [r.surface(b) for r, b in zip(rigs, bones)]
    return Sample(np.asarray(frames), rig, surfaces[0], bones[0], [r.ob for r in twins],
                  np.concatenate(surfaces[1:], axis=1) if twins else None, arrows, arrow_matrices,
                  np.maximum(forces, 0.0), disks, disk_matrices, np.maximum(torques, 0.0),
                  np.array([ob in twin_shown for ob in arrows], dtype=bool),
                  np.array([ob in twin_shown for ob in disks], dtype=bool))


def centre_of_mass(bones: np.ndarray, rig: bpy.types.Object) -> np.ndarray | None:
    """Whole-body centre of mass ``(T, 3)`` from posed bones ``(T, B, 4, 4)`` and their ``mass_kg``/``com_m``.

    A segment's CM ``com_m`` is in its segment frame, which is the bone frame
    turned back by the bone's rest rotation ``C`` (see armature.py): world CM
    = head + R_bone Cᵀ com. None when the bones carry no masses.
    """
    data = rig.data.bones
    if not all("mass_kg" in b and "com_m" in b for b in data):
        return None
    mass = np.array([b["mass_kg"] for b in data])
    rest = np.array([np.array(b.matrix_local)[:3, :3] for b in data])
    com = np.einsum("bji,bj->bi", rest, np.array([b["com_m"] for b in data]))  # Cᵀ com, in bone axes
    points = bones[:, :, :3, 3] + np.einsum("tbij,bj->tbi", bones[:, :, :3, :3], com)
    return np.einsum("b,tbi->ti", mass / mass.sum(), points)


def forward(sampled: Sample) -> np.ndarray:
    """The subject's horizontal forward direction: where it travels, else where the pelvis faces, else +X."""
    root = sampled.bones[:, 0, :3, 3]
    travel = (root[-1] - root[0]) * [1.0, 1.0, 0.0]
    if np.linalg.norm(travel) > TRAVEL_MIN:
        return travel / np.linalg.norm(travel)
    rest = np.array(sampled.rig.data.bones[0].matrix_local)[:3, :3]  # the root's X (anterior): the bone frame
    facing = (sampled.bones[:, 0, :3, :3] @ rest.T)[:, :, 0].mean(axis=0) * [1.0, 1.0, 0.0]  # turned back
    if np.linalg.norm(facing) > 1e-6:
        return facing / np.linalg.norm(facing)
    return np.array([1.0, 0.0, 0.0])
