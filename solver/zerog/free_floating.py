"""Badler et al. §4: a free-floating body whose joint trajectories are prescribed; the base follows from
conservation of spatial momentum, the joint torques from recursive inverse dynamics (§5).

With no external force or torque the spatial momentum is constant (zero, or the initial momentum ``h₀``):

    Σ_i Î_i v̂_i = h₀                                                         (§4)

Every link velocity is ``v̂_i = v̂_0 + Σ_{k ∈ path(i)} Ŝ_k q̇_k``, so with the joint
rates known the base velocity solves a 6×6 system. In the generalized layout of
``solver.model.body`` this is the root block of the mass matrix (CRBA):
``M_bb v_b = h_b - M_bj v_j`` where ``h_b = (p₀; R₀ᵀ (L₀ - o × p₀))`` is the
momentum in the root's velocity coordinates (linear momentum in world, angular
momentum about the root origin ``o`` in the root frame; ``L₀`` is about the world
origin). Badler's ``v̂_0 = -(Î_0 + Î_3 + Î_6)⁻¹ [Î_3 (Ŝ_1 q̇_1 + …) + Î_6 (…)]`` is
the zero-momentum case for the three-link body.

Integration: the base orientation obeys ``q̇₀ = ½ q₀ ⊗ ω₀`` with ``v_b`` solved from
the momentum equation at the current pose, integrated by classical Runge-Kutta
(4th order; stages use the joint trajectory half-way between frames; the
quaternion is normalised after each step). The base position needs no
integration: constant linear momentum moves the centre of mass on a straight
line, ``c(t) = c(0) + p₀ t/m``, so the root origin is placed where that puts the
centre of mass (exact). At every output frame the base velocity is solved again
at the integrated pose, so the momentum of every frame equals ``h₀`` to
rounding, whatever the step size: conservation is by construction; the
orientation is accurate to 4th order.

Base acceleration: the root wrench vanishes (no gravity, no contact), so
``M_bb a_b = -(M_bj a_j + c_b)`` (``c_b`` the velocity-product forces of the root,
from RNEA with ``a_b = 0``); Badler's ``f̂_0 = Î_0 â_0 + v̂_0 ×* Î_0 v̂_0``. The joint
torques are then the RNEA of ``solver.dynamics.inverse`` without gravity.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from ..algorithms.crba import crba_workspace, frame_crba
from ..algorithms.kinematics import forward_kinematics, make_data
from ..algorithms.rnea import frame_rnea
from ..dynamics.energy import segment_momenta
from ..dynamics.inverse import rnea
from ..errors import SolverError
from ..kernels import cholesky_factor, cholesky_substitute, cross, inlined, quat, quat_mul, small, sub
from ..kinematics.motion import Motion
from ..model.body import BodyModel
from .result import ZeroGravity

NO_GRAVITY = np.zeros(3)


@dataclass(frozen=True)
class JointPath:
    """Prescribed joint coordinates, rates and accelerations (layouts of ``solver.model.body``) sampled at
    the frames ``times`` (T,) *and* half-way between them: row ``2k`` is frame ``k``, row ``2k + 1`` the
    midpoint (the Runge-Kutta stages). ``q`` (2T-1, nq), ``v`` and ``a`` (2T-1, nv); the root entries of
    ``q[0]`` are the initial base pose, all other root entries are ignored."""

    times: np.ndarray
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray

    def __post_init__(self):
        n = 2 * len(self.times) - 1
        if len(self.times) < 2 or any(len(x) != n for x in (self.q, self.v, self.a)):
            raise SolverError(f"A joint path of {len(self.times)} frames needs {n} rows (frames and midpoints)",
                              "sample the joints at the frames and half-way between them")


def half_steps(times: np.ndarray) -> np.ndarray:
    """The frame times and the midpoints between them, interleaved (2T-1,)."""
    times = np.asarray(times, dtype=float)
    out = np.empty(2 * len(times) - 1)
    out[0::2] = times
    out[1::2] = 0.5 * (times[:-1] + times[1:])
    return out


@small
def _solve6(matrix, rhs, lower6, block, out):
    """``M_bb out = rhs`` with ``M_bb`` the root block of the mass ``matrix`` (Cholesky)."""
    for r in range(6):
        for c in range(6):
            block[r, c] = matrix[r, c]
    if not cholesky_factor(block, lower6):
        out[:] = np.nan
        return
    cholesky_substitute(lower6, rhs, out)


@small
def _base_velocity(tree, q, v, h0, centre, data, cw, rhs, lower6, block, out):
    """Place the root so that the centre of mass is at ``centre`` (world), then solve the momentum equation
    ``M_bb v_b = h_b - M_bj v_j`` for the root velocity (6,) at pose ``q`` with joint rates ``v``."""
    for k in range(6):
        v[k] = 0.0
    forward_kinematics(tree, q, data)
    frame_crba(tree, data, cw)
    for k in range(3):
        q[k] = centre[k] - cw.moment[0, k] / cw.mass[0]  # the composite first moment is about the root origin
    o = (q[0], q[1], q[2])
    p0, l0 = (h0[0], h0[1], h0[2]), (h0[3], h0[4], h0[5])
    l_o = sub(l0, cross(o, p0))
    for k in range(3):
        rhs[k] = p0[k]
        rhs[3 + k] = data.rot[0, 0, k] * l_o[0] + data.rot[0, 1, k] * l_o[1] + data.rot[0, 2, k] * l_o[2]
    for r in range(6):
        for c in range(6, tree.nv):
            rhs[r] -= cw.matrix[r, c] * v[c]
    _solve6(cw.matrix, rhs, lower6, block, out)


class FloatingScratch(NamedTuple):
    """Scratch of ``floating_frame``: the 6x6 solve's right-hand side, solution, block and factor; no external
    forces and no gravity; the RNEA's joint forces, torques and generalized forces."""

    rhs: np.ndarray
    vel: np.ndarray
    block: np.ndarray
    lower6: np.ndarray
    no_ext: np.ndarray
    no_points: np.ndarray
    no_gravity: np.ndarray
    force: np.ndarray
    torque: np.ndarray
    tau: np.ndarray


