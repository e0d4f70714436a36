"""Badler et al. §2: the dynamic tree — every joint a 1-DoF revolute joint, multi-DoF joints split by
massless dummy links — and its recursive dynamics in joint frames (§5).

Numbering (§2, Figs. 4-5): each link has the index of its root joint; a link's root joint has a lower
index than its branch joints, a left branch lower than a right one (depth-first pre-order over the
segments, children in model order, as MuJoCo numbers bodies), and the 1-DoF joints a multi-DoF joint
generates get consecutive indices (joint ``j``, dummy link ``j``, joint ``j + 1``, ...). Link 0 is the
root segment, the floating base of §4 (Fig. 11: torso link 0, hip joints 1-6, dummy links 1, 2, 4, 5).

Joint local frames (§2): joint ``i`` rotates link ``i`` about the z-axis of its local frame. A joint with
intrinsic axes ``a_1, a_2, ...`` (``R = R(a_1, θ_1) R(a_2, θ_2) ...``; hinge: one, universal: two, ball:
``e_y, e_x, e_z`` — flexion, ab/adduction, axial rotation, singular at ±90° ab/adduction) becomes joints
whose local z-axes are the ``a_k``: with ``A_k`` a fixed rotation taking ``e_z`` to ``a_k``, link ``k`` is
``F_{k-1} A_k R_z(θ_k)`` and between consecutive joints sits the fixed rotation ``A_kᵀ A_{k+1}`` (the
paper's ``T_(a)``). A segment's inertia lives in its last link (rotated by ``A_n``); dummy links have
none; welded segments merge into their parent's link.

Recursion (§5, Featherstone, spatial vectors angular-first in link coordinates): ``v̂_i = X̂_i v̂_p + Ŝ_i q̇_i``,
``â_i = X̂_i â_p + v̂_i × Ŝ_i q̇_i + Ŝ_i q̈_i``, ``f̂*_i = Î_i â_i + v̂_i ×* Î_i v̂_i``,
``f̂_i = f̂*_i + Σ_children X̂ᵀ f̂_j``, ``Q_i = Ŝ_iᵀ f̂_i`` with ``Ŝ = (e_z; 0)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit
from scipy.spatial.transform import Rotation

from ..kernels import cholesky_factor, cholesky_substitute
from ..model.body import BodyModel
from ..model.tree import dfs_order
from ..rotations import quat_to_matrix

#: Intrinsic axes a ball joint is split into (flexion Y, ab/adduction X, axial rotation Z).
BALL_AXES = np.eye(3)[[1, 0, 2]]
BALL_SEQUENCE = "YXZ"


def _z_to(axis: np.ndarray) -> np.ndarray:
    """A rotation matrix whose third column is the unit ``axis`` (the joint local frame, §2)."""
    axis = axis / np.linalg.norm(axis)
    helper = np.eye(3)[np.argmin(np.abs(axis))]
    x = np.cross(helper, axis)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(axis, x), axis])


@dataclass(frozen=True)
class DynamicTree:
    """A body model as Badler's dynamic tree. Joint/link ``i`` (1 .. J-1; 0 is the floating base link):

    ``parent[i]`` the parent link, ``rotation[i]`` the joint's local frame in the parent link frame (columns),
    ``offset[i]`` its origin there; link inertial data ``mass``, ``com``, ``inertia`` (about the CM) in link
    frames, zero for dummy links. ``segment[i]``/``component[i]``: the model segment and which of its joint
    coordinates joint ``i`` is. ``names``: ``segment:k``.
    """

    parent: np.ndarray
    rotation: np.ndarray
    offset: np.ndarray
    mass: np.ndarray
    com: np.ndarray
    inertia: np.ndarray
    segment: np.ndarray
    component: np.ndarray
    names: tuple[str, ...]

    @property
    def n_joints(self) -> int:
        """1-DoF joints (links 1 .. J-1), i.e. ``len(parent) - 1``."""
        return len(self.parent) - 1

    @property
    def dummy(self) -> np.ndarray:
        return self.mass == 0.0


def _axes(segment) -> np.ndarray:
    return BALL_AXES if segment.joint == "ball" else np.asarray(segment.axes).reshape(-1, 3)


def dynamic_tree(model: BodyModel) -> DynamicTree:
    """Badler's dynamic tree of ``model`` (module doc): lossless, same dynamics."""
    n_joints = 1 + sum(len(_axes(s)) for s in model.segments[1:])
    parent, segment, component = np.full(n_joints, -1), np.zeros(n_joints, int), np.zeros(n_joints, int)
    rotation, offset = np.tile(np.eye(3), (n_joints, 1, 1)), np.zeros((n_joints, 3))
    mass, first, second = np.zeros(n_joints), np.zeros((n_joints, 3)), np.zeros((n_joints, 3, 3))
    names = ["" for _ in range(n_joints)]
    names[0] = f"{model.segments[0].name}:base"
    # per segment: its link, the rotation taking segment coordinates to link coordinates, its origin there
    link_of, turn_of, origin_of = {0: 0}, {0: np.eye(3)}, {0: np.zeros(3)}
    index = 1
    for k in dfs_order(model)[1:]:
        s = model.segments[k]
        p = s.parent
        joint_turn = turn_of[p]  # parent segment frame -> parent link frame
        joint_origin = origin_of[p] + turn_of[p] @ s.joint_offset
        link, previous = link_of[p], np.eye(3)
        for c, axis in enumerate(_axes(s)):
            frame = _z_to(axis)  # A_c, in the intermediate frame F_{c-1}
            parent[index], segment[index], component[index] = link, k, c
            rotation[index] = joint_turn @ previous.T @ frame if c == 0 else previous.T @ frame
            offset[index] = joint_origin if c == 0 else 0.0
            names[index] = f"{s.name}:{c}"
            link, previous, index = index, frame, index + 1
        if s.joint == "weld":
            turn, origin = joint_turn, joint_origin
        else:
            turn, origin = previous.T, np.zeros(3)  # the segment frame is F_n = L_n A_nᵀ
        link_of[k], turn_of[k], origin_of[k] = link, turn, origin
    for k, s in enumerate(model.segments):
        link, turn, origin = link_of[k], turn_of[k], origin_of[k]
        c = origin + turn @ s.com
        mass[link] += s.mass
        first[link] += s.mass * c
        second[link] += turn @ s.inertia @ turn.T + s.mass * (c @ c * np.eye(3) - np.outer(c, c))
    com = np.divide(first, mass[:, None], out=np.zeros_like(first), where=mass[:, None] > 0)
    inertia = second - mass[:, None, None] * (np.einsum("li,li->l", com, com)[:, None, None] * np.eye(3)
                                              - np.einsum("li,lj->lij", com, com))
    return DynamicTree(parent=parent, rotation=rotation, offset=offset, mass=mass, com=com, inertia=inertia,
                       segment=segment, component=component, names=tuple(names))


