"""Estimating the contact surfaces and their springs from motion alone (Brubaker et al. 2009, §4.2).

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

Outputs (``Contact``) follow the paper's §5: forces per point and per
segment, ground reaction force and centre of pressure per foot and in
total, the plane (normal, height, angle to the lab floor), the resting
height, the springs, the fraction of the root force explained (Fig. 6) and
the joint torques recomputed with the contact forces.

Resting height (§5.1: "the height at which ground forces exactly cancel
force due to gravity for a motionless subject"): the height above the first
surface at which all the feet's contact points (the soles: four per foot),
motionless and level, carry the body weight between them with its material
(``model.resting_distance``), measured vertically at ``Contact.location``.
It is what a trial determines best: a subject standing still fixes where the
soles rest, not how stiff the surface is nor where exactly it lies.

Fraction explained (Fig. 6): ``1 - mean_t |F_root(θ)| / mean_t |F_root(0)|``
over per-frame magnitudes of the root *force* (N); the same for the root
torque is reported beside it.

Forces: ``forces="spring"`` (default) is the paper's model, eqs. 4-7, with the
estimated springs; ``forces="per_frame"`` keeps the estimated surfaces but
solves each frame's point forces within friction cones (``per_frame``, an
extension: closer to force plates, see its docstring).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import minimize

from ..dynamics import Dynamics, ExternalForces, inverse_dynamics, rnea
from ..errors import SolverError
from ..kinematics.motion import Motion
from ..model.body import BodyModel
from .gradient import objective_and_gradient
from .model import ContactConstants, ContactPoints, Material, Plane, Surface, SurfaceArrays, contact_forces, \
    point_motion, resting_distance, segment_wrenches
from .per_frame import PerFrameOptions, per_frame_forces

#: Starting materials (κ_N, δ_N, δ_T), in order; ``starts=n`` uses the first n.
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
#: A centre of pressure needs at least this normal force [N] (as force plates, ``io.plates``).
COP_MIN_FORCE = 20.0
#: How the point forces are found once the surfaces are: the paper's springs (eqs. 4-7), or per frame.
FORCE_MODELS = ("spring", "per_frame")


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


@dataclass(frozen=True)
class Contact:
    """Estimated contact (Brubaker et al. 2009), time first on the frames of ``dynamics`` (see module docstring).

    Forces are on the body, in newtons, world frame. ``point_*`` (T, K, 3) per contact point
    (``point_segments`` (K,)); ``segment_force``/``segment_torque`` (T, S, 3), the torque about each
    segment's centre of mass; ``feet`` names the foot segments of ``foot_force``/``foot_cop`` (T, F, 3);
    ``total_force``/``total_cop`` (T, 3) include every segment. A centre of pressure is NaN where the normal
    force is below ``COP_MIN_FORCE``. ``location`` (x, y) is where heights are measured (the mean support
    point). ``root_wrench_without`` (T, 6) is the root wrench with no contact, ``dynamics.root_wrench``
    the one left with it. ``explained_force``/``explained_torque``: 1 - mean|root force (torque) with
    contact| / mean|... without| (Fig. 6, per-frame magnitudes averaged over the valid frames).
    ``force_model``: ``"spring"`` (eqs. 4-7) or ``"per_frame"`` (see the module docstring).
    """

    model: BodyModel
    times: np.ndarray
    surfaces: tuple[Surface, ...]
    constants: ContactConstants
    normalisation: str
    force_scale: float
    location: np.ndarray
    resting_distance: float
    point_segments: np.ndarray
    point_positions: np.ndarray
    point_velocities: np.ndarray
    point_forces: np.ndarray
    segment_force: np.ndarray
    segment_torque: np.ndarray
    feet: tuple[str, ...]
    foot_force: np.ndarray
    foot_cop: np.ndarray
    total_force: np.ndarray
    total_cop: np.ndarray
    root_wrench_without: np.ndarray
    explained_force: float
    explained_torque: float
    dynamics: Dynamics
    optimisation: Optimisation
    force_model: str = "spring"

    @property
    def plane(self) -> Plane:
        """The estimated ground: the first surface's first face."""
        return self.surfaces[0].top

    @property
    def material(self) -> Material:
        return self.surfaces[0].material

    @property
    def stiffness(self) -> float:
        return self.material.stiffness

    @property
    def normal_damping(self) -> float:
        return self.material.normal_damping

    @property
    def tangential_damping(self) -> float:
        return self.material.tangential_damping

    @property
    def plane_height(self) -> float:
        """Height [m] of the plane at ``location``."""
        return self.plane.height_at(*self.location)

    @property
    def plane_angle(self) -> float:
        """Angle [deg] between the plane and the lab floor."""
        return self.plane.angle

    @property
    def resting_height(self) -> float:
        """Height [m] at ``location`` where motionless feet rest: contact cancels gravity (§5.1)."""
        return self.plane_height + self.resting_distance / self.plane.normal[2]

    @property
    def root_wrench(self) -> np.ndarray:
        """The root wrench left with contact (T, 6)."""
        return self.dynamics.root_wrench

    @property
    def warnings(self) -> tuple[str, ...]:
        """What a user should know about these forces: per-frame forces from unfiltered forward differences
        carry the differentiation noise of the accelerations."""
        options = self.dynamics.options
        if self.force_model == "per_frame" and options.get("derivatives") == "forward differences" \
                and options.get("cutoff_hz") is None:
            return ("per-frame contact forces follow the noise of unfiltered accelerations: filter the dynamics "
                    "(a cutoff of 6-8 Hz for walking)",)
        return ()

    def summary(self) -> dict:
        """Key figures, JSON-ready."""
        return {"forces": self.force_model, "warnings": list(self.warnings),
                "plane_normal": self.plane.normal.tolist(), "plane_offset_m": self.plane.offset,
                "plane_height_m": self.plane_height, "plane_angle_deg": self.plane_angle,
                "resting_height_m": self.resting_height, "stiffness": self.stiffness,
                "normal_damping": self.normal_damping, "tangential_damping": self.tangential_damping,
                "normalisation": self.normalisation, "force_scale_kg": self.force_scale,
                "explained_force": self.explained_force, "explained_torque": self.explained_torque,
                "starts": len(self.optimisation.starts), "iterations": self.optimisation.iterations,
                "seconds": self.optimisation.seconds}


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
def foot_segments(model: BodyModel) -> list[int]:
    """Segments that are feet: those with sole landmarks from calibration, else named ``foot*``."""
    feet = model.metadata.get("feet") or {}
    found = [i for i, s in enumerate(model.segments) if s.name in feet or s.name.lower().startswith("foot")]
    return [i for i in found if len(model.segments[i].contact_points)]


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


