"""Retarget the solved motion onto a character: rest-pose alignment, leg-length scaling, planted feet.

1. Each group of the character's bones that shares a segment turns in world
   space as the segment does since its rest: ``R_t(f) = R_s(f) R_s0ᵀ Q R_t0``
   with the rest offset ``Q`` of ``alignment`` (facing, swing, thumb twist).
   Bones without a segment (fingers, toes, clavicles, twist and helper bones)
   keep their rest pose relative to their parent.
2. The root follows the subject's hip joint centre (midpoint of the hip
   joints), scaled by ``k``, the ratio of the character's leg length to the
   subject's (hip-knee plus knee-ankle at rest, both legs averaged).
   Horizontally it starts where the character stands,
   ``c_t(f) = c_t0 + k (c_s(f) - c_s(0))``; vertically its height above the
   character's ankles at rest is the subject's above its planted ankles
   (median ankle height over the stances), scaled:
   ``z_t(f) = a_t0 + k (z_s(f) - a_s)``. So the feet stand where the
   character's floor is whatever the subject's rest pose or lab floor were;
   without stances (a zero-gravity variant) ``a_s`` is the ankles' height at
   the subject's rest.
3. The legs reach where the subject's ankles are relative to its hips, scaled
   by ``k`` (two-bone IK, ``foot_lock.turn_leg``): strides scale with the
   legs even where the character's thigh-to-shank proportions differ from the
   subject's (optional: ``scaled_feet``; off, the legs copy the joint
   rotations as the rest of the body does).
4. With the contact estimate's stances, the feet are pinned (``foot_lock``).
5. The world pose becomes Blender's basis transforms (``Skeleton.basis``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import SolverError
from .alignment import UP, facing, group_offset, turn_about_up
from .bone_names import FALLBACK, SIDES, Mapping, classify, thumb_of
from ..runs import runs
from .foot_lock import Leg, Plan, lock_feet, turn_leg
from .skeleton import Skeleton

#: Where a character's heel is (it has no heel bone): behind the ankle by this fraction of the ankle-to-ball
#: distance, at the ball's height (feet measure about 0.35-0.4 heel-to-ankle per ankle-to-ball).
HEEL_BEHIND_ANKLE = 0.35


@dataclass(frozen=True)
class SourceMotion:
    """The solved rig: its skeleton (bones named by segment), pose matrices ``(T, S, 4, 4)`` (armature space)
    keyed ``rate`` times per second, the feet's stances ``(T, 2)`` (left, right) or None, and the velocity (3,)
    [m/s, armature space] of the floor they stand on (a treadmill's belt; zero on the ground)."""

    skeleton: Skeleton
    pose: np.ndarray
    rate: float
    stance: np.ndarray | None = None
    floor_velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))


@dataclass(frozen=True)
class RetargetOptions:
    """``foot_lock``: pin the feet during stances; ``blend_s`` [s]: how long a foot blends to and from its pin;
    ``scaled_feet``: the legs reach where the subject's feet are, scaled (else they copy its joint rotations);
    ``belt_travel``: on a treadmill, the character walks on over still ground as far as the belt carried the
    subject back (the belt's travel as root motion; else it walks in place on the belt, as the subject did)."""

    foot_lock: bool = True
    blend_s: float = 0.1
    scaled_feet: bool = True
    belt_travel: bool = False


def over_ground(source: SourceMotion) -> SourceMotion:
    """``source`` on a treadmill as if walked over still ground: every pose moved forward by the belt's travel
    since the first frame, the floor still."""
    travel = np.arange(len(source.pose))[:, None, None] / source.rate * np.asarray(source.floor_velocity, float)
    pose = source.pose.copy()
    pose[:, :, :3, 3] -= travel
    return replace(source, pose=pose, floor_velocity=np.zeros(3))


@dataclass(frozen=True)
class StanceSlide:
    """How far [m] foot ``foot`` (0 left, 1 right) slid horizontally during the stance of frames ``[start,
    end)``: ``contact`` the largest distance of the point it rolls over (heel, then ball) from where it was
    planted; ``ankle`` and ``ball`` how far the foot bone's head and tail travelled from their place at the
    stance's start (the ankle moves as the foot rolls: it rises and comes forward at push-off)."""

    foot: int
    start: int
    end: int
    contact: float
    ankle: float
    ball: float


@dataclass(frozen=True)
class Retargeted:
    """The character's motion on ``skeleton``, the part of its armature that moves (mapped bones, their
    ancestors, thumbs and toes): pose matrices and basis transforms ``(T, B, 4, 4)`` (armature space),
    ``root`` the bone keyed with a location, ``turned`` the bones given a rotation (mapped bones and planted
    toes), ``keyed`` those and their ancestors (which keep their rest pose), ``scale`` the leg-length ratio,
    ``hip_drop`` (T,) [m] the lowering of the hips that keeps the feet planted, per-stance ``slides``."""

    skeleton: Skeleton
    mapping: Mapping
    pose: np.ndarray
    basis: np.ndarray
    root: int
    turned: tuple[int, ...]
    keyed: tuple[int, ...]
    scale: float
    hip_drop: np.ndarray
    stance: np.ndarray | None
    slides: tuple[StanceSlide, ...]

    @property
    def max_slide(self) -> float:
        """The largest contact slide of any stance [m]."""
        return max((s.contact for s in self.slides), default=0.0)