# --- coordinates ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TreeMotion:
    """A motion in dynamic-tree coordinates, time first: the base's spatial velocity and acceleration in
    link 0 coordinates (angular first; the acceleration includes ``-g``, Featherstone's fictitious base
    acceleration for gravity), joint angles, rates and accelerations (T, J) (column 0 unused, zero)."""

    base_velocity: np.ndarray
    base_acceleration: np.ndarray
    theta: np.ndarray
    rate: np.ndarray
    acceleration: np.ndarray


def _ball_columns(euler: np.ndarray) -> np.ndarray:
    """Child-frame axes (T, 3, 3 columns) of the three joints a ball is split into: ``ω = J ė``."""
    rx = Rotation.from_rotvec(np.outer(euler[:, 1], [1.0, 0.0, 0.0])).as_matrix()
    rz = Rotation.from_rotvec(np.outer(euler[:, 2], [0.0, 0.0, 1.0])).as_matrix()
    first = np.einsum("tji,tj->ti", rx @ rz, np.broadcast_to(BALL_AXES[0], (len(euler), 3)))
    second = np.einsum("tji,tj->ti", rz, np.broadcast_to(BALL_AXES[1], (len(euler), 3)))
    return np.stack([first, second, np.broadcast_to(BALL_AXES[2], (len(euler), 3))], axis=-1)


def _coupling(w: np.ndarray) -> np.ndarray:
    """``Σ_{j<k} w_j × w_k`` of the columns ``w_k = s_k ė_k`` (T, 3, 3): the relative angular acceleration
    of the split's hinges at ``ë = 0`` (Badler §4: ``Ŝ_1 q̇_1 × (Ŝ_2 q̇_2 + Ŝ_3 q̇_3) + Ŝ_2 q̇_2 × Ŝ_3 q̇_3``)."""
    return np.cross(w[..., 0], w[..., 1] + w[..., 2]) + np.cross(w[..., 1], w[..., 2])


