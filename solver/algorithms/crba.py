"""The composite-rigid-body algorithm (CRBA, Featherstone) for one frame: the generalized mass matrix."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..kernels import add, cross, dot, matvec, put, row, row2, scale, small, sub
from ..model.tree import FREE
from .kinematics import dof_axes


class CrbaWorkspace(NamedTuple):
    """Scratch of the composite-rigid-body algorithm, the Cholesky solve and the RNEA bias."""

    column_w: np.ndarray  # (nv, 3) angular part of each motion subspace column, world
    column_u: np.ndarray  # (nv, 3) linear part (velocity of the point at the root origin), world
    mass: np.ndarray  # (S,) composite mass
    moment: np.ndarray  # (S, 3) composite first moment about the root origin
    inertia: np.ndarray  # (S, 3, 3) composite rotational inertia about the root origin
    matrix: np.ndarray  # (nv, nv) mass matrix
    lower: np.ndarray  # (nv, nv) its Cholesky factor
    bias: np.ndarray  # (nv,) bias forces, then τ - bias
    zero: np.ndarray  # (nv,) zeros
    force: np.ndarray  # (S, 3) RNEA joint forces
    torque: np.ndarray  # (S, 3) RNEA joint torques


@small
def crba_workspace(tree):
    n_segments, nv = len(tree.parent), tree.nv
    return CrbaWorkspace(np.empty((nv, 3)), np.empty((nv, 3)), np.empty(n_segments), np.empty((n_segments, 3)),
                         np.empty((n_segments, 3, 3)), np.empty((nv, nv)), np.empty((nv, nv)), np.empty(nv),
                         np.zeros(nv), np.empty((n_segments, 3)), np.empty((n_segments, 3)))


@small
def _motion_columns(tree, data, cw):
    """World-frame spatial motion subspace ``(w; u)`` of every velocity entry, about ``O`` = root origin.

    Root: linear entries move the origin (``(0; e_k)``), angular entries spin
    about it (``(R_0 e_k; 0)``). A joint entry ``s_k`` rotates segment ``i``
    about its joint centre ``o_i``: ``(w; (o_i - O) × w)`` with ``w = R_i s_k``.
    """
    dof_axes(tree, data, cw.column_w)
    origin = row(data.origin, 0)
    for i in range(len(tree.parent)):
        start = tree.v_start[i]
        if tree.joint[i] == FREE:
            for k in range(3):
                put(cw.column_u, start + k, row(cw.column_w, start + k))
                put(cw.column_w, start + k, (0.0, 0.0, 0.0))
                put(cw.column_u, start + 3 + k, (0.0, 0.0, 0.0))
            continue
        arm = sub(row(data.origin, i), origin)
        for k in range(start, start + tree.n_dof[i]):
            put(cw.column_u, k, cross(arm, row(cw.column_w, k)))


@small
def frame_crba(tree, data, cw):
    """Composite-rigid-body algorithm (Featherstone) for one frame, after ``forward_kinematics``.

    Spatial inertias about the root origin ``O`` in world axes: mass ``m``,
    first moment ``h = m c`` and rotational inertia ``Ī = R I Rᵀ + m(|c|² 1 - c cᵀ)``;
    composites add up the subtree (no frame transforms in world axes). The
    momentum of a motion ``(w; u)`` is ``(Ī w + h × u; m u + w × h)`` and
    ``M[j, k] = S_jᵀ I^c_i S_k`` for ``k`` in joint ``i`` and ``j`` in ``i`` or its ancestors.
    Fills ``cw.matrix``.
    """
    n = len(tree.parent)
    origin = row(data.origin, 0)
    for i in range(n):
        m = tree.mass[i]
        c = sub(add(row(data.origin, i), matvec(data.rot, i, row(tree.com, i))), origin)
        cw.mass[i] = m
        put(cw.moment, i, scale(m, c))
        for s in range(3):
            column = matvec(data.rot, i, matvec(tree.inertia, i, row2(data.rot, i, s)))  # R I Rᵀ e_s
            for r in range(3):
                cw.inertia[i, r, s] = column[r] - m * c[r] * c[s] + (m * dot(c, c) if r == s else 0.0)
    for i in range(n - 1, 0, -1):
        p = tree.parent[i]
        cw.mass[p] += cw.mass[i]
        put(cw.moment, p, add(row(cw.moment, p), row(cw.moment, i)))
        for r in range(3):
            for s in range(3):
                cw.inertia[p, r, s] += cw.inertia[i, r, s]
    _motion_columns(tree, data, cw)
    cw.matrix[:, :] = 0.0
    for i in range(n):
        m, h = cw.mass[i], row(cw.moment, i)
        for k in range(tree.v_start[i], tree.v_start[i] + tree.n_dof[i]):
            w, u = row(cw.column_w, k), row(cw.column_u, k)
            f_ang = add(matvec(cw.inertia, i, w), cross(h, u))
            f_lin = add(scale(m, u), cross(w, h))
            j = i
            while j >= 0:
                for col in range(tree.v_start[j], tree.v_start[j] + tree.n_dof[j]):
                    value = dot(row(cw.column_w, col), f_ang) + dot(row(cw.column_u, col), f_lin)
                    cw.matrix[col, k] = value
                    cw.matrix[k, col] = value
                j = tree.parent[j]
