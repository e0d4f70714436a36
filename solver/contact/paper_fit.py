"""Brubaker, Sigal & Fleet (2009) §4.2: one plane and its springs fitted to the root forces (eq. 10).

``θ`` = the surfaces' geometry and materials (κ_N, δ_N, δ_T) minimises the
root forces, eq. 10, ``O(θ) = Σ_t |f_root(t, θ)|²``, by bounded L-BFGS-B
(scipy) with the analytic gradient of ``gradient.py``. ``f_root`` is closed
form per frame (inverse dynamics is linear in the external forces), so the
optimiser never simulates: the contact points' positions and velocities come
once from the motion (``model.point_motion`` on the frames of the dynamics),
and each evaluation is one pass over frames and points.

Parametrisation. A face ``f`` with reference normal ``n₀`` (its initial one)
and anchor ``x₀`` (a point of its initial plane) has parameters ``(a, b, c)``:
normal ``n = R₀ (a, b, 1)/|(a, b, 1)|`` (``R₀`` turns +Z onto ``n₀``) and the
plane ``n·(x - x₀) = c``. Tilting thus turns the plane about the anchor —
where the subject stands — not about the lab origin, which keeps height and
tilt apart. Each surface adds ``(κ_N, δ_N, δ_T)``. The optimiser works on the
parameters divided by ``PARAMETER_SCALES`` (about the precision wanted) and
on ``O/O(no contact)``.

Normalisation: the forces on the body are ``m f_c`` with ``m`` the
``force_scale`` — the body mass by default (the paper's units, see
``model``), so the bounds κ_N ∈ [1, 20], δ_N, δ_T ∈ [0.1, 20] are the
paper's. ``normalisation="none"`` makes ``m = 1`` (κ_N in N/m; give bounds to
suit), a number sets ``m`` in kg.

Initialisation (several starts, the best kept): the plane through the
*support points* — foot contact points that are slow (< ``SUPPORT_SPEED``)
and within ``SUPPORT_BAND`` of the lowest 5 % — fitted by least squares
(+Z when they cover too small an area to give a tilt), lowered by the
resting distance of each start's material so the feet start at rest on it;
materials from ``START_MATERIALS``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import minimize

from ..dynamics import Dynamics
from ..errors import SolverError
from ..model.body import BodyModel
from .gradient import objective_and_gradient
from .model import ContactConstants, Material, Plane, Surface, SurfaceArrays, resting_distance

START_MATERIALS = (Material(5.0, 5.0, 5.0), Material(2.0, 1.0, 1.0), Material(12.0, 10.0, 10.0),
                   Material(5.0, 1.0, 12.0), Material(15.0, 3.0, 1.0), Material(2.0, 10.0, 5.0))
#: Optimiser units: tilt parameters [rad], plane shift [m], κ_N [s⁻²], δ_N and δ_T [s⁻¹].
PARAMETER_SCALES = (0.01, 0.01, 0.01, 1.0, 1.0, 1.0)
#: Support points: foot contact points slower than this [m/s] ...
SUPPORT_SPEED = 0.3
#: ... and within this [m] of the lowest 5 % of them.
SUPPORT_BAND = 0.03
#: Support points spread less than this [m] (RMS along the narrower horizontal axis) give no tilt: +Z.
SUPPORT_SPREAD = 0.05
#: L-BFGS-B stops when an iteration lowers ``O/O(no contact)`` by less than this.
RELATIVE_TOLERANCE = 1e-10

@dataclass(frozen=True)
class Bounds:
    """Bounds of the estimate: the materials (paper §4.2, normalised units), each face's tilt from its initial
    normal [deg] and its shift along the normal from its initial plane [m]."""

    stiffness: tuple[float, float] = (1.0, 20.0)
    normal_damping: tuple[float, float] = (0.1, 20.0)
    tangential_damping: tuple[float, float] = (0.1, 20.0)
    tilt: float = 30.0
    shift: float = 0.5


@dataclass(frozen=True)
class Start:
    """One L-BFGS-B run: initial and final surfaces, relative objective ``O/O(no contact)``, iterations,
    function evaluations, whether scipy reported convergence, and its message."""

    initial: tuple[Surface, ...]
    final: tuple[Surface, ...]
    objective: float
    iterations: int
    evaluations: int
    converged: bool
    message: str


@dataclass(frozen=True)
class Optimisation:
    """The optimiser record: every start, the best one, its objective (eq. 10, N² + w N²m², over the frames
    used) and relative objective, total iterations and evaluations, wall time [s]."""

    starts: tuple[Start, ...]
    best: int
    objective: float
    relative_objective: float
    iterations: int
    evaluations: int
    seconds: float
    frames_used: int
    torque_weight: float


# --- the problem and its parameters ----------------------------------------------------------------------
@dataclass(frozen=True)
class Problem:
    """What eq. 10 needs, on the frames used: root wrench without contact (T, 6), contact points relative to
    the root origin, in world and their velocities (T, K, 3), force scale [kg], torque weight [m⁻²]."""

    residual: np.ndarray
    arms: np.ndarray
    points: np.ndarray
    velocities: np.ndarray
    force_scale: float
    torque_weight: float = 1.0
    constants: ContactConstants = ContactConstants()

    @property
    def baseline(self) -> float:
        """``O`` without contact."""
        r = self.residual
        return float(np.sum(r[:, :3] ** 2) + self.torque_weight * np.sum(r[:, 3:] ** 2))


def _rotation_to(normal: np.ndarray) -> np.ndarray:
    """A rotation taking +Z onto the unit ``normal`` (Rodrigues; the identity for +Z)."""
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(z, normal)
    s, c = np.linalg.norm(axis), float(normal @ z)
    if s < 1e-12:
        return np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    k = axis / s
    cross = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + s * cross + (1 - c) * cross @ cross


class Layout:
    """Maps a parameter vector to surfaces and the gradient back (see the module docstring)."""

    def __init__(self, initial: tuple[Surface, ...], anchors: np.ndarray):
        self.initial = initial
        self.surface_of_face = np.array([j for j, s in enumerate(initial) for _ in s.faces])
        self.rotations = np.array([_rotation_to(f.normal) for s in initial for f in s.faces])
        self.anchors = np.array([anchors[j] - (f.distance(anchors[j])) * f.normal
                                 for j, s in enumerate(initial) for f in s.faces])  # on each initial plane
        self.n_faces, self.n_surfaces = len(self.surface_of_face), len(initial)
        self.arrays = SurfaceArrays(initial)
        self.scales = np.concatenate([np.tile(PARAMETER_SCALES[:3], self.n_faces),
                                      np.tile(PARAMETER_SCALES[3:], self.n_surfaces)])

    def parameters(self, surfaces: tuple[Surface, ...]) -> np.ndarray:
        """The parameter vector of ``surfaces`` (laid out like the initial ones)."""
        faces = [f for s in surfaces for f in s.faces]
        if len(surfaces) != self.n_surfaces or len(faces) != self.n_faces:
            raise SolverError("Every start needs the same surfaces and faces", "vary only positions and materials")
        m = np.einsum("fji,fj->fi", self.rotations, np.array([f.normal for f in faces]))  # R₀ᵀ n
        if np.any(m[:, 2] <= 1e-6):
            raise SolverError("A start turns a face by 90° or more from the first start's", "start nearer")
        c = np.array([f.offset for f in faces]) - np.einsum("fi,fi->f", np.array([f.normal for f in faces]),
                                                            self.anchors)
        face = np.c_[m[:, :2] / m[:, 2:], c].ravel()
        return np.concatenate([face, np.concatenate([s.material.array() for s in surfaces])])

    def bounds(self, bounds: Bounds) -> list[tuple[float, float]]:
        slope = np.tan(np.radians(bounds.tilt))
        face = [(-slope, slope), (-slope, slope), (-bounds.shift, bounds.shift)]
        material = [bounds.stiffness, bounds.normal_damping, bounds.tangential_damping]
        return face * self.n_faces + material * self.n_surfaces

    def faces(self, x: np.ndarray):
        """Normals (F, 3), world offsets (F,), materials (S, 3) and the unnormalised normals (F, 3)."""
        face = x[:3 * self.n_faces].reshape(-1, 3)
        u = np.c_[face[:, :2], np.ones(self.n_faces)]
        normals = np.einsum("fij,fj->fi", self.rotations, u / np.linalg.norm(u, axis=1, keepdims=True))
        offsets = face[:, 2] + np.einsum("fi,fi->f", normals, self.anchors)
        return normals, offsets, x[3 * self.n_faces:].reshape(-1, 3), u

    def surfaces(self, x: np.ndarray) -> tuple[Surface, ...]:
        normals, offsets, materials, _ = self.faces(x)
        out = []
        for j, s in enumerate(self.initial):
            planes = tuple(Plane(n, c) for n, c, k in zip(normals, offsets, self.surface_of_face) if k == j)
            out.append(Surface(planes, Material(*materials[j])))
        return tuple(out)

    def objective(self, x: np.ndarray, problem: Problem) -> tuple[float, np.ndarray]:
        """``O(θ)`` and ``∂O/∂x`` in the parameter vector (chain rule through the normal parametrisation)."""
        normals, offsets, materials, u = self.faces(x)
        value, g_normals, g_offsets, g_materials = objective_and_gradient(
            problem.residual, problem.arms, problem.points, problem.velocities, normals, offsets,
            self.arrays.first_face, np.ascontiguousarray(materials), problem.constants.array(), problem.force_scale,
            problem.torque_weight)
        g_normals = g_normals + g_offsets[:, None] * self.anchors  # offset = c + n·x₀
        g_unit = np.einsum("fji,fj->fi", self.rotations, g_normals)  # ∂O/∂m, m = u/|u|
        norm = np.linalg.norm(u, axis=1, keepdims=True)
        m = u / norm
        g_u = (g_unit - np.sum(g_unit * m, axis=1, keepdims=True) * m) / norm
        grad = np.concatenate([np.c_[g_u[:, :2], g_offsets].ravel(), g_materials.ravel()])
        return value, grad


def fit(problem: Problem, starts: list[tuple[Surface, ...]], anchors: np.ndarray, bounds: Bounds = Bounds(),
        max_iterations: int = 500) -> tuple[tuple[Surface, ...], Optimisation]:
    """Minimise eq. 10 by L-BFGS-B from each start (surfaces with materials); keep the best.

    Faces are parametrised about the first start's (``Layout``), ``anchors`` (S, 3) one point per surface
    near where it is touched.
    """
    t0 = time.perf_counter()
    layout = Layout(starts[0], anchors)
    baseline = problem.baseline
    if not baseline > 0:
        raise SolverError("The root wrench is zero in every frame: there is nothing for contact to explain",
                          "check the motion (is it a simulation without gravity?)")
    scales = layout.scales
    box = np.array(layout.bounds(bounds)) / scales[:, None]

    def scaled(z):
        value, grad = layout.objective(z * scales, problem)
        return value / baseline, grad * scales / baseline

    runs = []
    for start in starts:
        z0 = np.clip(layout.parameters(start) / scales, box[:, 0], box[:, 1])
        result = minimize(scaled, z0, jac=True, method="L-BFGS-B", bounds=box,
                          options={"maxiter": max_iterations, "ftol": RELATIVE_TOLERANCE, "gtol": 1e-9})
        runs.append(Start(initial=layout.surfaces(z0 * scales), final=layout.surfaces(result.x * scales),
                          objective=float(result.fun), iterations=int(result.nit), evaluations=int(result.nfev),
                          converged=bool(result.success), message=str(result.message)))
    best = int(np.argmin([r.objective for r in runs]))
    record = Optimisation(starts=tuple(runs), best=best, objective=runs[best].objective * baseline,
                          relative_objective=runs[best].objective, iterations=sum(r.iterations for r in runs),
                          evaluations=sum(r.evaluations for r in runs), seconds=time.perf_counter() - t0,
                          frames_used=len(problem.residual), torque_weight=problem.torque_weight)
    return runs[best].final, record


# --- initialisation ------------------------------------------------------------------------------------------
def support_points(positions: np.ndarray, velocities: np.ndarray, max_speed: float | None = SUPPORT_SPEED
                   ) -> np.ndarray:
    """The low points (N, 3) among points (T, K, 3) slower than ``max_speed`` (None: any): where the ground must
    be. Falls back to all points when fewer than three are slow enough."""
    p, speed = positions.reshape(-1, 3), np.linalg.norm(velocities.reshape(-1, 3), axis=1)
    finite = np.isfinite(p).all(1) & np.isfinite(speed)
    p, speed = p[finite], speed[finite]
    if max_speed is not None and np.count_nonzero(speed < max_speed) >= 3:
        p = p[speed < max_speed]
    low = np.percentile(p[:, 2], 5)
    return p[p[:, 2] < low + SUPPORT_BAND]


def initial_plane(support: np.ndarray) -> Plane:
    """Least-squares plane through the support points; horizontal when they are too narrow to tilt it."""
    centre = support.mean(0)
    horizontal = support[:, :2] - centre[:2]
    spread = np.sqrt(max(np.linalg.eigvalsh(horizontal.T @ horizontal / len(support))[0], 0.0)) \
        if len(support) > 2 else 0.0
    if spread < SUPPORT_SPREAD:
        return Plane.through(centre, (0.0, 0.0, 1.0))
    slope, *_ = np.linalg.lstsq(np.c_[horizontal, np.ones(len(support))], support[:, 2], rcond=None)
    return Plane.through(centre, (-slope[0], -slope[1], 1.0))


def force_scale_of(model: BodyModel, normalisation) -> tuple[str, float]:
    """``("body_mass", m)``, ``("none", 1)`` or ``("<m> kg", m)`` for a number."""
    if normalisation == "body_mass":
        return "body_mass", model.total_mass
    if normalisation == "none":
        return "none", 1.0
    if isinstance(normalisation, (int, float)) and normalisation > 0:
        return f"{float(normalisation):g} kg", float(normalisation)
    raise SolverError(f"Unknown normalisation {normalisation!r}",
                      "use 'body_mass' (the paper's units), 'none' (newtons) or a positive mass in kg")


def start_materials(starts) -> list[Material]:
    if isinstance(starts, (int, np.integer)) and not isinstance(starts, bool):
        if starts < 1:
            raise SolverError(f"starts must be at least 1, got {starts}", "use e.g. starts=4")
        return [START_MATERIALS[k % len(START_MATERIALS)] for k in range(starts)]
    chosen = list(starts)
    if not chosen or not all(isinstance(m, Material) for m in chosen):
        raise SolverError("starts must be a count or a sequence of Material", "e.g. starts=4")
    return chosen


def at_rest(surface: Surface, material: Material, n_points: int, weight: float, constants) -> Surface:
    """``surface`` with ``material``, its top lowered so that ``n_points`` motionless points on it carry ``weight``
    (left where it is if they would rest farther than ``SUPPORT_BAND`` from it)."""
    gap = resting_distance(material, n_points, weight, constants)
    top = surface.top
    shift = gap if abs(gap) <= SUPPORT_BAND else 0.0
    return Surface((Plane(top.normal, top.offset - shift),) + surface.faces[1:], material)




def fit_plane_and_springs(dynamics: Dynamics, positions: np.ndarray, velocities: np.ndarray, on_feet: np.ndarray,
                          surfaces, normalisation, starts, bounds: Bounds, torque_weight: float,
                          constants: ContactConstants) -> tuple[tuple[Surface, ...], Optimisation, str, float,
                                                                np.ndarray]:
    """Eq. 10 on the frames with a pose and a root wrench: the best surfaces, the optimiser's record, the
    normalisation's name and force scale, and the anchor (the mean support point, (3,)).

    ``surfaces``: ``"plane"`` (one plane through the feet's support points) or starting ``Surface``
    objects; ``on_feet`` (K,) marks the contact points that may support (the soles)."""
    model = dynamics.model
    name, scale = force_scale_of(model, normalisation)
    root = dynamics.root_wrench
    valid = np.isfinite(root).all(1) & np.isfinite(positions).all((1, 2)) & np.isfinite(velocities).all((1, 2))
    if np.count_nonzero(valid) < 2:
        raise SolverError("The motion has fewer than two frames with a pose and its derivatives",
                          "reconstruct a longer stretch of the trial")
    n_support = int(np.count_nonzero(on_feet))
    support = support_points(positions[valid][:, on_feet], velocities[valid][:, on_feet])
    materials = start_materials(starts)
    weight = model.total_mass * float(np.linalg.norm(dynamics.gravity)) / scale
    if isinstance(surfaces, str):
        if surfaces != "plane":
            raise SolverError(f"Unknown surfaces {surfaces!r}",
                              "use 'plane', or give Surface objects (e.g. Surface.floor(), Surface.step(...)) "
                              "as the starting guess")
        plane = Surface((initial_plane(support),))
        runs = [(at_rest(plane, m, n_support, weight, constants),) for m in materials]
    else:
        given = (surfaces,) if isinstance(surfaces, Surface) else tuple(surfaces)
        if not given or not all(isinstance(s, Surface) for s in given):
            raise SolverError("surfaces must be 'plane', a Surface or a sequence of Surfaces",
                              "e.g. surfaces=(Surface.floor(0.0), Surface.step(0.3, edge, outward))")
        runs = [given] + [tuple(replace(s, material=m) for s in given) for m in materials[1:]]
    anchors = np.tile(support.mean(0), (len(runs[0]), 1))
    problem = Problem(residual=root[valid], arms=positions[valid] - dynamics.root_origin[valid][:, None],
                      points=positions[valid], velocities=velocities[valid], force_scale=scale,
                      torque_weight=torque_weight, constants=constants)
    best, record = fit(problem, runs, anchors, bounds)
    return best, record, name, scale, anchors[0]
