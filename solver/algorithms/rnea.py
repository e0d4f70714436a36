"""The recursive Newton-Euler algorithm (RNEA) for one frame, world frame: inverse dynamics of the tree."""

from __future__ import annotations

from ..kernels import add, cross, dot, matvec, put, row, row2, scale, small, sub, tmatvec
from ..model.tree import FREE
from .kinematics import frame_kinematics


@small
def frame_rnea(tree, q, v, a, gravity, ext_segments, ext_points, ext_forces, ext_moments, data, force, torque, tau):
    """Recursive Newton-Euler for one frame (Featherstone; Badler et al. §5), world frame.

    Forward pass: ``frame_kinematics``. Per segment (Newton-Euler about the
    centre of mass ``c``): ``f_i = m_i (ä_i + ω̇_i × c + ω_i × (ω_i × c))``,
    ``n_i = R_i (I_i ω̇_b + ω_b × I_i ω_b) + c × f_i`` about the origin, minus
    the external forces on the segment. Backward pass:
    ``f_p += f_i``, ``n_p += n_i + (o_i - o_p) × f_i``. Gravity is in ``ä``.
    Writes the force and torque by parent on child (S, 3) into ``force`` and
    ``torque`` and the generalized forces ``Q = Sᵀ f`` into ``tau``.
    """
    frame_kinematics(tree, q, v, a, gravity, data)
    n = len(tree.parent)
    rot, inertia = data.rot, tree.inertia
    for i in range(n):
        c = matvec(rot, i, row(tree.com, i))
        w, dw = row(data.omega, i), row(data.alpha, i)
        f = scale(tree.mass[i], add(add(row(data.accel, i), cross(dw, c)), cross(w, cross(w, c))))
        w_b, dw_b = tmatvec(rot, i, w), tmatvec(rot, i, dw)
        n_b = add(matvec(inertia, i, dw_b), cross(w_b, matvec(inertia, i, w_b)))
        put(force, i, f)
        put(torque, i, add(matvec(rot, i, n_b), cross(c, f)))
    for k in range(len(ext_segments)):
        i = ext_segments[k]
        f = row(ext_forces, k)
        arm = sub(row(ext_points, k), row(data.origin, i))
        put(force, i, sub(row(force, i), f))
        put(torque, i, sub(row(torque, i), add(cross(arm, f), row(ext_moments, k))))
    for i in range(n - 1, 0, -1):
        p = tree.parent[i]
        f = row(force, i)
        arm = sub(row(data.origin, i), row(data.origin, p))
        put(torque, p, add(add(row(torque, p), row(torque, i)), cross(arm, f)))
        put(force, p, add(row(force, p), f))
    for i in range(n):
        start = tree.v_start[i]
        if tree.joint[i] == FREE:
            for k in range(3):
                tau[start + k] = force[i, k]
            start += 3
        n_child = tmatvec(rot, i, row(torque, i))
        for k in range(3 if tree.joint[i] == FREE else tree.n_dof[i]):
            tau[start + k] = dot(row2(data.subspace, i, k), n_child)
