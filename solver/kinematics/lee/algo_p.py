"""Algo_p: orientations and CM positions consistent with the joints and the system CM (Lee 2009 §5.2, §6.1-6.2, 6.4).

For each weight step ``k`` (``W(k) = dx · x^(k-1)``, Fig. 6.1):

1. orientation, ``j_n`` self-iterations with the CMs fixed (eq. 5.19, 6.11): each body's quaternion is the
   dominant eigenvector of ``K_k = K_o + W1 (||K_o|| / ||K_J||) K_J`` (normalisation eq. 8.3), ``K_o`` the
   q-method matrix of its markers and ``K_J`` that of its joints: each joint point adds the Wahba pair
   ``b = r_cu + R_u L_uk - r_ck`` (where neighbour ``u`` puts the joint, seen from CM_k), ``a = L_ku``.
   This is eq. 6.12-6.14 written as one Wahba problem (notes §3, checked numerically; it also avoids the
   index slip of 6.4, erratum 3). Bodies are updated in turn with their neighbours' newest estimates
   (Gauss-Seidel; the thesis does not say). ``||·||`` is the largest singular value; for a Davenport matrix
   it is the sum of the singular values of its ``B`` (``kernels.nuclear_norm3``);
2. CM positions, ``j_n`` self-iterations with the orientations fixed (eq. 5.20, 6.15-6.30):
   ``Λ_p r = Γ`` with the previous estimate as the initial guess ``r*`` of each self-iteration (the
   "path with fixed slope" of Fig. 6.3), ``Λ_p = I + W2 [mI]ᵀ[mI]/Σm² + W3 C/||C||`` (the thesis does not
   normalise the linear stages, erratum 8; we scale each constraint block by its largest eigenvalue like
   eq. 8.3 so that the weights mean the same for any body or unit), ``C`` the joint graph's Laplacian.

A base of 0 turns its constraint off. A self-iteration loop stops early once its steps no longer matter
(``STEP_TOLERANCE``, ``ORIENTATION_TOLERANCE``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...kernels import cholesky_factor, in_parallel, quat_to_matrix_into
from .kernels import body_constants, cholesky_solve, davenport_into, dominant_eigenvector, \
    nuclear_norm3, own_copy

#: A self-iteration whose largest change is below this (relative to the values) ends its loop.
STEP_TOLERANCE = 1e-14
#: An orientation self-iteration changing no quaternion component by more than this ends its loop: the
#: remaining ones (steps shrink) could turn a body by at most j_n times as much, and the CM stage and the
#: joint projection that follow make the joint points exact whatever the orientations.
ORIENTATION_TOLERANCE = 1e-10


@njit(cache=True)
def max_joint_gap(rot, com, joint_bodies, joint_arms):
    """Largest |r_ci + R_i L_ij - r_cj - R_j L_ji| over the joint points (eq. 4.5)."""
    worst = 0.0
    for e in range(joint_bodies.shape[0]):
        i, j = joint_bodies[e, 0], joint_bodies[e, 1]
        s = 0.0
        for r in range(3):
            d = com[i, r] - com[j, r]
            for c in range(3):
                d += rot[i, r, c] * joint_arms[e, 0, c] - rot[j, r, c] * joint_arms[e, 1, c]
            s += d * d
        worst = max(worst, np.sqrt(s))
    return worst


@njit(cache=True)
def orientation_sweep(quat, rot, com, b_markers, norm_markers, w1, factors, normalise, joint_bodies, joint_arms,
                      b_joint, b_total, k, a, v, q_new):
    """One self-iteration of eq. 6.11 over all bodies (Gauss-Seidel); returns the largest quaternion change.

    ``factors`` (n,) hold each body's ``W1 ||K_o|| / ||K_J||`` (eq. 8.3), recomputed when ``normalise``.
    """
    change = 0.0
    for b in range(quat.shape[0]):
        b_joint[:, :] = 0.0
        for e in range(joint_bodies.shape[0]):
            for side in range(2):
                if joint_bodies[e, side] != b:
                    continue
                u = joint_bodies[e, 1 - side]
                for r in range(3):
                    target = com[u, r] - com[b, r]
                    for c in range(3):
                        target += rot[u, r, c] * joint_arms[e, 1 - side, c]
                    for c in range(3):
                        b_joint[r, c] += target * joint_arms[e, side, c]
        if normalise:
            norm_joint = nuclear_norm3(b_joint)
            if norm_markers[b] > 0.0:
                factors[b] = w1 * norm_markers[b] / norm_joint if norm_joint > 0.0 else 0.0
            else:
                factors[b] = 1.0  # no marker information in this frame: the joints alone orient the body
        for r in range(3):
            for c in range(3):
                b_total[r, c] = b_markers[b, r, c] + factors[b] * b_joint[r, c]
        davenport_into(b_total, k)
        dominant_eigenvector(k, a, v, quat[b], q_new)
        for r in range(4):
            change = max(change, abs(q_new[r] - quat[b, r]))
            quat[b, r] = q_new[r]
        quat_to_matrix_into(quat[b], rot[b])
    return change


@njit(cache=True)
def cm_step(com, rot, mass, target, joint_bodies, joint_arms, w2, w3, lower, grad):
    """One self-iteration of eq. 6.30: ``r ← r - Λ_p⁻¹ ∇`` (the proximal step from the previous estimate,
    written with the constraint residuals); ``w2``, ``w3`` already normalised. Returns the largest step."""
    n = com.shape[0]
    total = 0.0
    for b in range(n):
        total += mass[b]
    for r in range(3):
        residual = -total * target[r]
        for b in range(n):
            residual += mass[b] * com[b, r]
        for b in range(n):
            grad[b, r] = w2 * mass[b] * residual
    for e in range(joint_bodies.shape[0]):
        i, j = joint_bodies[e, 0], joint_bodies[e, 1]
        for r in range(3):
            d = com[i, r] - com[j, r]
            for c in range(3):
                d += rot[i, r, c] * joint_arms[e, 0, c] - rot[j, r, c] * joint_arms[e, 1, c]
            grad[i, r] += w3 * d
            grad[j, r] -= w3 * d
    cholesky_solve(lower, grad, grad)
    step, size = 0.0, 0.0
    for b in range(n):
        for r in range(3):
            com[b, r] -= grad[b, r]
            step = max(step, abs(grad[b, r]))
            size = max(size, abs(com[b, r]))
    return step / (1.0 + size)


@njit(cache=True)
def algo_p_frame(quat, com, b_markers, norm_markers, target, body, schedule, self_iterations, history):
    """Algo_p for one frame, in place on ``quat`` (n, 4) and ``com`` (n, 3); ``body`` the ``BodyConstants``.
    The largest joint gap after every self-iteration goes to ``history``. Returns the number of
    self-iterations done."""
    mass, joint_bodies, joint_arms, laplacian = body.mass, body.joint_bodies, body.joint_arms, body.laplacian
    n = quat.shape[0]
    ws_rot, ws_factors, ws_bj, ws_bt = np.empty((n, 3, 3)), np.empty(n), np.empty((3, 3)), np.empty((3, 3))
    ws_k, ws_a, ws_v, ws_q = np.empty((4, 4)), np.empty((4, 4)), np.empty((4, 4)), np.empty(4)
    ws_lambda, ws_lower, ws_grad = np.empty((n, n)), np.zeros((n, n)), np.empty((n, 3))
    mass_sq = 0.0
    for b in range(n):
        mass_sq += mass[b] * mass[b]
        quat_to_matrix_into(quat[b], ws_rot[b])
    done, slot = 0, 0
    for step in range(schedule.shape[0]):
        w1, w2, w3 = schedule[step, 0], schedule[step, 1] / mass_sq, schedule[step, 2] / body.laplacian_norm
        moving = w1 > 0.0
        for sweep in range(self_iterations):
            if moving:
                moving = orientation_sweep(quat, ws_rot, com, b_markers, norm_markers, w1, ws_factors, sweep == 0,
                                           joint_bodies, joint_arms, ws_bj, ws_bt, ws_k, ws_a, ws_v,
                                           ws_q) > ORIENTATION_TOLERANCE
                done += 1
            history[slot] = max_joint_gap(ws_rot, com, joint_bodies, joint_arms)
            slot += 1
        moving = w2 > 0.0 or w3 > 0.0
        if moving:
            for r in range(n):
                for c in range(n):
                    ws_lambda[r, c] = (1.0 if r == c else 0.0) + w2 * mass[r] * mass[c] + w3 * laplacian[r, c]
            cholesky_factor(ws_lambda, ws_lower)
        for _ in range(self_iterations):
            if moving:
                moving = cm_step(com, ws_rot, mass, target, joint_bodies, joint_arms, w2, w3, ws_lower,
                                 ws_grad) > STEP_TOLERANCE
                done += 1
            history[slot] = max_joint_gap(ws_rot, com, joint_bodies, joint_arms)
            slot += 1
    return done


@njit(cache=True, nogil=True)
def _algo_p_chunk(start, stop, quat, com, b_markers, norm_markers, target, body, schedule, self_iterations, history,
                  iterations):
    """Frames ``start:stop``, in place. Each chunk has its own copies of the model arrays and its own frame
    buffers, and touches the shared arrays only element by element (no views shared between threads)."""
    n = quat.shape[1]
    own_body, own_schedule = own_copy(body), schedule.copy()
    q_t, c_t, bm_t, nm_t = np.empty((n, 4)), np.empty((n, 3)), np.empty((n, 3, 3)), np.empty(n)
    tg_t, h_t = np.empty(3), np.empty(history.shape[1])
    for t in range(start, stop):
        for b in range(n):
            nm_t[b] = norm_markers[t, b]
            for r in range(4):
                q_t[b, r] = quat[t, b, r]
            for r in range(3):
                c_t[b, r] = com[t, b, r]
                for c in range(3):
                    bm_t[b, r, c] = b_markers[t, b, r, c]
        for r in range(3):
            tg_t[r] = target[t, r]
        iterations[t] = algo_p_frame(q_t, c_t, bm_t, nm_t, tg_t, own_body, own_schedule, self_iterations, h_t)
        for b in range(n):
            for r in range(4):
                quat[t, b, r] = q_t[b, r]
            for r in range(3):
                com[t, b, r] = c_t[b, r]
        for s in range(h_t.shape[0]):
            history[t, s] = h_t[s]


def algo_p(quat, com, b_markers, target, *, bodies, schedule, self_iterations):
    """Algo_p on every frame: ``quat`` (T, n, 4), ``com`` (T, n, 3) initial guesses, ``b_markers`` (T, n, 3, 3)
    marker products (``initial.marker_products``), ``target`` (T, 3) system CM, ``schedule`` (k_n, 3) weights.

    Returns ``(quat, com, history, iterations)``: P1, the largest joint gap after every self-iteration
    (T, 2 k_n j_n) and the self-iterations done per frame.
    """
    quat = np.array(quat, dtype=float, order="C")
    com = np.array(com, dtype=float, order="C")
    b_markers = np.ascontiguousarray(b_markers, dtype=float)
    norm_markers = np.linalg.svd(b_markers, compute_uv=False).sum(-1)  # ||K_o|| of eq. 8.3
    schedule = np.ascontiguousarray(schedule, dtype=float)
    history = np.empty((len(quat), 2 * len(schedule) * int(self_iterations)))
    iterations = np.zeros(len(quat), dtype=np.int64)
    in_parallel(_algo_p_chunk, len(quat), quat, com, b_markers, norm_markers, np.ascontiguousarray(target, float),
                body_constants(bodies), schedule, int(self_iterations), history, iterations)
    return quat, com, history, iterations

