"""OTM fast mode: the same problem as the paper mode, solved in the model's minimal (tree) coordinates.

Why it is the same problem: the tree joints parameterize the feasible set
Φ(x) = 0 of the natural coordinates exactly (``natural``: ``x = from_q(q)``),
and every tracked driving constraint is linear in ``x``, so
``min ½ Σ w |S x - d|²  s.t.  Φ(x) = 0`` is ``min ½ Σ w |S x(q) - d|²`` over
``q`` without constraints. Its Hessian is the paper's reduced Hessian seen
from the tangent space; it is positive definite exactly when the markers
determine every degree of freedom (appendix). ``||Φ||₂`` of a fast result
is evaluated on ``from_q(q)``, so both modes are judged by one tolerance.

Method: Newton's method with Levenberg–Marquardt damping (Nielsen's update)
on the generalized-velocity increments ``δ`` of ``solver.model.body`` (root
translation, body-frame rotation vectors of the root and ball joints, angle
increments), applied by the exponential map. From the tree: a point ``p``
on segment ``s`` moves by ``a_i × (p - o_i)`` per rotational DoF ``i`` of
the chain from the root to ``s`` (world axis ``a_i`` through the joint
centre ``o_i``) and by the unit vectors for the root translation, and its
second derivative for DoFs ``j`` upstream of ``i`` is ``a_j × (a_i × (p -
o_i))`` (symmetrized within a ball joint, whose three axes turn together).
Gauss–Newton matrix, gradient and the residual-curvature term are summed
marker by marker over these chains only (nv ≈ 30-40, dense Cholesky). Where
the exact Hessian is not positive definite the step falls back to
Gauss–Newton. A frame is accepted when the last step is no longer than the
tolerance (max-norm, metres and radians): a stationary point, as in the
paper mode.

Missing markers have weight zero. A joint whose DoFs no present marker
determines at the start point (zero pivot of the Gauss–Newton matrix,
Cholesky in tree order, ``_undetermined``) would leave the problem singular
(the appendix condition fails): it gets the prior
``½ PRIOR_WEIGHT Σ_k |R_c e_k - R_p R_start e_k|²``, which keeps its
relative rotation near the start point's (for a warm start: the previous
frame's) and is linear in natural coordinates, so the paper mode minimizes
the same objective. A frame in which even the root is undetermined has no
data: it is skipped (not converged, the start pose kept).

Starting points (``prepare_frame``, shared with the paper mode so that both
solve the same sequence of problems): the previous frame's solution (warm
start); the per-segment rigid fits (``solver.model.fit_segments``, Wahba's
problem per segment) at the first frame, after a frame that was skipped or
did not converge, and for the joints undetermined in the previous frame
(their markers came back after a gap). What the fit lacks comes from the
previous solution, else from ``default``.

``solve_trial`` processes the whole trial in one numba call. Small vectors
are handled by explicit loops: numpy's broadcasting machinery costs more
compile time than these kernels themselves.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..algorithms.kinematics import Data, dof_axes, forward_kinematics, joint_frame, make_data
from ..kernels import cholesky_factor, cholesky_substitute, copy_into, cross3_into, dot, inlined, rotate_into, small
from ..model.tree import BALL, FREE, UNIVERSAL

#: Weight of the relative-rotation prior on an undetermined joint (a marker has weight 1).
PRIOR_WEIGHT = 1e-4
#: A Gauss–Newton pivot below this fraction of the total marker weight is a DoF no marker determines.
UNDETERMINED = 1e-8
#: Initial Levenberg–Marquardt damping, relative to the Gauss–Newton diagonal, and where it gives up.
INITIAL_DAMPING, MAX_DAMPING = 1e-6, 1e20


class Work(NamedTuple):
    """Scratch arrays of one evaluation point: the tree's kinematics ``frame`` (poses), the world DoF
    axes, Gauss–Newton matrix ``gn`` (lower triangle), residual-curvature term ``second`` (lower
    triangle), gradient."""

    frame: Data
    axis: np.ndarray
    gn: np.ndarray
    second: np.ndarray
    gradient: np.ndarray
    factor: np.ndarray
    step: np.ndarray
    columns: np.ndarray
    point: np.ndarray
    residual: np.ndarray
    lever: np.ndarray
    bend: np.ndarray


@small
def _workspace(tree, chains):
    """Scratch arrays for one evaluation point (allocate once per trial)."""
    nv = tree.nv
    return Work(make_data(tree), np.zeros((nv, 3)), np.zeros((nv, nv)), np.zeros((nv, nv)), np.zeros(nv),
                np.zeros((nv, nv)), np.zeros(nv), np.zeros((chains.chain.shape[1], 3)), np.zeros(3), np.zeros(3),
                np.zeros(3), np.zeros(3))


# --- the Newton system -------------------------------------------------------------------------------------
@small
def _marker_columns(chains, s, point, axis, origin, columns, lever):
    """Jacobian columns (into ``columns``) of ``point`` on segment ``s``: ``a × (p - o)`` per rotational DoF of
    its chain (world ``axis``, joint ``origin``), the unit axes for the root translation."""
    for a in range(chains.chain_length[s]):
        i = chains.chain[s, a]
        if i < 3:
            for c in range(3):
                columns[a, c] = axis[i, c]
        else:
            for c in range(3):
                lever[c] = point[c] - origin[chains.dof_segment[i], c]
            cross3_into(axis[i], lever, columns[a])


@small
def _prior_columns(chains, s, first_own, point, residual, axis, columns):
    """Jacobian columns of the prior residual ``R_s e_k - R_parent t_k`` with ``point = R_s e_k``: the DoFs of
    joint ``s`` (from DoF ``first_own`` on) turn ``point`` only, the ancestors' turn the whole residual;
    translations do not move it."""
    for a in range(chains.chain_length[s]):
        i = chains.chain[s, a]
        if i < 3:
            for c in range(3):
                columns[a, c] = 0.0
        else:
            cross3_into(axis[i], point if i >= first_own else residual, columns[a])


@small
def _accumulate(chains, joint, s, residual, weight, axis, columns, bend, gradient, gn, second):
    """Add one weighted 3-vector residual with its Jacobian ``columns`` (the DoFs of the chain to segment ``s``)
    to the ``gradient``, ``gn`` and ``second`` (lower triangles); ``bend`` is scratch.

    Second derivative for DoF ``j`` upstream of ``i``: ``a_j × column_i`` (zero for translations),
    symmetrized between two axes of one ball or root joint.
    """
    for a in range(chains.chain_length[s]):
        i = chains.chain[s, a]
        gradient[i] += weight * dot(columns[a], residual)
        for b in range(a + 1):
            j = chains.chain[s, b]
            gn[i, j] += weight * dot(columns[a], columns[b])
            if j < 3:
                continue
            cross3_into(axis[j], columns[a], bend)
            curvature = dot(residual, bend)
            segment = chains.dof_segment[i]
            if i != j and segment == chains.dof_segment[j] and joint[segment] != UNIVERSAL:
                cross3_into(axis[i], columns[b], bend)
                curvature = 0.5 * (curvature + dot(residual, bend))
            second[i, j] += weight * curvature


@small
def _evaluate(tree, chains, q, measured, weights, prior, target, work):
    """Kinematics, then gradient, ``gn`` and ``second`` of markers and priors at ``q`` (into ``work``).

    Returns the marker objective ½ Σ w |p - d|² and the prior part."""
    forward_kinematics(tree, q, work.frame)
    dof_axes(tree, work.frame, work.axis)
    rot, pos, point, residual = work.frame.rot, work.frame.origin, work.point, work.residual
    axis, columns, bend, gradient, gn, second = work.axis, work.columns, work.bend, work.gradient, work.gn, work.second
    for i in range(tree.nv):
        gradient[i] = 0.0
        for j in range(i + 1):
            gn[i, j] = 0.0
            second[i, j] = 0.0
    markers = 0.0
    for m in range(len(chains.marker_segment)):
        if weights[m] <= 0.0:
            continue
        s = chains.marker_segment[m]
        rotate_into(rot[s], chains.marker_offset[m], point)
        for c in range(3):
            point[c] += pos[s, c]
            residual[c] = point[c] - measured[m, c]
        markers += 0.5 * weights[m] * dot(residual, residual)
        _marker_columns(chains, s, point, axis, pos, columns, work.lever)
        _accumulate(chains, tree.joint, s, residual, weights[m], axis, columns, bend, gradient, gn, second)
    priors = 0.0
    for s in range(1, len(tree.parent)):
        if not prior[s]:
            continue
        parent = rot[tree.parent[s]]
        for k in range(3):
            for c in range(3):  # R_p t_k: a column of ``target`` (not contiguous: no call to rotate_into)
                point[c] = rot[s, c, k]
                residual[c] = point[c] - (parent[c, 0] * target[s, 0, k] + parent[c, 1] * target[s, 1, k]
                                          + parent[c, 2] * target[s, 2, k])
            priors += 0.5 * PRIOR_WEIGHT * dot(residual, residual)
            _prior_columns(chains, s, tree.v_start[s], point, residual, axis, columns)
            _accumulate(chains, tree.joint, s, residual, PRIOR_WEIGHT, axis, columns, bend, gradient, gn, second)
    return markers, priors


@small
def _cholesky_solve(gn, second, gradient, with_second, damping, factor, step):
    """Solve (gn [+ second] + damping·diag(gn)) step = -gradient (``factor``: scratch); False if not positive
    definite."""
    n = len(step)
    largest = 0.0
    for i in range(n):
        largest = max(largest, gn[i, i])
    for i in range(n):  # the damped matrix's lower triangle, factored in place
        for j in range(i + 1):
            factor[i, j] = gn[i, j] + (second[i, j] if with_second else 0.0)
        factor[i, i] += damping * max(gn[i, i], 1e-9 * largest)
    if not cholesky_factor(factor, factor):
        return False
    for i in range(n):
        step[i] = -gradient[i]
    cholesky_substitute(factor, step, step)
    return True


@small
def _quat_times_exp(q, i, rx, ry, rz):
    """q[i:i+4] ← q ⊗ exp(r/2) (a body-frame rotation vector r), renormalized."""
    angle = np.sqrt(rx * rx + ry * ry + rz * rz)
    s = 0.5 if angle < 1e-12 else np.sin(0.5 * angle) / angle
    b0, b1, b2, b3 = np.cos(0.5 * angle), s * rx, s * ry, s * rz
    a0, a1, a2, a3 = q[i], q[i + 1], q[i + 2], q[i + 3]
    w = a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3
    x = a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2
    y = a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1
    z = a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0
    norm = np.sqrt(w * w + x * x + y * y + z * z)
    q[i], q[i + 1], q[i + 2], q[i + 3] = w / norm, x / norm, y / norm, z / norm


@small
def _retract(tree, q, step, out):
    """``out = q ⊕ step``: translations and angles add, quaternions turn by the exponential map."""
    copy_into(q, out)
    for s in range(len(tree.parent)):
        j, i, v = tree.joint[s], tree.q_start[s], tree.v_start[s]
        if j == FREE:
            for k in range(3):
                out[i + k] += step[v + k]
            _quat_times_exp(out, i + 3, step[v + 3], step[v + 4], step[v + 5])
        elif j == BALL:
            _quat_times_exp(out, i, step[v], step[v + 1], step[v + 2])
        else:
            for k in range(tree.n_dof[s]):
                out[i + k] += step[v + k]


# --- one frame -------------------------------------------------------------------------------------------
@small
def _free_dofs(chains, weights, gn, factor, out):
    """Flag in ``out`` the joints whose DoFs the markers leave free, from ``gn`` (markers only; ``factor``: scratch).

    Cholesky of the Gauss–Newton matrix in tree order: a pivot at most ``UNDETERMINED`` times the
    total marker weight is a free DoF, charged to the joint that owns it. True (and ``out[0]``) if
    the root has one: the frame has no data."""
    total_weight = 0.0
    for m in range(len(weights)):
        total_weight += weights[m]
    threshold = UNDETERMINED * total_weight
    for s in range(len(out)):
        out[s] = False
    for i in range(len(chains.dof_segment)):
        for j in range(i + 1):
            total = gn[i, j]
            for k in range(j):
                total -= factor[i, k] * factor[j, k]
            if i != j:
                factor[i, j] = total / factor[j, j]
            elif total > threshold:
                factor[i, i] = np.sqrt(total)
            else:  # a free DoF: eliminated, no coupling to the later ones
                out[chains.dof_segment[i]] = True
                for k in range(i):
                    factor[i, k] = 0.0
                factor[i, i] = 1.0
    out[0] = out[0] or total_weight <= 0.0
    return out[0]


@njit(cache=True)
def undetermined_joints(tree, chains, q, measured, weights, out):
    """``_free_dofs`` at ``q``: the joints that get the prior in this frame; True if the frame has no data."""
    work = _workspace(tree, chains)
    no_prior = np.zeros(len(tree.parent), dtype=np.bool_)
    _evaluate(tree, chains, q, measured, weights, no_prior, np.zeros((len(tree.parent), 3, 3)), work)
    return _free_dofs(chains, weights, work.gn, work.factor, out)


@njit(cache=True)
def prepare_frame(tree, previous, previous_ok, previous_undetermined, fit, default, start, target):
    """Start point of one frame (module docstring) into ``start`` (nq), and every joint's relative
    rotation there into ``target`` (S, 3, 3): the prior targets."""
    _prepare_frame(tree, previous, previous_ok, previous_undetermined, fit, default, start, target)


@small
def _prepare_frame(tree, previous, previous_ok, previous_undetermined, fit, default, start, target):
    copy_into(default if np.isnan(previous[0]) else previous, start)
    for s in range(len(tree.parent)):
        i, n = tree.q_start[s], tree.q_size[s]
        if n == 0 or (previous_ok and not previous_undetermined[s]):
            continue
        usable = True
        for k in range(i, i + n):
            usable = usable and not np.isnan(fit[k])
        if usable:
            for k in range(i, i + n):
                start[k] = fit[k]
    subspace = np.empty((len(tree.parent), 3, 3))
    for s in range(len(tree.parent)):
        joint_frame(tree.joint[s], tree.q_start[s], tree.axes, s, start, target[s], subspace)


@inlined
def _solve_frame(tree, chains, start, measured, weights, target, tolerance, max_iterations, q, undetermined, current,
                 candidate, trial):
    """Damped Newton from ``start`` into ``q`` (module docstring).

    First finds the joints the markers leave free at ``start`` (into ``undetermined``; they get the
    prior; a frame without data keeps ``start``). Returns (steps, converged, marker objective).
    ``current`` and ``candidate`` are two workspaces (the accepted point's system and the trial's);
    ``trial`` (nq) holds the trial coordinates."""
    gn, second, gradient, step = current.gn, current.second, current.gradient, current.step
    copy_into(start, trial)
    for s in range(len(undetermined)):
        undetermined[s] = False
    damping, growth = INITIAL_DAMPING, 2.0
    markers = priors = predicted = 0.0
    steps, checked, first, small, newton = 0, False, True, False, True
    while True:
        trial_markers, trial_priors = _evaluate(tree, chains, trial, measured, weights, undetermined, target, candidate)
        if not checked:
            checked = True
            if _free_dofs(chains, weights, candidate.gn, candidate.factor, undetermined):
                copy_into(start, q)
                return 0, False, np.nan
            any_prior = False
            for s in range(len(undetermined)):
                any_prior = any_prior or undetermined[s]
            if any_prior:
                continue  # evaluate the start again, with the priors
        gain = (markers + priors - trial_markers - trial_priors) / predicted if predicted > 0 else -1.0
        if first or gain > 0 or small:
            copy_into(candidate.gradient, gradient)
            copy_into(candidate.gn.ravel(), gn.ravel())
            copy_into(candidate.second.ravel(), second.ravel())
            copy_into(trial, q)
            markers, priors = trial_markers, trial_priors
            if small:
                return steps, True, markers
            if not first:
                damping *= max(1.0 / 3.0, 1.0 - (2.0 * gain - 1.0) ** 3)
                growth = 2.0
            first, newton = False, True
        elif newton:  # a rejected Newton step: try Gauss–Newton at the same damping
            newton = False
        else:
            damping *= growth
            growth *= 2.0
        if newton:  # ``newton`` as the flag, not a literal: one specialisation of ``_cholesky_solve``
            newton = _cholesky_solve(gn, second, gradient, newton, damping, current.factor, step)
        while not newton and not _cholesky_solve(gn, second, gradient, newton, damping, current.factor, step):
            damping *= 10.0
            if damping > MAX_DAMPING:  # only non-finite data get here
                return steps, False, markers
        steps += 1
        predicted = 0.0  # -(gᵀδ + ½ δᵀ M δ) with M's lower triangle
        largest = 0.0
        for i in range(tree.nv):
            curvature = gn[i, i] + (second[i, i] if newton else 0.0)
            predicted -= gradient[i] * step[i] + 0.5 * curvature * step[i] * step[i]
            for j in range(i):
                predicted -= (gn[i, j] + (second[i, j] if newton else 0.0)) * step[i] * step[j]
            largest = max(largest, abs(step[i]))
        small = largest <= tolerance
        if steps > max_iterations:
            return max_iterations, False, markers
        _retract(tree, q, step, trial)


@njit(cache=True, nogil=True)
def solve_trial(tree, chains, measured, weights, fit, default, tolerance, max_iterations, previous, previous_ok,
                previous_undetermined):
    """Every frame in order, warm-started (module docstring). The state before the first frame is
    ``previous`` (nq, NaN for none), ``previous_ok`` and ``previous_undetermined`` (S), so a long
    trial can be solved in chunks.

    Returns q (T, nq), steps (T,), converged (T,), marker objective (T,), undetermined joints (T, S);
    ``undetermined[t, 0]`` marks a frame without data."""
    n_frames, n_seg = measured.shape[0], len(tree.parent)
    q = np.empty((n_frames, tree.nq))
    steps = np.zeros(n_frames, dtype=np.int64)
    converged = np.zeros(n_frames, dtype=np.bool_)
    objective = np.full(n_frames, np.nan)
    undetermined = np.zeros((n_frames, n_seg), dtype=np.bool_)
    previous, previous_undetermined = previous.copy(), previous_undetermined.copy()
    start, trial = np.empty(tree.nq), np.empty(tree.nq)
    target = np.empty((n_seg, 3, 3))
    current, candidate = _workspace(tree, chains), _workspace(tree, chains)
    for t in range(n_frames):
        _prepare_frame(tree, previous, previous_ok, previous_undetermined, fit[t], default, start, target)
        steps[t], converged[t], objective[t] = _solve_frame(
            tree, chains, start, measured[t], weights[t], target, tolerance, max_iterations, q[t], undetermined[t],
            current, candidate, trial)
        copy_into(q[t], previous)
        copy_into(undetermined[t], previous_undetermined)
        previous_ok = converged[t]
    return q, steps, converged, objective, undetermined
