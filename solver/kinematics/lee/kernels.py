"""Small numba kernels the Lee stages share: Wahba's problem of one body, dense Cholesky, Gram-matrix norms,
and ``BodyConstants`` (what the per-frame kernels know of the bodies).

Quaternions are Hamilton (w, x, y, z), body -> world, as everywhere in the solver: the q-method matrix is
``rotations.davenport_matrix`` (the thesis's scalar-last K of eq. 2.9 with the erratum S = W + Wᵀ, turned
into Hamilton form once; ``tests/unit/test_lee_kernels.py`` checks the two give the same rotation).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ...kernels import cholesky_substitute, small

#: Jacobi sweeps at most for a 4x4 eigenproblem (it converges quadratically; 5-6 are typical).
JACOBI_SWEEPS = 12
#: Newton steps on the secular equation before the warm-started eigensolver gives up for Jacobi.
NEWTON_STEPS = 20
#: Power iterations for the largest eigenvalue of a Gram matrix (a normalisation scale, not a result).
POWER_ITERATIONS = 40


class BodyConstants(NamedTuple):
    """The bodies as the per-frame kernels see them: masses (n,), the (parent, child) bodies of each joint
    point (E, 2) and their arms ``L`` in the body frames (E, 2, 3), the joint graph's Laplacian ``C`` (n, n,
    the thesis's C_rL) and ``||C||``, its largest eigenvalue (1 without joints, to divide by)."""

    mass: np.ndarray
    joint_bodies: np.ndarray
    joint_arms: np.ndarray
    laplacian: np.ndarray
    laplacian_norm: float


def body_constants(bodies) -> BodyConstants:
    """``BodyConstants`` of ``lee.bodies.Bodies``."""
    laplacian = bodies.laplacian()
    top = float(np.linalg.eigvalsh(laplacian)[-1])
    return BodyConstants(bodies.mass, bodies.joint_bodies, bodies.joint_arms, laplacian, top if top > 0 else 1.0)


@small
def own_copy(constants):
    """A chunk's own copy of ``constants``: threads then share no views."""
    return BodyConstants(constants.mass.copy(), constants.joint_bodies.copy(), constants.joint_arms.copy(),
                         constants.laplacian.copy(), constants.laplacian_norm)


@njit(cache=True)
def davenport_into(b, k):
    """Davenport's K (4x4, Hamilton) of ``b`` = Σ w_s b_s a_sᵀ (3x3), as ``rotations.davenport_matrix``."""
    sigma = b[0, 0] + b[1, 1] + b[2, 2]
    z0, z1, z2 = b[2, 1] - b[1, 2], b[0, 2] - b[2, 0], b[1, 0] - b[0, 1]
    k[0, 0] = sigma
    k[0, 1], k[0, 2], k[0, 3] = z0, z1, z2
    k[1, 0], k[2, 0], k[3, 0] = z0, z1, z2
    for i in range(3):
        for j in range(3):
            k[1 + i, 1 + j] = b[i, j] + b[j, i] - (sigma if i == j else 0.0)


@njit(cache=True)
def jacobi_dominant(k, a, v, guess, out):
    """Unit eigenvector of the largest eigenvalue of the symmetric 4x4 ``k`` by cyclic Jacobi, into ``out``
    (``a``, ``v``: 4x4 scratch), signed so that ``out · guess >= 0``."""
    scale = 0.0
    for i in range(4):
        for j in range(4):
            a[i, j] = k[i, j]
            v[i, j] = 1.0 if i == j else 0.0
            scale += k[i, j] * k[i, j]
    for _ in range(JACOBI_SWEEPS):
        off = 0.0
        for p in range(3):
            for q in range(p + 1, 4):
                off += a[p, q] * a[p, q]
        if off <= 1e-32 * scale:
            break
        for p in range(3):
            for q in range(p + 1, 4):
                apq = a[p, q]
                if apq == 0.0:
                    continue
                theta = (a[q, q] - a[p, p]) / (2.0 * apq)
                t = 1.0 / (abs(theta) + np.sqrt(theta * theta + 1.0))
                if theta < 0.0:
                    t = -t
                c = 1.0 / np.sqrt(t * t + 1.0)
                s = t * c
                for r in range(4):
                    arp, arq = a[r, p], a[r, q]
                    a[r, p], a[r, q] = c * arp - s * arq, s * arp + c * arq
                for r in range(4):
                    apr, aqr = a[p, r], a[q, r]
                    a[p, r], a[q, r] = c * apr - s * aqr, s * apr + c * aqr
                for r in range(4):
                    vrp, vrq = v[r, p], v[r, q]
                    v[r, p], v[r, q] = c * vrp - s * vrq, s * vrp + c * vrq
    best = 0
    for i in range(1, 4):
        if a[i, i] > a[best, best]:
            best = i
    sign = 1.0 if v[0, best] * guess[0] + v[1, best] * guess[1] + v[2, best] * guess[2] + v[3, best] * guess[3] \
        >= 0.0 else -1.0
    for i in range(4):
        out[i] = sign * v[i, best]


