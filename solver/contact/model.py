"""The contact model of Brubaker, Sigal & Fleet (2009), eqs. 4-7, over whole trials.

At a point ``p`` moving with ``ṗ`` near a surface ``S`` (signed distance
``d_S(p)``, outward unit normal ``n_S(p)``) the contact force is

    f_c = h(-G_d d_S) h(G_f n_c) [n_c n_S + t_c]                              (4)
    n_c = -κ_N (d_S - L) - δ_N ṗᵀn_S                                           (5)
    t_c = -δ_T (ṗ - (n_Sᵀṗ) n_S)                                               (6)

with ``h(x) = ½(1 + tanh x)``. It acts at each of the model's contact points
independently and induces a force and a torque on the point's segment; the
sum over points and surfaces is eq. 7.

Units. The paper gives ``d_S`` in metres (§4.1) and its parameters
"normalized by body mass" (Figs. 6, 8), and no unit for the constants; this
is the reading that makes its numbers consistent (every constant is a field
of ``ContactConstants``):

- distances in metres. ``G_d = 60 /m``: the distance sigmoid falls from 0.95
  to 0.05 between 2.45 cm inside and 2.45 cm outside the surface — contact
  "switches" within a few centimetres, about a marker's size and a mocap
  system's error, as the paper's 100 Hz mocap requires. (In centimetres it
  would switch within half a millimetre, a hard contact.)
- forces per kilogram of body mass (N/kg = m/s²), the paper's "parameters
  normalized by body mass" (Figs. 6, 8): the force on the body is
  ``force_scale · f_c`` with ``force_scale`` the body mass. Then ``κ_N`` is
  in N/(kg·m) = s⁻² and ``δ_N``, ``δ_T`` in N·s/(kg·m) = s⁻¹, and the
  bounds κ_N ∈ [1, 20], δ ∈ [0.1, 20] make sense: eight sole points at rest
  carry g = 9.81 N/kg between them with κ_N ≈ 2-20.
- ``L = 1 m`` is the "1" of eq. 5's ``d_S - 1``: the linear spring's rest
  length. The spring is pre-loaded — on the surface it pushes with ``κ_N·L``,
  and over the few centimetres where the distance sigmoid is active its
  force is nearly constant — so ``κ_N`` sets the force level and the
  distance sigmoid does most of the "springing" (local stiffness at the
  surface ``½ G_d κ_N L`` per point).
- ``G_f = 5 kg/N`` (per N/kg of normalised force): the force sigmoid is
  below 0.01 for a pulling spring (``n_c`` < -0.5 N/kg) and above 0.99 once
  it pushes with more than 0.5 N/kg (40 % of one sole point's share of the
  weight, 9.81/8 N/kg): no sticky ground (a spring-damper whose point lifts
  off quickly would pull it back). In newtons (``normalisation="none"``)
  the same gain switches within 0.5 N, a hard gate.

Surfaces: a ``Surface`` is a convex solid given by its faces, each a
``Plane`` (outward normal ``n``, offset ``c``, points ``x`` with
``n·x = c``); the solid is where every face has ``n·x < c``. The signed
distance is the largest face distance ``max_f (n_f·p - c_f)`` and ``n_S`` that
face's normal: exact inside and over the faces, the usual polytope estimate
near edges. A floor is one face (a half-space); a step or box adds faces
that bound it. Several surfaces add up (eq. 7's sum over ``j``), each with
its own ``Material`` (κ_N, δ_N, δ_T).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numba import njit

from ..algorithms.kinematics import frame_kinematics, make_data
from ..kernels import add, cross, dot, matvec, put2, row, row2, scale, small, sub
from ..errors import SolverError
from ..model.body import BodyModel


@dataclass(frozen=True)
class ContactConstants:
    """The fixed constants of eqs. 4-5: distance gain ``G_d`` [1/m], force gain ``G_f`` [per N/kg] and the
    spring's rest length ``L`` [m] (the paper's 60, 5 and 1)."""

    distance_gain: float = 60.0
    force_gain: float = 5.0
    rest_length: float = 1.0

    def array(self) -> np.ndarray:
        return np.array([self.distance_gain, self.force_gain, self.rest_length], dtype=float)


@dataclass(frozen=True)
class Material:
    """Spring and dampers of a surface (eqs. 5-6) in force-per-body-mass units: stiffness ``κ_N`` [s⁻²],
    normal damping ``δ_N`` and tangential damping ``δ_T`` [s⁻¹]."""

    stiffness: float = 5.0
    normal_damping: float = 5.0
    tangential_damping: float = 5.0

    def array(self) -> np.ndarray:
        return np.array([self.stiffness, self.normal_damping, self.tangential_damping], dtype=float)


def _unit(vector) -> np.ndarray:
    v = np.asarray(vector, dtype=float).reshape(3)
    norm = np.linalg.norm(v)
    if not norm > 0:
        raise SolverError("A plane needs a non-zero normal", "give the normal as three numbers, e.g. (0, 0, 1)")
    v = v / norm
    v.setflags(write=False)
    return v


@dataclass(frozen=True)
class Plane:
    """The plane ``n·x = offset`` (``n`` unit, pointing out of the solid it bounds: up for a floor)."""

    normal: np.ndarray
    offset: float

    def __post_init__(self):
        object.__setattr__(self, "normal", _unit(self.normal))
        object.__setattr__(self, "offset", float(self.offset))

    @classmethod
    def through(cls, point, normal) -> "Plane":
        """The plane with ``normal`` through ``point``."""
        n = _unit(normal)
        return cls(n, float(n @ np.asarray(point, dtype=float)))

    def distance(self, points: np.ndarray) -> np.ndarray:
        """Signed distance [m] of ``points`` (..., 3): positive outside (above a floor)."""
        return np.asarray(points, dtype=float) @ self.normal - self.offset

    def height_at(self, x: float, y: float) -> float:
        """World Z [m] where the vertical line through ``(x, y)`` meets the plane (NaN for a vertical plane)."""
        n = self.normal
        return (self.offset - n[0] * x - n[1] * y) / n[2] if abs(n[2]) > 1e-12 else np.nan

    @property
    def angle(self) -> float:
        """Angle [deg] between the normal and the lab's vertical (+Z): the tilt of the plane to the lab floor."""
        return float(np.degrees(np.arccos(np.clip(self.normal[2], -1.0, 1.0))))


