"""Natural coordinates of a ``BodyModel`` (García de Jalón & Bayo 1993; Ausejo et al. §2).

Coordinates ``x`` (length ``n``), per *body* then per relative coordinate:

- a body is a segment with its own coordinates: every segment except welds.
  A welded segment rides on its parent's body (weld rotations are the
  identity, ``solver.model.body``), so its frame is the body frame shifted
  by the welds' joint offsets; it adds no coordinates and no constraints.
- each body ``b`` has 12 coordinates: the basic point ``r`` (the segment
  frame's origin, its proximal joint centre) and the unit vectors ``u, v, w``
  (the frame's X, Y, Z axes) in world coordinates. A point at ``a`` in the body
  frame is ``r + a_x u + a_y v + a_z w`` and a direction ``R a = a_x u +
  a_y v + a_z w``: linear in ``x``. So model markers are ``S x`` with a
  constant ``S`` (``marker_matrix``) and the objective ½ Ψᵀ W Ψ, Ψ = S x - d,
  is quadratic with the constant Hessian Sᵀ W S (eqs. 1, 3, 4).
- relative coordinates (§2, "relative coordinate constraints"): the cosine and
  sine of every hinge angle, and of both universal angles, in segment order.
  They make the joint angles part of the solution and can be driven
  (eqs. 12-13: a locked knee is two linear driving constraints, one of them
  redundant with the implicit c² + s² = 1).

Constraints ``Φ(x) = 0`` (length ``m``), every one linear or quadratic:

- rigid body, 6 per body: ``u·u = 1``, ``v·v = 1``, ``u·v = 0``, ``u × v - w = 0``.
  The cross product (instead of the three dot products with ``w``) keeps
  every frame right-handed: the dot-product form also admits reflections.
- ball joint (child ``c``, parent body ``p``, joint offset ``o`` in ``p``'s
  frame), 3 linear: ``r_c - r_p - R_p o = 0``.
- hinge about ``a`` (the same in the parent and child frames): ball plus the
  3 linear ``R_c a - R_p a = 0``. Only 2 of these 3 are independent at a
  solution (``|R_c a| = 1`` already follows from the rigid-body constraints):
  one *redundant* constraint per hinge, the situation OTM is built for (§4.1).
  Relative coordinates: with ``b ⊥ a`` (unit), ``cos θ = (R_p b)·(R_c b)``,
  ``sin θ = (R_p (a × b))·(R_c b)``.
- universal ``R = R(a0, θ0) R(a1, θ1)``: ball plus the quadratic
  ``(R_p a0)·(R_c a1) = a0·a1``. Relative coordinates, with
  ``a1⊥ = a1 - (a0·a1) a0`` and ``a0⊥ = a0 - (a0·a1) a1``:
  ``cos θ0 = (R_p a1⊥)·(R_c a1) / |a1⊥|²``, ``sin θ0 = (R_p (a0 × a1⊥))·(R_c a1) / |a1⊥|²``,
  ``cos θ1 = (R_p a0)·(R_c a0⊥) / |a0⊥|²``, ``sin θ1 = (R_p a0)·(R_c (a0⊥ × a1)) / |a0⊥|²``.
- free root: none.

So ``n - rank Φ_x = model.nv`` at every solution, and ``m - rank Φ_x`` (the
redundant count) is the number of hinges. Every constraint is stored as
``Φ_i(x) = Σ c x_j x_k + Σ l x_j + k_i``: its Jacobian has linear or constant
entries and ``Φ(x + α Δ) = Φ(x) + α Φ_x Δ + α² Φ₂(Δ)`` exactly, which the
line searches of ``otm`` use.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
from scipy import sparse

from ..model.body import BodyModel
from ..rotations import matrix_to_quat

#: Coordinates per body: r, u, v, w.
BODY_SIZE = 12
#: Relative coordinates per joint type (cos, sin per angle).
RELATIVE_SIZE = {"hinge": 2, "universal": 4}


def _unit_perpendicular(a: np.ndarray) -> np.ndarray:
    """A unit vector perpendicular to unit ``a``."""
    helper = np.eye(3)[np.argmin(np.abs(a))]
    b = np.cross(a, helper)
    return b / np.linalg.norm(b)


class _Builder:
    """Collects constraints as quadratic terms (row, j, k, c), linear terms (row, j, l) and constants."""

    def __init__(self, n: int):
        self.n = n
        self.quadratic: list[tuple[int, int, int, float]] = []
        self.linear: list[tuple[int, int, float]] = []
        self.constant: list[float] = []
        self.kinds: list[str] = []

    def row(self, kind: str, linear: np.ndarray | None = None, constant: float = 0.0) -> int:
        i = len(self.constant)
        self.constant.append(constant)
        self.kinds.append(kind)
        if linear is not None:
            self.linear += [(i, j, float(c)) for j, c in enumerate(linear) if c != 0.0]
        return i

    def bilinear(self, i: int, left: np.ndarray, right: np.ndarray, scale: float = 1.0) -> None:
        """Add ``scale · (left x)·(right x)`` to row ``i``; ``left``, ``right`` are (3, n) linear maps."""
        for c in range(3):
            for j in np.flatnonzero(left[c]):
                for k in np.flatnonzero(right[c]):
                    self.quadratic.append((i, int(j), int(k), scale * left[c, j] * right[c, k]))


@dataclass(frozen=True, eq=False)
class NaturalModel:
    """A ``BodyModel`` in natural coordinates; see the module docstring for the layout.

    ``bodies`` are the segments that own coordinates; ``body_of[s]`` is the
    body carrying segment ``s`` and ``origin_in_body[s]`` the segment's origin
    in that body's frame. ``relative_start[s]`` is the index in ``x`` of a
    hinge/universal segment's first relative coordinate (-1 otherwise).
    ``kinds[i]`` names the family of constraint ``i`` (rigid, joint, relative).
    """

    model: BodyModel
    bodies: np.ndarray
    body_of: np.ndarray
    origin_in_body: np.ndarray
    relative_start: np.ndarray
    n: int
    m: int
    kinds: tuple[str, ...]
    quad_row: np.ndarray
    quad_j: np.ndarray
    quad_k: np.ndarray
    quad_c: np.ndarray
    lin_row: np.ndarray
    lin_j: np.ndarray
    lin_c: np.ndarray
    constant: np.ndarray

    # --- layout -----------------------------------------------------------------------------------
    @property
    def redundant(self) -> int:
        """Constraints not independent at a solution (one per hinge): ``m - (n - nv)``."""
        return self.m - (self.n - self.model.nv)

    def body_start(self, segment: int) -> int:
        """Index in ``x`` of the basic point of the body carrying ``segment``."""
        return BODY_SIZE * int(self.body_of[segment])

    def point_map(self, segment: int, local: np.ndarray) -> np.ndarray:
        """(3, n) matrix ``P`` with ``P x`` the world position of ``local`` (segment frame)."""
        out = self.vector_map(segment, self.origin_in_body[segment] + np.asarray(local, float))
        start = self.body_start(segment)
        out[:, start:start + 3] += np.eye(3)
        return out

    def vector_map(self, segment: int, local: np.ndarray) -> np.ndarray:
        """(3, n) matrix ``V`` with ``V x = R_segment local`` (a direction in world)."""
        out = np.zeros((3, self.n))
        start = self.body_start(segment)
        for axis in range(3):
            out[:, start + 3 * (axis + 1):start + 3 * (axis + 2)] = np.asarray(local, float)[axis] * np.eye(3)
        return out

    def marker_matrix(self) -> np.ndarray:
        """``S`` (3M, n): rows ``3i..3i+2`` give model marker ``i`` (``marker_labels`` order) as ``S x``."""
        rows = [self.point_map(k, offset) for k, s in enumerate(self.model.segments) for offset in s.marker_offsets]
        return np.concatenate(rows) if rows else np.zeros((0, self.n))

    # --- constraints ------------------------------------------------------------------------------
    def constraints(self, x: np.ndarray) -> np.ndarray:
        """``Φ(x)`` for ``x`` of shape (..., n) -> (..., m)."""
        x = np.asarray(x, dtype=float)
        flat = x.reshape(-1, self.n)
        products = flat[:, self.quad_j] * flat[:, self.quad_k]
        out = (self._quadratic_sum @ products.T + self._linear @ flat.T).T + self.constant
        return out.reshape(x.shape[:-1] + (self.m,))

    @cached_property
    def _quadratic_sum(self) -> sparse.csr_matrix:
        """(m, terms): sums the quadratic terms ``c x_j x_k`` into their rows."""
        return sparse.csr_matrix((self.quad_c, (self.quad_row, np.arange(len(self.quad_c)))),
                                 shape=(self.m, len(self.quad_c)))

    @cached_property
    def _linear(self) -> sparse.csr_matrix:
        """(m, n): the linear part of Φ."""
        return sparse.csr_matrix((self.lin_c, (self.lin_row, self.lin_j)), shape=(self.m, self.n))

    def jacobian(self, x: np.ndarray) -> np.ndarray:
        """``Φ_x`` (m, n) at one point ``x``; entries are linear in ``x`` or constant."""
        x = np.asarray(x, dtype=float)
        index = np.concatenate([self.quad_row * self.n + self.quad_j, self.quad_row * self.n + self.quad_k,
                                self.lin_row * self.n + self.lin_j])
        values = np.concatenate([self.quad_c * x[self.quad_k], self.quad_c * x[self.quad_j], self.lin_c])
        return np.bincount(index, values, minlength=self.m * self.n).reshape(self.m, self.n)

    def second_order(self, step: np.ndarray) -> np.ndarray:
        """``Φ₂(Δ)``: ``Φ(x + αΔ) = Φ(x) + α Φ_x Δ + α² Φ₂(Δ)`` exactly (every constraint is quadratic)."""
        terms = self.quad_c * step[self.quad_j] * step[self.quad_k]
        return np.bincount(self.quad_row, terms, minlength=self.m)

    # --- conversions ------------------------------------------------------------------------------
    def from_q(self, q: np.ndarray) -> np.ndarray:
        """Natural coordinates (..., n) of generalized coordinates ``q`` (..., nq); ``Φ = 0`` there."""
        q = np.asarray(q, dtype=float)
        rot, pos = self.model.forward_kinematics(q)
        x = np.empty(q.shape[:-1] + (self.n,))
        for b, s in enumerate(self.bodies):
            start = BODY_SIZE * b
            x[..., start:start + 3] = pos[..., s, :]
            x[..., start + 3:start + 12] = np.swapaxes(rot[..., s, :, :], -1, -2).reshape(q.shape[:-1] + (9,))
        for s, (segment, qs) in enumerate(zip(self.model.segments, self.model.q_starts)):
            start = self.relative_start[s]
            for angle in range(RELATIVE_SIZE.get(segment.joint, 0) // 2):
                x[..., start + 2 * angle] = np.cos(q[..., qs + angle])
                x[..., start + 2 * angle + 1] = np.sin(q[..., qs + angle])
        return x

    def rotations(self, x: np.ndarray) -> np.ndarray:
        """Body rotation matrices (..., B, 3, 3): columns u, v, w."""
        x = np.asarray(x, dtype=float)
        frames = x[..., :BODY_SIZE * len(self.bodies)].reshape(x.shape[:-1] + (len(self.bodies), 4, 3))
        return np.swapaxes(frames[..., 1:, :], -1, -2)

    def to_q(self, x: np.ndarray) -> np.ndarray:
        """Generalized coordinates (..., nq) of natural coordinates ``x`` (..., n) (at a solution of Φ = 0).

        Root position = its basic point; quaternions of the (relative) body rotations; hinge and
        universal angles = atan2 of their relative coordinates.
        """
        x = np.asarray(x, dtype=float)
        rot = self.rotations(x)
        q = np.empty(x.shape[:-1] + (self.model.nq,))
        q[..., 0:3] = x[..., 0:3]
        q[..., 3:7] = matrix_to_quat(rot[..., 0, :, :])
        for s, (segment, qs) in enumerate(zip(self.model.segments[1:], self.model.q_starts[1:]), start=1):
            if segment.joint == "ball":
                parent = rot[..., self.body_of[segment.parent], :, :]
                q[..., qs:qs + 4] = matrix_to_quat(np.swapaxes(parent, -1, -2) @ rot[..., self.body_of[s], :, :])
            start = self.relative_start[s]
            for angle in range(RELATIVE_SIZE.get(segment.joint, 0) // 2):
                q[..., qs + angle] = np.arctan2(x[..., start + 2 * angle + 1], x[..., start + 2 * angle])
        return q


def natural_model(model: BodyModel) -> NaturalModel:
    """Natural coordinates and constraints of ``model`` (see the module docstring)."""
    segments = model.segments
    bodies = [k for k, s in enumerate(segments) if s.joint != "weld"]
    body_of = np.empty(len(segments), dtype=int)
    origin = np.zeros((len(segments), 3))
    for k, s in enumerate(segments):
        if s.joint == "weld":
            body_of[k] = body_of[s.parent]
            origin[k] = origin[s.parent] + s.joint_offset
        else:
            body_of[k] = bodies.index(k)
    relative_start = np.full(len(segments), -1, dtype=int)
    n = BODY_SIZE * len(bodies)
    for k, s in enumerate(segments):
        if s.joint in RELATIVE_SIZE:
            relative_start[k] = n
            n += RELATIVE_SIZE[s.joint]
    empty_int, empty = np.zeros(0, dtype=int), np.zeros(0)
    unconstrained = NaturalModel(model, np.array(bodies), body_of, origin, relative_start, n, 0, (),
                                 empty_int, empty_int, empty_int, empty, empty_int, empty_int, empty, empty)
    build = _Builder(n)
    for b in range(len(bodies)):
        _rigid_body(build, b)
    for k, s in enumerate(segments):
        if s.joint in ("ball", "hinge", "universal"):
            _joint(build, unconstrained, k)
    for k, s in enumerate(segments):
        if s.joint in RELATIVE_SIZE:
            _relative(build, unconstrained, k)
    quad = np.array(build.quadratic, dtype=float).reshape(-1, 4)
    lin = np.array(build.linear, dtype=float).reshape(-1, 3)
    return replace(
        unconstrained, m=len(build.constant), kinds=tuple(build.kinds),
        quad_row=quad[:, 0].astype(int), quad_j=quad[:, 1].astype(int), quad_k=quad[:, 2].astype(int),
        quad_c=quad[:, 3], lin_row=lin[:, 0].astype(int), lin_j=lin[:, 1].astype(int), lin_c=lin[:, 2],
        constant=np.array(build.constant))


def _selector(n: int, start: int) -> np.ndarray:
    """(3, n) map picking the 3-vector at ``start``."""
    out = np.zeros((3, n))
    out[:, start:start + 3] = np.eye(3)
    return out


def _rigid_body(build: _Builder, body: int) -> None:
    """|u|² = 1, |v|² = 1, u·v = 0, u × v - w = 0."""
    start = BODY_SIZE * body
    u, v, w = (_selector(build.n, start + 3 * i) for i in (1, 2, 3))
    for left, right, constant in ((u, u, -1.0), (v, v, -1.0), (u, v, 0.0)):
        build.bilinear(build.row("rigid", constant=constant), left, right)
    for c in range(3):  # (u × v)_c = u_{c+1} v_{c+2} - u_{c+2} v_{c+1}
        i = build.row("rigid", linear=-w[c])
        c1, c2 = (c + 1) % 3, (c + 2) % 3
        build.quadratic += [(i, start + 3 + c1, start + 6 + c2, 1.0), (i, start + 3 + c2, start + 6 + c1, -1.0)]


def _joint(build: _Builder, nat: NaturalModel, child: int) -> None:
    """Ball: the child's origin is the parent's joint centre; hinge: shared axis; universal: fixed axis angle."""
    segment = nat.model.segments[child]
    parent = segment.parent
    centre = nat.point_map(parent, segment.joint_offset)
    origin = nat.point_map(child, np.zeros(3))
    for c in range(3):
        build.row("joint", linear=origin[c] - centre[c])
    if segment.joint == "hinge":
        axis = segment.axes[0]
        difference = nat.vector_map(child, axis) - nat.vector_map(parent, axis)
        for c in range(3):
            build.row("joint", linear=difference[c])
    elif segment.joint == "universal":
        a0, a1 = segment.axes
        i = build.row("joint", constant=-float(a0 @ a1))
        build.bilinear(i, nat.vector_map(parent, a0), nat.vector_map(child, a1))


def _relative(build: _Builder, nat: NaturalModel, child: int) -> None:
    """cos and sin of each joint angle as bilinear forms (R_p x)·(R_c y) (module docstring)."""
    segment = nat.model.segments[child]
    parent = segment.parent
    if segment.joint == "hinge":
        a = segment.axes[0]
        b = _unit_perpendicular(a)
        forms = [(b, b, 1.0), (np.cross(a, b), b, 1.0)]
    else:
        a0, a1 = segment.axes
        a1p, a0p = a1 - (a0 @ a1) * a0, a0 - (a0 @ a1) * a1
        s1, s0 = 1.0 / (a1p @ a1p), 1.0 / (a0p @ a0p)
        forms = [(a1p, a1, s1), (np.cross(a0, a1p), a1, s1), (a0, a0p, s0), (a0, np.cross(a0p, a1), s0)]
    start = nat.relative_start[child]
    for offset, (left, right, scale) in enumerate(forms):
        linear = np.zeros(build.n)
        linear[start + offset] = -1.0
        i = build.row("relative", linear=linear)
        build.bilinear(i, nat.vector_map(parent, left), nat.vector_map(child, right), scale)
