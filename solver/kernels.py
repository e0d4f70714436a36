"""Small numba kernels shared by the solvers (dynamics, OTM, Lee): rotation matrices and Cholesky solves.

They work on preallocated arrays so the per-frame loops that call them allocate nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def quat_to_matrix_into(q, out):
    """Rotation matrix of the Hamilton quaternion ``q`` (w, x, y, z; any sequence) into ``out`` (3, 3);
    as ``solver.rotations.quat_to_matrix``."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    out[0, 0] = 1 - 2 * (y * y + z * z)
    out[0, 1] = 2 * (x * y - w * z)
    out[0, 2] = 2 * (x * z + w * y)
    out[1, 0] = 2 * (x * y + w * z)
    out[1, 1] = 1 - 2 * (x * x + z * z)
    out[1, 2] = 2 * (y * z - w * x)
    out[2, 0] = 2 * (x * z - w * y)
    out[2, 1] = 2 * (y * z + w * x)
    out[2, 2] = 1 - 2 * (x * x + y * y)


@njit(cache=True)
def cholesky_factor(a, lower, pivot_floor=0.0) -> bool:
    """Lower Cholesky factor ``L Lᵀ = a`` of a symmetric matrix into ``lower`` (may be ``a`` itself: in place).

    Reads only the lower triangle of ``a``. Returns False, leaving ``lower`` partly written, as soon as a
    squared pivot is not above ``pivot_floor`` (the matrix is not positive definite enough)."""
    n = a.shape[0]
    for j in range(n):
        d = a[j, j]
        for k in range(j):
            d -= lower[j, k] * lower[j, k]
        if not d > pivot_floor:
            return False
        lower[j, j] = np.sqrt(d)
        for i in range(j + 1, n):
            s = a[i, j]
            for k in range(j):
                s -= lower[i, k] * lower[j, k]
            lower[i, j] = s / lower[j, j]
    return True


@njit(cache=True)
def cholesky_substitute(lower, rhs, out):
    """Solve ``L Lᵀ out = rhs`` (vectors) given the factor ``lower``; ``out`` may be ``rhs``."""
    n = len(rhs)
    for i in range(n):
        s = rhs[i]
        for k in range(i):
            s -= lower[i, k] * out[k]
        out[i] = s / lower[i, i]
    for i in range(n - 1, -1, -1):
        s = out[i]
        for k in range(i + 1, n):
            s -= lower[k, i] * out[k]
        out[i] = s / lower[i, i]