@small
def floating_scratch(tree):
    n_seg = len(tree.parent)
    return FloatingScratch(np.empty(6), np.empty(6), np.empty((6, 6)), np.empty((6, 6)), np.zeros(0, dtype=np.int64),
                           np.zeros((0, 3)), np.zeros(3), np.empty((n_seg, 3)), np.empty((n_seg, 3)), np.empty(tree.nv))


@inlined
def floating_frame(tree, q, v, a, h0, centre, data, cw, scratch):
    """The base of the body floating with momentum ``h0`` and no gravity at pose ``q`` with joint rates
    ``v[6:]`` and accelerations ``a[6:]`` (module doc): the root placed so that the centre of mass is at
    ``centre``, its velocity from the momentum equation into ``v[0:6]``, its acceleration from a zero root
    wrench (``M_bb a_b = -(M_bj a_j + c_b)``, the RNEA with ``a_b = 0``) into ``a[0:6]``."""
    rhs, vel, lower6, block, tau = scratch.rhs, scratch.vel, scratch.lower6, scratch.block, scratch.tau
    _base_velocity(tree, q, v, h0, centre, data, cw, rhs, lower6, block, vel)
    for k in range(6):
        v[k] = vel[k]
        a[k] = 0.0
    no_points = scratch.no_points
    frame_rnea(tree, q, v, a, scratch.no_gravity, scratch.no_ext, no_points, no_points, no_points, data,
               scratch.force, scratch.torque, tau)
    for k in range(6):
        rhs[k] = -tau[k]
    _solve6(cw.matrix, rhs, lower6, block, vel)
    for k in range(6):
        a[k] = vel[k]


@small
def _quaternion_rate(q, velocity, rate):
    """``q̇₀ = ½ q₀ ⊗ (0, ω₀)`` into ``rate[3:7]`` (the base position follows the centre of mass)."""
    dq = quat_mul(quat(q, 3), (0.0, velocity[3], velocity[4], velocity[5]))
    for k in range(4):
        rate[3 + k] = 0.5 * dq[k]


@small
def _normalize_base(q):
    norm = np.sqrt(q[3] ** 2 + q[4] ** 2 + q[5] ** 2 + q[6] ** 2)
    for k in range(3, 7):
        q[k] /= norm