@njit(cache=True)
def _left_product(q, basis):
    """The orthogonal matrix of ``p -> q ⊗ p`` (Hamilton) for a unit ``q``; its first column is ``q``."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    basis[0, 0], basis[0, 1], basis[0, 2], basis[0, 3] = w, -x, -y, -z
    basis[1, 0], basis[1, 1], basis[1, 2], basis[1, 3] = x, w, -z, y
    basis[2, 0], basis[2, 1], basis[2, 2], basis[2, 3] = y, z, w, -x
    basis[3, 0], basis[3, 1], basis[3, 2], basis[3, 3] = z, -y, x, w


@njit(cache=True)
def _solve_shifted(a, shift, e0, e1, e2):
    """``y = (shift I - A3)⁻¹ e`` for the lower-right 3x3 block ``A3`` of ``a``, by Cholesky:
    ``(ok, y0, y1, y2)``, ``ok`` False if ``shift I - A3`` is not positive definite."""
    l00 = shift - a[1, 1]
    if not l00 > 0.0:
        return False, 0.0, 0.0, 0.0
    l00 = np.sqrt(l00)
    l10, l20 = -a[2, 1] / l00, -a[3, 1] / l00
    d = shift - a[2, 2] - l10 * l10
    if not d > 0.0:
        return False, 0.0, 0.0, 0.0
    l11 = np.sqrt(d)
    l21 = (-a[3, 2] - l20 * l10) / l11
    d = shift - a[3, 3] - l20 * l20 - l21 * l21
    if not d > 0.0:
        return False, 0.0, 0.0, 0.0
    l22 = np.sqrt(d)
    z0 = e0 / l00
    z1 = (e1 - l10 * z0) / l11
    y2 = (e2 - l20 * z0 - l21 * z1) / l22 / l22
    y1 = (z1 - l21 * y2) / l11
    return True, (z0 - l10 * y1 - l20 * y2) / l00, y1, y2


@njit(cache=True)
def dominant_eigenvector(k, a, v, guess, out):
    """Unit eigenvector of the largest eigenvalue of the symmetric 4x4 ``k``, near the unit quaternion ``guess``.

    The q-method's optimal quaternion (Lee 2009 eq. 2.13, 6.11), signed so that ``out · guess > 0``
    (quaternion sign continuity, §6.4). In the orthonormal basis ``B`` whose first vector is ``guess``,
    ``Bᵀ K B = [[κ, εᵀ], [ε, K3]]``, and the largest eigenvalue is the root ``λ > λ_max(K3)`` of the secular
    equation ``λ = κ + εᵀ (λ I - K3)⁻¹ ε``; Newton's method from ``λ = κ`` climbs to it monotonically (the
    function is increasing and concave there), and the eigenvector is ``B (1, (λ I - K3)⁻¹ ε)``. A guess so
    poor that ``κ`` is not above ``K3``'s spectrum, or no convergence, falls back to Jacobi (``a``, ``v``:
    4x4 scratch).
    """
    _left_product(guess, v)
    for j in range(4):  # a = K B, then a = Bᵀ (K B) column by column
        col0 = k[0, 0] * v[0, j] + k[0, 1] * v[1, j] + k[0, 2] * v[2, j] + k[0, 3] * v[3, j]
        col1 = k[1, 0] * v[0, j] + k[1, 1] * v[1, j] + k[1, 2] * v[2, j] + k[1, 3] * v[3, j]
        col2 = k[2, 0] * v[0, j] + k[2, 1] * v[1, j] + k[2, 2] * v[2, j] + k[2, 3] * v[3, j]
        col3 = k[3, 0] * v[0, j] + k[3, 1] * v[1, j] + k[3, 2] * v[2, j] + k[3, 3] * v[3, j]
        for i in range(4):
            a[i, j] = v[0, i] * col0 + v[1, i] * col1 + v[2, i] * col2 + v[3, i] * col3
    e0, e1, e2 = a[1, 0], a[2, 0], a[3, 0]
    lam = a[0, 0]
    scale = abs(a[0, 0]) + abs(a[1, 1]) + abs(a[2, 2]) + abs(a[3, 3]) + 1e-300
    converged, y0, y1, y2 = False, 0.0, 0.0, 0.0
    for _ in range(NEWTON_STEPS):
        ok, y0, y1, y2 = _solve_shifted(a, lam, e0, e1, e2)
        if not ok:
            break
        step = -(lam - a[0, 0] - (e0 * y0 + e1 * y1 + e2 * y2)) / (1.0 + y0 * y0 + y1 * y1 + y2 * y2)
        lam += step
        if abs(step) <= 1e-15 * scale:
            converged, y0, y1, y2 = _solve_shifted(a, lam, e0, e1, e2)
            break
    if not converged:
        jacobi_dominant(k, a, v, guess, out)
        return
    norm = np.sqrt(1.0 + y0 * y0 + y1 * y1 + y2 * y2)
    for i in range(4):
        out[i] = (v[i, 0] + v[i, 1] * y0 + v[i, 2] * y1 + v[i, 3] * y2) / norm


@njit(cache=True)
def nuclear_norm3(b):
    """Sum of the singular values of a 3x3 matrix: the largest |eigenvalue| of its Davenport K.

    K(B) has the eigenvalues ±s1 ± s2 ± s3 (Markley's analysis of the q-method), so this is the
    magnitude ||K|| of eq. 8.3 without an eigen-decomposition. Singular values come from the
    eigenvalues of BᵀB by the closed form for symmetric 3x3 matrices (Smith 1961).
    """
    m = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            m[i, j] = b[0, i] * b[0, j] + b[1, i] * b[1, j] + b[2, i] * b[2, j]
    off = m[0, 1] ** 2 + m[0, 2] ** 2 + m[1, 2] ** 2
    mean = (m[0, 0] + m[1, 1] + m[2, 2]) / 3.0
    spread = (m[0, 0] - mean) ** 2 + (m[1, 1] - mean) ** 2 + (m[2, 2] - mean) ** 2 + 2.0 * off
    if spread <= 1e-30 * (mean * mean + 1e-300):
        return 3.0 * np.sqrt(max(mean, 0.0))
    p = np.sqrt(spread / 6.0)
    for i in range(3):
        m[i, i] -= mean
    det = (m[0, 0] * (m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1]) - m[0, 1] * (m[1, 0] * m[2, 2] - m[1, 2] * m[2, 0])
           + m[0, 2] * (m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0])) / (p * p * p)
    phi = np.arccos(min(1.0, max(-1.0, 0.5 * det))) / 3.0
    e1 = mean + 2.0 * p * np.cos(phi)
    e3 = mean + 2.0 * p * np.cos(phi + 2.0 * np.pi / 3.0)
    e2 = 3.0 * mean - e1 - e3
    return np.sqrt(max(e1, 0.0)) + np.sqrt(max(e2, 0.0)) + np.sqrt(max(e3, 0.0))


@njit(cache=True)
def cholesky_solve(lower, rhs, out):
    """Solve ``L Lᵀ out = rhs`` for every column of ``rhs`` (n, c); ``out`` may be ``rhs``."""
    for c in range(rhs.shape[1]):
        cholesky_substitute(lower, rhs[:, c], out[:, c])


@njit(cache=True)
def largest_eigenvalue(g, x, y):
    """Largest eigenvalue of the symmetric positive semi-definite ``g`` by power iteration (``x``, ``y``: scratch).

    The start vector is deterministic and not orthogonal to any particular structure (e.g. the
    rigid translations in the null space of a joint-graph Laplacian).
    """
    n = g.shape[0]
    for i in range(n):
        x[i] = 1.0 + 0.5 * np.sin(1.0 + 7.0 * i)
    value = 0.0
    for _ in range(POWER_ITERATIONS):
        norm = 0.0
        for i in range(n):
            norm += x[i] * x[i]
        norm = np.sqrt(norm)
        if norm == 0.0:
            return 0.0
        for i in range(n):
            x[i] /= norm
        value = 0.0
        for i in range(n):
            s = 0.0
            for j in range(n):
                s += g[i, j] * x[j]
            y[i] = s
            value += x[i] * s
        for i in range(n):
            x[i] = y[i]
    return value
