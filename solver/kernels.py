"""Small numba kernels shared by the solvers (dynamics, OTM, Lee): rotation matrices, Cholesky solves, 3-vectors
and quaternions; ``in_parallel`` runs a kernel over a trial's frames in chunks on threads.

They work on preallocated arrays or on tuples (small vectors without heap allocation), so the per-frame loops
that call them allocate nothing.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import get_num_threads, njit


def chunks(n_frames: int) -> int:
    """How many chunks of frames ``in_parallel`` splits a trial into (each chunk gets one workspace)."""
    return max(1, min(n_frames, 4 * get_num_threads()))


def in_parallel(chunk_kernel, n_frames: int, *args) -> None:
    """``chunk_kernel(start, stop, *args)`` over all frames in chunks, on ``numba.get_num_threads()`` threads.

    The kernels are ``nogil`` and frames independent, so plain threads run them in parallel; this costs
    no compile time, where a ``prange`` wrapper took seconds per stage to compile.
    """
    n_chunks = chunks(n_frames)
    bounds = [(k * n_frames // n_chunks, (k + 1) * n_frames // n_chunks) for k in range(n_chunks)]
    threads = min(get_num_threads(), n_chunks)
    if threads <= 1:
        for start, stop in bounds:
            chunk_kernel(start, stop, *args)
        return
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for future in [pool.submit(chunk_kernel, start, stop, *args) for start, stop in bounds]:
            future.result()


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
#: Functions with one or two callers deep inside a kernel's call chain: numba inlines them into their callers,
#: so LLVM does not optimise them once more as a separate function in every kernel above them (each level of
#: a call chain re-optimises everything below it; inlining large or much-called functions costs more).
inlined = njit(inline='always', no_cpython_wrapper=True, no_cfunc_wrapper=True)


@small
def dot(a, b):
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
def copy_into(source, out):
    for i in range(len(source)):
        out[i] = source[i]


# --- 3-vectors as tuples; arrays are read with ``vec``/``row``/``row2`` and written with ``put``/``put2`` ---
@small
def vec(a, start):
    """``a[start:start + 3]`` of a 1-D array."""
    return (a[start], a[start + 1], a[start + 2])


@small
def row(a, i):
    """Row ``i`` of an (n, 3) array."""
    return (a[i, 0], a[i, 1], a[i, 2])


@small
def row2(a, i, k):
    """Row ``k`` of matrix ``i`` of an (n, m, 3) array."""
    return (a[i, k, 0], a[i, k, 1], a[i, k, 2])


@small
def put(a, i, x):
    """Row ``i`` of an (n, 3) array := ``x``."""
    a[i, 0], a[i, 1], a[i, 2] = x[0], x[1], x[2]


@small
def put2(a, i, k, x):
    """Row ``k`` of matrix ``i`` of an (n, m, 3) array := ``x``."""
    a[i, k, 0], a[i, k, 1], a[i, k, 2] = x[0], x[1], x[2]


@small
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@small
def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@small
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@small
def scale(s, a):
    return (s * a[0], s * a[1], s * a[2])


@small
def matvec(m, i, x):
    """``M_i x`` for a stack of 3x3 matrices ``m`` (n, 3, 3)."""
    return (m[i, 0, 0] * x[0] + m[i, 0, 1] * x[1] + m[i, 0, 2] * x[2],
            m[i, 1, 0] * x[0] + m[i, 1, 1] * x[1] + m[i, 1, 2] * x[2],
            m[i, 2, 0] * x[0] + m[i, 2, 1] * x[1] + m[i, 2, 2] * x[2])


@small
def tmatvec(m, i, x):
    """``M_iᵀ x`` for a stack of 3x3 matrices ``m`` (n, 3, 3)."""
    return (m[i, 0, 0] * x[0] + m[i, 1, 0] * x[1] + m[i, 2, 0] * x[2],
            m[i, 0, 1] * x[0] + m[i, 1, 1] * x[1] + m[i, 2, 1] * x[2],
            m[i, 0, 2] * x[0] + m[i, 1, 2] * x[1] + m[i, 2, 2] * x[2])


# --- quaternions (w, x, y, z) as tuples -------------------------------------------------------------------
@small
def quat(a, start):
    """``a[start:start + 4]`` of a 1-D array."""
    return (a[start], a[start + 1], a[start + 2], a[start + 3])


@small
def quat_mul(a, b):
    """Hamilton product ``a ⊗ b``."""
    return (a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0])


@small
def quat_conj(q):
    return (q[0], -q[1], -q[2], -q[3])


@small
def axis_angle_quat(axis, angle):
    """Quaternion of a rotation by ``angle`` about the unit ``axis``."""
    c, s = np.cos(0.5 * angle), np.sin(0.5 * angle)
    return (c, s * axis[0], s * axis[1], s * axis[2])


@small
def quat_rotate(q, x):
    """``R(q) x`` for a unit quaternion: ``x + 2 w (u × x) + 2 u × (u × x)``."""
    u = (q[1], q[2], q[3])
    t = cross(u, x)
    return add(add(x, scale(2.0 * q[0], t)), scale(2.0, cross(u, t)))
