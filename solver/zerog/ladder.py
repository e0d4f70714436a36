"""Badler et al. §5: ladder traversal in zero gravity, hand over hand, with joint torques and the §7
energy-expenditure measures.

Set-up: a ladder in front of the astronaut (``reach`` [m] ahead of the shoulders), horizontal rungs
``rung_spacing`` apart stacked along the body's long axis (world Z); the body stays upright, legs float
free (held at neutral), and climbs by its arms. Only one hand grasps at a time (no closed loops): in
period ``k = 1 .. rungs`` the grasping hand (right on odd periods, left on even) holds rung ``k - 1``
while the free hand moves from rung ``max(k - 2, 0)`` to rung ``k`` — the starting period begins with
both hands on rung 0, the ending period (``k = rungs``) brings the free hand to the grasping hand's rung
(the reverse of the start), as in Figs. 13-14.

Planning (two levels, §5): the *global* plan moves the torso up the ladder with the kinematic motion
function (§3; three phases under ``v_max``) over the whole traversal, ``(rungs - 1)`` spacings in all:
half a spacing in the starting and ending periods, one in each middle period. The periods end when the
global plan reaches those heights, so the torso speed of the periods is that of the global plan. The
*periodic* plan moves the free hand from rung to rung with the motion function (a position vector,
§3), and both arms' joints follow from inverse kinematics at every frame (the grasping hand stays on its
rung). The paper interpolates the free arm's joint variables between IK postures instead; with the
torso moving at the period ends, that stops the arm's joints relative to the torso at release and grasp
and makes the joint rates jump, while a hand path at rest at both rungs keeps them continuous.
Arm IK (full15: ball shoulder, hinge elbow, ball wrist): the elbow
angle from the shoulder-wrist distance, the shoulder by the shortest rotation of the neutral arm onto the
shoulder-wrist line (no swivel), the wrist from the hand's grasp orientation (fingers up, palm to the
ladder: ``R_y(π)``; a welded hand goes where the forearm takes it).

Torques: the paper makes the grasping hand the fixed base of the dynamic tree. Equivalently (the same
Newton-Euler equations), we keep the pelvis as root and give the grasping hand the external wrench that
leaves the root unloaded: with ``W`` the root wrench of the motion without it, the hand gets force ``F`` and
moment ``N - (p - o) × F`` at its wrist centre ``p``. Joint and grasp torques follow without gravity.
Derivatives come from cubic splines through the frames (as for captured motion).
"""

from __future__ import annotations

import numpy as np

from ..dynamics.energy import energy_measures, momentum
from ..dynamics.inverse import ExternalForces, rnea
from ..errors import SolverError
from ..kinematics.motion import Motion
from ..model.body import BodyModel
from ..rotations import matrix_to_quat, quat_from_axis_angle, quat_to_matrix
from .captured import splined
from .free_floating import NO_GRAVITY
from .motion_function import motion_function
from .result import ZeroGravity

SIDES = ("r", "l")
#: The grasping hand's orientation: fingers up (the hand's -Z along world +Z), palm towards the ladder.
GRASP = np.array([[-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]])


