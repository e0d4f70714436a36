"""The Optimal Tracking Method, paper mode: one frame, exactly as Ausejo, Suescun & Celigüeta (§4).

Problem (12)-(13) in natural coordinates ``x`` (``natural.NaturalModel``)::

    minimize  f(x) = ½ Ψ_mᵀ W_m Ψ_m,     Ψ_m = S_m x - d_m   (tracked driving constraints: markers)
    subject to  [Φ(x); W_s Ψ_s(x)] = 0,  Ψ_s = S_s x - d_s   (kinematic + exactly satisfied driving)

Each iteration solves the QP subproblem (9): the objective's exact quadratic
model (H = S_mᵀ W_m S_m, g = S_mᵀ W_m Ψ_m; eqs. 3, 4 weighted as in §4.5)
under the *normal equations* of the linearized constraints,
``A Δx = b`` with ``A = Φ_xᵀ Φ_x``, ``b = -Φ_xᵀ Φ`` (eqs. 6-8), which are
compatible even where the linearized constraints (2) are not. The KKT
system (10) is factorized by a column-pivoted (rank-revealing) Householder
QR that applies its reflectors to the right-hand side and never forms Q
(§4.3; ``pivoted_qr_solve``): once |R_kk| falls below
``DEPENDENCY_THRESHOLD`` · |R_00| the remaining columns are linearly
dependent, and their unknowns are set to zero — the multipliers of
dependent constraints, λ_ld = 0 (eq. 11). Then Δx and λ_li follow by
back-substitution. With the unknowns ordered [Δx, -λ], pivoting only ever
discards multiplier columns when the reduced Hessian ZᵀHZ is positive
definite (the paper's appendix); a discarded Δx column means it is not,
and is reported (``rank_deficient``). The linear algebra of an iteration
is single-threaded numba loops, no BLAS: LAPACK's geqp3 through a
multithreaded OpenBLAS was 13 times slower on these 300-400 column systems
on a 2-core machine (and its idle threads, spinning, slowed whatever ran
next), and Blender gives no say over the BLAS thread count.

Step length (§4.4), two globalization strategies. Both use that f and Φ are
quadratic, so along the step ``f(x + αΔ) = f + α gᵀΔ + ½α² ΔᵀHΔ`` and
``Φ(x + αΔ) = Φ + α Φ_xΔ + α² Φ₂(Δ)`` hold exactly (no re-evaluation):

- ``merit``: the ℓ2 exact penalty ``P(x) = f(x) + ρ ||Φ(x)||₂``, with ρ raised,
  never lowered within a frame, so that the step is a descent direction:
  ρ ≥ (gᵀΔ + ½ΔᵀHΔ) / ((1 - σ)(||Φ|| - ||Φ + Φ_xΔ||)), σ = 0.1 (Nocedal &
  Wright 2006, eq. 18.36, with the reduction of the linearized constraints,
  which the normal equations keep non-negative). Backtracking from α = 1 by
  halves until the Armijo condition P(α) ≤ P(0) - 1e-4 α pred holds.
- ``maxmin``: α_f minimizes f along the step (closed form), α_Φ minimizes
  ||Φ||₂ along it on [0, 1] (roots of a cubic); α = max(α_f, α_Φ), capped at
  the full QP step α = 1 (the paper does not say; beyond it the quadratic
  model of the constraints is not trusted).

Acceptance: the paper accepts a point when ||Φ(x)||₂ < tolerance. That alone
accepts any feasible point — a warm start from the previous frame would be
returned unchanged — so a point is accepted when ||Φ||₂ ≤ tolerance *and*
the QP step that led to it was no longer than the tolerance (max-norm): the
point is then feasible and stationary (a KKT point of (13)). At most
``max_iterations`` QP steps (the paper's nMaxIter = 25). The QP's Hessian
is the objective's alone (eq. 4), without the constraints' curvature
Σ λ_i ∇²Φ_i, so the iterates converge linearly once feasible, the faster
the smaller the marker residuals: a few frames with large residuals need
more than 25 steps (the paper's own 97-99.8 % convergence).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..errors import SolverError
from .natural import NaturalModel

#: |R_kk| / |R_00| below which a KKT column is linearly dependent (eq. 11).
DEPENDENCY_THRESHOLD = 1e-10
#: Fraction of the linearized constraint reduction kept in the merit-function penalty update (σ).
PENALTY_MARGIN = 0.1
#: Armijo constant of the merit-function backtracking.
ARMIJO = 1e-4
#: Shortest step length either strategy takes.
MIN_STEP = 2.0 ** -30
STRATEGIES = ("merit", "maxmin")


@dataclass(frozen=True)
class Driving:
    """Driving constraints ``Ψ = S x - d`` (r rows) with diagonal weights ``w`` (eqs. 12-13).

    Tracked (Ψ_m): any non-negative weights, zero for a missing marker. Exact
    (Ψ_s): weights 0 (inactive) or 1 (satisfied exactly)."""

    matrix: np.ndarray
    target: np.ndarray
    weights: np.ndarray


@dataclass(frozen=True)
class FrameSolution:
    """One frame's result: natural coordinates ``x``, QP steps taken, whether it was accepted,
    ||Φ(x)||₂, f(x), the last step's max-norm, the multipliers set to zero in the last KKT
    solve (dependent constraints), and whether any KKT solve found the reduced Hessian singular."""

    x: np.ndarray
    iterations: int
    converged: bool
    constraint_norm: float
    objective: float
    step_norm: float
    dependent: int
    rank_deficient: bool


@njit(cache=True, fastmath={"reassoc", "contract"})
def pivoted_qr_solve(matrix: np.ndarray, rhs: np.ndarray, threshold: float):
    """Solve the square ``matrix · z = rhs`` by Householder QR with column pivoting (Businger & Golub
    1965; column norms downdated and recomputed as in LAPACK's dlaqp2), the reflectors applied to
    ``rhs`` as they are made (Q is never formed). Once the largest remaining column norm |R_kk| is at
    most ``threshold`` · |R_00|, the remaining columns are dependent and their unknowns zero.
    Returns (z, indices of the dependent columns)."""
    n = matrix.shape[0]
    cols = matrix.T.copy()  # cols[j] is column j, contiguous
    b = rhs.copy()
    perm = np.arange(n)
    norms = np.sqrt((cols * cols).sum(axis=1))
    reference = norms.copy()
    small = np.sqrt(np.finfo(np.float64).eps)
    rank, largest = n, 0.0
    for k in range(n):
        p = k + np.argmax(norms[k:])
        if p != k:
            for i in range(n):
                cols[k, i], cols[p, i] = cols[p, i], cols[k, i]
            norms[k], norms[p] = norms[p], norms[k]
            reference[k], reference[p] = reference[p], reference[k]
            perm[k], perm[p] = perm[p], perm[k]
        column = cols[k]
        alpha = column[k]
        length = np.sqrt(alpha * alpha + (column[k + 1:] * column[k + 1:]).sum())
        largest = max(largest, length)
        if length <= threshold * largest:
            rank = k
            break
        beta = -length if alpha >= 0 else length
        tau = (beta - alpha) / beta
        column[k + 1:] /= alpha - beta  # the reflector v = (1, column[k+1:])
        column[k] = beta
        for j in range(k + 1, n + 1):
            target = cols[j] if j < n else b
            s = target[k]
            for i in range(k + 1, n):
                s += column[i] * target[i]
            s *= tau
            target[k] -= s
            for i in range(k + 1, n):
                target[i] -= s * column[i]
            if j < n and norms[j] != 0.0:
                shrink = max(0.0, 1.0 - (abs(target[k]) / norms[j]) ** 2)
                if shrink * (norms[j] / reference[j]) ** 2 <= small:
                    norms[j] = np.sqrt((target[k + 1:] * target[k + 1:]).sum())
                    reference[j] = norms[j]
                else:
                    norms[j] *= np.sqrt(shrink)
    solution = np.zeros(rank)
    for i in range(rank - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, rank):
            s -= cols[j, i] * solution[j]
        solution[i] = s / cols[i, i]
    z = np.zeros(n)
    z[perm[:rank]] = solution
    return z, perm[rank:]


@njit(cache=True)
def gram(matrix: np.ndarray) -> np.ndarray:
    """``matrixᵀ matrix``, skipping zeros (a row of Φ_x or S has a few dozen non-zeros)."""
    rows, n = matrix.shape
    out = np.zeros((n, n))
    nonzero = np.empty(n, dtype=np.int64)
    for r in range(rows):
        count = 0
        for j in range(n):
            if matrix[r, j] != 0.0:
                nonzero[count] = j
                count += 1
        for a in range(count):
            i = nonzero[a]
            for c in range(count):
                out[i, nonzero[c]] += matrix[r, i] * matrix[r, nonzero[c]]
    return out


@njit(cache=True)
def times(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``matrix @ vector`` by plain loops (numpy's would wake the BLAS threads; module docstring)."""
    out = np.zeros(matrix.shape[0])
    for i in range(matrix.shape[0]):
        for j in range(matrix.shape[1]):
            out[i] += matrix[i, j] * vector[j]
    return out


@njit(cache=True)
def _kkt(hessian, gradient, a, b, threshold):
    n = len(gradient)
    kkt = np.zeros((2 * n, 2 * n))
    kkt[:n, :n] = hessian
    kkt[:n, n:] = a
    kkt[n:, :n] = a
    unknowns, dropped = pivoted_qr_solve(kkt, np.concatenate((-gradient, b)), threshold)
    return unknowns[:n], -unknowns[n:], np.count_nonzero(dropped >= n), np.any(dropped < n)


def kkt_step(hessian: np.ndarray, gradient: np.ndarray, a: np.ndarray, b: np.ndarray,
             threshold: float = DEPENDENCY_THRESHOLD) -> tuple[np.ndarray, np.ndarray, int, bool]:
    """Solve the KKT system (10) with λ_ld = 0 (11) by pivoted QR; returns (Δx, λ, dependent, rank_deficient).

    ``[[H, A], [A, 0]] [Δx; -λ] = [-g; b]``. Dependent columns (``pivoted_qr_solve``) have zero unknowns;
    ``dependent`` counts the multipliers so fixed, ``rank_deficient`` says a Δx column was dependent too
    (the reduced Hessian ZᵀHZ is singular).
    """
    step, multipliers, dependent, deficient = _kkt(hessian, gradient, a, b, threshold)
    return step, multipliers, int(dependent), bool(deficient)


@njit(cache=True)
def _qp_step(hessian, weighted_target, x, jac, phi, threshold):
    """One QP subproblem (9): g = Hx - Sᵀ W d, A = Φ_xᵀΦ_x, b = -Φ_xᵀΦ, the KKT solve, and Φ_x Δx.
    Returns (Δx, g, Φ_x Δx, dependent multipliers, rank deficient)."""
    gradient = times(hessian, x) - weighted_target
    step, _, dependent, deficient = _kkt(hessian, gradient, gram(jac), -times(jac.T, phi), threshold)
    return step, gradient, times(jac, step), dependent, deficient


def _merit_step(f_slope: float, f_curvature: float, phi: np.ndarray, linear: np.ndarray, quadratic: np.ndarray,
                penalty: float) -> tuple[float, float]:
    """Step length by the ℓ2 exact penalty (module docstring); returns (α, updated ρ)."""
    norm0 = np.linalg.norm(phi)
    predicted_f = f_slope + 0.5 * f_curvature
    predicted_c = norm0 - np.linalg.norm(phi + linear)
    if predicted_f > 0 and predicted_c > 0:
        penalty = max(penalty, predicted_f / ((1 - PENALTY_MARGIN) * predicted_c))
    predicted = -predicted_f + penalty * predicted_c
    if predicted <= 0:
        return 1.0, penalty
    alpha = 1.0
    while alpha > MIN_STEP:
        change = alpha * f_slope + 0.5 * alpha ** 2 * f_curvature
        merit = change + penalty * (np.linalg.norm(phi + alpha * linear + alpha ** 2 * quadratic) - norm0)
        if merit <= -ARMIJO * alpha * predicted:
            return alpha, penalty
        alpha *= 0.5
    return MIN_STEP, penalty


def _maxmin_step(f_slope: float, f_curvature: float, phi: np.ndarray, linear: np.ndarray,
                 quadratic: np.ndarray) -> float:
    """Step length by the maxmin strategy: max of the minimizers of f and of ||Φ||₂ along the step, in (0, 1]."""
    if f_curvature > 0:
        alpha_f = -f_slope / f_curvature
    else:
        alpha_f = 1.0 if f_slope < 0 else 0.0
    # ||Φ + α l + α² c||² = p0 + p1 α + p2 α² + p3 α³ + p4 α⁴
    p1, p2 = 2 * phi @ linear, linear @ linear + 2 * phi @ quadratic
    p3, p4 = 2 * linear @ quadratic, quadratic @ quadratic
    candidates = [0.0, 1.0] + [root.real for root in np.roots([4 * p4, 3 * p3, 2 * p2, p1])
                               if abs(root.imag) < 1e-12 and 0 < root.real < 1]
    values = [((p4 * a + p3) * a + p2) * a * a + p1 * a for a in candidates]
    alpha_phi = candidates[int(np.argmin(values))]
    return float(np.clip(max(alpha_f, alpha_phi), MIN_STEP, 1.0))


def solve_frame(nat: NaturalModel, x0: np.ndarray, tracked: Driving, exact: Driving | None = None,
                strategy: str = "merit", tolerance: float = 1e-7, max_iterations: int = 25,
                threshold: float = DEPENDENCY_THRESHOLD) -> FrameSolution:
    """OTM on one frame from ``x0`` (module docstring): weighted objective (12), exact driving (13)."""
    if strategy not in STRATEGIES:
        raise SolverError(f"Unknown OTM strategy {strategy!r}", f"use one of {', '.join(STRATEGIES)}")
    s_m, w_m = tracked.matrix, tracked.weights
    hessian = gram(np.sqrt(w_m)[:, None] * s_m)
    weighted_target = times(s_m.T, w_m * tracked.target)
    if exact is not None:
        s_s = exact.weights[:, None] * exact.matrix
        d_s = exact.weights * exact.target
    x = np.array(x0, dtype=float)
    penalty, dependent, deficient, step_norm = 0.0, 0, False, np.inf
    converged = False
    iterations = 0
    while iterations < max_iterations and not converged:
        phi, jac = nat.constraints(x), nat.jacobian(x)
        if exact is not None:
            phi, jac = np.concatenate([phi, times(s_s, x) - d_s]), np.vstack([jac, s_s])
        step, gradient, linear, dependent, singular = _qp_step(hessian, weighted_target, x, jac, phi, threshold)
        deficient |= bool(singular)
        iterations += 1
        quadratic = nat.second_order(step)
        if exact is not None:
            quadratic = np.concatenate([quadratic, np.zeros(len(d_s))])
        f_slope, f_curvature = gradient @ step, step @ times(hessian, step)
        if strategy == "merit":
            alpha, penalty = _merit_step(f_slope, f_curvature, phi, linear, quadratic, penalty)
        else:
            alpha = _maxmin_step(f_slope, f_curvature, phi, linear, quadratic)
        x += alpha * step
        step_norm = float(np.max(np.abs(step)))
        new_phi = phi + alpha * linear + alpha ** 2 * quadratic
        converged = bool(np.linalg.norm(new_phi) <= tolerance and step_norm <= tolerance)
    phi = nat.constraints(x)
    if exact is not None:
        phi = np.concatenate([phi, times(s_s, x) - d_s])
    residual = times(s_m, x) - tracked.target
    norm = float(np.linalg.norm(phi))
    return FrameSolution(x=x, iterations=iterations, converged=converged and norm <= tolerance, constraint_norm=norm,
                         objective=float(0.5 * residual @ (w_m * residual)), step_norm=step_norm,
                         dependent=int(dependent), rank_deficient=deficient)