@dataclass(frozen=True)
class Surface:
    """A convex solid (the intersection of the half-spaces under its ``faces``) and its ``material``."""

    faces: tuple[Plane, ...]
    material: Material = field(default_factory=Material)

    def __post_init__(self):
        faces = tuple(self.faces)
        if not faces or not all(isinstance(f, Plane) for f in faces):
            raise SolverError("A surface needs at least one face (a Plane)", "e.g. Surface.floor(height=0.0)")
        object.__setattr__(self, "faces", faces)

    @classmethod
    def floor(cls, height: float = 0.0, normal=(0.0, 0.0, 1.0), material: Material | None = None,
              at=(0.0, 0.0)) -> "Surface":
        """A half-space whose top passes through ``(at, height)`` with outward ``normal``."""
        return cls((Plane.through((at[0], at[1], height), normal),), material or Material())

    @classmethod
    def step(cls, height: float, edge, outward, material: Material | None = None) -> "Surface":
        """A raised platform (a box or step) of top ``height`` [m] whose front face passes through the point
        ``edge`` with horizontal outward direction ``outward``; it extends without bound behind that face."""
        out = np.asarray(outward, dtype=float)
        out = _unit((out[0], out[1], 0.0))
        return cls((Plane((0.0, 0.0, 1.0), height), Plane.through(edge, out)), material or Material())

    @property
    def top(self) -> Plane:
        """The first face (the floor, or a step's top)."""
        return self.faces[0]

    def distance(self, points: np.ndarray) -> np.ndarray:
        """Signed distance ``d_S`` [m] of ``points`` (..., 3): the largest face distance."""
        return np.max(np.stack([f.distance(points) for f in self.faces]), axis=0)


class SurfaceArrays:
    """Surfaces flattened for the kernels: face normals (F, 3), offsets (F,), the faces of surface ``s`` are
    ``first_face[s]:first_face[s + 1]``, materials (S, 3)."""

    def __init__(self, surfaces):
        surfaces = tuple(surfaces)
        if not surfaces:
            raise SolverError("No contact surfaces given", "pass at least one Surface, e.g. Surface.floor()")
        faces = [f for s in surfaces for f in s.faces]
        self.normals = np.array([f.normal for f in faces], dtype=float)
        self.offsets = np.array([f.offset for f in faces], dtype=float)
        self.first_face = np.cumsum([0] + [len(s.faces) for s in surfaces]).astype(np.int64)
        self.materials = np.array([s.material.array() for s in surfaces], dtype=float)


#: ``G_d d`` beyond which a point is out of reach: ``h(-G_d d) < 1e-17`` (0.33 m outside at ``G_d`` = 60 /m), its
#: force (at most ``κ_N L`` times that) is taken as exactly zero and the kernels skip it.
OUT_OF_REACH = 20.0


# --- eqs. 4-6 at one point ---------------------------------------------------------------------------------
@njit(cache=True, inline='always')
def sigmoid(x):
    """``h(x) = ½(1 + tanh x)`` (eq. 4)."""
    return 0.5 * (1.0 + np.tanh(x))


