"""Badler et al. §2: every joint of the body model as 1-DoF revolute joints ("hinges"), numbered as the
paper numbers its dynamic tree, and the maps between their angles and the model's coordinates.

Numbering (§2, Figs. 4-5): a link's root joint has a lower index than its branch joints, a left branch
lower than a right one (depth-first pre-order over the segments, children in model order, as MuJoCo
numbers bodies), and the 1-DoF joints a multi-DoF joint generates get consecutive indices. Index 0 is the
floating base of §4 (no angle; Fig. 11: torso link 0, hip joints 1-6). A joint with intrinsic axes
``a_1, a_2, ...`` (``R = R(a_1, θ_1) R(a_2, θ_2) ...``) becomes one hinge per axis: a hinge one, a universal
joint two, a ball three about ``e_y, e_x, e_z`` (flexion, ab/adduction, axial rotation: intrinsic Euler
angles YXZ, singular at ±90° ab/adduction); a weld none.

The split body has the model's dynamics (Badler's dummy links between the hinges of one joint are
massless), so the recursive algorithms of ``solver.algorithms`` on the model's tree compute them. A
ball's hinge rates and torques (§4-5): ``ω = J ė``, ``ω̇ = J ë + Σ_{j<k} w_j × w_k`` with ``w_k = s_k ė_k``
(Badler's ``Ŝ_1 q̇_1 × (Ŝ_2 q̇_2 + Ŝ_3 q̇_3) + Ŝ_2 q̇_2 × Ŝ_3 q̇_3``) and ``Q = Jᵀ n``, where the columns ``s_k``
of ``J`` are the hinges' axes in the child frame and ``n`` the ball's torque there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy.spatial.transform import Rotation

from ..kernels import add, axis_angle_quat, cross, dot, quat_conj, quat_mul, quat_rotate, scale, small
from ..model.body import BodyModel
from ..model.tree import BALL, dfs_order

#: Intrinsic axes a ball joint is split into (flexion Y, ab/adduction X, axial rotation Z).
BALL_AXES = np.eye(3)[[1, 0, 2]]
BALL_SEQUENCE = "YXZ"


@dataclass(frozen=True)
class Hinges:
    """The model's joints as 1-DoF hinges ``1 .. J-1`` (0 is the floating base): ``segment[j]`` the model
    segment hinge ``j`` moves; ``first[s]`` the first hinge of segment ``s`` (-1: the root and welds), its
    joint coordinates being hinges ``first[s] ..``; ``names``: ``segment:k``."""

    segment: np.ndarray
    first: np.ndarray
    names: tuple[str, ...]

    @property
    def n_joints(self) -> int:
        """1-DoF joints (hinges 1 .. J-1)."""
        return len(self.segment) - 1


def hinges(model: BodyModel) -> Hinges:
    """The hinges of ``model`` in the paper's numbering (module doc)."""
    segment, names = [0], [f"{model.segments[0].name}:base"]
    first = np.full(len(model.segments), -1, dtype=np.int64)
    for k in dfs_order(model)[1:]:
        s = model.segments[k]
        n = 3 if s.joint == "ball" else len(s.axes)
        if n:
            first[k] = len(segment)
        for c in range(n):
            segment.append(k)
            names.append(f"{s.name}:{c}")
    return Hinges(np.array(segment), first, tuple(names))


def _ball_columns(euler: np.ndarray) -> np.ndarray:
    """Child-frame axes (T, 3, 3 columns) of the three hinges a ball is split into: ``ω = J ė``."""
    rx = Rotation.from_rotvec(np.outer(euler[:, 1], [1.0, 0.0, 0.0])).as_matrix()
    rz = Rotation.from_rotvec(np.outer(euler[:, 2], [0.0, 0.0, 1.0])).as_matrix()
    first = np.einsum("tji,tj->ti", rx @ rz, np.broadcast_to(BALL_AXES[0], (len(euler), 3)))
    second = np.einsum("tji,tj->ti", rz, np.broadcast_to(BALL_AXES[1], (len(euler), 3)))
    return np.stack([first, second, np.broadcast_to(BALL_AXES[2], (len(euler), 3))], axis=-1)


