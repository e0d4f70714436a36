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
close to it. (*) is a non-negative least squares problem per frame, solved
exactly by Lawson and Hanson's active-set method on its normal equations
(numba, all frames in one call).

Choices (each a field of ``PerFrameOptions``): ``friction`` μ = 0.8 (shoe on
a lab floor; walking needs about 0.2-0.3), ``regularisation`` λ = 1e-3 (a
fully active point pushing with a quarter of the body weight costs as much
as a root force of 0.5 % of it), ``min_activation`` 1e-6 (points less active than
that carry nothing). The forces then cancel the root wrench as far as the
cones and the points near the surface allow, so the fraction of the root
force "explained" says little here (noise is explained too); compare with
force plates instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..dynamics.spatial import add, cross, dot, row, row2, scale, sub
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
    min_activation: float = 1e-6

    def __post_init__(self):
        for name in ("friction", "regularisation", "min_activation"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and value > 0):
                raise SolverError(f"Per-frame contact option {name} = {value!r} is not a positive number",
                                  "e.g. friction=0.8, regularisation=1e-3")


@njit(cache=True)
def nnls_gram(gram, rhs):
    """``argmin_{x >= 0} ½ xᵀ G x - hᵀx`` for a symmetric positive definite ``G`` (Lawson & Hanson's
    active-set NNLS on the normal equations, as in Bro & de Jong 1997). Loops rather than ``@`` and
    ``np.linalg.solve``: numba compiles them in a fraction of the time."""
    n = len(rhs)
    x = np.zeros(n)
    passive = np.zeros(n, dtype=np.bool_)
    for _ in range(3 * n):  # each pass frees the edge that most lowers the objective
        best, j = NNLS_TOLERANCE, -1
        for i in range(n):
            if not passive[i]:
                gradient = rhs[i]
                for m in range(n):
                    gradient -= gram[i, m] * x[m]
                if gradient > best:
                    best, j = gradient, i
        if j < 0:
            break
        passive[j] = True
        for _ in range(n):  # solve on the free edges; step back to the boundary while one would go negative
            idx = np.flatnonzero(passive)
            z = rhs[idx]
            free = gram[idx][:, idx]
            cholesky_factor(free, free)  # positive definite: a principal block of G
            cholesky_substitute(free, z, z)
            if np.all(z > 0):
                x[:] = 0.0
                x[idx] = z
                break
            step = 1.0
            for m in range(len(idx)):
                if z[m] <= 0:
                    step = min(step, x[idx[m]] / (x[idx[m]] - z[m]))
            for m in range(len(idx)):
                x[idx[m]] += step * (z[m] - x[idx[m]])
                if x[idx[m]] <= NNLS_TOLERANCE:
                    x[idx[m]], passive[idx[m]] = 0.0, False
    return x


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
def _solve_frames(residual, root_origin, points, normals, offsets, first_face, constants, weight, torque_weight,
                  friction, regularisation, min_activation):
    n_frames, n_points = points.shape[0], points.shape[1]
    forces = np.full((n_frames, n_points, 3), np.nan)
    rows = np.array([1.0, 1.0, 1.0, np.sqrt(torque_weight), np.sqrt(torque_weight), np.sqrt(torque_weight)])
    for t in range(n_frames):
        if not (np.all(np.isfinite(residual[t])) and np.all(np.isfinite(points[t]))):
            continue
        forces[t] = 0.0
        activation = np.zeros(n_points)
        nearest = np.zeros(n_points, dtype=np.int64)
        for k in range(n_points):  # the surface that makes the point most active (eq. 4's distance sigmoid)
            for s in range(len(first_face) - 1):
                f, d = active_face(normals, offsets, first_face[s], first_face[s + 1], row2(points, t, k))
                h = sigmoid(-constants[0] * d)
                if h > activation[k]:
                    activation[k], nearest[k] = h, f
        active = np.flatnonzero(activation > min_activation)
        n = 4 * len(active)
        if n == 0:
            continue
        columns = np.empty((6, n))  # each edge's root wrench [e; (p - o) × e] (point_force_root_map), weighted
        penalty = np.empty(n)
        edges = np.empty((len(active), 4, 3))
        for m in range(len(active)):
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
        gram = np.empty((n, n))
        rhs = np.empty(n)
        for a in range(n):
            rhs[a] = 0.0
            for i in range(6):
                rhs[a] += columns[i, a] * rows[i] * residual[t, i] / weight
            for b in range(a + 1):
                value = penalty[a] if a == b else 0.0
                for i in range(6):
                    value += columns[i, a] * columns[i, b]
                gram[a, b] = gram[b, a] = value
        c = nnls_gram(gram, rhs)
        for m in range(len(active)):
            for e in range(4):
                for i in range(3):
                    forces[t, active[m], i] += weight * c[4 * m + e] * edges[m, e, i]
    return forces


def per_frame_forces(residual: np.ndarray, root_origin: np.ndarray, points: np.ndarray, surfaces, weight: float,
                     torque_weight: float = 1.0, options: PerFrameOptions = PerFrameOptions(),
                     constants: ContactConstants = ContactConstants()) -> np.ndarray:
    """Point forces (T, K, 3) [N] of (*) for root wrenches ``residual`` (T, 6) without contact, about
    ``root_origin`` (T, 3), at contact points ``points`` (T, K, 3) near ``surfaces``; ``weight`` [N] the body
    weight. NaN in frames without a root wrench or a pose."""
    if not weight > 0:
        raise SolverError("Per-frame contact forces need a positive body weight", "check the body model's mass")
    arrays = SurfaceArrays(surfaces)
    return _solve_frames(np.ascontiguousarray(residual, dtype=float), np.ascontiguousarray(root_origin, dtype=float),
                         np.ascontiguousarray(points, dtype=float), arrays.normals,
                         arrays.offsets, arrays.first_face, constants.array(), float(weight), float(torque_weight),
                         float(options.friction), float(options.regularisation), float(options.min_activation))
