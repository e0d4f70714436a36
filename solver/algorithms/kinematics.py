"""Forward kinematics of the tree, one frame: poses, motion subspaces, velocities and accelerations.

All kernels work in *world* coordinates: every segment's rotation, origin,
angular velocity and acceleration and the linear acceleration of its origin
are expressed in the world frame, so forces from children and from external
points add up without frame transforms (the "ground-frame" form of
Featherstone's recursive algorithms).

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

The kernels run the frames one after the other: a frame takes microseconds,
and a ``prange`` kernel took seconds more to compile than all frames of a
long trial take to run.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..kernels import add, axis_angle_quat, cross, inlined, matvec, put, put2, quat, quat_conj, quat_mul, \
    quat_rotate, quat_to_matrix_into, row, row2, scale, small, sub, vec
from ..model.tree import BALL, FREE, UNIVERSAL, HINGE


class Data(NamedTuple):
    """One frame's work arrays (world frame unless noted): Pinocchio's Data."""

    rot: np.ndarray  # (S, 3, 3) segment -> world
    origin: np.ndarray  # (S, 3) joint centre / segment origin
    subspace: np.ndarray  # (S, 3, 3) child-frame motion subspace columns s_k (rows)
    omega: np.ndarray  # (S, 3) angular velocity
    alpha: np.ndarray  # (S, 3) angular acceleration
    accel: np.ndarray  # (S, 3) linear acceleration of the origin minus gravity
    local: np.ndarray  # (3, 3) scratch: joint rotation child -> parent


@small
def make_data(tree):
    s = len(tree.parent)
    return Data(np.empty((s, 3, 3)), np.empty((s, 3)), np.zeros((s, 3, 3)), np.empty((s, 3)), np.empty((s, 3)),
                np.empty((s, 3)), np.empty((3, 3)))


@inlined
def joint_frame(joint, qs, axes, i, q, rotation, subspace):
    """Joint rotation child -> parent of segment ``i`` (into ``rotation``, 3x3) and its child-frame motion
    subspace (into ``subspace[i]``); ``joint`` is its joint code, ``qs`` its first entry in ``q``, ``axes`` the
    tree's joint axes (S, 2, 3).

    Per-segment helpers take the tree's scalars and arrays, not the ``Tree``, and the per-frame functions bind the
    arrays they use to names once: with the ``Tree`` handed on per segment (inlined or not) ``forward_kinematics``
    took 1.18 µs a frame on full15, with these arrays 0.51, and with the names bound 0.45 (numba 0.62; the code
    numba makes for a named tuple of arrays inside a loop is slower, by how much measured, not why)."""
    if joint == FREE or joint == BALL:
        quat_to_matrix_into(quat(q, qs + 3 if joint == FREE else qs), rotation)
        for k in range(3):
            put2(subspace, i, k, (1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0))
    elif joint == HINGE:
        quat_to_matrix_into(axis_angle_quat(row2(axes, i, 0), q[qs]), rotation)
        put2(subspace, i, 0, row2(axes, i, 0))
    elif joint == UNIVERSAL:
        first = axis_angle_quat(row2(axes, i, 0), q[qs])
        second = axis_angle_quat(row2(axes, i, 1), q[qs + 1])
        quat_to_matrix_into(quat_mul(first, second), rotation)
        put2(subspace, i, 0, quat_rotate(quat_conj(second), row2(axes, i, 0)))
        put2(subspace, i, 1, row2(axes, i, 1))
    else:  # WELD
        quat_to_matrix_into((1.0, 0.0, 0.0, 0.0), rotation)


@small
def forward_kinematics(tree, q, data):
    """World rotation and origin of every segment and its child-frame motion subspace:
    ``R_i = R_p R_joint``, ``o_i = o_p + R_p d_i`` (root: ``o_0 = q[0:3]``)."""
    rot, origin, local, subspace = data.rot, data.origin, data.local, data.subspace
    parent, joint, q_start, axes, offset = tree.parent, tree.joint, tree.q_start, tree.axes, tree.offset
    for i in range(len(parent)):
        joint_frame(joint[i], q_start[i], axes, i, q, local, subspace)
        p = parent[i]
        if p < 0:
            for r in range(3):
                for c in range(3):
                    rot[i, r, c] = local[r, c]
            put(origin, i, vec(q, q_start[i]))
            continue
        for r in range(3):
            for c in range(3):
                rot[i, r, c] = rot[p, r, 0] * local[0, c] + rot[p, r, 1] * local[1, c] + rot[p, r, 2] * local[2, c]
        put(origin, i, add(row(origin, p), matvec(rot, p, row(offset, i))))


@inlined
def joint_rates(joint, v_start, n_dof, subspace, i, v, a):
    """Relative angular velocity and acceleration of segment ``i`` w.r.t. its parent, child frame, from its joint
    code, first entry in ``v`` and number of entries (``joint_frame`` says why not the ``Tree``).

    ``ω_rel = Σ s_k v_k``; ``ω̇_rel = Σ s_k a_k + Σ ṡ_k v_k`` with ``ṡ_0 = θ̇_1 (s_0 × s_1)``
    for a universal joint and ``ṡ = 0`` otherwise.
    """
    vs = v_start + (3 if joint == FREE else 0)
    n = 3 if joint == FREE else n_dof
    w = (0.0, 0.0, 0.0)
    dw = (0.0, 0.0, 0.0)
    for k in range(n):
        s = row2(subspace, i, k)
        w = add(w, scale(v[vs + k], s))
        dw = add(dw, scale(a[vs + k], s))
    if joint == UNIVERSAL:
        dw = add(dw, scale(v[vs] * v[vs + 1], cross(row2(subspace, i, 0), row2(subspace, i, 1))))
    return w, dw


@small
def frame_kinematics(tree, q, v, a, gravity, data):
    """``forward_kinematics``, then the angular velocity/acceleration and origin acceleration of every segment.

    The forward pass of Featherstone's recursive Newton-Euler algorithm in the
    world frame (Badler et al. §5: ``v_i = X v_parent + S_i q̇_i``,
    ``a_i = X a_parent + v_i × S_i q̇_i + S_i q̈_i``), with gravity entered as
    a base acceleration ``-g`` so that it acts on every segment:
    ``ω_i = ω_p + R_i ω_rel``, ``ω̇_i = ω̇_p + ω_p × R_i ω_rel + R_i ω̇_rel``,
    ``ä_i = ä_p + ω̇_p × r + ω_p × (ω_p × r)`` with ``r = o_i - o_p``.
    """
    forward_kinematics(tree, q, data)
    rot, omega, alpha, accel, subspace = data.rot, data.omega, data.alpha, data.accel, data.subspace
    parent, joint, v_start, n_dof, offset = tree.parent, tree.joint, tree.v_start, tree.n_dof, tree.offset
    for i in range(len(parent)):
        w_rel, dw_rel = joint_rates(joint[i], v_start[i], n_dof[i], subspace, i, v, a)
        p = parent[i]
        if p < 0:
            put(omega, i, matvec(rot, i, w_rel))
            put(alpha, i, matvec(rot, i, dw_rel))
            put(accel, i, sub(vec(a, v_start[i]), vec(gravity, 0)))
            continue
        arm = matvec(rot, p, row(offset, i))
        w_p, dw_p = row(omega, p), row(alpha, p)
        w_rel_world = matvec(rot, i, w_rel)
        put(omega, i, add(w_p, w_rel_world))
        put(alpha, i, add(add(dw_p, cross(w_p, w_rel_world)), matvec(rot, i, dw_rel)))
        put(accel, i, add(add(row(accel, p), cross(dw_p, arm)), cross(w_p, cross(w_p, arm))))


@inlined
def dof_axes(tree, data, out):
    """World direction of every DoF (nv, 3), after ``forward_kinematics``: a root translation moves along
    ``e_k``; a rotational DoF ``k`` of segment ``i`` turns about ``R_i s_k`` through the origin ``o_i``."""
    for i in range(len(tree.parent)):
        start, n = tree.v_start[i], tree.n_dof[i]
        if tree.joint[i] == FREE:
            for k in range(3):
                put(out, start + k, (1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0))
            start, n = start + 3, 3
        for k in range(n):
            put(out, start + k, matvec(data.rot, i, row2(data.subspace, i, k)))
