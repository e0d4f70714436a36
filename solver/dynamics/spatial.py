"""The body model as flat arrays for numba kernels, and the recursive kinematics they share.

All dynamics kernels work per frame in *world* coordinates: every segment's
rotation, origin, angular velocity and acceleration and the linear
acceleration of its origin are expressed in the world frame, so forces from
children and from external points add up without frame transforms (the
"ground-frame" form of Featherstone's recursive algorithms).

Joint motion is described in the child frame by the *motion subspace*: the
columns ``s_k`` with ``ω_rel = Σ_k s_k v_k`` (the relative angular velocity
of child w.r.t. parent, in the child frame) for the joint's entries ``v_k``
of the generalized velocity (layout of ``solver.model.body``):

- ball: ``s = e_x, e_y, e_z`` (``v`` is the relative angular velocity in the child frame);
- hinge: ``s_0 = a_0`` (the axis is the same in parent and child frames);
- universal ``R = R(a_0, θ_0) R(a_1, θ_1)``: ``s_0 = R(a_1, θ_1)ᵀ a_0``, ``s_1 = a_1``,
  and ``d/dt s_0 = θ̇_1 (s_0 × s_1)``, the only non-constant column;
- the root's angular part: ``s = e_x, e_y, e_z`` (body-frame angular velocity).

The generalized force of a joint entry is ``s_k · n`` with ``n`` the joint
torque (applied by the parent on the child, about the joint centre) in the
child frame, so ``Σ_k τ_k v_k`` is the power the joint delivers.

Small 3-vectors in the kernels are tuples (no heap allocation per call).
The per-segment functions are inlined into the per-frame ones
(``inline='always'``): numba reference-counts every array a called function
receives, which would otherwise cost more than the arithmetic. The per-frame
functions (``frame_kinematics``, ``inverse.frame_rnea``) are called, so each is
compiled once for all the kernels that use it (same argument types). The
kernels run the frames one after the other: a frame takes microseconds, and a
``prange`` kernel took seconds more to compile than all frames of a long
trial take to run.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import get_num_threads, njit

from ..kernels import quat_to_matrix_into
from ..model.body import BodyModel

FREE, BALL, UNIVERSAL, HINGE, WELD = range(5)
JOINT_CODES = {"free": FREE, "ball": BALL, "universal": UNIVERSAL, "hinge": HINGE, "weld": WELD}

#: Standard gravity [m/s²] along world -Z (Z up), as in Pinocchio and MuJoCo.
GRAVITY = np.array([0.0, 0.0, -9.81])


class Tree(NamedTuple):
    """A ``BodyModel`` flattened into arrays (segments in topological order, root first)."""

    parent: np.ndarray  # (S,) int64, -1 for the root
    joint: np.ndarray  # (S,) int64 joint code (FREE, BALL, ...)
    q_start: np.ndarray  # (S,) int64 first index in q
    v_start: np.ndarray  # (S,) int64 first index in v
    n_dof: np.ndarray  # (S,) int64 entries in v
    offset: np.ndarray  # (S, 3) joint centre in the parent frame
    axes: np.ndarray  # (S, 2, 3) joint axes (unused rows zero)
    mass: np.ndarray  # (S,)
    com: np.ndarray  # (S, 3) centre of mass in the segment frame
    inertia: np.ndarray  # (S, 3, 3) about the centre of mass, segment frame
    nq: int
    nv: int


def tree_of(model: BodyModel) -> Tree:
    """Flatten ``model`` once for the kernels."""
    segs = model.segments
    axes = np.zeros((len(segs), 2, 3))
    for i, s in enumerate(segs):
        axes[i, :len(s.axes)] = s.axes
    return Tree(
        parent=np.array([s.parent for s in segs], dtype=np.int64),
        joint=np.array([JOINT_CODES[s.joint] for s in segs], dtype=np.int64),
        q_start=np.asarray(model.q_starts, dtype=np.int64),
        v_start=np.asarray(model.v_starts, dtype=np.int64),
        n_dof=np.array([s.nv for s in segs], dtype=np.int64),
        offset=np.array([s.joint_offset for s in segs]),
        axes=axes,
        mass=np.array([s.mass for s in segs], dtype=float),
        com=np.array([s.com for s in segs]),
        inertia=np.array([s.inertia for s in segs]),
        nq=model.nq,
        nv=model.nv,
    )


def chunks(n_frames: int) -> int:
    """How many chunks of frames a parallel kernel (``zerog.minimum_torque``) or Lee's threads
    (``kinematics.lee.kernels.in_parallel``) split a trial into (each chunk gets one workspace)."""
    return max(1, min(n_frames, 4 * get_num_threads()))


# --- 3-vectors as tuples (no allocation); arrays are read with ``vec``/``row`` and written with ``put`` ---
@njit(cache=True)
def vec(a, start):
    """``a[start:start + 3]`` of a 1-D array."""
    return (a[start], a[start + 1], a[start + 2])


@njit(cache=True)
def row(a, i):
    """Row ``i`` of an (n, 3) array."""
    return (a[i, 0], a[i, 1], a[i, 2])


@njit(cache=True)
def row2(a, i, k):
    """Row ``k`` of matrix ``i`` of an (n, m, 3) array."""
    return (a[i, k, 0], a[i, k, 1], a[i, k, 2])


@njit(cache=True)
def put(a, i, x):
    """Row ``i`` of an (n, 3) array := ``x``."""
    a[i, 0], a[i, 1], a[i, 2] = x[0], x[1], x[2]


@njit(cache=True)
def put2(a, i, k, x):
    """Row ``k`` of matrix ``i`` of an (n, m, 3) array := ``x``."""
    a[i, k, 0], a[i, k, 1], a[i, k, 2] = x[0], x[1], x[2]


@njit(cache=True)
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(cache=True)
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True)
def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@njit(cache=True)
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@njit(cache=True)
def scale(s, a):
    return (s * a[0], s * a[1], s * a[2])


@njit(cache=True)
def matvec(m, i, x):
    """``M_i x`` for a stack of 3x3 matrices ``m`` (n, 3, 3)."""
    return (m[i, 0, 0] * x[0] + m[i, 0, 1] * x[1] + m[i, 0, 2] * x[2],
            m[i, 1, 0] * x[0] + m[i, 1, 1] * x[1] + m[i, 1, 2] * x[2],
            m[i, 2, 0] * x[0] + m[i, 2, 1] * x[1] + m[i, 2, 2] * x[2])


@njit(cache=True)
def tmatvec(m, i, x):
    """``M_iᵀ x`` for a stack of 3x3 matrices ``m`` (n, 3, 3)."""
    return (m[i, 0, 0] * x[0] + m[i, 1, 0] * x[1] + m[i, 2, 0] * x[2],
            m[i, 0, 1] * x[0] + m[i, 1, 1] * x[1] + m[i, 2, 1] * x[2],
            m[i, 0, 2] * x[0] + m[i, 1, 2] * x[1] + m[i, 2, 2] * x[2])


# --- quaternions (w, x, y, z) as tuples -------------------------------------------------------------------
@njit(cache=True)
def quat(a, start):
    """``a[start:start + 4]`` of a 1-D array."""
    return (a[start], a[start + 1], a[start + 2], a[start + 3])


@njit(cache=True)
def quat_mul(a, b):
    """Hamilton product ``a ⊗ b``."""
    return (a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0])


@njit(cache=True)
def quat_conj(q):
    return (q[0], -q[1], -q[2], -q[3])


@njit(cache=True)
def axis_angle_quat(axis, angle):
    """Quaternion of a rotation by ``angle`` about the unit ``axis``."""
    c, s = np.cos(0.5 * angle), np.sin(0.5 * angle)
    return (c, s * axis[0], s * axis[1], s * axis[2])


@njit(cache=True)
def quat_rotate(q, x):
    """``R(q) x`` for a unit quaternion: ``x + 2 w (u × x) + 2 u × (u × x)``."""
    u = (q[1], q[2], q[3])
    t = cross(u, x)
    return add(add(x, scale(2.0 * q[0], t)), scale(2.0, cross(u, t)))


# --- per-frame recursive kinematics -------------------------------------------------------------
class Workspace(NamedTuple):
    """Scratch for one frame of the kernels (world frame unless noted)."""

    rot: np.ndarray  # (S, 3, 3) segment -> world
    origin: np.ndarray  # (S, 3) joint centre / segment origin
    subspace: np.ndarray  # (S, 3, 3) child-frame motion subspace columns s_k (rows)
    omega: np.ndarray  # (S, 3) angular velocity
    alpha: np.ndarray  # (S, 3) angular acceleration
    accel: np.ndarray  # (S, 3) linear acceleration of the origin minus gravity
    local: np.ndarray  # (3, 3) scratch: joint rotation child -> parent


@njit(cache=True)
def workspace(n_segments):
    s = n_segments
    return Workspace(np.empty((s, 3, 3)), np.empty((s, 3)), np.zeros((s, 3, 3)), np.empty((s, 3)),
                     np.empty((s, 3)), np.empty((s, 3)), np.empty((3, 3)))


@njit(cache=True, inline='always')
def joint_frame(tree, i, q, ws):
    """Joint rotation (into ``ws.local``) and child-frame motion subspace (into ``ws.subspace[i]``)."""
    joint, qs = tree.joint[i], tree.q_start[i]
    if joint == FREE or joint == BALL:
        quat_to_matrix_into(quat(q, qs + 3 if joint == FREE else qs), ws.local)
        for k in range(3):
            put2(ws.subspace, i, k, (1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0))
    elif joint == HINGE:
        quat_to_matrix_into(axis_angle_quat(row2(tree.axes, i, 0), q[qs]), ws.local)
        put2(ws.subspace, i, 0, row2(tree.axes, i, 0))
    elif joint == UNIVERSAL:
        first = axis_angle_quat(row2(tree.axes, i, 0), q[qs])
        second = axis_angle_quat(row2(tree.axes, i, 1), q[qs + 1])
        quat_to_matrix_into(quat_mul(first, second), ws.local)
        put2(ws.subspace, i, 0, quat_rotate(quat_conj(second), row2(tree.axes, i, 0)))
        put2(ws.subspace, i, 1, row2(tree.axes, i, 1))
    else:  # WELD
        quat_to_matrix_into((1.0, 0.0, 0.0, 0.0), ws.local)


@njit(cache=True, inline='always')
def joint_rates(tree, i, v, a, ws):
    """Relative angular velocity and acceleration of segment ``i`` w.r.t. its parent, child frame.

    ``ω_rel = Σ s_k v_k``; ``ω̇_rel = Σ s_k a_k + Σ ṡ_k v_k`` with ``ṡ_0 = θ̇_1 (s_0 × s_1)``
    for a universal joint and ``ṡ = 0`` otherwise.
    """
    vs = tree.v_start[i] + (3 if tree.joint[i] == FREE else 0)
    n = 3 if tree.joint[i] == FREE else tree.n_dof[i]
    w = (0.0, 0.0, 0.0)
    dw = (0.0, 0.0, 0.0)
    for k in range(n):
        s = row2(ws.subspace, i, k)
        w = add(w, scale(v[vs + k], s))
        dw = add(dw, scale(a[vs + k], s))
    if tree.joint[i] == UNIVERSAL:
        dw = add(dw, scale(v[vs] * v[vs + 1], cross(row2(ws.subspace, i, 0), row2(ws.subspace, i, 1))))
    return w, dw


@njit(cache=True)
def frame_kinematics(tree, q, v, a, gravity, ws):
    """World pose, angular velocity/acceleration and origin acceleration of every segment.

    The forward pass of Featherstone's recursive Newton-Euler algorithm in the
    world frame (Badler et al. §5: ``v_i = X v_parent + S_i q̇_i``,
    ``a_i = X a_parent + v_i × S_i q̇_i + S_i q̈_i``), with gravity entered as
    a base acceleration ``-g`` so that it acts on every segment:

    ``R_i = R_p R_joint``, ``o_i = o_p + R_p d_i``,
    ``ω_i = ω_p + R_i ω_rel``, ``ω̇_i = ω̇_p + ω_p × R_i ω_rel + R_i ω̇_rel``,
    ``ä_i = ä_p + ω̇_p × r + ω_p × (ω_p × r)`` with ``r = o_i - o_p``.
    """
    for i in range(len(tree.parent)):
        joint_frame(tree, i, q, ws)
        w_rel, dw_rel = joint_rates(tree, i, v, a, ws)
        rot, local = ws.rot, ws.local
        p = tree.parent[i]
        if p < 0:
            for r in range(3):
                for c in range(3):
                    rot[i, r, c] = local[r, c]
            qs, vs = tree.q_start[i], tree.v_start[i]
            put(ws.origin, i, vec(q, qs))
            put(ws.omega, i, matvec(rot, i, w_rel))
            put(ws.alpha, i, matvec(rot, i, dw_rel))
            put(ws.accel, i, sub(vec(a, vs), vec(gravity, 0)))
            continue
        for r in range(3):
            for c in range(3):
                rot[i, r, c] = rot[p, r, 0] * local[0, c] + rot[p, r, 1] * local[1, c] + rot[p, r, 2] * local[2, c]
        arm = matvec(rot, p, row(tree.offset, i))
        put(ws.origin, i, add(row(ws.origin, p), arm))
        w_p, dw_p = row(ws.omega, p), row(ws.alpha, p)
        w_rel_world = matvec(rot, i, w_rel)
        put(ws.omega, i, add(w_p, w_rel_world))
        put(ws.alpha, i, add(add(dw_p, cross(w_p, w_rel_world)), matvec(rot, i, dw_rel)))
        put(ws.accel, i, add(add(row(ws.accel, p), cross(dw_p, arm)), cross(w_p, cross(w_p, arm))))
