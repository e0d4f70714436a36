"""Planted feet: during each stance the part of the foot on the ground stays put, the leg reaching it by IK.

A foot rolls over the ground in stance: it lands on its heel, lies flat, and
pushes off over the ball of the foot while the heel rises. Pinning the whole
foot would stop the ankle rising at push-off, which lengthens the leg by
several centimetres: the hips would have to drop at every step. So the foot
keeps the orientation the retargeted motion gives it, and its *pivot* stays
where it was planted:

- each stance (``events.foot_contacts``) is pinned at its stillest frame (on a
  treadmill the pin travels with the belt, as the subject's feet did),
  lifted so that the lower of the heel point (behind the ankle, at the sole)
  and the ball (the foot bone's tail) rests on the character's floor (the
  height of its sole at rest);
- in frame ``f`` the foot has turned by ``ρ = F(f) F_pinᵀ`` since the pin.
  While that lifts the toes, it turns about the pinned heel point; while it
  lifts the heel, about the pinned ball; the pivot ``c`` slides between the
  two over ``PIVOT_BLEND`` of toe height, and the ankle goes to
  ``c + ρ (a_pin - c)``. Toe bones keep their pinned orientation while the
  heel is up (toes flat on the floor at push-off);
- the correction this makes at the stance's first and last frames fades in
  and out over ``blend`` frames before and after it (smoothstep weights;
  close stances share the gap), so a foot in the air is never dragged to
  where it will land; the thigh and
  shank turn by two-bone IK (``ik.two_bone_ik``) with the knee pointing
  where the thigh's forward direction points;
- where the goal is out of the leg's reach, the hips lower just enough: the
  needed drop is spread with a running maximum and a moving average of the
  blend's width (so it never falls short and moves smoothly), capped at
  ``MAX_DROP_FRACTION`` of the leg length.

This goes beyond the contact estimate of Brubaker et al. (2009), which gives
when a foot carries load, not how it rolls.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.ndimage import maximum_filter1d, uniform_filter1d

from ..rotations import matrix_to_quat, quat_normalize, quat_to_matrix, swing
from .alignment import UP
from ..runs import runs
from .ik import two_bone_ik

#: The hips never lower by more than this fraction of the leg length to keep a foot planted.
MAX_DROP_FRACTION = 0.2
#: The pivot moves from heel to ball as the toes go from this high [m] above their pinned height to this low.
PIVOT_BLEND = 0.005


@dataclass(frozen=True)
class Leg:
    """A leg of the character: the bones that turn as thigh, shank and foot (the first of each is where the
    hip, knee and ankle are) and its toe bones; ``pole`` the knee's forward direction in the first thigh bone's
    frame; ``ball`` and ``heel`` the ball (the foot bone's tail) and the heel point (behind the ankle, at the
    ball's height) in the first foot bone's frame [m]; ``floor`` the height of the sole at rest [m];
    ``lengths`` hip-knee and knee-ankle [m]."""

    thigh: tuple[int, ...]
    shank: tuple[int, ...]
    foot: tuple[int, ...]
    toes: tuple[int, ...]
    pole: np.ndarray
    ball: np.ndarray
    heel: np.ndarray
    floor: float
    lengths: tuple[float, float]


def _smoothstep(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


def pins(planted: np.ndarray, speed: np.ndarray, blend: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a stance mask (T,): the foot lock's weight (T,), 1 in each stance and easing to 0 over ``blend``
    frames either side; the frame (T,) whose pose is the pin (each stance's stillest frame by ``speed``);
    and the stance frame (T,) each frame takes its correction from (itself, or the nearest end of its stance)."""
    n = len(planted)
    weight = np.zeros(n)
    pin, anchor = np.zeros(n, dtype=int), np.arange(n)
    spans = runs(planted)
    for i, (start, end) in enumerate(spans):
        frame = start + int(np.argmin(speed[start:end]))
        weight[start:end], pin[start:end] = 1.0, frame
        before = min(blend, start if i == 0 else (start - spans[i - 1][1]) // 2)
        after = min(blend, n - end if i == len(spans) - 1 else (spans[i + 1][0] - end) // 2)
        for count, frames, edge in ((before, start - 1 - np.arange(before), start),
                                    (after, end + np.arange(after), end - 1)):
            weight[frames] = _smoothstep(1.0 - (np.arange(count) + 1.0) / (count + 1.0))
            pin[frames], anchor[frames] = frame, edge
    return weight, pin, anchor


def _blend_rotations(a: np.ndarray, b: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Normalised linear blend of rotation matrices ``a`` and ``b`` ``(T, 3, 3)`` as quaternions."""
    qa, qb = matrix_to_quat(a), matrix_to_quat(b)
    qb = np.where(np.sum(qa * qb, axis=-1, keepdims=True) < 0, -qb, qb)
    return quat_to_matrix(quat_normalize((1.0 - weight[:, None]) * qa + weight[:, None] * qb))


def _drop_to_reach(hip: np.ndarray, goal: np.ndarray, reach: float) -> np.ndarray:
    """How far (T,) the hip must lower so that ``goal`` is within ``reach`` of it: the smaller root of
    ``|d + δ z|² = reach²``, ``d = goal - hip``; 0 if already within reach."""
    d = goal - hip
    excess = np.sum(d * d, axis=-1) - reach ** 2
    disc = d[:, 2] ** 2 - excess
    drop = np.where(disc >= 0, -d[:, 2] - np.sqrt(np.maximum(disc, 0.0)), -d[:, 2])
    return np.where(excess > 0, np.maximum(drop, 0.0), 0.0)


def _at(rotation: np.ndarray, origin: np.ndarray, local: np.ndarray) -> np.ndarray:
    """World positions ``(T, 3)`` of a point ``local`` (3,) of frames ``rotation`` ``(T, 3, 3)`` at ``origin``."""
    return origin + np.einsum("tij,j->ti", rotation, local)


@dataclass(frozen=True)
class Plan:
    """One leg's lock: weight (T,), the ankle's goal (T, 3), the pivot in the foot's frame (T, 3) and where it
    is pinned (T, 3), and the toes' goal rotations."""

    leg: Leg
    weight: np.ndarray
    goal: np.ndarray
    pivot_local: np.ndarray
    pivot: np.ndarray
    toes: dict


def plan_leg(rotations: np.ndarray, heads: np.ndarray, leg: Leg, planted: np.ndarray, blend: int,
             belt: np.ndarray = np.zeros(3)) -> Plan | None:
    """Where the ankle goes for ``leg`` to roll over its pinned heel and ball (see the module docstring); the pin
    travels ``belt`` (3,) per frame (a treadmill's, in the character's units; zero on the ground)."""
    foot, ankle = rotations[:, leg.foot[0]], heads[:, leg.foot[0]]
    ball, heel = _at(foot, ankle, leg.ball), _at(foot, ankle, leg.heel)
    speed = np.linalg.norm(np.gradient(ankle, axis=0) - belt, axis=1) \
        + np.linalg.norm(np.gradient(ball, axis=0) - belt, axis=1)  # relative to the floor
    weight, pin, anchor = pins(planted, speed, blend)
    if not weight.any():
        return None
    lift = (leg.floor - np.minimum(heel[pin, 2], ball[pin, 2]))[:, None] * UP
    turn = foot @ np.swapaxes(foot[pin], -1, -2)
    heel_to_ball = leg.ball - leg.heel
    toes_up = (foot - foot[pin])[:, 2] @ heel_to_ball
    on_ball = _smoothstep(0.5 - toes_up / (2.0 * PIVOT_BLEND))[anchor]
    pivot_local = leg.heel + on_ball[:, None] * heel_to_ball
    drift = (np.arange(len(pin)) - pin)[:, None] * belt
    pivot = ankle[pin] + lift + np.einsum("tij,tj->ti", foot[pin], pivot_local) + drift
    placed = pivot + np.einsum("tij,tj->ti", turn, ankle[pin] + lift + drift - pivot)
    goal = ankle + weight[:, None] * (placed - ankle)[anchor]
    toes = {t: _blend_rotations(rotations[:, t], rotations[pin, t], weight * on_ball) for t in leg.toes}
    return Plan(leg, weight, goal, pivot_local, pivot, toes)


def turn_leg(rotations: np.ndarray, heads: np.ndarray, leg: Leg, goal: np.ndarray,
             reach: float = 0.999) -> np.ndarray:
    """World rotations ``(T, B, 3, 3)`` with the leg's thigh and shank bones turned (two-bone IK, the knee
    towards the thigh's forward direction) so that the ankle reaches ``goal`` ``(T, 3)``; ``heads`` are the
    bones' world positions before, on the same frames."""
    out = rotations.copy()
    hip, knee, ankle = heads[:, leg.thigh[0]], heads[:, leg.shank[0]], heads[:, leg.foot[0]]
    pole = np.einsum("tij,j->ti", rotations[:, leg.thigh[0]], leg.pole)
    new_knee, new_ankle = two_bone_ik(hip, goal, *leg.lengths, pole, reach)
    turn_thigh = swing(knee - hip, new_knee - hip)
    turn_shank = swing(np.einsum("tij,tj->ti", turn_thigh, ankle - knee), new_ankle - new_knee) @ turn_thigh
    for bones, turn in ((leg.thigh, turn_thigh), (leg.shank, turn_shank)):
        for b in bones:
            out[:, b] = turn @ rotations[:, b]
    return out


def lock_feet(rotations: np.ndarray, heads: np.ndarray, legs: list[Leg], stance: np.ndarray, blend: int,
              reach: float = 0.999, belt: np.ndarray = np.zeros(3)) -> tuple[np.ndarray, np.ndarray, list[Plan]]:
    """World rotations ``(T, B, 3, 3)`` with each leg's feet planted during ``stance`` ``(T, len(legs))`` (on a
    floor moving ``belt`` (3,) per frame: a treadmill), the drop of the hips (T,) [m] it needs, and each leg's
    plan; ``heads`` ``(T, B, 3)`` are the bones' world positions before."""
    out = rotations.copy()
    plans = [p for p in (plan_leg(rotations, heads, leg, planted, blend, belt)
                         for leg, planted in zip(legs, stance.T)) if p is not None]
    if not plans:
        return out, np.zeros(len(heads)), []
    needed = np.zeros(len(heads))
    for plan in plans:
        on = plan.weight > 0
        needed[on] = np.maximum(needed[on], _drop_to_reach(heads[on, plan.leg.thigh[0]], plan.goal[on],
                                                           reach * sum(plan.leg.lengths)))
    width = 2 * blend + 1
    cap = MAX_DROP_FRACTION * np.mean([sum(plan.leg.lengths) for plan in plans])
    drop = np.minimum(uniform_filter1d(maximum_filter1d(needed, width, mode="nearest"), width, mode="nearest"), cap)
    for plan in plans:
        on = plan.weight > 0
        out[on] = turn_leg(out[on], heads[on] - drop[on, None, None] * UP, plan.leg, plan.goal[on], reach)
        for t, rotation in plan.toes.items():
            out[:, t] = rotation
    return out, drop, plans