def _leg_length(heads: np.ndarray, legs: list[tuple[int, int, int]]) -> float:
    return float(np.mean([np.linalg.norm(heads[k] - heads[h]) + np.linalg.norm(heads[a] - heads[k])
                          for h, k, a in legs]))


def _world_pose(target: Skeleton, rest_rot, rest_head, mapped: dict, root: int, root_head: np.ndarray):
    """World rotations ``(T, B, 3, 3)`` and heads ``(T, B, 3)``: mapped bones as given, the others rigid on
    their parents (or at rest), the root bone's head at ``root_head``."""
    frames = len(root_head)
    rot = np.empty((frames, len(target.names), 3, 3))
    head = np.empty((frames, len(target.names), 3))
    for b, p in enumerate(target.parents):
        if b in mapped:
            rot[:, b] = mapped[b]
        else:
            rot[:, b] = rest_rot[b] if p < 0 else rot[:, p] @ (rest_rot[p].T @ rest_rot[b])
        if b == root:
            head[:, b] = root_head
        else:
            head[:, b] = rest_head[b] if p < 0 else \
                head[:, p] + np.einsum("tij,j->ti", rot[:, p], rest_rot[p].T @ (rest_head[b] - rest_head[p]))
    return rot, head


def _slides(rot, head, plans: list[Plan], stance) -> tuple[StanceSlide, ...]:
    out = []
    for f, plan in enumerate(plans):
        foot = plan.leg.foot[0]
        ankle, ball = head[:, foot], head[:, foot] + np.einsum("tij,j->ti", rot[:, foot], plan.leg.ball)
        contact = head[:, foot] + np.einsum("tij,tj->ti", rot[:, foot], plan.pivot_local) - plan.pivot
        for start, end in runs(stance[:, f]):
            travel = [float(np.linalg.norm((p[start:end] - p[start])[:, :2], axis=1).max()) for p in (ankle, ball)]
            out.append(StanceSlide(f, int(start), int(end),
                                   float(np.linalg.norm(contact[start:end, :2], axis=1).max()), *travel))
    return tuple(out)


def _needed(target: Skeleton, mapping: Mapping) -> set[str]:
    """The bones that matter: the mapped ones, their ancestors, the hands' thumbs and the feet's toes."""
    mapped = [target.index(b) for b in mapping.bones]
    found = set(mapped).union(*(target.ancestors(b) for b in mapped))
    for role, bones in mapping.groups().items():
        last = target.index(bones[-1])
        if role.startswith("hand"):
            thumb = thumb_of(last, target.names, target.parents)
            found |= set() if thumb is None else {thumb, *target.ancestors(thumb)}
        elif role.startswith("foot"):
            found |= set(_toes(target, last))
    return {target.names[i] for i in found}


def _toes(target: Skeleton, foot: int) -> tuple[int, ...]:
    """The toe bones among ``foot``'s children."""
    return tuple(c for c in target.children(foot) if (classify(target.names[c]) or "").startswith("toe"))


