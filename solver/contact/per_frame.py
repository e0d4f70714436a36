"""Contact forces solved frame by frame at the contact points the estimated surface makes active.

An extension of Brubaker, Sigal & Fleet (2009), not in the paper. Its
spring model (eqs. 4-7) makes a point's force a function of the point's
height and velocity alone; a foot in stance hardly moves, so the spring
cannot follow the double hump of walking's vertical force nor produce the
fore-aft force that a static foot transmits (a tangential *damper* pushes
only a sliding foot). Here the surfaces are still estimated by the paper's
method (eq. 10), but the forces are then the unknowns of each frame, as in
Fluit et al. (2014) and Skals et al. (2017):

    f_k = W Σ_e c_ke e_ke,   min_{c >= 0}  Σ_i w_i (r_i/W - (A f/W)_i)²  +  λ Σ_k Σ_e c_ke² / h_k      (*)

where ``r`` is the frame's root wrench without contact (eq. 9), ``A`` maps
point forces to the root wrench they explain (``point_force_root_map``),
``w`` weighs the torque rows by ``torque_weight`` [m⁻²] as in eq. 10, ``W``
is the body weight, ``e_ke`` are the four edges ``n ± μ t₁``, ``n ± μ t₂``
(normalised) of the friction pyramid of point ``k`` on the surface nearest
to it (a pyramid inside the friction cone, so every force pushes and
``|f_t| <= μ f_n``), and ``h_k = h(-G_d d_S(p_k))`` is eq. 4's distance
sigmoid: the Tikhonov term makes a point far from the surface (small
``h_k``) expensive to load and shares the load evenly among points equally
close to it. (*) is a non-negative least squares problem per frame, solved exactly by
Lawson and Hanson's active-set method. Its unconstrained solve on the free
edges ``P`` reduces to 6×6: with the weighted columns ``M`` (6, n), the
scaled wrench ``b`` and the diagonal ``D`` of the Tikhonov term,
``(M_Pᵀ M_P + D_P) z = M_Pᵀ b`` is solved by the push-through identity as
``z = D_P⁻¹ M_Pᵀ y`` with ``(I + M_P D_P⁻¹ M_Pᵀ) y = b``, so an iteration
costs O(6² |P|) however many points touch. Each frame starts from the edges
that were free in the frame before (consecutive frames share their contact
set), and the frames are cut into one chunk per thread (numba).

Choices (each a field of ``PerFrameOptions``): ``friction`` μ = 0.8 (shoe on
a lab floor; walking needs about 0.2-0.3), ``regularisation`` λ = 1e-3 (a
fully active point pushing with a quarter of the body weight costs as much
as a root force of 0.5 % of it), ``min_activation`` 1e-3 (points less active
than that — 5.8 cm off a surface — carry nothing). The forces then cancel the
root wrench as far as the cones and the points near the surface allow, so
the fraction of the root force "explained" says little here (noise is
explained too); compare with force plates instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from ..dynamics.spatial import add, chunks, cross, dot, row, row2, scale, sub
from ..errors import SolverError
from ..kernels import cholesky_factor, cholesky_substitute
from .model import ContactConstants, SurfaceArrays, active_face, sigmoid

#: An NNLS iteration stops adding a cone edge whose gradient is below this (problems scaled to body weight).
NNLS_TOLERANCE = 1e-12


@dataclass(frozen=True)
class PerFrameOptions:
    """Friction coefficient μ, Tikhonov weight λ (body-weight units) and the activation below which a point
    carries nothing (see the module docstring)."""

    friction: float = 0.8
    regularisation: float = 1e-3
    min_activation: float = 1e-3

    def __post_init__(self):
        for name in ("friction", "regularisation", "min_activation"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and value > 0):
                raise SolverError(f"Per-frame contact option {name} = {value!r} is not a positive number",
                                  "e.g. friction=0.8, regularisation=1e-3")


@njit(cache=True)
def _free_solve(columns, penalty, passive, b, scratch, lower, y, z):
    """``z`` on the free edges: ``(M_Pᵀ M_P + D_P) z = M_Pᵀ b`` by the push-through identity (docstring)."""
    for i in range(6):
        for j in range(6):
            scratch[i, j] = 1.0 if i == j else 0.0
    for a in range(len(penalty)):
        if passive[a]:
            for i in range(6):
                for j in range(i + 1):
                    scratch[i, j] += columns[i, a] * columns[j, a] / penalty[a]
    cholesky_factor(scratch, lower)
    cholesky_substitute(lower, b, y)
    for a in range(len(penalty)):
        z[a] = 0.0
        if passive[a]:
            for i in range(6):
                z[a] += columns[i, a] * y[i]
            z[a] /= penalty[a]


@njit(cache=True)
def _feasible_free_set(columns, penalty, passive, b, x, scratch, lower, y, z):
    """Lawson & Hanson's inner loop: from the feasible ``x``, step towards the free-set solution ``z``, dropping
    the edges that reach zero, until every free edge is positive; then ``x = z``."""
    n = len(penalty)
    for _ in range(n + 1):
        _free_solve(columns, penalty, passive, b, scratch, lower, y, z)
        step = 1.0
        for a in range(n):
            if passive[a] and z[a] <= 0.0:
                step = min(step, x[a] / (x[a] - z[a]))
        if step == 1.0:
            break
        for a in range(n):
            if passive[a]:
                x[a] += step * (z[a] - x[a])
                if x[a] <= NNLS_TOLERANCE:
                    x[a], passive[a] = 0.0, False
    for a in range(n):
        x[a] = z[a] if passive[a] else 0.0


@njit(cache=True)
def nnls_tikhonov(columns, penalty, b, passive, x):
    """``argmin_{x >= 0} |b - M x|² + Σ_a penalty_a x_a²`` for ``M = columns`` (6, n) (Lawson & Hanson's
    active-set NNLS, the free-set solve by ``_free_solve``). ``passive`` (n,) is the starting guess of the
    free set (e.g. the previous frame's), overwritten with the final one; the result goes to ``x``."""
    n = len(penalty)
    scratch, lower = np.empty((6, 6)), np.empty((6, 6))
    y, z, residual = np.empty(6), np.empty(n), np.empty(6)
    x[:] = 0.0
    _feasible_free_set(columns, penalty, passive, b, x, scratch, lower, y, z)
    for _ in range(3 * n):  # free the edge that most lowers the objective, then restore feasibility
        for i in range(6):
            residual[i] = b[i]
            for a in range(n):
                residual[i] -= columns[i, a] * x[a]
        best, j = NNLS_TOLERANCE, -1
        for a in range(n):
            if not passive[a]:
                gradient = -penalty[a] * x[a]
                for i in range(6):
                    gradient += columns[i, a] * residual[i]
                if gradient > best:
                    best, j = gradient, a
        if j < 0:
            break
        passive[j] = True
        _feasible_free_set(columns, penalty, passive, b, x, scratch, lower, y, z)


@njit(cache=True)
def _cone_edges(normal, friction):
    """The four edges (4, 3) of the friction pyramid about the unit ``normal`` (a 3-tuple), unit length."""
    t1 = cross(normal, (1.0, 0.0, 0.0) if abs(normal[0]) < 0.9 else (0.0, 1.0, 0.0))
    t1 = scale(1.0 / np.sqrt(dot(t1, t1)), t1)
    t2 = cross(normal, t1)
    edges = np.empty((4, 3))
    for e, (tangent, sign) in enumerate(((t1, 1.0), (t1, -1.0), (t2, 1.0), (t2, -1.0))):
        edge = scale(1.0 / np.sqrt(1.0 + friction ** 2), add(normal, scale(sign * friction, tangent)))
        edges[e, 0], edges[e, 1], edges[e, 2] = edge[0], edge[1], edge[2]
    return edges


@njit(cache=True)
def _solve_chunk(first, last, residual, root_origin, points, normals, offsets, first_face, constants, weight, rows,
                 friction, regularisation, min_activation, forces, surface_of):
    """Frames ``first .. last - 1`` in order, each starting from the free edges of the one before."""
    n_points = points.shape[1]
    was_free = np.zeros((n_points, 4), dtype=np.bool_)
    activation = np.zeros(n_points)
    nearest = np.zeros(n_points, dtype=np.int64)
    columns = np.empty((6, 4 * n_points))
    penalty = np.empty(4 * n_points)
    edges = np.empty((n_points, 4, 3))
    b = np.empty(6)
    for t in range(first, last):
        if not (np.all(np.isfinite(residual[t])) and np.all(np.isfinite(points[t]))):
            was_free[:] = False
            continue
        forces[t] = 0.0
        n = 0
        for k in range(n_points):  # the surface that makes the point most active (eq. 4's distance sigmoid)
            activation[k] = 0.0
            for s in range(len(first_face) - 1):
                f, d = active_face(normals, offsets, first_face[s], first_face[s + 1], row2(points, t, k))
                h = sigmoid(-constants[0] * d)
                if h > activation[k]:
                    activation[k], nearest[k], surface_of[t, k] = h, f, s
            if activation[k] > min_activation:
                n += 4
        if n == 0:
            was_free[:] = False
            continue
        active = np.flatnonzero(activation > min_activation)
        passive = np.zeros(n, dtype=np.bool_)
        for m in range(len(active)):  # each edge's root wrench [e; (p - o) × e] (point_force_root_map), weighted
            k = active[m]
            edges[m] = _cone_edges(row(normals, nearest[k]), friction)
            arm = sub(row2(points, t, k), row(root_origin, t))
            for e in range(4):
                edge = row2(edges, m, e)
                moment = cross(arm, edge)
                for i in range(3):
                    columns[i, 4 * m + e] = rows[i] * edge[i]
                    columns[3 + i, 4 * m + e] = rows[3 + i] * moment[i]
                penalty[4 * m + e] = regularisation / activation[k]
                passive[4 * m + e] = was_free[k, e]
        for i in range(6):
            b[i] = rows[i] * residual[t, i] / weight
        c = np.empty(n)
        nnls_tikhonov(columns[:, :n], penalty[:n], b, passive, c)
        was_free[:] = False
        for m in range(len(active)):
            for e in range(4):
                was_free[active[m], e] = passive[4 * m + e]
                for i in range(3):
                    forces[t, active[m], i] += weight * c[4 * m + e] * edges[m, e, i]


@njit(cache=True, parallel=True)
def _solve_frames(residual, root_origin, points, normals, offsets, first_face, constants, weight, torque_weight,
                  friction, regularisation, min_activation, n_chunks):
    n_frames = points.shape[0]
    forces = np.full(points.shape, np.nan)
    surface_of = np.zeros(points.shape[:2], dtype=np.int64)
    rows = np.array([1.0, 1.0, 1.0, np.sqrt(torque_weight), np.sqrt(torque_weight), np.sqrt(torque_weight)])
    for c in prange(n_chunks):
        _solve_chunk(c * n_frames // n_chunks, (c + 1) * n_frames // n_chunks, residual, root_origin, points,
                     normals, offsets, first_face, constants, weight, rows, friction, regularisation,
                     min_activation, forces, surface_of)
    return forces, surface_of


def per_frame_forces(residual: np.ndarray, root_origin: np.ndarray, points: np.ndarray, surfaces, weight: float,
                     torque_weight: float = 1.0, options: PerFrameOptions = PerFrameOptions(),
                     constants: ContactConstants = ContactConstants()) -> np.ndarray:
    """Point forces per surface (S, T, K, 3) [N] of (*) for root wrenches ``residual`` (T, 6) without
    contact, about ``root_origin`` (T, 3), at contact points ``points`` (T, K, 3) near ``surfaces`` (each
    point pushed by the surface that makes it most active); ``weight`` [N] the body weight. NaN in frames
    without a root wrench or a pose."""
    if not weight > 0:
        raise SolverError("Per-frame contact forces need a positive body weight", "check the body model's mass")
    arrays = SurfaceArrays(surfaces)
    points = np.ascontiguousarray(points, dtype=float)
    forces, surface_of = _solve_frames(
        np.ascontiguousarray(residual, dtype=float), np.ascontiguousarray(root_origin, dtype=float), points,
        arrays.normals, arrays.offsets, arrays.first_face, constants.array(), float(weight), float(torque_weight),
        float(options.friction), float(options.regularisation), float(options.min_activation), chunks(len(points)))
    by_surface = np.zeros((len(arrays.first_face) - 1,) + points.shape)
    t, k = np.indices(surface_of.shape)
    by_surface[surface_of, t, k] = forces
    return by_surface
