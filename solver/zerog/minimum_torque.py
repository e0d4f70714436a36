"""Badler et al. §6: minimum-torque motion between two postures of a free-floating body.

    min over control points q_ij of  Σ_k ∫ τ_k(t, q_ij)² dt                               (§6)

Every 1-DoF joint ``k`` of the split body (§2, ``hinges``) that moves between the postures follows a clamped
cubic B-spline (``scipy.interpolate.BSpline``) with uniform knots; its first three and last three control
points are the start and end angles, so the motion starts and ends at rest with zero acceleration, like
the quintic (the §6 constraints, met by construction); ``n_knots`` interior control points per joint are
free. Joints that do not move between the postures stay put. The torques ``τ`` are those of the body
floating with zero momentum and no gravity (``_floating_torques``: ``free_floating.floating_frame``, whose
RNEA and mass matrix on the model's tree give them, ``Q = Jᵀ n`` for the balls' hinges); the integral is
the trapezoidal sum over the frames.

Optimiser: the paper takes Newton steps on ``F(q_ij, λ_k)`` with the gradient of Lo & Metaxas; as the
cost is a sum of squares, we minimise it as least squares of the residuals ``r = √w_t τ_k(t)``
(``scipy.optimize.least_squares``, Levenberg-Marquardt: a Gauss-Newton step with damping) with the
Jacobian ``∂r/∂c = √w_t (∂τ_k/∂θ B + ∂τ_k/∂θ̇ B' + ∂τ_k/∂θ̈ B'')``. The per-frame partial derivatives
are central differences of the recursion: exact up to rounding in ``θ̈`` (``τ`` is linear in it) and
``θ̇`` (quadratic), second order in ``θ`` (step 1e-6 rad); a test checks the gradient against differences
of the whole cost.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit
from scipy.interpolate import BSpline
from scipy.optimize import least_squares

from ..algorithms.crba import crba_workspace
from ..algorithms.kinematics import make_data
from ..errors import SolverError
from ..kernels import in_parallel, small
from ..model.body import BodyModel
from .free_floating import JointPath, floating_frame, floating_scratch, free_floating, half_steps
from .hinges import Hinges, hinge_coordinates, hinge_torques, hinges, model_coordinates, model_state
from .motion_function import quintic
from .result import ZeroGravity

DEGREE = 3
STEP = 1e-6


@small
def _floating_torques(tree, first, theta, rate, acc, q, v, a, still, data, cw, scratch, out):
    """The hinges' torques (J) of the body floating with zero momentum and no gravity, one frame: the model's
    coordinates of the hinge motion (root unturned), the base from ``floating_frame`` (``still``: zero momentum
    (6,)), the joints' generalized forces of the whole motion, ``Q = Jᵀ n`` for the balls. ``floating_frame``
    leaves the RNEA with the base acceleration ``a_b = 0`` in ``scratch.tau`` and the mass matrix in
    ``cw.matrix``; the RNEA is linear in the accelerations, so the whole motion's forces are
    ``τ + M[:, 0:6] a_b``."""
    for k in range(7):
        q[k] = 1.0 if k == 3 else 0.0
    model_state(tree, first, theta, rate, acc, q, v, a)
    floating_frame(tree, q, v, a, still, scratch.no_gravity, data, cw, scratch)
    for j in range(6, tree.nv):
        for k in range(6):
            scratch.tau[j] += cw.matrix[j, k] * a[k]
    hinge_torques(tree, first, theta, scratch.tau, out)


@njit(cache=True, nogil=True)
def _torques_and_partials(start, stop, tree, first, theta, rate, acc, moving, tau, partial):
    """Frames ``start:stop``: the hinge torques ``τ`` (T, J) and ``D[t, d, m] = ∂τ/∂x_j`` (T, 3, M, J) for ``x`` =
    θ, θ̇, θ̈ (d = 0, 1, 2) of the moving hinges ``j = moving[m]`` (central differences, module doc)."""
    n = theta.shape[1]
    data, cw, scratch = make_data(tree), crba_workspace(tree), floating_scratch(tree)
    q, v, a = np.empty(tree.nq), np.empty(tree.nv), np.empty(tree.nv)
    plus, minus, still = np.empty(n), np.empty(n), np.zeros(6)
    th, rt, ac = np.empty(n), np.empty(n), np.empty(n)
    for t in range(start, stop):
        th[:], rt[:], ac[:] = theta[t], rate[t], acc[t]
        _floating_torques(tree, first, th, rt, ac, q, v, a, still, data, cw, scratch, tau[t])
        for d in range(3):
            x = th if d == 0 else (rt if d == 1 else ac)
            for m in range(len(moving)):
                j = moving[m]
                for sign in range(2):
                    x[j] += STEP if sign == 0 else -2 * STEP
                    _floating_torques(tree, first, th, rt, ac, q, v, a, still, data, cw, scratch,
                                      plus if sign == 0 else minus)
                x[j] += STEP
                for k in range(n):
                    partial[t, d, m, k] = (plus[k] - minus[k]) / (2 * STEP)


class Problem:
    """The §6 problem on fixed frames: B-spline bases, fixed control points, the model's tree and hinges."""

    def __init__(self, model: BodyModel, split: Hinges, start: np.ndarray, end: np.ndarray, duration: float,
                 n_knots: int, times: np.ndarray):
        self.tree, self.first, self.start, self.times = model.tree, split.first, start, times
        self.moving = np.flatnonzero(np.abs(end - start) > 1e-12)
        self.moving = self.moving[self.moving > 0]
        n_ctrl = n_knots + 6
        knots = np.r_[np.zeros(DEGREE), np.linspace(0, duration, n_ctrl - DEGREE + 1), np.full(DEGREE, duration)]
        spline = BSpline(knots, np.eye(n_ctrl), DEGREE)
        self.basis = np.stack([spline(times), spline.derivative(1)(times), spline.derivative(2)(times)])
        self.fixed = np.zeros((n_ctrl, len(self.moving)))
        self.fixed[-3:] = (end - start)[self.moving]
        self.weights = np.full(len(times), times[1] - times[0])
        self.weights[[0, -1]] *= 0.5
        self._last = None

    def controls(self, free: np.ndarray) -> np.ndarray:
        c = self.fixed.copy()
        c[3:-3] = free.reshape(-1, len(self.moving))
        return c

    def angles(self, controls: np.ndarray, basis: np.ndarray | None = None):
        """θ, θ̇, θ̈ (T, J) of the hinges for control points (n_ctrl, moving)."""
        basis = self.basis if basis is None else basis
        out = [np.zeros((basis.shape[1], len(self.start))) for _ in range(3)]
        out[0][:] = self.start
        for d in range(3):
            out[d][:, self.moving] += basis[d] @ controls
        return out

    def torques(self, theta, rate, acc):
        """``τ`` (T, J) and its partial derivatives (``_torques_and_partials``, frames in chunks on threads)."""
        theta, rate, acc = (np.ascontiguousarray(x, dtype=float) for x in (theta, rate, acc))
        tau, partial = np.empty(theta.shape), np.empty((len(theta), 3, len(self.moving), theta.shape[1]))
        in_parallel(_torques_and_partials, len(theta), self.tree, self.first, theta, rate, acc, self.moving, tau,
                    partial)
        return tau, partial

    def cost(self, theta, rate, acc) -> float:
        """``Σ_k ∫ τ_k² dt`` (trapezoidal)."""
        return float(self.weights @ np.sum(self.torques(theta, rate, acc)[0] ** 2, axis=1))

    def residuals(self, free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``r = √w_t τ_k(t)`` (the cost is ``|r|²``) and ``∂r/∂(free control points)``; the last call is
        remembered (the optimiser asks for both at the same point)."""
        if self._last is not None and np.array_equal(self._last[0], free):
            return self._last[1]
        self._last = (free.copy(), self._residuals(free))
        return self._last[1]

    def _residuals(self, free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        tau, partial = self.torques(*self.angles(self.controls(free)))
        root = np.sqrt(self.weights)
        jac = np.einsum("t,tdmk,dtc->tkcm", root, partial, self.basis[:, :, 3:-3])
        return (root[:, None] * tau).ravel(), jac.reshape(tau.size, -1)

    def __call__(self, free: np.ndarray) -> tuple[float, np.ndarray]:
        """``F`` and its gradient ``2 Jᵀ r``."""
        r, jac = self.residuals(free)
        return float(r @ r), 2 * jac.T @ r


def minimum_torque(model: BodyModel, start_q: np.ndarray, end_q: np.ndarray, duration_s: float, *,
                   n_knots: int = 4, rate_hz: float = 100.0, max_iterations: int = 200,
                   ) -> tuple[ZeroGravity, float, float]:
    """Minimum-torque motion from ``start_q`` to ``end_q`` (model layouts; the root entries of ``start_q``
    place the body) in ``duration_s``, floating with zero momentum (Badler et al. §6).

    Returns ``(result, quintic_cost, optimal_cost)``: the optimal motion simulated free-floating (its
    ``info`` has the costs, the optimiser's iterations, time and message), and ``Σ_k ∫ τ_k² dt``
    [N²m²s] over the hinges for the quintic motion of every joint (eq. 1, the start) and
    for the optimum.
    """
    if n_knots < 1:
        raise SolverError(f"The B-splines need at least one free control point, got n_knots={n_knots}",
                          "use n_knots >= 1")
    split = hinges(model)
    zeros = np.zeros((1, model.nv))
    start = hinge_coordinates(model, split, np.asarray(start_q, float)[None], zeros, zeros)[0][0]
    end = hinge_coordinates(model, split, np.asarray(end_q, float)[None], zeros, zeros)[0][0]
    end = start + (end - start + np.pi) % (2 * np.pi) - np.pi  # the nearer of the equivalent angles
    n_frames = int(round(duration_s * rate_hz)) + 1
    times = np.arange(n_frames) / rate_hz
    problem = Problem(model, split, start, end, duration_s, n_knots, times)
    if not len(problem.moving):
        raise SolverError("The start and end postures are the same", "give two different postures")
    profile = np.stack(quintic(times, 1.0, duration_s))  # (3, T): x, ẋ, ẍ from 0 to 1
    quintic_angles = [start * (d == 0) + np.outer(profile[d], end - start) for d in range(3)]
    quintic_cost = problem.cost(*quintic_angles)
    t0 = time.perf_counter()
    guess = np.linalg.lstsq(problem.basis[0][:, 3:-3], np.outer(profile[0], (end - start)[problem.moving])
                            - problem.basis[0] @ problem.fixed, rcond=None)[0]
    solution = least_squares(lambda free: problem.residuals(free)[0], guess.ravel(),
                             jac=lambda free: problem.residuals(free)[1], method="lm", max_nfev=max_iterations,
                             xtol=1e-10, ftol=1e-12)
    seconds = time.perf_counter() - t0
    controls = problem.controls(solution.x)
    optimal_cost = problem.cost(*problem.angles(controls))
    half = half_steps(times)
    spline_half = Problem(model, split, start, end, duration_s, n_knots, half).basis
    q, v, a = model_coordinates(model, split, *problem.angles(controls, spline_half), np.asarray(start_q, float))
    info = {"quintic_cost": quintic_cost, "optimal_cost": optimal_cost, "torque_reduction_percent":
            100 * (1 - optimal_cost / quintic_cost), "evaluations": int(solution.nfev), "optimiser_s": seconds,
            "optimiser_message": str(solution.message), "n_knots": n_knots,
            "joints_optimised": [split.names[j] for j in problem.moving]}
    result = free_floating(model, JointPath(times, q, v, a), info=info, method="minimum_torque")
    return result, quintic_cost, optimal_cost