def retarget(source: SourceMotion, target: Skeleton, mapping: Mapping,
             options: RetargetOptions = RetargetOptions()) -> Retargeted:
    """The source motion on the character ``target`` whose bones ``mapping`` names (see the module docstring)."""
    mapping.check()
    if options.belt_travel:
        source = over_ground(source)
    target = target.subset(_needed(target, mapping))
    groups = {role: [target.index(b) for b in bones] for role, bones in mapping.groups().items()}
    src = source.skeleton

    def source_bone(role: str) -> int:
        name = next((n for n in (role, *FALLBACK.get(role, ())) if n in src.names), None)
        if name is None:
            raise SolverError(f"The solved rig has no {role.replace('_', ' ')} segment to retarget from",
                              "unmap that bone, or rebuild the armature with the full15 model")
        return src.index(name)

    rot_s, head_s = src.to_world(source.pose)
    rest_rot_s, rest_head_s, rest_tail_s = src.rest_world()
    rest_rot_t, rest_head_t, rest_tail_t = target.rest_world()
    legs_s = [tuple(source_bone(f"{part}_{s}") for part in ("thigh", "shank", "foot")) for s in SIDES]
    legs_t = [tuple(groups[f"{part}_{s}"][0] for part in ("thigh", "shank", "foot")) for s in SIDES]
    left_s = rest_head_s[legs_s[0][0]] - rest_head_s[legs_s[1][0]]
    forward_t = facing(rest_head_t[legs_t[0][0]] - rest_head_t[legs_t[1][0]])
    turn = turn_about_up(forward_t, facing(left_s))

    mapped = {}
    for role, bones in groups.items():
        s = source_bone(role)
        offset = turn
        if role != "pelvis":
            twist = None
            thumb = thumb_of(bones[-1], target.names, target.parents) if role.startswith("hand") else None
            if thumb is not None:
                lateral = left_s / np.linalg.norm(left_s) * (1.0 if role.endswith("_l") else -1.0)
                twist = (rest_head_t[thumb] - rest_head_t[bones[0]], lateral)
            offset = group_offset(turn, rest_tail_t[bones[-1]] - rest_head_t[bones[0]],
                                  rest_tail_s[s] - rest_head_s[s], twist, level=role.startswith("foot"))
        delta = rot_s[:, s] @ rest_rot_s[s].T
        for b in bones:
            mapped[b] = delta @ (offset @ rest_rot_t[b])

    scale = _leg_length(rest_head_t, legs_t) / _leg_length(rest_head_s, legs_s)
    hips_s = 0.5 * (head_s[:, legs_s[0][0]] + head_s[:, legs_s[1][0]])
    hips_t0 = 0.5 * (rest_head_t[legs_t[0][0]] + rest_head_t[legs_t[1][0]])
    ankles_t0 = np.mean([rest_head_t[leg[2], 2] for leg in legs_t])
    stance = source.stance if source.stance is not None and source.stance.any() else None
    planted = np.concatenate([head_s[stance[:, f], leg[2], 2] for f, leg in enumerate(legs_s)]) \
        if stance is not None else np.array([rest_head_s[leg[2], 2] for leg in legs_s])
    hips = np.column_stack([hips_t0[:2] + scale * (hips_s[:, :2] - hips_s[0, :2]),
                            ankles_t0 + scale * (hips_s[:, 2] - np.median(planted))])
    root = groups["pelvis"][0]
    root_head = hips + np.einsum("tij,j->ti", mapped[root], rest_rot_t[root].T @ (rest_head_t[root] - hips_t0))
    rot, head = _world_pose(target, rest_rot_t, rest_head_t, mapped, root, root_head)
    legs = [_leg(target, groups, s, forward_t, rest_rot_t, rest_head_t, rest_tail_t) for s in SIDES]
    if options.scaled_feet:
        for leg, (hip_s, _, ankle_s) in zip(legs, legs_s):
            goal = head[:, leg.thigh[0]] + scale * (head_s[:, ankle_s] - head_s[:, hip_s])
            rot = turn_leg(rot, head, leg, goal)
        mapped.update({b: rot[:, b] for leg in legs for b in (*leg.thigh, *leg.shank)})
        rot, head = _world_pose(target, rest_rot_t, rest_head_t, mapped, root, root_head)

    drop, plans, turned = np.zeros(len(root_head)), [], set(mapped)
    if options.foot_lock and stance is not None:
        rot, drop, plans = lock_feet(rot, head, legs, stance, max(1, round(options.blend_s * source.rate)),
                                     belt=scale * np.asarray(source.floor_velocity, dtype=float) / source.rate)
        turned.update(*(plan.toes for plan in plans))
        rot, head = _world_pose(target, rest_rot_t, rest_head_t, {b: rot[:, b] for b in turned}, root,
                                root_head - drop[:, None] * UP)
    pose = target.from_world(rot, head)
    keyed = sorted(turned | {a for b in turned for a in target.ancestors(b)})
    slides = _slides(rot, head, plans, stance) if plans else ()
    return Retargeted(target, mapping, pose, target.basis(pose), root, tuple(sorted(turned)), tuple(keyed), scale,
                      drop, stance, slides)


def _leg(target: Skeleton, groups: dict, side: str, forward, rest_rot, rest_head, rest_tail) -> Leg:
    """The character's ``side`` leg for the IK and the foot lock: its bone groups, toes and geometry at rest."""
    hip, knee, foot = (groups[f"{part}_{side}"][0] for part in ("thigh", "shank", "foot"))
    last = groups[f"foot_{side}"][-1]
    ball = rest_tail[last]
    heel = np.r_[rest_head[foot][:2] - HEEL_BEHIND_ANKLE * (ball - rest_head[foot])[:2], ball[2]]
    return Leg(tuple(groups[f"thigh_{side}"]), tuple(groups[f"shank_{side}"]), tuple(groups[f"foot_{side}"]),
               _toes(target, last), pole=rest_rot[hip].T @ forward,
               ball=rest_rot[foot].T @ (ball - rest_head[foot]), heel=rest_rot[foot].T @ (heel - rest_head[foot]),
               floor=float(ball[2]), lengths=(float(np.linalg.norm(rest_head[knee] - rest_head[hip])),
                                              float(np.linalg.norm(rest_head[foot] - rest_head[knee]))))


def follow_offset(points: np.ndarray, anchors: np.ndarray, scale: float) -> np.ndarray:
    """Where a visual drawn at ``points`` ``(T, 3)`` on the solved rig goes on the character, as an offset
    from the character's bone whose head is at ``anchors`` on the rig: the offset scaled like the motion."""
    return scale * (np.asarray(points) - np.asarray(anchors))
