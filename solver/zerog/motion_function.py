"""Badler et al. §3, the kinematic motion function: rest-to-rest profiles for joint angles and positions.

The quintic (eq. 1) ``x(t) = X/T⁵ (10T² - 15Tt + 6t²) t³`` integrates
``ẋ = C₀ t² (T - t)²`` with ``C₀ = 30 X/T⁵``: zero velocity and acceleration at
both ends, peak speed ``ẋ(T/2) = 15X/(8T)``.

With a speed limit ``V_max < 15X/(8T)`` the motion has three phases:
accelerate to ``V_max`` in ``t₂``, cruise for ``t₁``, decelerate in ``t₂``, with
``t₂ = T - X/V_max`` and ``t₁ = 2X/V_max - T`` (``T = t₁ + 2t₂``). Phase 1 is
``x = V_max t³/t₂³ (t₂ - t/2)`` as printed. The paper's phase 2,
``V_max (t₂/2 + t)``, does not join phase 1 (``x(t₂) = V_max t₂/2``); we use
``V_max (t - t₂/2)``, and phase 3 as the mirror image of phase 1,
``x(t) = X - x₁(T - t)`` (the printed quartic is not dimensionally consistent).
The speed is then continuous with continuous acceleration, and ``X/V_max ≤ T``
is needed (else no profile reaches ``X`` in time).
"""

from __future__ import annotations

import numpy as np

from ..errors import SolverError
from ..model.body import BodyModel
from ..rotations import quat_conj, quat_from_axis_angle, quat_mul, quat_to_rotvec
from .free_floating import JointPath, half_steps


def quintic(t: np.ndarray, distance: float, duration: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(x, ẋ, ẍ)`` of eq. 1 at times ``t`` (clamped to ``[0, T]``), from 0 to ``distance`` in ``duration``."""
    T = float(duration)
    s = np.clip(np.asarray(t, dtype=float), 0.0, T)
    x = distance / T ** 5 * (10 * T ** 2 - 15 * T * s + 6 * s ** 2) * s ** 3
    v = 30 * distance / T ** 5 * s ** 2 * (T - s) ** 2
    a = 60 * distance / T ** 5 * s * (T - s) * (T - 2 * s)
    return x, v, a


def _accelerate(t: np.ndarray, v_max: float, t2: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Phase 1: ``x = V t³/t₂³ (t₂ - t/2)``, ``ẋ = V (3t²t₂ - 2t³)/t₂³``, ``ẍ = 6V t (t₂ - t)/t₂³``."""
    return (v_max * t ** 3 / t2 ** 3 * (t2 - t / 2), v_max * (3 * t ** 2 * t2 - 2 * t ** 3) / t2 ** 3,
            6 * v_max * t * (t2 - t) / t2 ** 3)


def motion_function(t: np.ndarray, distance: float, duration: float, v_max: float | None = None,
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(x, ẋ, ẍ)`` of Badler's kinematic motion function: the quintic, or three phases when the quintic's
    peak speed ``15|X|/(8T)`` exceeds ``v_max`` (same units as ``distance`` per second)."""
    T = float(duration)
    if not T > 0:
        raise SolverError(f"A motion needs a positive duration, got {T:g} s", "give a duration above zero")
    X = abs(float(distance))
    if v_max is None or 15 * X / (8 * T) <= v_max:
        return quintic(t, distance, T)
    if not v_max * T >= X:
        raise SolverError(f"The speed limit {v_max:g}/s cannot cover {X:g} in {T:g} s",
                          f"allow at least {X / T:g}/s or a longer duration")
    sign = np.sign(distance)
    t2 = T - X / v_max
    s = np.clip(np.asarray(t, dtype=float), 0.0, T)
    first = _accelerate(np.minimum(s, t2), v_max, t2)
    last = _accelerate(np.minimum(T - s, t2), v_max, t2)
    x = np.where(s < t2, first[0], np.where(s <= T - t2, v_max * (s - t2 / 2), X - last[0]))
    v = np.where(s < t2, first[1], np.where(s <= T - t2, v_max, last[1]))
    a = np.where(s < t2, first[2], np.where(s <= T - t2, 0.0, -last[2]))
    return sign * x, sign * v, sign * a


def _rotation_steps(model: BodyModel, start: np.ndarray, end: np.ndarray):
    """Per jointed segment: (q columns, v columns, start value, unit axis or None, distance).

    A ball joint turns about one fixed child-frame axis ``n`` by ``θ`` (``q_end = q_start ⊗ exp(½θn)``, the
    shortest rotation); every angle of a hinge or universal joint moves on its own.
    """
    steps = []
    for s, qs, vs in zip(model.segments[1:], model.q_starts[1:], model.v_starts[1:]):
        if s.joint == "ball":
            rotvec = quat_to_rotvec(quat_mul(quat_conj(start[qs:qs + 4]), end[qs:qs + 4]))
            theta = float(np.linalg.norm(rotvec))
            steps.append((slice(qs, qs + 4), slice(vs, vs + 3), start[qs:qs + 4], rotvec / theta if theta else
                          np.zeros(3), theta))
        else:
            for k in range(s.nv):
                steps.append((slice(qs + k, qs + k + 1), slice(vs + k, vs + k + 1), start[qs + k:qs + k + 1], None,
                              float(end[qs + k] - start[qs + k])))
    return steps


def posture_sequence(model: BodyModel, postures: list[np.ndarray], duration: float, rate_hz: float,
                     v_max: float | None = None) -> JointPath:
    """Joint path through ``postures`` (each (nq,), the root entries of the first are the initial base pose),
    ``duration`` [s] per move, every joint following the kinematic motion function (eq. 1, or three phases
    under ``v_max`` [rad/s]); sampled at ``rate_hz`` and half-way between frames (``JointPath``).
    Moves join with zero velocity and acceleration, so the path is twice differentiable."""
    if len(postures) < 2:
        raise SolverError("A posture sequence needs a start and an end posture", "give at least two postures")
    n_moves = len(postures) - 1
    n_frames = int(round(n_moves * duration * rate_hz)) + 1
    times = np.arange(n_frames) / rate_hz
    t = half_steps(times)
    q = np.tile(np.asarray(postures[0], dtype=float), (len(t), 1))
    v, a = np.zeros((len(t), model.nv)), np.zeros((len(t), model.nv))
    for m in range(n_moves):
        local = t - m * duration
        inside = local >= 0  # a later move overwrites the rest (the profile holds its end value)
        for cq, cv, start, axis, distance in _rotation_steps(model, np.asarray(postures[m], dtype=float),
                                                             np.asarray(postures[m + 1], dtype=float)):
            x, xd, xdd = (values[inside] for values in motion_function(local, distance, duration, v_max))
            if axis is None:
                q[inside, cq], v[inside, cv], a[inside, cv] = start + x[:, None], xd[:, None], xdd[:, None]
            else:
                q[inside, cq] = quat_mul(start, quat_from_axis_angle(axis, x))
                v[inside, cv], a[inside, cv] = xd[:, None] * axis, xdd[:, None] * axis
    return JointPath(times=times, q=q, v=v, a=a)