def ball_jacobian(quaternions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Euler angles (T, 3) of ball-joint quaternions (T, 4) in the split's sequence and the child-frame hinge
    axes ``J`` (T, 3, 3): the relative angular velocity is ``ω = J ė`` and the hinge torques ``Q = Jᵀ n``."""
    xyzw = np.concatenate([quaternions[:, 1:], quaternions[:, :1]], axis=1)
    euler = Rotation.from_quat(xyzw).as_euler(BALL_SEQUENCE)
    return euler, _ball_columns(euler)


def hinge_coordinates(model: BodyModel, split: Hinges, q: np.ndarray, v: np.ndarray, a: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Model coordinates (layouts of ``solver.model.body``) -> hinge angles, rates, accelerations (T, J; column 0
    zero), lossless away from the ball split's singularity: ``ė = J⁻¹ ω``, ``ë = J⁻¹ (ω̇ - Σ_{j<k} w_j × w_k)``."""
    q, v, a = (np.atleast_2d(np.asarray(x, dtype=float)) for x in (q, v, a))
    theta, rate, acc = (np.zeros((len(q), len(split.segment))) for _ in range(3))
    for k, (s, qs, vs) in enumerate(zip(model.segments, model.q_starts, model.v_starts)):
        if split.first[k] < 0:
            continue
        joints = np.arange(split.first[k], split.first[k] + (3 if s.joint == "ball" else s.nv))
        if s.joint == "ball":
            euler, jac = ball_jacobian(q[:, qs:qs + 4])
            theta[:, joints] = euler
            rate[:, joints] = np.linalg.solve(jac, v[:, vs:vs + 3, None])[..., 0]
            w = jac * rate[:, None, joints]
            coupling = np.cross(w[..., 0], w[..., 1] + w[..., 2]) + np.cross(w[..., 1], w[..., 2])
            acc[:, joints] = np.linalg.solve(jac, (a[:, vs:vs + 3] - coupling)[..., None])[..., 0]
        else:
            theta[:, joints], rate[:, joints], acc[:, joints] = \
                q[:, qs:qs + s.nq], v[:, vs:vs + s.nv], a[:, vs:vs + s.nv]
    return theta, rate, acc


# --- hinges -> model, and the hinges' torques (numba, one frame) -------------------------------------------
@small
def _ball_axes(e1, e2):
    """The child-frame axes ``s_k`` of a ball's hinges at Euler angles ``(e0, e1, e2)`` (they do not depend on
    ``e0``): ``s_0 = (R_x R_z)ᵀ e_y``, ``s_1 = R_zᵀ e_x``, ``s_2 = e_z``; and the ``R_x``, ``R_z`` quaternions."""
    qx = axis_angle_quat((1.0, 0.0, 0.0), e1)
    qz = axis_angle_quat((0.0, 0.0, 1.0), e2)
    s0 = quat_rotate(quat_conj(quat_mul(qx, qz)), (0.0, 1.0, 0.0))
    s1 = quat_rotate(quat_conj(qz), (1.0, 0.0, 0.0))
    return s0, s1, (0.0, 0.0, 1.0), qx, qz


@small
def model_state(tree, first, theta, rate, acc, q, v, a):
    """Hinge angles, rates and accelerations (J,) -> the model's joint entries of ``q``, ``v``, ``a`` (the root
    entries are left alone): a ball's quaternion ``R_y(e0) R_x(e1) R_z(e2)``, ``ω = J ė``, ``ω̇ = J ë + Σ w_j × w_k``."""
    for s in range(len(tree.parent)):
        j, qs, vs = first[s], tree.q_start[s], tree.v_start[s]
        if j < 0:
            continue
        if tree.joint[s] == BALL:
            s0, s1, s2, qx, qz = _ball_axes(theta[j + 1], theta[j + 2])
            turn = quat_mul(axis_angle_quat((0.0, 1.0, 0.0), theta[j]), quat_mul(qx, qz))
            w0, w1, w2 = scale(rate[j], s0), scale(rate[j + 1], s1), scale(rate[j + 2], s2)
            w = add(add(w0, w1), w2)
            dw = add(add(add(scale(acc[j], s0), scale(acc[j + 1], s1)), scale(acc[j + 2], s2)),
                     add(cross(w0, add(w1, w2)), cross(w1, w2)))
            for k in range(4):
                q[qs + k] = turn[k]
            for k in range(3):
                v[vs + k], a[vs + k] = w[k], dw[k]
        else:
            for k in range(tree.n_dof[s]):
                q[qs + k], v[vs + k], a[vs + k] = theta[j + k], rate[j + k], acc[j + k]


@small
def hinge_torques(tree, first, theta, tau, out):
    """Generalized forces ``tau`` (nv) -> the hinges' torques (J; entry 0 zero): ``Q = Jᵀ n`` for a ball."""
    out[0] = 0.0
    for s in range(len(tree.parent)):
        j, vs = first[s], tree.v_start[s]
        if j < 0:
            continue
        if tree.joint[s] == BALL:
            s0, s1, s2, _, _ = _ball_axes(theta[j + 1], theta[j + 2])
            n = (tau[vs], tau[vs + 1], tau[vs + 2])
            out[j], out[j + 1], out[j + 2] = dot(s0, n), dot(s1, n), dot(s2, n)
        else:
            for k in range(tree.n_dof[s]):
                out[j + k] = tau[vs + k]


@njit(cache=True)
def _model_states(tree, first, theta, rate, acc, root):
    n_frames = len(theta)
    q, v, a = np.empty((n_frames, tree.nq)), np.zeros((n_frames, tree.nv)), np.zeros((n_frames, tree.nv))
    for t in range(n_frames):
        for k in range(tree.nq):
            q[t, k] = root[k] if k < 7 else 0.0
        model_state(tree, first, theta[t], rate[t], acc[t], q[t], v[t], a[t])
    return q, v, a


def model_coordinates(model: BodyModel, split: Hinges, theta: np.ndarray, rate: np.ndarray, acc: np.ndarray,
                      root: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hinge angles, rates, accelerations (T, J) -> model ``q, v, a`` (inverse of ``hinge_coordinates``; the root
    entries of ``q`` are ``root`` (7,), its rates zero)."""
    return _model_states(model.tree, split.first, *(np.ascontiguousarray(x, dtype=float) for x in (theta, rate, acc)),
                         np.ascontiguousarray(np.asarray(root, dtype=float)[:7]))