@njit(cache=True, inline='always')
def active_face(normals, offsets, first, last, p):
    """The face of a convex solid nearest to ``p`` from outside (largest signed distance) and that distance."""
    best, distance = first, -np.inf
    for f in range(first, last):
        d = normals[f, 0] * p[0] + normals[f, 1] * p[1] + normals[f, 2] * p[2] - offsets[f]
        if d > distance:
            best, distance = f, d
    return best, distance


@njit(cache=True, inline='always')
def spring(distance, normal_speed, stiffness, normal_damping, constants):
    """Distance sigmoid ``h(-G_d d)``, force sigmoid ``h(G_f n_c)`` and normal spring force ``n_c`` (eqs. 4-5)."""
    n_c = -stiffness * (distance - constants[2]) - normal_damping * normal_speed
    return sigmoid(-constants[0] * distance), sigmoid(constants[1] * n_c), n_c


@njit(cache=True, inline='always')
def point_force(p, velocity, normals, offsets, first_face, materials, constants):
    """Eq. 4 summed over the surfaces (eq. 7's inner sum) at one point: force per unit ``force_scale``.

    Written as ``h_d h_f [(n_c + δ_T ṗ_n) n - δ_T ṗ]``, which is ``h_d h_f [n_c n + t_c]`` (eq. 6).
    """
    force = (0.0, 0.0, 0.0)
    for s in range(len(first_face) - 1):
        f, d = active_face(normals, offsets, first_face[s], first_face[s + 1], p)
        if constants[0] * d > OUT_OF_REACH:
            continue
        n = row(normals, f)
        vn = dot(velocity, n)
        h_d, h_f, n_c = spring(d, vn, materials[s, 0], materials[s, 1], constants)
        delta_t = materials[s, 2]
        force = add(force, scale(h_d * h_f, sub(scale(n_c + delta_t * vn, n), scale(delta_t, velocity))))
    return force


@njit(cache=True)
def _forces(points, velocities, normals, offsets, first_face, materials, constants):
    out = np.empty(points.shape)
    for t in range(points.shape[0]):
        for k in range(points.shape[1]):
            put2(out, t, k, point_force(row2(points, t, k), row2(velocities, t, k), normals, offsets, first_face,
                                        materials, constants))
    return out


def contact_forces(points: np.ndarray, velocities: np.ndarray, surfaces,
                   constants: ContactConstants = ContactConstants()) -> np.ndarray:
    """Eqs. 4-6 summed over ``surfaces`` at ``points`` moving with ``velocities`` (T, K, 3) [m, m/s].

    Returns the force per unit of force scale (N/kg with the default units), (T, K, 3).
    """
    p = np.ascontiguousarray(np.reshape(points, (-1,) + np.shape(points)[-2:]), dtype=float)
    v = np.ascontiguousarray(np.reshape(velocities, p.shape), dtype=float)
    arrays = SurfaceArrays(surfaces)
    out = _forces(p, v, arrays.normals, arrays.offsets, arrays.first_face, arrays.materials, constants.array())
    return out.reshape(np.shape(points))


def resting_distance(material: Material, supporting_points: int, weight_per_scale: float,
                     constants: ContactConstants = ContactConstants()) -> float:
    """Distance ``d`` [m] above a surface at which ``supporting_points`` motionless points carry the weight.

    Solves ``N h(-G_d d) h(G_f n_c) n_c = m g / force_scale`` with ``n_c = κ_N (L - d)`` (eqs. 4-5, ``ṗ = 0``);
    NaN if the springs cannot carry it within a rest length.
    """
    from scipy.optimize import brentq

    g_d, g_f, length = constants.array()

    def excess(d):
        n_c = material.stiffness * (length - d)
        return supporting_points * 0.25 * (1 + np.tanh(-g_d * d)) * (1 + np.tanh(g_f * n_c)) * n_c - weight_per_scale

    low, high = -0.999 * length, 0.5 * length
    if supporting_points < 1 or excess(low) < 0 or excess(high) > 0:
        return float("nan")
    return float(brentq(excess, low, high, xtol=1e-12))


# --- eq. 7: contact points on the body ---------------------------------------------------------------------
@dataclass(frozen=True)
class ContactPoints:
    """The model's contact points: segment of each (K,), its position in the segment frame (K, 3), its
    padding (K,) [m], the soft tissue a load compresses, and whether only the floor pushes it (K,)
    (``model.contact_points``; 0 and False: none)."""

    segments: np.ndarray
    local: np.ndarray
    padding: np.ndarray
    floor_only: np.ndarray

    @classmethod
    def of(cls, model: BodyModel) -> "ContactPoints":
        segments = np.array([i for i, s in enumerate(model.segments) for _ in s.contact_points], dtype=np.int64)
        if len(segments) == 0:
            raise SolverError("The body model has no contact points",
                              "place them with solver.model.with_contact_points(model)")
        touching = [s for s in model.segments if len(s.contact_points)]
        local = np.concatenate([s.contact_points for s in touching]).astype(float)

        def per_point(key: str, dtype) -> np.ndarray:
            given = model.metadata.get(key) or {}
            return np.concatenate([np.asarray(given.get(s.name, np.zeros(len(s.contact_points))), dtype=dtype)
                                   for s in touching])

        return cls(segments, local, per_point("contact_padding", float), per_point("contact_floor_only", bool))


