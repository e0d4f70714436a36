"""Non-negative least squares with a Tikhonov diagonal and a linear term, for the per-frame contact forces.

    min_{x >= 0}  |b - M x|² + Σ_a (p_a x_a² - 2 g_a x_a)

with ``M`` (m, n) the weighted columns (m = 6 root-wrench rows plus three per loaded joint, ``per_frame``),
``p`` the Tikhonov diagonal ``D`` and ``g`` the linear term of the smoothing prior. Solved exactly by Lawson &
Hanson's active-set method. The unconstrained solve on the free edges ``P``, ``(M_Pᵀ M_P + D_P) z = M_Pᵀ b + g_P``,
is done by the push-through identity as ``(I + M_P D_P⁻¹ M_Pᵀ) y = b - M_P D_P⁻¹ g_P``, ``z = D_P⁻¹ (M_Pᵀ y + g_P)``:
an m × m system, so an iteration costs O(m² |P|) however many points touch, with ``I + M_P D_P⁻¹ M_Pᵀ`` updated as
edges join and leave. A guessed free set (the previous frame's) is a warm start: the edges its solution does not
push leave without a step (``_feasible_free_set``; Lawson and Hanson's inner loop, stepping from ``x = 0``, would
drop the whole guess at the first such edge and add the edges back one at a time, 23 additions per seated frame
of sit-to-stand; the same forces to 1e-12 N, three times faster). The kernel allocates nothing: its scratch is
``work`` (``nnls_work_size``).
"""

from __future__ import annotations

from numba import njit

from ..kernels import cholesky_factor, cholesky_substitute, inlined, small

#: An NNLS iteration stops adding a cone edge whose gradient is below this (problems scaled to body weight).
NNLS_TOLERANCE = 1e-12


@small
def _gram_update(gram, columns, a, weight):
    """``gram += weight c_a c_aᵀ`` (lower triangle) for column ``a``: an edge joins (``1/penalty``) or leaves
    (``-1/penalty``) the free set."""
    for i in range(gram.shape[0]):
        if columns[i, a] != 0.0:
            for j in range(i + 1):
                gram[i, j] += weight * columns[i, a] * columns[j, a]


@inlined
def _free_solve(columns, penalty, linear, passive, b, gram, lower, y, z, shifted):
    """``z`` on the free edges: ``(M_Pᵀ M_P + D_P) z = M_Pᵀ b + g_P`` by the push-through identity (docstring),
    ``(I + M_P D_P⁻¹ M_Pᵀ) y = b - M_P D_P⁻¹ g_P`` and ``z = D_P⁻¹ (M_Pᵀ y + g_P)``, with
    ``gram = I + M_P D_P⁻¹ M_Pᵀ`` kept up to date as edges join and leave the free set."""
    cholesky_factor(gram, lower)
    for i in range(len(b)):
        shifted[i] = b[i]
    for a in range(len(penalty)):
        if passive[a] and linear[a] != 0.0:
            ratio = linear[a] / penalty[a]
            for i in range(len(b)):
                shifted[i] -= columns[i, a] * ratio
    cholesky_substitute(lower, shifted, y)
    for a in range(len(penalty)):
        z[a] = 0.0
        if passive[a]:
            z[a] = linear[a]
            for i in range(len(b)):
                z[a] += columns[i, a] * y[i]
            z[a] /= penalty[a]


@small
def _feasible_free_set(columns, penalty, linear, passive, b, x, gram, lower, y, z, shifted):
    """Lawson & Hanson's inner loop: from the feasible ``x``, step towards the free-set solution ``z``, dropping
    the edges that reach zero, until every free edge is positive; then ``x = z``. A free edge still at zero whose
    solution is not positive leaves without a step: from ``x = 0`` a guessed free set (a warm start) would
    otherwise be dropped whole at its first such edge."""
    n = len(penalty)
    for _ in range(n + 1):
        _free_solve(columns, penalty, linear, passive, b, gram, lower, y, z, shifted)
        step, left = 1.0, False
        for a in range(n):
            if passive[a] and z[a] <= 0.0:
                if x[a] > 0.0:
                    step = min(step, x[a] / (x[a] - z[a]))
                else:
                    passive[a], left = False, True
                    _gram_update(gram, columns, a, -1.0 / penalty[a])
        if left:
            continue
        if step == 1.0:
            break
        for a in range(n):
            if passive[a]:
                x[a] += step * (z[a] - x[a])
                if x[a] <= NNLS_TOLERANCE:
                    x[a], passive[a] = 0.0, False
                    _gram_update(gram, columns, a, -1.0 / penalty[a])
    for a in range(n):
        x[a] = z[a] if passive[a] else 0.0


@njit(cache=True, inline='always')
def nnls_tikhonov(columns, penalty, b, passive, x, linear, work):
    """``argmin_{x >= 0} |b - M x|² + Σ_a (penalty_a x_a² - 2 linear_a x_a)`` for ``M = columns`` (m, n)
    (Lawson & Hanson's active-set NNLS, the free-set solve by ``_free_solve``). ``passive`` (n,) is the starting
    guess of the free set (e.g. the previous frame's), overwritten with the final one; the result goes to ``x``.
    ``work`` is scratch of at least ``nnls_work_size(m, n)`` floats (``Scratch``)."""
    n, m = len(penalty), len(b)
    mm = m * m
    gram, lower = work[:mm].reshape((m, m)), work[mm:2 * mm].reshape((m, m))
    y, residual, shifted, z = work[2 * mm:2 * mm + m], work[2 * mm + m:2 * mm + 2 * m], \
        work[2 * mm + 2 * m:2 * mm + 3 * m], work[2 * mm + 3 * m:2 * mm + 3 * m + n]
    for i in range(m):
        for j in range(i):
            gram[i, j] = 0.0
        gram[i, i] = 1.0
    for a in range(n):
        if passive[a]:
            _gram_update(gram, columns, a, 1.0 / penalty[a])
    x[:] = 0.0
    _feasible_free_set(columns, penalty, linear, passive, b, x, gram, lower, y, z, shifted)
    for _ in range(3 * n):  # free the edge that most lowers the objective, then restore feasibility
        for i in range(m):
            residual[i] = b[i]
            for a in range(n):
                residual[i] -= columns[i, a] * x[a]
        best, j = NNLS_TOLERANCE, n  # n: none
        for a in range(n):
            if not passive[a]:
                gradient = linear[a] - penalty[a] * x[a]
                for i in range(m):
                    gradient += columns[i, a] * residual[i]
                if gradient > best:
                    best, j = gradient, a
        if j == n:
            break
        passive[j] = True
        _gram_update(gram, columns, j, 1.0 / penalty[j])
        _feasible_free_set(columns, penalty, linear, passive, b, x, gram, lower, y, z, shifted)


def nnls_work_size(m: int, n: int) -> int:
    """The scratch ``nnls_tikhonov`` needs for ``m`` rows and ``n`` columns."""
    return 2 * m * m + 3 * m + n