@njit(cache=True, nogil=True)
def _integrate(tree, q_path, v_path, a_path, h0, dt):
    """Base orientation by RK4 on the momentum equation, position from the centre of mass; per frame the base
    velocity and acceleration (see module)."""
    n_frames = (len(q_path) + 1) // 2
    nq, nv = tree.nq, tree.nv
    data, cw = make_data(tree), crba_workspace(tree)
    q_out, v_out, a_out = np.empty((n_frames, nq)), np.empty((n_frames, nv)), np.empty((n_frames, nv))
    q_t, v_t, a_t = np.empty(nq), np.empty(nv), np.empty(nv)
    scratch = floating_scratch(tree)
    rhs, vel, lower6, block = scratch.rhs, scratch.vel, scratch.lower6, scratch.block
    rates, base = np.empty((4, 7)), np.empty(7)
    for k in range(nq):
        q_t[k] = q_path[0, k]
    for k in range(nv):
        v_t[k] = 0.0
    forward_kinematics(tree, q_t, data)
    frame_crba(tree, data, cw)
    mass = cw.mass[0]
    start = np.empty(3)  # the initial centre of mass; it then moves at p₀/m
    centre = np.empty(3)
    for k in range(3):
        start[k] = q_t[k] + cw.moment[0, k] / mass
    for k in range(7):
        base[k] = q_path[0, k]
    _normalize_base(base)
    for n in range(n_frames):
        # the frame itself: pose, velocity from the momentum equation, acceleration from a zero root wrench
        for k in range(nq):
            q_t[k] = base[k] if k < 7 else q_path[2 * n, k]  # base[0:3] is placed by _base_velocity
        for k in range(nv):
            v_t[k] = v_path[2 * n, k]
            a_t[k] = 0.0 if k < 6 else a_path[2 * n, k]
        for k in range(3):
            centre[k] = start[k] + n * dt * h0[k] / mass
        floating_frame(tree, q_t, v_t, a_t, h0, centre, data, cw, scratch)
        for k in range(nq):
            q_out[n, k] = q_t[k]
        for k in range(nv):
            v_out[n, k] = v_t[k]
            a_out[n, k] = a_t[k]
        if n == n_frames - 1:
            break
        # classical Runge-Kutta to the next frame; stages at t (the frame's own base velocity, above),
        # t + dt/2 (twice) and t + dt
        _quaternion_rate(q_t, v_t, rates[0])
        for stage in range(1, 4):
            row_index = 2 * n + (2 if stage == 3 else 1)
            h = dt if stage == 3 else 0.5 * dt
            for k in range(3, 7):
                q_t[k] = base[k] + h * rates[stage - 1, k]
            for k in range(7, nq):
                q_t[k] = q_path[row_index, k]
            _normalize_base(q_t)
            for k in range(nv):
                v_t[k] = v_path[row_index, k]
            for k in range(3):
                centre[k] = start[k] + (n * dt + h) * h0[k] / mass
            _base_velocity(tree, q_t, v_t, h0, centre, data, cw, rhs, lower6, block, vel)
            _quaternion_rate(q_t, vel, rates[stage])
        for k in range(3, 7):
            base[k] += dt / 6.0 * (rates[0, k] + 2.0 * rates[1, k] + 2.0 * rates[2, k] + rates[3, k])
        _normalize_base(base)
    return q_out, v_out, a_out


def _momentum_scale(linear: np.ndarray, angular: np.ndarray, h0: np.ndarray) -> float:
    """What momentum drift is relative to: ``|h₀|`` or, when larger, the largest sum of the segments' own
    spatial momentum magnitudes (so a zero-momentum manoeuvre is judged against the momenta that cancel);
    ``linear``/``angular``: the segments' momenta (T, S, 3)."""
    parts = np.linalg.norm(linear, axis=-1) + np.linalg.norm(angular, axis=-1)
    return float(max(np.linalg.norm(h0), parts.sum(1).max(), 1e-300))


def free_floating(model: BodyModel, path: JointPath, *, initial_momentum: np.ndarray | None = None,
                  method: str = "zero_gravity", info: dict | None = None) -> ZeroGravity:
    """Simulate ``model`` floating freely with its joints following ``path`` (Badler et al. §4-5).

    ``initial_momentum`` (6,): linear [kg m/s] and angular momentum about the world origin [kg m²/s], world
    frame; ``None`` is zero. Returns the motion (base pose from momentum conservation), its inverse dynamics
    without gravity (joint torques; the root wrench is zero to rounding), the momentum of every frame
    computed independently of the integrator (``solver.dynamics.energy.segment_momenta``) and timings.
    """
    h0 = np.zeros(6) if initial_momentum is None else np.asarray(initial_momentum, dtype=float).reshape(6)
    q_path, v_path, a_path = (np.ascontiguousarray(x, dtype=float) for x in (path.q, path.v, path.a))
    if q_path.shape[1] != model.nq or v_path.shape[1] != model.nv or a_path.shape[1] != model.nv:
        raise SolverError(f"The joint path has {q_path.shape[1]} coordinates and {v_path.shape[1]} rates; "
                          f"the model needs {model.nq} and {model.nv}", "sample the path in the model's layout")
    if not (np.isfinite(q_path).all() and np.isfinite(v_path).all() and np.isfinite(a_path).all()):
        raise SolverError("The joint path has NaN or infinite values", "fill the gaps or trim the motion first")
    times = np.asarray(path.times, dtype=float)
    dt = float(times[1] - times[0])
    t0 = time.perf_counter()
    q, v, a = _integrate(model.tree, q_path, v_path, a_path, h0, dt)
    t1 = time.perf_counter()
    if not np.isfinite(v).all():
        raise SolverError("The momentum equation is singular: the model has no mass or inertia to float with",
                          "give the segments positive masses and inertias")
    dynamics = rnea(model, times, q, v, a, gravity=NO_GRAVITY, options={"derivatives": "prescribed joints, "
                    "base from momentum conservation", "method": method})
    t2 = time.perf_counter()
    linear, angular = segment_momenta(model, q, v)
    momentum = np.hstack([linear.sum(1), angular.sum(1)])
    motion = Motion.from_q(model, times, q, method=method, v=v, a=a, info=dict(info or {}))
    timings = {"integrate_s": t1 - t0, "torques_s": t2 - t1, "frames": len(times)}
    return ZeroGravity(motion=motion, dynamics=dynamics, momentum=momentum, initial_momentum=h0,
                       momentum_scale=_momentum_scale(linear, angular, h0), timings=timings, info=dict(info or {}))