def _rotation(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    return quat_to_matrix(quat_from_axis_angle(axis, angle))


def _shortest(u: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Rotation matrices (T, 3, 3) turning directions ``u`` onto ``t`` (T, 3) by the shortest arc."""
    u = u / np.linalg.norm(u, axis=-1, keepdims=True)
    t = t / np.linalg.norm(t, axis=-1, keepdims=True)
    axis = np.cross(u, t)
    s = np.linalg.norm(axis, axis=-1)
    angle = np.arctan2(s, np.sum(u * t, axis=-1))
    axis = np.where(s[:, None] > 1e-12, axis / np.maximum(s, 1e-300)[:, None], [1.0, 0.0, 0.0])
    return _rotation(axis, angle)


def arm_ik(model: BodyModel, q: np.ndarray, side: str, wrist: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """``q`` (T, nq) with the arm of ``side`` placed so its wrist centre is at ``wrist`` (T, 3) and the hand
    has orientation ``hand`` (3, 3) (module doc); the torso pose comes from ``q``."""
    upper, fore, palm = (model.index(f"{name}_{side}") for name in ("upper_arm", "forearm", "hand"))
    if [model.segments[k].joint for k in (upper, fore)] != ["ball", "hinge"] or \
            model.segments[palm].joint not in ("ball", "weld"):
        raise SolverError("Ladder traversal needs arms with ball shoulders, hinge elbows and ball or welded wrists",
                          "use a full15 body model")
    q = q.copy()
    rot, pos = model.forward_kinematics(q)
    torso = model.segments[upper].parent
    d_e, d_w = model.segments[fore].joint_offset, model.segments[palm].joint_offset
    a = model.segments[fore].axes[0]
    reach = np.linalg.norm(wrist - pos[:, upper], axis=-1)
    # |d_e + R(a, θ) d_w|² = reach²: A cos θ + B sin θ = K (Rodrigues)
    A = d_e @ d_w - (a @ d_e) * (a @ d_w)
    B = d_e @ np.cross(a, d_w)
    K = (reach ** 2 - d_e @ d_e - d_w @ d_w) / 2 - (a @ d_e) * (a @ d_w)
    ratio = K / np.hypot(A, B)
    if np.any(np.abs(ratio) > 1):
        raise SolverError(f"The {side} hand cannot reach its rung ({reach.min():.2f}-{reach.max():.2f} m from "
                          "the shoulder)", "change the reach, the rung spacing, or use a subject with longer arms")
    elbow = np.arctan2(B, A) + np.arccos(ratio)
    elbow = np.where(elbow > np.pi, elbow - 2 * np.pi, elbow)
    elbow_rot = _rotation(a, elbow)
    u = d_e + elbow_rot @ d_w
    target = np.einsum("tji,tj->ti", rot[:, torso], wrist - pos[:, upper])
    shoulder = _shortest(u, target)
    q[:, model.q_starts[upper]:model.q_starts[upper] + 4] = matrix_to_quat(shoulder)
    q[:, model.q_starts[fore]] = elbow
    if model.segments[palm].joint == "ball":  # a welded hand goes where the forearm takes it
        wrist_rot = np.einsum("tji,jk->tik", rot[:, torso] @ shoulder @ elbow_rot, hand)
        q[:, model.q_starts[palm]:model.q_starts[palm] + 4] = matrix_to_quat(wrist_rot)
    return q


def ladder_traversal(model: BodyModel, *, rungs: int = 4, rung_spacing: float = 0.3, duration_per_rung: float = 1.0,
                     reach: float = 0.4, v_max: float | None = None, rate_hz: float = 100.0) -> ZeroGravity:
    """Hand over hand along ``rungs`` periods of a ladder (module doc; ``rungs >= 2``), ``duration_per_rung``
    [s] per period on average, torso speed capped at ``v_max`` [m/s]. The summary has the joint torques,
    the grasp force and Badler's §7 measures (effort, energy change, joint power, jerk)."""
    if rungs < 2:
        raise SolverError(f"A ladder traversal needs a starting and an ending period, got rungs={rungs}",
                          "use rungs >= 2")
    duration = rungs * duration_per_rung
    times = np.arange(int(round(duration * rate_hz)) + 1) / rate_hz
    rise, _, _ = motion_function(times, (rungs - 1) * rung_spacing, duration, v_max)
    heights = np.r_[0.0, (np.arange(1, rungs) - 0.5) * rung_spacing, (rungs - 1) * rung_spacing]
    period = np.clip(np.searchsorted(heights, rise, side="right"), 1, rungs)  # 1 .. rungs
    ends = np.interp(heights, rise, times)  # when the global plan reaches each height
    q = np.tile(model.neutral_q(), (len(times), 1))
    q[:, 2] = rise
    _, pos = model.forward_kinematics(model.neutral_q())
    shoulders = {s: pos[model.index(f"upper_arm_{s}")] for s in SIDES}

    def rung(side: str, r) -> np.ndarray:
        r = np.atleast_1d(r)
        point = shoulders[side] + [reach, 0.0, 0.0]
        return point + np.outer(r * rung_spacing, [0.0, 0.0, 1.0])

    grasp_segment = np.empty(len(times), dtype=int)
    grasp_point = np.empty((len(times), 3))
    for k in range(1, rungs + 1):
        frames = np.flatnonzero(period == k)
        hold, free = SIDES[(k + 1) % 2], SIDES[k % 2]
        q[frames] = arm_ik(model, q[frames], hold, np.repeat(rung(hold, k - 1), len(frames), 0), GRASP)
        grasp_segment[frames] = model.index(f"hand_{hold}")
        grasp_point[frames] = rung(hold, k - 1)
        start_rung, end_rung = max(k - 2, 0), (k if k < rungs else k - 1)
        x, _, _ = motion_function(times[frames] - ends[k - 1], 1.0, ends[k] - ends[k - 1])
        path = rung(free, start_rung) + np.outer(x, rung(free, end_rung)[0] - rung(free, start_rung)[0])
        q[frames] = arm_ik(model, q[frames], free, path, GRASP)
    q, v, a = splined(model, times, q, times)
    free_dynamics = rnea(model, times, q, v, a, gravity=NO_GRAVITY)
    wrench = free_dynamics.root_wrench
    arm = grasp_point - q[:, 0:3]
    moment = wrench[:, 3:] - np.cross(arm, wrench[:, :3])
    hands = np.array([model.index(f"hand_{side}") for side in SIDES])
    held = grasp_segment[:, None] == hands[None, :]  # (T, 2): which hand grasps
    external = ExternalForces(hands, np.where(held[..., None], grasp_point[:, None], np.nan),
                              np.where(held[..., None], wrench[:, None, :3], np.nan),
                              np.where(held[..., None], moment[:, None], np.nan))
    info = {"rungs": rungs, "rung_spacing_m": rung_spacing, "duration_per_rung_s": duration_per_rung,
                    "reach_m": reach, "v_max_m_s": v_max, "rate_hz": rate_hz,
                    "period_ends_s": ends.tolist()}
    dynamics = rnea(model, times, q, v, a, gravity=NO_GRAVITY, external=external,
                    options={"derivatives": "cubic splines", "method": "ladder_traversal"})
    energy = energy_measures(dynamics)
    info.update({"grasp_force_peak_n": float(np.linalg.norm(wrench[:, :3], axis=1).max()),
                 "grasp_moment_peak_nm": float(np.linalg.norm(moment, axis=1).max()),
                 "energy": {"effort_nms": energy.effort,
                            "weighted_torque_sum_peak_nm": float(energy.weighted_torque_sum.max()),
                            "mechanical_energy_change_max_j": float(np.abs(energy.mechanical_energy_change).max()),
                            "power_generated_peak_w": float(energy.power_generated.max()),
                            "power_absorbed_peak_w": float(energy.power_absorbed.min()),
                            "weighted_power_work_j": float(energy.weighted_power.sum() / rate_hz),
                            "jerk_sum_peak": float(np.nanmax(energy.jerk_sum))}})
    linear, angular = momentum(model, q, v)
    h = np.hstack([linear, angular])
    motion = Motion.from_q(model, times, q, method="ladder_traversal", v=v, a=a, info=info)
    return ZeroGravity(motion=motion, dynamics=dynamics, momentum=h, initial_momentum=h[0],
                       momentum_scale=float(max(np.abs(h).max(), 1e-300)), info=info)