def ball_jacobian(quaternions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Euler angles (T, 3) of ball-joint quaternions (T, 4) in the split's sequence and the child-frame joint
    axes ``J`` (T, 3, 3): the relative angular velocity is ``ω = J ė`` and the joint torques ``Q = Jᵀ n``."""
    xyzw = np.concatenate([quaternions[:, 1:], quaternions[:, :1]], axis=1)
    euler = Rotation.from_quat(xyzw).as_euler(BALL_SEQUENCE)
    return euler, _ball_columns(euler)


def tree_motion(model: BodyModel, tree: DynamicTree, q: np.ndarray, v: np.ndarray, a: np.ndarray,
                gravity: np.ndarray = np.zeros(3)) -> TreeMotion:
    """Model coordinates (layouts of ``solver.model.body``) -> dynamic-tree coordinates (lossless away from
    the ball split's singularity). A ball's rates: ``ė = J⁻¹ ω``, ``ë = J⁻¹ (ω̇ - Σ_{j<k} ė_j s_j × ė_k s_k)``
    (the relative angular acceleration of a chain of hinges, Badler §4's ``Ŝ_1 q̇_1 × (Ŝ_2 q̇_2 + …)``)."""
    q, v, a = (np.atleast_2d(np.asarray(x, dtype=float)) for x in (q, v, a))
    n = len(q)
    theta, rate, acc = np.zeros((n, len(tree.parent))), np.zeros((n, len(tree.parent))), np.zeros((n, len(tree.parent)))
    for k, (s, qs, vs) in enumerate(zip(model.segments, model.q_starts, model.v_starts)):
        joints = np.flatnonzero(tree.segment[1:] == k) + 1
        if k == 0 or not len(joints):
            continue
        if s.joint == "ball":
            euler, jac = ball_jacobian(q[:, qs:qs + 4])
            theta[:, joints] = euler
            rate[:, joints] = np.linalg.solve(jac, v[:, vs:vs + 3, None])[..., 0]
            w = jac * rate[:, None, joints]
            coupling = _coupling(w)
            acc[:, joints] = np.linalg.solve(jac, (a[:, vs:vs + 3] - coupling)[..., None])[..., 0]
        else:
            theta[:, joints], rate[:, joints], acc[:, joints] = \
                q[:, qs:qs + s.nq], v[:, vs:vs + s.nv], a[:, vs:vs + s.nv]
    rot = quat_to_matrix(q[:, 3:7])
    w = v[:, 3:6]
    lin = np.einsum("tji,tj->ti", rot, v[:, 0:3])
    base_v = np.hstack([w, lin])
    base_a = np.hstack([a[:, 3:6], np.einsum("tji,tj->ti", rot, a[:, 0:3] - gravity) - np.cross(w, lin)])
    return TreeMotion(base_velocity=base_v, base_acceleration=base_a, theta=theta, rate=rate, acceleration=acc)


# --- recursive dynamics (numba) -------------------------------------------------------------------------
@njit(cache=True)
def _link_inertias(mass, com, inertia):
    """Spatial inertias (J, 6, 6) about link origins: ``[[I_c + m c× c×ᵀ, m c×], [m c×ᵀ, m 1]]``."""
    n = len(mass)
    out = np.zeros((n, 6, 6))
    for i in range(n):
        m, c = mass[i], com[i]
        cx = np.array([[0.0, -c[2], c[1]], [c[2], 0.0, -c[0]], [-c[1], c[0], 0.0]])
        out[i, :3, :3] = inertia[i] + m * cx @ cx.T
        out[i, :3, 3:] = m * cx
        out[i, 3:, :3] = m * cx.T
        for k in range(3):
            out[i, 3 + k, 3 + k] = m
    return out


@njit(cache=True)
def link_transforms(rotation, offset, theta, X):
    """Featherstone's ``X̂_i`` (parent link -> link ``i`` coordinates) ``[[E, 0], [-E r×, E]]`` with
    ``E = (C_i R_z(θ_i))ᵀ`` (``C_i`` the joint local frame, ``r`` its origin in the parent link)."""
    for i in range(1, len(theta)):
        c, s = np.cos(theta[i]), np.sin(theta[i])
        r = offset[i]
        for col in range(3):  # row ``col`` of E is column ``col`` of C R_z(θ)
            for k in range(3):
                if col == 0:
                    e = rotation[i, k, 0] * c + rotation[i, k, 1] * s
                elif col == 1:
                    e = -rotation[i, k, 0] * s + rotation[i, k, 1] * c
                else:
                    e = rotation[i, k, 2]
                X[i, col, k] = e
                X[i, 3 + col, 3 + k] = e
                X[i, col, 3 + k] = 0.0
        for row in range(3):  # -E r×: row of E times r× columns
            e0, e1, e2 = X[i, row, 0], X[i, row, 1], X[i, row, 2]
            X[i, 3 + row, 0] = -(e1 * r[2] - e2 * r[1])
            X[i, 3 + row, 1] = -(e2 * r[0] - e0 * r[2])
            X[i, 3 + row, 2] = -(e0 * r[1] - e1 * r[0])


@njit(cache=True)
def _crm_z(v, rate):
    """``v × Ŝ q̇`` for ``Ŝ = (e_z; 0)``: ``(ω × e_z, v_lin × e_z) q̇``."""
    return np.array([v[1] * rate, -v[0] * rate, 0.0, v[4] * rate, -v[3] * rate, 0.0])


@njit(cache=True)
def _crf(v, f):
    """``v ×* f = (ω × n + v × f, ω × f)``."""
    w, u, n, g = v[:3], v[3:], f[:3], f[3:]
    return np.concatenate((np.cross(w, n) + np.cross(u, g), np.cross(w, g)))


@njit(cache=True)
def _rnea(parent, X, inertias, rate, acc, v0, a0, v, a, f):
    """§5 recursion for one frame: link velocities, accelerations and the forces ``f̂_i`` (accumulated)."""
    v[0], a[0] = v0, a0
    n = len(parent)
    for i in range(n):
        if i > 0:
            p = parent[i]
            v[i] = X[i] @ v[p]
            v[i, 2] += rate[i]
            a[i] = X[i] @ a[p] + _crm_z(v[i], rate[i])
            a[i, 2] += acc[i]
        h = inertias[i] @ v[i]
        f[i] = inertias[i] @ a[i] + _crf(v[i], h)
    for i in range(n - 1, 0, -1):
        f[parent[i]] += X[i].T @ f[i]


@njit(cache=True, nogil=True)
def _tree_rnea_frames(parent, rotation, offset, inertias, theta, rate, acc, v0, a0):
    n_frames, n = theta.shape
    Q, base = np.empty((n_frames, n)), np.empty((n_frames, 6))
    X, v, a, f = np.zeros((n, 6, 6)), np.empty((n, 6)), np.empty((n, 6)), np.empty((n, 6))
    for t in range(n_frames):
        link_transforms(rotation, offset, theta[t], X)
        _rnea(parent, X, inertias, rate[t], acc[t], v0[t], a0[t], v, a, f)
        Q[t, 0] = 0.0
        for i in range(1, n):
            Q[t, i] = f[i, 2]
        base[t] = f[0]
    return Q, base


def tree_rnea(tree: DynamicTree, motion: TreeMotion) -> tuple[np.ndarray, np.ndarray]:
    """Joint torques ``Q`` (T, J; column 0 zero) and the base wrench (T, 6: torque about the base origin,
    force; link 0 coordinates) of a tree motion with a prescribed base (§5 recursion)."""
    return _tree_rnea_frames(tree.parent, tree.rotation, tree.offset, link_inertias(tree), motion.theta, motion.rate,
                             motion.acceleration, motion.base_velocity, motion.base_acceleration)


@njit(cache=True)
def _solve6(matrix, rhs, lower):
    """``matrix⁻¹ rhs`` for a 6×6 symmetric positive definite matrix (Cholesky)."""
    out = np.empty(6)
    cholesky_factor(matrix, lower, 0.0)
    cholesky_substitute(lower, rhs, out)
    return out


@njit(cache=True)
def floating_frame(parent, X, inertias, rate, acc, ws_v, ws_a, ws_f, ws_c, ws_h, lower, Q):
    """Joint torques ``Q`` of a free-floating tree with zero momentum and no gravity, one frame (§4-5).

    Velocities are linear in the base velocity: a pass with ``v̂_0 = 0`` gives the composite inertias
    ``Î^c_i`` and the momentum ``ĥ`` of the joint motion, so ``v̂_0 = -(Î^c_0)⁻¹ ĥ`` (Badler's
    ``v̂_0 = -(Î_0 + Î_3 + Î_6)⁻¹ [...]``). The §5 recursion with ``â_0 = 0`` gives the forces ``f̂'``; a
    zero base wrench needs ``â_0 = -(Î^c_0)⁻¹ f̂'_0``, which adds ``Î^c_i X̂_{i0} â_0`` to every ``f̂_i``
    (Featherstone's floating-base inverse dynamics)."""
    n = len(parent)
    zero = np.zeros(6)
    ws_c[:] = inertias
    for i in range(n):
        if i > 0:
            ws_v[i] = X[i] @ ws_v[parent[i]]
            ws_v[i, 2] += rate[i]
        else:
            ws_v[0] = zero
        ws_h[i] = inertias[i] @ ws_v[i]
    for i in range(n - 1, 0, -1):
        p = parent[i]
        ws_c[p] += X[i].T @ ws_c[i] @ X[i]
        ws_h[p] += X[i].T @ ws_h[i]
    v0 = -_solve6(ws_c[0].copy(), ws_h[0], lower)
    _rnea(parent, X, inertias, rate, acc, v0, zero, ws_v, ws_a, ws_f)
    a0 = -_solve6(ws_c[0].copy(), ws_f[0], lower)
    ws_a[0] = a0
    Q[0] = 0.0
    for i in range(1, n):
        ws_a[i] = X[i] @ ws_a[parent[i]]
        Q[i] = ws_f[i, 2] + ws_c[i, 2] @ ws_a[i]


class FloatingWorkspace(NamedTuple):
    X: np.ndarray
    v: np.ndarray
    a: np.ndarray
    f: np.ndarray
    composite: np.ndarray
    momentum: np.ndarray
    lower: np.ndarray


@njit(cache=True)
def floating_workspace(n):
    return FloatingWorkspace(np.zeros((n, 6, 6)), np.empty((n, 6)), np.empty((n, 6)), np.empty((n, 6)),
                             np.empty((n, 6, 6)), np.empty((n, 6)), np.empty((6, 6)))


@njit(cache=True, nogil=True)
def _floating_frames(parent, rotation, offset, inertias, theta, rate, acc):
    n_frames, n = theta.shape
    Q = np.empty((n_frames, n))
    ws = floating_workspace(n)
    for t in range(n_frames):
        link_transforms(rotation, offset, theta[t], ws.X)
        floating_frame(parent, ws.X, inertias, rate[t], acc[t], ws.v, ws.a, ws.f, ws.composite, ws.momentum,
                       ws.lower, Q[t])
    return Q


def floating_torques(tree: DynamicTree, theta: np.ndarray, rate: np.ndarray, acc: np.ndarray) -> np.ndarray:
    """Joint torques (T, J; column 0 zero) of the tree floating with zero momentum, no gravity (§4-5)."""
    return _floating_frames(tree.parent, tree.rotation, tree.offset, link_inertias(tree),
                            *(np.ascontiguousarray(x, dtype=float) for x in (theta, rate, acc)))


def link_inertias(tree: DynamicTree) -> np.ndarray:
    """Spatial inertias (J, 6, 6) of the links about their origins, link coordinates."""
    return _link_inertias(tree.mass, tree.com, tree.inertia)


def model_coordinates(model: BodyModel, tree: DynamicTree, theta: np.ndarray, rate: np.ndarray,
                      acc: np.ndarray, root: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dynamic-tree joint angles, rates, accelerations (T, J) -> model ``q, v, a`` (inverse of ``tree_motion``
    for the joints; the root entries of ``q`` are ``root`` (7,), its rates zero)."""
    n = len(theta)
    q, v, a = np.tile(model.neutral_q(), (n, 1)), np.zeros((n, model.nv)), np.zeros((n, model.nv))
    q[:, :7] = root[:7]
    for k, (s, qs, vs) in enumerate(zip(model.segments, model.q_starts, model.v_starts)):
        joints = np.flatnonzero(tree.segment[1:] == k) + 1
        if k == 0 or not len(joints):
            continue
        if s.joint == "ball":
            xyzw = Rotation.from_euler(BALL_SEQUENCE, theta[:, joints]).as_quat()
            q[:, qs:qs + 4] = np.concatenate([xyzw[:, 3:], xyzw[:, :3]], axis=1)
            jac = _ball_columns(theta[:, joints])
            w = jac * rate[:, None, joints]
            coupling = _coupling(w)
            v[:, vs:vs + 3] = w.sum(-1)
            a[:, vs:vs + 3] = np.einsum("tij,tj->ti", jac, acc[:, joints]) + coupling
        else:
            q[:, qs:qs + s.nq], v[:, vs:vs + s.nv], a[:, vs:vs + s.nv] = \
                theta[:, joints], rate[:, joints], acc[:, joints]
    return q, v, a
