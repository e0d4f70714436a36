"""Algo_v and Algo_a: velocities and accelerations consistent with the joints, the CM and (in flight) the
angular momentum (Lee 2009 eq. 5.21-5.24, App. E), one kernel for both levels.

At either level the unknowns are a rotational rate ``x_w`` per body (ω, or α) and a translational one
``x_t`` (ṙ_c, or r̈_c), all world frame, with the positions P1 fixed. The constraints are linear in them:

- joint points (eq. 4.6/4.7 with 4.8/4.10): ``x_t,i - x_t,j + κ_i - κ_j + x_w,i × l_i - x_w,j × l_j = 0``,
  ``l = R L`` the world arms and ``κ = ω × (ω × l)`` at the acceleration level (0 for velocities);
  a universal joint adds ``n · (x_w,c - x_w,p) = o`` (its rotation rate has no component along the
  normal ``n`` of its two axes, ``joints.universal_constraints``);
- system CM (4.13/4.14): ``Σ m_i x_t,i - M x_c = 0``, ``x_c`` the target CM velocity or acceleration;
- angular momentum (4.15/4.16, flight only): ``Σ m_i ρ_i × (x_t,i - x_c) + Σ J_i x_w,i + Σ γ_i - h = 0``,
  ``ρ_i = r_ci - r_c``, ``J_i = R_i (J_i)_i R_iᵀ``, ``γ = ω × J ω`` (J̇ω, notes §2) at the acceleration level
  and 0 for velocities, ``h`` the constant momentum ``H_o`` (velocities) or its zero rate (accelerations).

Per weight step, ``j_n`` self-iterations of the rotational stage (eq. E.14-E.17 / E.45-E.48; weights V1
momentum, V2 joints) with ``x_t`` fixed, then ``j_n`` of the translational stage (E.33-E.36 / E.56-E.60;
V3 CM, V4 momentum, V5 joints) with ``x_w`` fixed. Each self-iteration is the thesis's linear solve with
the previous estimate as the initial guess, written with the residuals: ``x ← x - Λ⁻¹ Σ_g w_g A_gᵀ c_g(x)``,
``Λ = I + Σ_g w_g A_gᵀ A_g``. The Gram blocks ``A_gᵀA_g`` are the thesis's matrices: joints C_ωL (with the
transposes of erratum 7) and C ⊗ I3, momentum [J]ᵀ[J] and [mρ]ᵀ[mρ], CM [mI]ᵀ[mI]; the right-hand sides
follow from the residuals, so E.55's sign error (erratum 6) cannot enter. Each block is normalised by its
largest eigenvalue (the thesis leaves the linear stages unnormalised, erratum 8; cf. eq. 8.3).

The two stages see the same constraints with different weights, so where the constraints pull against each
other (the momentum, which ``x_t`` alone cannot change once the joints and the CM hold) the alternation
stops short of them (1e-4..1e-6 in our tests). A last step makes them hold to rounding: the minimum-norm
correction of ``(x_w, x_t)`` onto all of them together, ``Δ = -(AᵀA + εI)⁻¹ Aᵀ c`` with the constraint
groups scaled to unit norm, refined ``FINAL_STEPS`` times; it is the limit the self-iterations approach
(a proximal iteration on consistent linear constraints converges to the projection of its start).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...kernels import cholesky_factor, in_parallel
from .algo_p import STEP_TOLERANCE
from .kernels import body_constants, cholesky_solve, largest_eigenvalue, own_copy

#: Refinements of the final minimum-norm correction, and its regularisation relative to unit-norm groups.
FINAL_STEPS = 3
FINAL_REGULARISATION = 1e-12


@njit(cache=True)
def _world_arms(rot, joint_bodies, joint_arms, arms):
    for e in range(joint_bodies.shape[0]):
        for side in range(2):
            b = joint_bodies[e, side]
            for r in range(3):
                arms[e, side, r] = rot[b, r, 0] * joint_arms[e, side, 0] + rot[b, r, 1] * joint_arms[e, side, 1] \
                    + rot[b, r, 2] * joint_arms[e, side, 2]


@njit(cache=True)
def _add_skew_product(g, bi, bj, a, b, sign):
    """``g[block bi, block bj] += sign · [a][b]`` with ``[a][b] = b aᵀ - (a·b) I``."""
    ab = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    for r in range(3):
        for c in range(3):
            g[3 * bi + r, 3 * bj + c] += sign * (b[r] * a[c] - (ab if r == c else 0.0))


@njit(cache=True)
def _add_skew(g, bi, bj, a, sign):
    """``g[block bi, block bj] += sign · [a]``."""
    g[3 * bi, 3 * bj + 1] -= sign * a[2]
    g[3 * bi, 3 * bj + 2] += sign * a[1]
    g[3 * bi + 1, 3 * bj] += sign * a[2]
    g[3 * bi + 1, 3 * bj + 2] -= sign * a[0]
    g[3 * bi + 2, 3 * bj] -= sign * a[1]
    g[3 * bi + 2, 3 * bj + 1] += sign * a[0]


@njit(cache=True)
def joint_grams(arms, joint_bodies, uni_bodies, uni_normal, g_rot, g_cross):
    """Joint rows ``A_e,i = [-[l_i] | I]``, ``A_e,j = [[l_j] | -I]`` (and universal rows ``[n | 0]``):
    ``A_wᵀA_w`` into ``g_rot`` (the thesis's C_ωL) and ``A_wᵀA_t`` into ``g_cross``."""
    g_rot[:, :] = 0.0
    g_cross[:, :] = 0.0
    for e in range(joint_bodies.shape[0]):
        i, j = joint_bodies[e, 0], joint_bodies[e, 1]
        li, lj = arms[e, 0], arms[e, 1]
        _add_skew_product(g_rot, i, i, li, li, -1.0)
        _add_skew_product(g_rot, j, j, lj, lj, -1.0)
        _add_skew_product(g_rot, i, j, li, lj, 1.0)
        _add_skew_product(g_rot, j, i, lj, li, 1.0)
        _add_skew(g_cross, i, i, li, 1.0)
        _add_skew(g_cross, i, j, li, -1.0)
        _add_skew(g_cross, j, i, lj, -1.0)
        _add_skew(g_cross, j, j, lj, 1.0)
    for u in range(uni_bodies.shape[0]):
        p, c = uni_bodies[u, 0], uni_bodies[u, 1]
        for r in range(3):
            for k in range(3):
                nn = uni_normal[u, r] * uni_normal[u, k]
                g_rot[3 * c + r, 3 * c + k] += nn
                g_rot[3 * p + r, 3 * p + k] += nn
                g_rot[3 * c + r, 3 * p + k] -= nn
                g_rot[3 * p + r, 3 * c + k] -= nn


@njit(cache=True)
def _skew_entry(v, k, c):
    """Entry ``(k, c)`` of ``[v]``."""
    if k == c:
        return 0.0
    m = 3 - k - c
    return -v[m] if (c - k) % 3 == 1 else v[m]


@njit(cache=True)
def momentum_grams(inertia, rho, mass, g_rot, g_tr, g_cross):
    """``[J]ᵀ[J]`` (blocks ``J_i J_j``), ``[mρ]ᵀ[mρ]`` (blocks ``m_i m_j [ρ_i]ᵀ[ρ_j]``) and ``[J]ᵀ[mρ]``
    (blocks ``m_j J_i [ρ_j]``): the momentum rows ``[J_i | m_i [ρ_i]]``."""
    n = mass.shape[0]
    for i in range(n):
        for j in range(n):
            for r in range(3):
                for c in range(3):
                    spin, cross = 0.0, 0.0
                    for k in range(3):
                        spin += inertia[i, r, k] * inertia[j, k, c]
                        cross += inertia[i, r, k] * _skew_entry(rho[j], k, c)
                    g_rot[3 * i + r, 3 * j + c] = spin
                    g_cross[3 * i + r, 3 * j + c] = mass[j] * cross
                    g_tr[3 * i + r, 3 * j + c] = 0.0
            _add_skew_product(g_tr, i, j, rho[i], rho[j], -mass[i] * mass[j])


@njit(cache=True)
def _gradients(x_w, x_t, rho, inertia, kappa, gamma, mass, joint_bodies, arms, uni_bodies, uni_normal, uni_offset,
               target_t, target_h, w_h_rot, w_j_rot, w_cm, w_h_tr, w_j_tr, grad_w, grad_t, d, h):
    """``Σ_g w_g A_gᵀ c_g`` for the rotational (``grad_w``) and translational (``grad_t``) unknowns, each half
    with its own weights (momentum, joints; CM, momentum, joints); gradients are (3n, 1)."""
    n = mass.shape[0]
    total = 0.0
    for b in range(n):
        total += mass[b]
    for r in range(3):
        s = -total * target_t[r]
        for b in range(n):
            s += mass[b] * x_t[b, r]
        for b in range(n):
            grad_t[3 * b + r, 0] = w_cm * mass[b] * s
            grad_w[3 * b + r, 0] = 0.0
    if w_h_rot > 0.0 or w_h_tr > 0.0:
        for r in range(3):
            h[r] = -target_h[r]
        for b in range(n):
            d0, d1, d2 = x_t[b, 0] - target_t[0], x_t[b, 1] - target_t[1], x_t[b, 2] - target_t[2]
            h[0] += mass[b] * (rho[b, 1] * d2 - rho[b, 2] * d1) + gamma[b, 0]
            h[1] += mass[b] * (rho[b, 2] * d0 - rho[b, 0] * d2) + gamma[b, 1]
            h[2] += mass[b] * (rho[b, 0] * d1 - rho[b, 1] * d0) + gamma[b, 2]
            for r in range(3):
                h[r] += inertia[b, r, 0] * x_w[b, 0] + inertia[b, r, 1] * x_w[b, 1] + inertia[b, r, 2] * x_w[b, 2]
        for b in range(n):
            for r in range(3):  # A_iᵀ c: J_i h for x_w, -m_i ρ_i × h for x_t
                grad_w[3 * b + r, 0] += w_h_rot * (inertia[b, r, 0] * h[0] + inertia[b, r, 1] * h[1]
                                                   + inertia[b, r, 2] * h[2])
            grad_t[3 * b, 0] -= w_h_tr * mass[b] * (rho[b, 1] * h[2] - rho[b, 2] * h[1])
            grad_t[3 * b + 1, 0] -= w_h_tr * mass[b] * (rho[b, 2] * h[0] - rho[b, 0] * h[2])
            grad_t[3 * b + 2, 0] -= w_h_tr * mass[b] * (rho[b, 0] * h[1] - rho[b, 1] * h[0])
    for e in range(joint_bodies.shape[0]):
        i, j = joint_bodies[e, 0], joint_bodies[e, 1]
        li, lj = arms[e, 0], arms[e, 1]
        wi, wj = x_w[i], x_w[j]
        d[0] = x_t[i, 0] - x_t[j, 0] + kappa[e, 0, 0] - kappa[e, 1, 0] + wi[1] * li[2] - wi[2] * li[1] \
            - wj[1] * lj[2] + wj[2] * lj[1]
        d[1] = x_t[i, 1] - x_t[j, 1] + kappa[e, 0, 1] - kappa[e, 1, 1] + wi[2] * li[0] - wi[0] * li[2] \
            - wj[2] * lj[0] + wj[0] * lj[2]
        d[2] = x_t[i, 2] - x_t[j, 2] + kappa[e, 0, 2] - kappa[e, 1, 2] + wi[0] * li[1] - wi[1] * li[0] \
            - wj[0] * lj[1] + wj[1] * lj[0]
        grad_w[3 * i, 0] += w_j_rot * (li[1] * d[2] - li[2] * d[1])
        grad_w[3 * i + 1, 0] += w_j_rot * (li[2] * d[0] - li[0] * d[2])
        grad_w[3 * i + 2, 0] += w_j_rot * (li[0] * d[1] - li[1] * d[0])
        grad_w[3 * j, 0] -= w_j_rot * (lj[1] * d[2] - lj[2] * d[1])
        grad_w[3 * j + 1, 0] -= w_j_rot * (lj[2] * d[0] - lj[0] * d[2])
        grad_w[3 * j + 2, 0] -= w_j_rot * (lj[0] * d[1] - lj[1] * d[0])
        for r in range(3):
            grad_t[3 * i + r, 0] += w_j_tr * d[r]
            grad_t[3 * j + r, 0] -= w_j_tr * d[r]
    for u in range(uni_bodies.shape[0]):
        p, c = uni_bodies[u, 0], uni_bodies[u, 1]
        s = -uni_offset[u]
        for r in range(3):
            s += uni_normal[u, r] * (x_w[c, r] - x_w[p, r])
        for r in range(3):
            grad_w[3 * c + r, 0] += w_j_rot * uni_normal[u, r] * s
            grad_w[3 * p + r, 0] -= w_j_rot * uni_normal[u, r] * s


@njit(cache=True)
def _step(x, delta):
    """``x ← x - delta`` for ``x`` (n, 3) and ``delta`` (3n, 1); returns the largest step relative to the values."""
    step, size = 0.0, 0.0
    for b in range(x.shape[0]):
        for r in range(3):
            x[b, r] -= delta[3 * b + r, 0]
            step = max(step, abs(delta[3 * b + r, 0]))
            size = max(size, abs(x[b, r]))
    return step / (1.0 + size)


@njit(cache=True)
def rates_frame(x_w, x_t, rot, rho, inertia, kappa, gamma, body, uni_bodies, uni_normal, uni_offset, target_t, target_h,
                schedule, self_iterations):
    """Algo_v or Algo_a for one frame, in place on ``x_w``, ``x_t`` (n, 3), then the final correction.

    ``schedule`` (k_n, 5) holds V1..V5 (or S1..S5) per weight step, V1 = V4 = 0 outside flight;
    ``body`` the ``BodyConstants``. Returns the number of self-iterations and the size (max-norm) of the final
    correction.
    """
    mass, joint_bodies, joint_arms, laplacian = body.mass, body.joint_bodies, body.joint_arms, body.laplacian
    laplacian_norm = body.laplacian_norm
    n, m = mass.shape[0], 3 * mass.shape[0]
    ws_arms, ws_d, ws_h = np.empty((joint_bodies.shape[0], 2, 3)), np.empty(3), np.empty(3)
    ws_gj, ws_gjx, ws_gh, ws_gm, ws_ghx = np.empty((m, m)), np.empty((m, m)), np.empty((m, m)), np.empty((m, m)), \
        np.empty((m, m))
    ws_lam3, ws_low3, ws_lam6, ws_low6 = np.empty((m, m)), np.zeros((m, m)), np.empty((2 * m, 2 * m)), \
        np.zeros((2 * m, 2 * m))
    ws_lamn, ws_lown = np.empty((n, n)), np.zeros((n, n))
    ws_gw, ws_gt, ws_g6, ws_x, ws_y = np.empty((m, 1)), np.empty((m, 1)), np.empty((2 * m, 1)), np.empty(m), \
        np.empty(m)
    mass_sq = 0.0
    for b in range(n):
        mass_sq += mass[b] * mass[b]
    momentum = schedule[:, 0].any() or schedule[:, 3].any()  # in flight, unless turned off
    _world_arms(rot, joint_bodies, joint_arms, ws_arms)
    joint_grams(ws_arms, joint_bodies, uni_bodies, uni_normal, ws_gj, ws_gjx)
    norm_joint = max(largest_eigenvalue(ws_gj, ws_x, ws_y), 1e-300)
    norm_spin, norm_moment = 1.0, 1.0
    if momentum:
        momentum_grams(inertia, rho, mass, ws_gh, ws_gm, ws_ghx)
        norm_spin = max(largest_eigenvalue(ws_gh, ws_x, ws_y), 1e-300)
        norm_moment = max(largest_eigenvalue(ws_gm, ws_x, ws_y), 1e-300)
    else:
        ws_gh[:, :] = 0.0
        ws_gm[:, :] = 0.0
        ws_ghx[:, :] = 0.0
    done = 0
    for step in range(schedule.shape[0]):
        w_spin, w_joint = schedule[step, 0] / norm_spin, schedule[step, 1] / norm_joint
        w_cm, w_moment = schedule[step, 2] / mass_sq, schedule[step, 3] / norm_moment
        w_lap = schedule[step, 4] / laplacian_norm
        for stage in range(2):  # 0: ω (or α) with the CM rates fixed; 1: the CM rates with ω (or α) fixed
            x, grad = (x_w, ws_gw) if stage == 0 else (x_t, ws_gt)
            if (stage == 0 and w_spin == 0.0 and w_joint == 0.0) or \
                    (stage == 1 and w_cm == 0.0 and w_moment == 0.0 and w_lap == 0.0):
                continue
            # Λ; without the momentum block the translational one is (n x n) ⊗ I3 and is solved as such
            kron = stage == 1 and w_moment == 0.0
            lam, low = (ws_lamn, ws_lown) if kron else (ws_lam3, ws_low3)
            rhs = ws_gt.reshape((n, 3)) if kron else grad
            for r in range(lam.shape[0]):
                for c in range(lam.shape[0]):
                    if stage == 0:
                        lam[r, c] = w_spin * ws_gh[r, c] + w_joint * ws_gj[r, c]
                    elif kron:
                        lam[r, c] = w_cm * mass[r] * mass[c] + w_lap * laplacian[r, c]
                    else:
                        same = 1.0 if r % 3 == c % 3 else 0.0
                        lam[r, c] = w_moment * ws_gm[r, c] + same * (
                            w_cm * mass[r // 3] * mass[c // 3] + w_lap * laplacian[r // 3, c // 3])
                lam[r, r] += 1.0
            cholesky_factor(lam, low)
            for _ in range(self_iterations):
                _gradients(x_w, x_t, rho, inertia, kappa, gamma, mass, joint_bodies, ws_arms, uni_bodies, uni_normal,
                           uni_offset, target_t, target_h, w_spin, w_joint, w_cm, w_moment, w_lap, ws_gw, ws_gt, ws_d,
                           ws_h)
                done += 1
                cholesky_solve(low, rhs, rhs)
                if _step(x, grad) <= STEP_TOLERANCE:
                    break
    # the final minimum-norm correction onto all the constraints the stages used, at once
    s_joint = 1.0 / max(norm_joint, laplacian_norm) if schedule[:, 1].any() or schedule[:, 4].any() else 0.0
    s_spin = 1.0 / max(norm_spin, norm_moment) if momentum else 0.0
    s_cm = 1.0 / mass_sq if schedule[:, 2].any() else 0.0
    for r in range(m):
        for c in range(m):
            same = 1.0 if r % 3 == c % 3 else 0.0
            ws_lam6[r, c] = s_joint * ws_gj[r, c] + s_spin * ws_gh[r, c]
            ws_lam6[m + r, m + c] = s_spin * ws_gm[r, c] + same * (
                s_cm * mass[r // 3] * mass[c // 3] + s_joint * laplacian[r // 3, c // 3])
            cross = s_joint * ws_gjx[r, c] + s_spin * ws_ghx[r, c]
            ws_lam6[r, m + c] = cross
            ws_lam6[m + c, r] = cross
        ws_lam6[r, r] += FINAL_REGULARISATION
        ws_lam6[m + r, m + r] += FINAL_REGULARISATION
    cholesky_factor(ws_lam6, ws_low6)
    correction = 0.0
    for _ in range(FINAL_STEPS):
        _gradients(x_w, x_t, rho, inertia, kappa, gamma, mass, joint_bodies, ws_arms, uni_bodies, uni_normal,
                   uni_offset, target_t, target_h, s_spin, s_joint, s_cm, s_spin, s_joint, ws_gw, ws_gt, ws_d, ws_h)
        for r in range(m):
            ws_g6[r, 0], ws_g6[m + r, 0] = ws_gw[r, 0], ws_gt[r, 0]
        cholesky_solve(ws_low6, ws_g6, ws_g6)
        for b in range(n):
            for r in range(3):
                x_w[b, r] -= ws_g6[3 * b + r, 0]
                x_t[b, r] -= ws_g6[m + 3 * b + r, 0]
                correction = max(correction, abs(ws_g6[3 * b + r, 0]), abs(ws_g6[m + 3 * b + r, 0]))
    return done, correction


@njit(cache=True, nogil=True)
def _rates_chunk(start, stop, x_w, x_t, rot, rho, inertia, kappa, gamma, body, uni_bodies, uni_normal, uni_offset,
                 target_t, target_h, schedule, flying, self_iterations, iterations, corrections):
    """Frames ``start:stop``, in place, with the chunk's own copies and buffers (as ``algo_p._algo_p_chunk``)."""
    n, n_points, n_uni = x_w.shape[1], body.joint_bodies.shape[0], uni_bodies.shape[0]
    own_body, own_uni = own_copy(body), uni_bodies.copy()
    on_ground = schedule.copy()
    on_ground[:, 0] = 0.0
    on_ground[:, 3] = 0.0
    in_flight = schedule.copy()
    w_t, t_t, rot_t, rho_t = np.empty((n, 3)), np.empty((n, 3)), np.empty((n, 3, 3)), np.empty((n, 3))
    in_t, ka_t, ga_t = np.empty((n, 3, 3)), np.empty((n_points, 2, 3)), np.empty((n, 3))
    un_t, uo_t, tt_t, th_t = np.empty((n_uni, 3)), np.empty(n_uni), np.empty(3), np.empty(3)
    for t in range(start, stop):
        for b in range(n):
            for r in range(3):
                w_t[b, r], t_t[b, r], rho_t[b, r], ga_t[b, r] = x_w[t, b, r], x_t[t, b, r], rho[t, b, r], \
                    gamma[t, b, r]
                for c in range(3):
                    rot_t[b, r, c], in_t[b, r, c] = rot[t, b, r, c], inertia[t, b, r, c]
        for e in range(n_points):
            for s in range(2):
                for r in range(3):
                    ka_t[e, s, r] = kappa[t, e, s, r]
        for u in range(n_uni):
            uo_t[u] = uni_offset[t, u]
            for r in range(3):
                un_t[u, r] = uni_normal[t, u, r]
        for r in range(3):
            tt_t[r], th_t[r] = target_t[t, r], target_h[t, r]
        iterations[t], corrections[t] = rates_frame(
            w_t, t_t, rot_t, rho_t, in_t, ka_t, ga_t, own_body, own_uni, un_t, uo_t, tt_t, th_t,
            in_flight if flying[t] else on_ground, self_iterations)
        for b in range(n):
            for r in range(3):
                x_w[t, b, r], x_t[t, b, r] = w_t[b, r], t_t[b, r]


def algo_rates(rotations, rho, x_w, x_t, target_t, target_h, flying, uni_normal, uni_offset, omega=None, *, bodies,
               uni_bodies, schedule, self_iterations):
    """Algo_v (``omega`` None) or Algo_a (``omega`` the angular velocities V2) on every frame.

    ``rotations`` (T, n, 3, 3) and ``rho`` (T, n, 3) from P1; ``x_w``, ``x_t`` (T, n, 3) the initial guesses;
    ``target_t`` (T, 3) target system CM velocity/acceleration, ``target_h`` (T, 3) angular momentum/its rate,
    used where ``flying`` (T,); universal joints ``uni_bodies`` (U, 2) with ``uni_normal`` (T, U, 3) and
    ``uni_offset`` (T, U) (``joints.universal_constraints``); ``schedule`` (k_n, 5).
    Returns ``(x_w, x_t, iterations, correction)``.
    """
    inertia = np.einsum("tbij,bjk,tblk->tbil", rotations, bodies.inertia, rotations)
    n_frames, n_points = len(rotations), len(bodies.joint_bodies)
    if omega is None:
        kappa, gamma = np.zeros((n_frames, n_points, 2, 3)), np.zeros((n_frames, bodies.n, 3))
    else:
        arms = np.einsum("tesij,esj->tesi", rotations[:, bodies.joint_bodies], bodies.joint_arms)
        w = omega[:, bodies.joint_bodies]
        kappa = np.cross(w, np.cross(w, arms))
        gamma = np.cross(omega, np.einsum("tbij,tbj->tbi", inertia, omega))
    x_w = np.array(x_w, dtype=float, order="C")
    x_t = np.array(x_t, dtype=float, order="C")
    c = np.ascontiguousarray
    iterations, correction = np.zeros(n_frames, dtype=np.int64), np.zeros(n_frames)
    in_parallel(_rates_chunk, n_frames, x_w, x_t, c(rotations, float), c(rho, float), inertia, kappa, gamma,
                body_constants(bodies), c(uni_bodies, np.int64), c(uni_normal, float), c(uni_offset, float),
                c(target_t, float), c(target_h, float), c(schedule, float), c(flying, bool), int(self_iterations),
                iterations, correction)
    return x_w, x_t, iterations, correction
