"""Forward dynamics: accelerations from forces, integration, and the replay of estimated forces.

``forward_dynamics`` solves ``M(q) a = τ - C(q, v)`` per frame: the
generalized mass matrix ``M`` by Featherstone's composite-rigid-body algorithm
(CRBA), the bias ``C`` (Coriolis, centrifugal, gravity, external forces) by
the recursive Newton-Euler algorithm with ``a = 0``, and a Cholesky solve.
``τ`` is in the layout of ``Dynamics.generalized_forces`` (root wrench
included), so forces estimated by ``inverse.rnea`` drive it directly.

``simulate`` integrates with the explicit Euler scheme of Brubaker §4.2 (the
one forward differences are consistent with), or with classical Runge-Kutta
(``method="rk4"``) when accuracy matters more than consistency. Quaternions are
integrated as 4-vectors, ``q̇ = ½ q ⊗ (0, ω)``, and projected back to unit
norm after each step (Appendix A), so the velocity layout stays that of
``solver.model.body``. Appendix A's virtual force ``ρ_q q`` (eq. 13), which
keeps ``q̈`` on the unit sphere, is implicit: the dynamics are solved for the
body angular acceleration ``ω̇``, and ``q̈ = -¼|ω|² q + ½ q ⊗ (0, ω̇)``
satisfies eq. 12 by construction.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..algorithms.crba import crba_workspace, frame_crba
from ..algorithms.kinematics import forward_kinematics, make_data
from ..algorithms.rnea import frame_rnea
from ..constants import GRAVITY
from ..errors import SolverError
from ..kernels import cholesky_factor, cholesky_substitute, dot, quat, quat_conj, quat_mul, small, vec
from ..kinematics.motion import Motion
from ..model.body import BodyModel
from ..model.tree import BALL, FREE
from .derivatives import time_step
from .inverse import Dynamics, ExternalForces

EULER, RK4 = 0, 1
_METHODS = {"euler": EULER, "rk4": RK4}


# --- per-frame forward dynamics ----------------------------------------------------------------------------
@small
def cholesky_solve(matrix, rhs, lower, out):
    """Solve ``matrix out = rhs`` for a symmetric positive definite ``matrix`` (Cholesky ``L Lᵀ``).

    A (numerically) singular matrix gives NaN."""
    scale = 0.0
    for j in range(len(rhs)):
        scale = max(scale, abs(matrix[j, j]))
    if not cholesky_factor(matrix, lower, 1e-13 * scale):
        out[:] = np.nan
        return
    cholesky_substitute(lower, rhs, out)


@small
def frame_forward_dynamics(tree, q, v, tau, gravity, ext_segments, ext_points, ext_forces, ext_moments, data, cw,
                           acceleration):
    """``M(q) a = τ - C(q, v)`` for one frame: RNEA bias with ``a = 0``, CRBA, Cholesky."""
    frame_rnea(tree, q, v, cw.zero, gravity, ext_segments, ext_points, ext_forces, ext_moments, data, cw.force,
               cw.torque, cw.bias)
    frame_crba(tree, data, cw)
    for k in range(len(tau)):
        cw.bias[k] = tau[k] - cw.bias[k]
    cholesky_solve(cw.matrix, cw.bias, cw.lower, acceleration)


@njit(cache=True, nogil=True)
def _mass_matrices(tree, q):
    n_frames = len(q)
    out = np.empty((n_frames, tree.nv, tree.nv))
    data, cw = make_data(tree), crba_workspace(tree)
    for t in range(n_frames):
        forward_kinematics(tree, q[t], data)
        frame_crba(tree, data, cw)
        for r in range(tree.nv):
            for c in range(tree.nv):
                out[t, r, c] = cw.matrix[r, c]
    return out


@njit(cache=True, nogil=True)
def _forward_dynamics_frames(tree, q, v, tau, gravity, ext_segments, ext_points, ext_forces, ext_moments):
    n_frames = len(q)
    out = np.empty((n_frames, tree.nv))
    data, cw = make_data(tree), crba_workspace(tree)
    for t in range(n_frames):
        frame_forward_dynamics(tree, q[t], v[t], tau[t], gravity, ext_segments, ext_points[t], ext_forces[t],
                               ext_moments[t], data, cw, out[t])
    return out


def _frames(model: BodyModel, q, v=None, tau=None):
    q = np.ascontiguousarray(np.atleast_2d(q), dtype=float)
    arrays = [np.ascontiguousarray(np.atleast_2d(x), dtype=float) for x in (v, tau) if x is not None]
    if q.shape[1] != model.nq or any(x.shape != (len(q), model.nv) for x in arrays):
        raise SolverError(f"Expected q of shape (T, {model.nq}) and v, tau of shape (T, {model.nv})",
                          "pass coordinates in the model's layout")
    return q, *arrays


def _finite(values: np.ndarray) -> np.ndarray:
    if not np.all(np.isfinite(values)):
        raise SolverError("Forward dynamics gave non-finite values: a moving segment without mass or inertia, "
                          "NaN in the inputs, or a simulation that diverged",
                          "give every moving segment a positive mass and inertia, check the inputs, "
                          "or use a smaller time step")
    return values


def mass_matrix(model: BodyModel, q: np.ndarray) -> np.ndarray:
    """Generalized mass matrix ``M(q)`` (T, nv, nv) in the velocity layout (CRBA, frame by frame)."""
    (q,) = _frames(model, q)
    return _mass_matrices(model.tree, q)


def forward_dynamics(model: BodyModel, q: np.ndarray, v: np.ndarray, tau: np.ndarray, *,
                     gravity: np.ndarray = GRAVITY, external: ExternalForces | None = None) -> np.ndarray:
    """Generalized accelerations (T, nv) from coordinates, velocities and generalized forces (eq. 1)."""
    q, v, tau = _frames(model, q, v, tau)
    ext = ExternalForces.none(len(q)) if external is None else external
    ext.check(model, len(q))
    return _finite(_forward_dynamics_frames(model.tree, q, v, tau, np.asarray(gravity, dtype=float).reshape(3),
                                            ext.segments, ext.points, ext.forces, ext.moments))


# --- integration -----------------------------------------------------------------------------------------
@small
def _axpy4(s, x, y):
    """``y + s x`` for quaternion tuples."""
    return (y[0] + s * x[0], y[1] + s * x[1], y[2] + s * x[2], y[3] + s * x[3])


@small
def _dot4(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]


@small
def _quaternion_euler_step(q, qs, v, vs, a, dt, q_out, v_out):
    """Brubaker §4.2 / App. A for the quaternion ``q[qs:qs+4]`` with body rate ``ω = v[vs:vs+3]``.

    ``q̇ = ½ q ⊗ ω``, ``q̈ = -¼|ω|² q + ½ q ⊗ ω̇``; ``q̂ = q + Δ q̇``, ``q' = q̂/|q̂|``;
    ``q̂̇ = q̇ + Δ q̈``, ``q̇' = q̂̇ - (q'ᵀ q̂̇) q'``; ``ω' = 2 vec(q'* ⊗ q̇')``.
    """
    qq, w, dw = quat(q, qs), vec(v, vs), vec(a, vs)
    zero = (0.0, 0.0, 0.0, 0.0)
    rate = _axpy4(0.5, quat_mul(qq, (0.0, w[0], w[1], w[2])), zero)
    second = _axpy4(-0.25 * dot(w, w), qq, _axpy4(0.5, quat_mul(qq, (0.0, dw[0], dw[1], dw[2])), zero))
    q_hat = _axpy4(dt, rate, qq)
    q_new = _axpy4(1.0 / np.sqrt(_dot4(q_hat, q_hat)), q_hat, zero)
    rate_hat = _axpy4(dt, second, rate)
    rate_new = _axpy4(-_dot4(q_new, rate_hat), q_new, rate_hat)
    body = quat_mul(quat_conj(q_new), rate_new)
    for k in range(4):
        q_out[qs + k] = q_new[k]
    for k in range(3):
        v_out[vs + k] = 2.0 * body[1 + k]


@njit(cache=True)
def euler_step(tree, q, v, a, dt, q_out, v_out):
    """One explicit Euler step ``q' = q + Δ q̇``, ``v' = v + Δ a`` (Brubaker §4.2), quaternions per App. A."""
    for i in range(len(tree.parent)):
        qs, vs, joint = tree.q_start[i], tree.v_start[i], tree.joint[i]
        n_plain = 3 if joint == FREE else (0 if joint == BALL else tree.n_dof[i])
        for k in range(n_plain):
            q_out[qs + k] = q[qs + k] + dt * v[vs + k]
            v_out[vs + k] = v[vs + k] + dt * a[vs + k]
        if joint == FREE or joint == BALL:
            _quaternion_euler_step(q, qs + n_plain, v, vs + n_plain, a, dt, q_out, v_out)


@small
def _coordinate_rates(tree, q, v, out):
    """``q̇`` (length nq) from ``v``: ``½ q ⊗ (0, ω)`` for quaternions, ``v`` for the rest."""
    for i in range(len(tree.parent)):
        qs, vs, joint = tree.q_start[i], tree.v_start[i], tree.joint[i]
        n_plain = 3 if joint == FREE else (0 if joint == BALL else tree.n_dof[i])
        for k in range(n_plain):
            out[qs + k] = v[vs + k]
        if joint == FREE or joint == BALL:
            qs, vs = qs + n_plain, vs + n_plain
            rate = quat_mul(quat(q, qs), (0.0, v[vs], v[vs + 1], v[vs + 2]))
            for k in range(4):
                out[qs + k] = 0.5 * rate[k]


@small
def _normalize_quaternions(tree, q):
    """Project every quaternion of ``q`` to unit norm (Appendix A), in place."""
    for i in range(len(tree.parent)):
        if tree.joint[i] == FREE or tree.joint[i] == BALL:
            qs = tree.q_start[i] + (3 if tree.joint[i] == FREE else 0)
            norm = np.sqrt(_dot4(quat(q, qs), quat(q, qs)))
            for k in range(4):
                q[qs + k] /= norm


@small
def _rk4_step(tree, q, v, tau, dt, gravity, ext_segments, ext_points, ext_forces, ext_moments, data, cw,
              q_out, v_out):
    """Classical Runge-Kutta on ``(q, v)`` with ``q̇`` as in ``_coordinate_rates``; quaternions projected."""
    nq, nv = len(q), len(v)
    dq, dv = np.empty((4, nq)), np.empty((4, nv))
    q_stage, v_stage = q.copy(), v.copy()
    for stage in range(4):
        _coordinate_rates(tree, q_stage, v_stage, dq[stage])
        frame_forward_dynamics(tree, q_stage, v_stage, tau, gravity, ext_segments, ext_points, ext_forces,
                               ext_moments, data, cw, dv[stage])
        h = dt if stage == 2 else 0.5 * dt
        for k in range(nq):
            q_stage[k] = q[k] + h * dq[stage, k]
        for k in range(nv):
            v_stage[k] = v[k] + h * dv[stage, k]
        _normalize_quaternions(tree, q_stage)
    for k in range(nq):
        q_out[k] = q[k] + dt / 6 * (dq[0, k] + 2 * dq[1, k] + 2 * dq[2, k] + dq[3, k])
    for k in range(nv):
        v_out[k] = v[k] + dt / 6 * (dv[0, k] + 2 * dv[1, k] + 2 * dv[2, k] + dv[3, k])
    _normalize_quaternions(tree, q_out)


@njit(cache=True)
def _simulate(tree, q0, v0, tau, dt, method, gravity, ext_segments, ext_points, ext_forces, ext_moments):
    n = len(tau)
    q = np.empty((n + 1, len(q0)))
    v = np.empty((n + 1, len(v0)))
    for k in range(len(q0)):
        q[0, k] = q0[k]
    for k in range(len(v0)):
        v[0, k] = v0[k]
    data, cw = make_data(tree), crba_workspace(tree)
    a = np.empty(len(v0))
    for t in range(n):
        if method == EULER:
            frame_forward_dynamics(tree, q[t], v[t], tau[t], gravity, ext_segments, ext_points[t], ext_forces[t],
                                   ext_moments[t], data, cw, a)
            euler_step(tree, q[t], v[t], a, dt, q[t + 1], v[t + 1])
        else:
            _rk4_step(tree, q[t], v[t], tau[t], dt, gravity, ext_segments, ext_points[t], ext_forces[t],
                      ext_moments[t], data, cw, q[t + 1], v[t + 1])
    return q, v


def simulate(model: BodyModel, q0: np.ndarray, v0: np.ndarray, tau: np.ndarray, dt: float, *,
             gravity: np.ndarray = GRAVITY, external: ExternalForces | None = None, method: str = "euler"):
    """Integrate ``len(tau)`` steps of ``dt`` from ``(q0, v0)``; returns ``q`` (n+1, nq) and ``v`` (n+1, nv).

    ``tau`` (n, nv) and ``external`` (n frames) are held over each step.
    ``method``: ``"euler"`` (Brubaker §4.2, consistent with forward differences)
    or ``"rk4"``. Quaternions are projected to unit norm after each step.
    """
    if method not in _METHODS:
        raise SolverError(f"Unknown integration method {method!r}", f"use one of {', '.join(_METHODS)}")
    (q0,) = _frames(model, q0)
    tau = np.ascontiguousarray(np.reshape(tau, (-1, model.nv)), dtype=float)
    v0 = np.ascontiguousarray(np.reshape(v0, model.nv), dtype=float)
    ext = ExternalForces.none(len(tau)) if external is None else external
    ext.check(model, len(tau))
    q, v = _simulate(model.tree, q0[0], v0, tau, float(dt), _METHODS[method],
                     np.asarray(gravity, dtype=float).reshape(3), ext.segments, ext.points, ext.forces, ext.moments)
    _finite(v)
    return q, v


def replay(dynamics: Dynamics) -> Motion:
    """Integrate the estimated forces (joint torques, root wrench, gravity, external) from the first state.

    Brubaker §4.2: with forward-difference derivatives the Euler scheme
    reproduces the input motion, all ``T + 2`` frames of it (the last frame
    follows from the last velocity alone). Each step is exact to rounding,
    but an open-loop replay is as unstable as the motion (a light segment
    standing above its joint falls away at about ``sqrt(g/d)`` per second),
    so over seconds rounding errors grow visibly.
    """
    dt = time_step(dynamics.times)
    model = dynamics.model
    q, v = simulate(model, dynamics.q[0], dynamics.v[0], dynamics.generalized_forces, dt,
                    gravity=dynamics.gravity, external=dynamics.external)
    last_q, last_v = np.empty(model.nq), np.empty(model.nv)
    euler_step(model.tree, q[-1], v[-1], np.zeros(model.nv), dt, last_q, last_v)
    times = dynamics.times[0] + dt * np.arange(len(q) + 1)
    return Motion.from_q(model, times, np.vstack([q, last_q]), method="replay")
