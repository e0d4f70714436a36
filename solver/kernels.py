"""Small numba kernels shared by the solvers (dynamics, OTM, Lee): rotation matrices, Cholesky solves, 3-vectors.

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


#: Small-vector kernels only other kernels call: compiled into their callers (no Python wrapper, no cache
#: of their own), explicit loops (numpy's broadcasting costs more compile time than these kernels).
small = njit(no_cpython_wrapper=True, no_cfunc_wrapper=True)


@small
def axis_matrix_into(axis, angle, out):
    s = np.sin(0.5 * angle)
    quat_to_matrix_into((np.cos(0.5 * angle), s * axis[0], s * axis[1], s * axis[2]), out)


@small
def dot3(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@small
def cross3_into(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@small
def rotate_into(r, x, out):
    """out = r x (3x3 times a 3-vector); ``out`` is not ``x``."""
    for i in range(3):
        out[i] = r[i, 0] * x[0] + r[i, 1] * x[1] + r[i, 2] * x[2]


@small
def compose_into(a, b, out):
    """out = a b (3x3); ``out`` is neither ``a`` nor ``b``."""
    for i in range(3):
        for j in range(3):
            out[i, j] = a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j]


@small
def copy_into(source, out):
    for i in range(len(source)):
        out[i] = source[i]
