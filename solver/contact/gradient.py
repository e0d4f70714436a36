"""The estimation objective (Brubaker et al. 2009, eq. 10) and its analytic gradient, over a whole trial.

Inverse dynamics is linear in the external forces, so the root wrench with
contact is, frame by frame,

    f_root(t, θ) = f_root(t, 0) - Σ_k [f_k; r_k × f_k],   f_k = m f_c(p_k, ṗ_k; θ)

(``dynamics.point_force_root_map``; ``r_k`` the contact point relative to the
root origin, ``m`` the force scale, eq. 7 summed over surfaces). The
objective is ``O(θ) = Σ_t |F_t|² + w |T_t|²`` for the force ``F`` and torque
``T`` parts of ``f_root`` (``w`` = 1 m⁻² is the paper's plain ``||f_root||²``).
With the residual ``E = (F, T)`` the gradient with respect to one point's
force is ``∂O/∂f_k = -2 m (F + w T × r_k)``, back-propagated through eqs. 4-6:
for ``f = H (s n - δ_T ṗ)``, ``H = h_d h_f``, ``s = n_c + δ_T ṗ_n``,
``ṗ_n = nᵀṗ``, ``d = nᵀp - c``, with ``h'(x) = 2 h (1 - h)``:

    ∂O/∂H = s gᵀn - δ_T gᵀṗ                 ∂O/∂s = H gᵀn
    ∂O/∂n_c = ∂O/∂H G_f h_d h_f' + ∂O/∂s    ∂O/∂d = -∂O/∂H G_d h_d' h_f - κ_N ∂O/∂n_c
    ∂O/∂ṗ_n = -δ_N ∂O/∂n_c + δ_T ∂O/∂s
    ∂O/∂κ_N = -(d - L) ∂O/∂n_c,  ∂O/∂δ_N = -ṗ_n ∂O/∂n_c,  ∂O/∂δ_T = -H gᵀṗ + ṗ_n ∂O/∂s
    ∂O/∂n = H s g + ∂O/∂d p + ∂O/∂ṗ_n ṗ,    ∂O/∂c = -∂O/∂d

for the active face (normal ``n``, offset ``c``) of each surface. One pass per
frame computes the forces (keeping each point's sigmoids), the residual, then
the gradient. Points out of reach (``model.OUT_OF_REACH``) cost one distance.
One thread: an evaluation takes about a millisecond for a 100-frame trial,
and numba's parallel threads, spinning between the optimiser's calls, cost
more than they save.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels import cross, dot, row, row2
from .model import OUT_OF_REACH, active_face, spring


@njit(cache=True)
def _objective_gradient(residual, arms, points, velocities, normals, offsets, first_face, materials, constants,
                        force_scale, torque_weight):
    n_frames, n_points = points.shape[0], points.shape[1]
    n_faces, n_surfaces = len(offsets), len(first_face) - 1
    value = 0.0
    grad_normals = np.zeros((n_faces, 3))
    grad_offsets = np.zeros(n_faces)
    grad_materials = np.zeros((n_surfaces, 3))
    g_d, g_f, length = constants[0], constants[1], constants[2]
    # per point and surface, kept from the force pass for the gradient pass: active face (-1: out of
    # reach), distance, normal speed, the two sigmoids and n_c
    face_of = np.empty((n_points, n_surfaces), dtype=np.int64)
    state = np.empty((n_points, n_surfaces, 5))
    for t in range(n_frames):
        fx, fy, fz = residual[t, 0], residual[t, 1], residual[t, 2]
        tx, ty, tz = residual[t, 3], residual[t, 4], residual[t, 5]
        for k in range(n_points):
            p, pd = row2(points, t, k), row2(velocities, t, k)
            f = (0.0, 0.0, 0.0)
            for s in range(n_surfaces):
                face, d = active_face(normals, offsets, first_face[s], first_face[s + 1], p)
                if g_d * d > OUT_OF_REACH:
                    face_of[k, s] = -1
                    continue
                n = row(normals, face)
                vn = dot(pd, n)
                kappa, delta_n, delta_t = materials[s, 0], materials[s, 1], materials[s, 2]
                h_d, h_f, n_c = spring(d, vn, kappa, delta_n, constants)
                face_of[k, s] = face
                state[k, s, 0], state[k, s, 1], state[k, s, 2] = d, vn, h_d
                state[k, s, 3], state[k, s, 4] = h_f, n_c
                gate, along = force_scale * h_d * h_f, n_c + delta_t * vn
                f = (f[0] + gate * (along * n[0] - delta_t * pd[0]),
                     f[1] + gate * (along * n[1] - delta_t * pd[1]),
                     f[2] + gate * (along * n[2] - delta_t * pd[2]))
            m = cross(row2(arms, t, k), f)
            fx, fy, fz = fx - f[0], fy - f[1], fz - f[2]
            tx, ty, tz = tx - m[0], ty - m[1], tz - m[2]
        value += fx * fx + fy * fy + fz * fz + torque_weight * (tx * tx + ty * ty + tz * tz)
        for k in range(n_points):
            lever = cross((tx, ty, tz), row2(arms, t, k))
            c = -2.0 * force_scale
            g = (c * (fx + torque_weight * lever[0]), c * (fy + torque_weight * lever[1]),
                 c * (fz + torque_weight * lever[2]))
            p, pd = row2(points, t, k), row2(velocities, t, k)
            g_v = dot(g, pd)
            for s in range(n_surfaces):
                face = face_of[k, s]
                if face < 0:
                    continue
                d, vn, h_d, h_f, n_c = state[k, s, 0], state[k, s, 1], state[k, s, 2], state[k, s, 3], \
                    state[k, s, 4]
                kappa, delta_n, delta_t = materials[s, 0], materials[s, 1], materials[s, 2]
                n = row(normals, face)
                gate = h_d * h_f
                along = n_c + delta_t * vn
                g_n = dot(g, n)
                d_gate = along * g_n - delta_t * g_v
                d_along = gate * g_n
                d_nc = d_gate * g_f * h_d * 2.0 * h_f * (1.0 - h_f) + d_along
                d_d = -d_gate * g_d * 2.0 * h_d * (1.0 - h_d) * h_f - kappa * d_nc
                d_vn = -delta_n * d_nc + delta_t * d_along
                grad_materials[s, 0] += -(d - length) * d_nc
                grad_materials[s, 1] += -vn * d_nc
                grad_materials[s, 2] += -gate * g_v + vn * d_along
                for i in range(3):
                    grad_normals[face, i] += gate * along * g[i] + d_d * p[i] + d_vn * pd[i]
                grad_offsets[face] -= d_d
    return value, grad_normals, grad_offsets, grad_materials


def objective_and_gradient(residual: np.ndarray, arms: np.ndarray, points: np.ndarray, velocities: np.ndarray,
                           normals: np.ndarray, offsets: np.ndarray, first_face: np.ndarray, materials: np.ndarray,
                           constants: np.ndarray, force_scale: float, torque_weight: float = 1.0):
    """Eq. 10 and its gradient for surfaces given as arrays (``model.SurfaceArrays``).

    ``residual`` (T, 6): the root wrench without contact (force [N], torque [N·m] about the root origin);
    ``arms``, ``points``, ``velocities`` (T, K, 3): contact points relative to the root origin, in world, and
    their velocities. Returns ``(O, ∂O/∂normals (F, 3), ∂O/∂offsets (F,), ∂O/∂materials (S, 3))``; the
    normals' gradient treats them as free 3-vectors (the caller applies the unit-norm parametrisation).
    """
    return _objective_gradient(residual, arms, points, velocities, normals, offsets, first_face, materials,
                               constants, float(force_scale), float(torque_weight))