@small
def frame_point_motion(tree, q, v, segments, local, data, scratch, positions, velocities):
    """World position and velocity of every contact point in one frame (rigid-body kinematics of ``(q, v)``).

    ``ṗ = ȯ_i + ω_i × (p - o_i)`` with the origin velocities ``ȯ_i = ȯ_parent + ω_parent × (o_i - o_parent)``,
    the same velocities the dynamics use (so with forward differences they are those of Euler integration).
    ``scratch`` is a ``PointScratch``.
    """
    frame_kinematics(tree, q, v, scratch.zero, scratch.no_gravity, data)
    origin_velocity = scratch.origin_velocity
    for i in range(len(tree.parent)):
        p = tree.parent[i]
        if p < 0:
            vs = tree.v_start[i]
            origin_velocity[i, 0], origin_velocity[i, 1], origin_velocity[i, 2] = v[vs], v[vs + 1], v[vs + 2]
        else:
            arm = sub(row(data.origin, i), row(data.origin, p))
            vel = add(row(origin_velocity, p), cross(row(data.omega, p), arm))
            origin_velocity[i, 0], origin_velocity[i, 1], origin_velocity[i, 2] = vel[0], vel[1], vel[2]
    for k in range(len(segments)):
        i = segments[k]
        arm = matvec(data.rot, i, row(local, k))
        pk = add(row(data.origin, i), arm)
        vk = add(row(origin_velocity, i), cross(row(data.omega, i), arm))
        positions[k, 0], positions[k, 1], positions[k, 2] = pk[0], pk[1], pk[2]
        velocities[k, 0], velocities[k, 1], velocities[k, 2] = vk[0], vk[1], vk[2]


class PointScratch(NamedTuple):
    """Scratch of ``frame_point_motion``: zero accelerations (nv,), zero gravity (3,), origin velocities (S, 3)."""

    zero: np.ndarray
    no_gravity: np.ndarray
    origin_velocity: np.ndarray


@small
def point_scratch(tree):
    return PointScratch(np.zeros(tree.nv), np.zeros(3), np.empty((len(tree.parent), 3)))


@njit(cache=True)
def _point_motion(tree, q, v, segments, local):
    n_frames, n_points = q.shape[0], len(segments)
    positions = np.empty((n_frames, n_points, 3))
    velocities = np.empty((n_frames, n_points, 3))
    data, scratch = make_data(tree), point_scratch(tree)
    for t in range(n_frames):
        frame_point_motion(tree, q[t], v[t], segments, local, data, scratch, positions[t], velocities[t])
    return positions, velocities


def point_positions(model: BodyModel, q: np.ndarray, points: ContactPoints | None = None,
                    poses: tuple | None = None) -> np.ndarray:
    """World positions (T, K, 3) of the contact points for coordinates ``q`` (numpy forward kinematics; ``poses``
    ``forward_kinematics(q)`` when known)."""
    points = ContactPoints.of(model) if points is None else points
    rotations, origins = model.forward_kinematics(np.atleast_2d(q)) if poses is None else poses
    return origins[:, points.segments] + np.einsum("tkij,kj->tki", rotations[:, points.segments], points.local)


def point_motion(model: BodyModel, q: np.ndarray, v: np.ndarray, points: ContactPoints | None = None):
    """World positions and velocities (T, K, 3) of the contact points for coordinates ``q`` and velocities
    ``v`` (e.g. ``Dynamics.q``, ``Dynamics.v``: the frames of the root wrench)."""
    points = ContactPoints.of(model) if points is None else points
    q = np.ascontiguousarray(np.atleast_2d(q), dtype=float)
    v = np.ascontiguousarray(np.atleast_2d(v), dtype=float)
    return _point_motion(model.tree, q, v, points.segments, points.local)


def segment_wrenches(model: BodyModel, q: np.ndarray, segments: np.ndarray, positions: np.ndarray,
                     forces: np.ndarray, poses: tuple | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 7's ``A_k``: point forces (T, K, 3) [N] at ``positions`` on ``segments`` -> per-segment force and
    torque about the segment's centre of mass (T, S, 3) [N, N·m], world frame (``poses``
    ``forward_kinematics(q)`` when known)."""
    com = model.com_positions(q, poses)
    force, torque = np.zeros(com.shape), np.zeros(com.shape)
    np.add.at(force, (slice(None), segments), forces)
    np.add.at(torque, (slice(None), segments), np.cross(positions - com[:, segments], forces))
    return force, torque