# --- outputs ----------------------------------------------------------------------------------------------
def centre_of_pressure(plane: Plane, positions: np.ndarray, forces: np.ndarray) -> np.ndarray:
    """Centre of pressure (T, 3) on ``plane`` of point forces (T, K, 3) at ``positions``.

    The point ``r`` of the plane about which the forces' moment has no tangential part:
    ``r = o + n × M_o / (n·F)`` with ``o`` the plane's point nearest the world origin. NaN where the normal
    force ``n·F`` is below ``COP_MIN_FORCE``.
    """
    n = plane.normal
    origin = plane.offset * n
    total = forces.sum(1)
    moment = np.cross(positions - origin, forces).sum(1)
    normal_force = total @ n
    with np.errstate(invalid="ignore", divide="ignore"):
        cop = origin + np.cross(n, moment) / normal_force[:, None]
    return np.where((normal_force >= COP_MIN_FORCE)[:, None], cop, np.nan)


def _dominant_cop(surfaces: tuple[Surface, ...], by_surface: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """COP (T, 3) of a group of points on the top face of the surface carrying most of its force, per frame."""
    cops = np.stack([centre_of_pressure(s.top, positions, f) for s, f in zip(surfaces, by_surface)])
    if len(surfaces) == 1:
        return cops[0]
    load = np.stack([f.sum(1) @ s.top.normal for s, f in zip(surfaces, by_surface)])
    return np.take_along_axis(cops, np.argmax(load, 0)[None, :, None], 0)[0]


def _explained(with_contact: np.ndarray, without: np.ndarray) -> float:
    """1 - mean per-frame magnitude with contact / without (Fig. 6), over frames where both are finite."""
    a, b = np.linalg.norm(with_contact, axis=1), np.linalg.norm(without, axis=1)
    ok = np.isfinite(a) & np.isfinite(b)
    return float(1.0 - a[ok].mean() / b[ok].mean()) if ok.any() and b[ok].mean() > 0 else float("nan")


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


def estimate_contact(motion: Motion | None = None, *, dynamics: Dynamics | None = None, surfaces="plane",
                     normalisation="body_mass", starts=4, bounds: Bounds = Bounds(), torque_weight: float = 1.0,
                     constants: ContactConstants = ContactConstants(), forces: str = "spring",
                     per_frame: PerFrameOptions = PerFrameOptions()) -> Contact:
    """Estimate the contact surfaces, springs and forces that best explain ``motion`` (eq. 10).

    ``dynamics``: its inverse dynamics without external forces (computed with forward differences when not
    given; pass your own for a filter cutoff). ``surfaces``: ``"plane"`` (initialised from the feet), or
    starting ``Surface`` objects (several planes: a floor and a step, a box); the first start keeps their
    materials. ``starts``: how many starts (materials from ``START_MATERIALS``) or a sequence of
    ``Material``. ``torque_weight`` [m⁻²] weighs the root torque against the root force in eq. 10 (1: the
    paper's plain sum). ``normalisation``: see the module docstring. ``forces``: ``"spring"`` (the paper's
    eqs. 4-7) or ``"per_frame"`` (solved per frame on the estimated surfaces, with ``per_frame``'s options).
    """
    if forces not in FORCE_MODELS:
        raise SolverError(f"Unknown contact force model {forces!r}",
                          "use 'spring' (the paper's eqs. 4-7) or 'per_frame' (solved frame by frame)")
    if dynamics is None:
        if motion is None:
            raise SolverError("Nothing to estimate contact from", "pass a Motion or its Dynamics")
        dynamics = inverse_dynamics(motion)
    if dynamics.external is not None:
        raise SolverError("The dynamics given already include external forces",
                          "pass inverse dynamics computed without external forces")
    model = dynamics.model
    points = ContactPoints.of(model)
    name, scale = force_scale_of(model, normalisation)
    positions, velocities = point_motion(model, dynamics.q, dynamics.v, points)
    root = dynamics.root_wrench
    valid = np.isfinite(root).all(1) & np.isfinite(positions).all((1, 2)) & np.isfinite(velocities).all((1, 2))
    if np.count_nonzero(valid) < 2:
        raise SolverError("The motion has fewer than two frames with a pose and its derivatives",
                          "reconstruct a longer stretch of the trial")
    feet = foot_segments(model)
    on_feet = np.isin(points.segments, feet) if feet else np.ones(len(points.segments), bool)
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
    by_surface = None if forces == "spring" else _per_frame_by_surface(dynamics, best, positions, torque_weight,
                                                                       per_frame, constants)
    return contact_from_surfaces(dynamics, best, name, scale, constants, anchors[0, :2], record, n_support,
                                 by_surface)


def _per_frame_by_surface(dynamics: Dynamics, surfaces: tuple[Surface, ...], positions: np.ndarray,
                          torque_weight: float, options: PerFrameOptions, constants: ContactConstants) -> np.ndarray:
    """Per-frame point forces (``per_frame``) split by the surface nearest each point: (S, T, K, 3) [N]."""
    model = dynamics.model
    solved = per_frame_forces(dynamics.root_wrench, dynamics.root_origin, positions, surfaces,
                              model.total_mass * float(np.linalg.norm(dynamics.gravity)), torque_weight, options,
                              constants)
    nearest = np.argmin(np.stack([s.distance(positions) for s in surfaces]), axis=0)
    return np.stack([np.where((nearest == j)[..., None], solved, 0.0) for j in range(len(surfaces))])


def contact_from_surfaces(dynamics: Dynamics, surfaces: tuple[Surface, ...], normalisation: str, force_scale: float,
                          constants: ContactConstants, location: np.ndarray, record: Optimisation,
                          supporting_points: int, by_surface: np.ndarray | None = None) -> Contact:
    """Every output of ``Contact`` for given surfaces (the estimate, or known ones), with the springs' forces
    (eqs. 4-7) or given point forces per surface ``by_surface`` (S, T, K, 3) [N] (``force_model`` "per_frame")."""
    model = dynamics.model
    points = ContactPoints.of(model)
    positions, velocities = point_motion(model, dynamics.q, dynamics.v, points)
    force_model = "spring" if by_surface is None else "per_frame"
    if by_surface is None:
        by_surface = np.stack([force_scale * contact_forces(positions, velocities, (s,), constants)
                               for s in surfaces])
    forces = by_surface.sum(0)
    segment_force, segment_torque = segment_wrenches(model, dynamics.q, points.segments, positions, forces)
    feet = foot_segments(model)
    on_foot = [points.segments == i for i in feet]
    none = np.zeros((len(forces), 0, 3))
    foot_force = np.stack([forces[:, mine].sum(1) for mine in on_foot], axis=1) if feet else none
    foot_cop = np.stack([_dominant_cop(surfaces, by_surface[:, :, mine], positions[:, mine]) for mine in on_foot],
                        axis=1) if feet else none
    with_contact = rnea(model, dynamics.times, dynamics.q, dynamics.v, dynamics.a, gravity=dynamics.gravity,
                        external=ExternalForces(points.segments, positions, forces),
                        options={**dynamics.options, "external": "estimated contact (Brubaker et al. 2009)"})
    rest = resting_distance(surfaces[0].material, supporting_points,
                            model.total_mass * float(np.linalg.norm(dynamics.gravity)) / force_scale, constants)
    return Contact(
        model=model, times=dynamics.times, surfaces=tuple(surfaces), constants=constants, normalisation=normalisation,
        force_scale=force_scale, location=np.asarray(location, dtype=float), resting_distance=rest,
        point_segments=points.segments, point_positions=positions, point_velocities=velocities, point_forces=forces,
        segment_force=segment_force, segment_torque=segment_torque, feet=tuple(model.segments[i].name for i in feet),
        foot_force=foot_force, foot_cop=foot_cop, total_force=forces.sum(1),
        total_cop=_dominant_cop(surfaces, by_surface, positions), root_wrench_without=dynamics.root_wrench,
        explained_force=_explained(with_contact.root_wrench[:, :3], dynamics.root_wrench[:, :3]),
        explained_torque=_explained(with_contact.root_wrench[:, 3:], dynamics.root_wrench[:, 3:]),
        dynamics=with_contact, optimisation=record, force_model=force_model)
