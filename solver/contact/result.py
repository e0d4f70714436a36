"""What contact estimation returns (``Contact``) and how its outputs follow from point forces.

Outputs follow Brubaker et al. (2009) §5: forces per point and per segment,
ground reaction force, centre of pressure and free moment per foot and in
total, the surfaces, the fraction of the root force explained (Fig. 6) and
the joint torques recomputed with the contact forces.

Fraction explained (Fig. 6): ``1 - mean_t |F_root(θ)| / mean_t |F_root(0)|``
over per-frame magnitudes of the root *force* (N); the same for the root
torque is reported beside it.

Resting height (§5.1, springs only: "the height at which ground forces exactly
cancel force due to gravity for a motionless subject"): the height above the
first surface at which all the feet's contact points (the soles: four per foot),
motionless and level, carry the body weight between them with its material
(``model.resting_distance``), measured vertically at ``Contact.location``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..dynamics import Dynamics, ExternalForces, rnea
from ..errors import option
from ..model.body import BodyModel
from .activation import activations
from .model import ContactConstants, ContactPoints, Material, Plane, Surface, SurfaceArrays, contact_forces, \
    point_motion, resting_distance, segment_wrenches
from .flight import Flight, flight
from .paper_fit import Optimisation
from .per_frame import PerFrameOptions

#: A centre of pressure needs at least this normal force [N] (as force plates, ``io.plates``).
COP_MIN_FORCE = 20.0
#: A surface carries load in the frames where its normal force is above this fraction of body weight.
LOAD_THRESHOLD = 0.05
#: A segment other than a foot is a contact body (``Contact.other_bodies``) when its points carry this fraction
#: of the body weight in some frame.
BODY_LOAD = 0.02


@dataclass(frozen=True)
class Contact:
    """Estimated contact, time first on the frames of ``dynamics`` (see the module docstring).

    Forces are on the body, in newtons, world frame. ``point_*`` (T, K, 3) per contact point
    (``point_segments`` (K,)); ``segment_force``/``segment_torque`` (T, S, 3), the torque about each
    segment's centre of mass; ``feet`` names the foot segments of ``foot_force``/``foot_cop``/
    ``foot_moment`` (T, F, 3): force, centre of pressure and free moment (about the COP, along the surface's
    normal), ``foot_surface_force`` (T, F, S, 3) each foot's force per surface; ``other_bodies`` the other
    segments that carry load (``BODY_LOAD``: a seated pelvis and thighs, a hand on the floor) and
    ``other_force``/``other_cop``/``other_moment`` (T, B, 3) theirs; ``total_force``/``total_cop``
    (T, 3) include every segment. A centre of pressure is NaN where
    the normal force is below ``COP_MIN_FORCE``. ``surfaces`` (empty: no support found) and
    ``surface_force`` (T, S, 3) the force each carries; ``point_surface_forces`` (S, T, K, 3) each surface's
    share of ``point_forces``, the one array the point, surface, foot-per-surface and total forces are sums
    of; ``patches`` describes the surfaces found from resting
    points (``support.Patch``, none for the paper's plane). ``location`` (x, y) is where heights are
    measured. ``root_wrench_without`` (T, 6) is the root wrench with no contact, ``dynamics.root_wrench``
    the one left with it. ``explained_force``/``explained_torque``: 1 - mean|root force (torque) with
    contact| / mean|... without| (Fig. 6, per-frame magnitudes averaged over the valid frames).
    ``force_model``: ``"spring"`` (eqs. 4-7, with the materials and ``optimisation`` of eq. 10) or
    ``"per_frame"`` (``per_frame``). ``ground_velocity`` (3,) [m/s]: the floor's (zero on the ground, a
    treadmill's belt; ``ground``); ``point_velocities`` are relative to it, those whose sliding the per-frame forces
    judged (``estimate``: at Winter's cutoff where the motion was given).
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
    segment_force: np.ndarray
    segment_torque: np.ndarray
    feet: tuple[str, ...]
    foot_force: np.ndarray
    foot_cop: np.ndarray
    foot_moment: np.ndarray
    other_bodies: tuple[str, ...]
    other_force: np.ndarray
    other_cop: np.ndarray
    other_moment: np.ndarray
    total_cop: np.ndarray
    point_surface_forces: np.ndarray
    root_wrench_without: np.ndarray
    explained_force: float
    explained_torque: float
    dynamics: Dynamics
    optimisation: Optimisation | None = None
    force_model: str = "spring"
    patches: tuple = ()
    ground_velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))

    @property
    def plane(self) -> Plane | None:
        """The estimated ground: the first surface's first face (None when no support was found)."""
        return self.surfaces[0].top if self.surfaces else None

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
        return self.plane.height_at(*self.location) if self.surfaces else float("nan")

    @property
    def plane_angle(self) -> float:
        """Angle [deg] between the plane and the lab floor."""
        return self.plane.angle if self.surfaces else float("nan")

    @property
    def resting_height(self) -> float:
        """Height [m] at ``location`` where motionless feet rest: contact cancels gravity (§5.1)."""
        return self.plane_height + self.resting_distance / self.plane.normal[2] if self.surfaces else float("nan")

    @property
    def root_wrench(self) -> np.ndarray:
        """The root wrench left with contact (T, 6)."""
        return self.dynamics.root_wrench

    @property
    def body_weight(self) -> float:
        return self.model.total_mass * float(np.linalg.norm(self.dynamics.gravity))

    @cached_property
    def point_forces(self) -> np.ndarray:
        """(T, K, 3) each contact point's force, all surfaces together."""
        return self.point_surface_forces.sum(0)

    @cached_property
    def total_force(self) -> np.ndarray:
        """(T, 3) the force of every contact point."""
        return self.point_forces.sum(1)

    @cached_property
    def surface_force(self) -> np.ndarray:
        """(T, S, 3) the force each surface carries."""
        return np.moveaxis(self.point_surface_forces.sum(2), 0, 1)

    @cached_property
    def foot_surface_force(self) -> np.ndarray:
        """(T, F, S, 3) each foot's force per surface."""
        if not self.feet:
            return np.zeros((len(self.times), 0, len(self.surfaces), 3))
        return np.stack([np.moveaxis(self.point_surface_forces[:, :, self.point_segments == self.model.index(foot)]
                                     .sum(2), 0, 1) for foot in self.feet], axis=1)

    @cached_property
    def flight(self) -> Flight | None:
        """The frames in which no contact point is within the per-frame estimate's reach of a surface and the
        root force the motion needs there (``flight``: zero for exact kinematics); None without a surface or
        with too short a flight."""
        if not self.surfaces:
            return None
        points, least = ContactPoints.of(self.model), PerFrameOptions().min_activation
        activation, _, _ = activations(self.point_positions, SurfaceArrays(self.surfaces), self.constants,
                                       points.padding, points.floor_only, least)  # only the points that might reach
        return flight(activation, self.root_wrench_without[:, :3], self.times, self.body_weight, least)

    @property
    def headline(self) -> str:
        """One line for a progress bar or a status report: the surfaces found and the root force explained."""
        if not self.surfaces:
            return "no support found: no contact forces"
        names = ", ".join(self.surface_name(j) for j in range(len(self.surfaces)))
        return f"contact on {names}: explains {100 * self.explained_force:.0f} % of the root force"

    @property
    def warnings(self) -> tuple[str, ...]:
        """What a user should know about these forces: no support at all; supports found only at Winter's
        cutoff, or only with the soles judged with their foot; per-frame forces from unfiltered accelerations
        carry their differentiation noise; a trial cut inside a landing's impact; a motion that needs a large
        root force in flight (``Flight.warning``)."""
        options = self.dynamics.options
        if not self.surfaces:
            return ("no support found: no body point rests on a surface anywhere in the trial (an aerial, a "
                    "trampoline phase), so there are no contact forces",)
        found = []
        if self.patches and self.patches[0].found_at_hz is not None:
            cutoff = options.get("steady_cutoff_hz", options.get("cutoff_hz"))
            found.append(f"supports found in the motion filtered at Winter's {self.patches[0].found_at_hz:.3g} Hz: "
                         f"at the dynamics' {cutoff:.3g} Hz no body point rests long enough (a runner's short "
                         f"stances smoothed away); the forces still follow the {cutoff:.3g} Hz motion")
        if self.patches and self.patches[0].found_rolling:
            found.append("supports found only with each foot's sole judged as a whole: no body point rests long "
                         "enough anywhere in the trial (a sprinter's forefoot rolling through short stances); the "
                         "floor may sit a centimetre low")
        if self.force_model == "per_frame" and options.get("derivatives", "").endswith("differences") \
                and options.get("cutoff_hz") is None:
            found.append("per-frame contact forces follow the noise of unfiltered accelerations: filter the "
                         f"dynamics ({option('cutoff', 'auto')}, or 6-12 Hz)")
        if options.get("cut_in_impact"):
            found.append(f"the trial {' and '.join(options['cut_in_impact'])} within a landing's impact: the "
                         "low-pass filter's ends pull the forces there toward the body weight; record a few "
                         "tenths of a second more around landings")
        if self.flight is not None and self.flight.warning is not None:
            found.append(self.flight.warning)
        return tuple(found)

    def load_intervals(self, surface: int) -> list[tuple[float, float]]:
        """``[(start, end), ...]`` [s] of the runs of frames in which ``surface`` carries at least
        ``LOAD_THRESHOLD`` of the body weight along its normal."""
        normal = self.surface_force[:, surface] @ self.surfaces[surface].top.normal
        with np.errstate(invalid="ignore"):
            loaded = np.concatenate([[False], normal > LOAD_THRESHOLD * self.body_weight, [False]])
        edges = np.diff(loaded.astype(np.int8))
        step = self.times[1] - self.times[0] if len(self.times) > 1 else 0.0
        return [(float(self.times[a]), float(self.times[b - 1] + step))
                for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1))]

    def surface_name(self, j: int) -> str:
        """``"floor"`` or ``"raised surface j"``."""
        floor = self.patches[j].kind == "floor" if self.patches else j == 0
        return "floor" if floor else f"raised surface {j}"

    def surface_summary(self, j: int) -> dict:
        """One surface: its kind, height and tilt (where contact points rest on it), extent, and load; a raised
        one's height over the floor, both planes taken on the vertical through its centre."""
        top = self.surfaces[j].top
        found = {**self.patches[j].summary()} if self.patches else {
            "kind": "floor" if j == 0 else "raised", "height_m": self.plane_height, "tilt_deg": top.angle}
        if j > 0 and "centre_m" in found:
            x, y, _ = found["centre_m"]
            found["height_above_floor_m"] = float(top.height_at(x, y) - self.surfaces[0].top.height_at(x, y))
        normal = self.surface_force[:, j] @ top.normal
        return {"name": self.surface_name(j), **found,
                "normal": top.normal.tolist(), "load_intervals_s": self.load_intervals(j),
                "mean_load_percent_bw": float(100 * np.nanmean(normal) / self.body_weight),
                "peak_load_percent_bw": float(100 * np.nanmax(normal) / self.body_weight) if len(normal) else 0.}

    def summary(self) -> dict:
        """Key figures, JSON-ready."""
        out = {"forces": self.force_model,
               "surfaces_from": "eq. 10 plane" if self.optimisation is not None else "resting points",
               "warnings": list(self.warnings), "surfaces": [self.surface_summary(j) for j in
                                                              range(len(self.surfaces))],
               "explained_force": self.explained_force, "explained_torque": self.explained_torque}
        if self.ground_velocity.any():
            out.update(floor_velocity_m_s=self.ground_velocity.tolist())
        if self.flight is not None:  # what contact leaves unexplained where it can act, and in flight
            reach = self.flight.in_reach
            out.update(flight={**self.flight.summary(), "explained_force_in_reach": _explained(
                self.root_wrench[reach, :3], self.root_wrench_without[reach, :3])})
        if self.surfaces:
            out.update(floor_height_m=out["surfaces"][0]["height_m"], floor_tilt_deg=self.plane_angle,
                       plane_normal=self.plane.normal.tolist(), plane_offset_m=self.plane.offset,
                       plane_height_m=self.plane_height, plane_angle_deg=self.plane_angle)
        if self.force_model == "spring" and self.optimisation is not None:
            out.update(resting_height_m=self.resting_height, stiffness=self.stiffness,
                       normal_damping=self.normal_damping, tangential_damping=self.tangential_damping,
                       normalisation=self.normalisation, force_scale_kg=self.force_scale,
                       starts=len(self.optimisation.starts), iterations=self.optimisation.iterations,
                       seconds=self.optimisation.seconds)
        return out


def foot_segments(model: BodyModel) -> list[int]:
    """Segments that are feet: those with sole landmarks from calibration, else named ``foot*``."""
    feet = model.metadata.get("feet") or {}
    found = [i for i, s in enumerate(model.segments) if s.name in feet or s.name.lower().startswith("foot")]
    return [i for i in found if len(model.segments[i].contact_points)]

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


def free_moment(normal: np.ndarray, positions: np.ndarray, forces: np.ndarray, cop: np.ndarray) -> np.ndarray:
    """The free moment (T, 3) of point forces (T, K, 3) at ``positions`` about the centre of pressure ``cop``
    (T, 3): their moment's part along the surface ``normal`` (the only part left about a COP). Zero where
    there is no COP."""
    moment = np.cross(positions - cop[:, None], forces).sum(1)
    return np.nan_to_num(np.einsum("ti,i->t", moment, normal)[:, None] * normal)


def _dominant(surfaces: tuple[Surface, ...], by_surface: np.ndarray, positions: np.ndarray):
    """COP (T, 3) and free moment (T, 3) of a group of points on the top face of the surface carrying most of
    its force, per frame."""
    if not surfaces:
        return np.full(positions.shape[:1] + (3,), np.nan), np.zeros(positions.shape[:1] + (3,))
    tops = [s.top for s in surfaces]
    cops = np.stack([centre_of_pressure(top, positions, f) for top, f in zip(tops, by_surface)])
    moments = np.stack([free_moment(top.normal, positions, f, c) for top, f, c in zip(tops, by_surface, cops)])
    load = np.stack([f.sum(1) @ top.normal for top, f in zip(tops, by_surface)])
    pick = np.argmax(load, 0)[None, :, None]
    return np.take_along_axis(cops, pick, 0)[0], np.take_along_axis(moments, pick, 0)[0]


def _per_body(bodies: list[int], surfaces: tuple[Surface, ...], by_surface: np.ndarray, positions: np.ndarray,
              point_segments: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Force, centre of pressure and free moment (T, B, 3) of the points of each segment in ``bodies``
    (``_dominant``)."""
    if not bodies:
        return (np.zeros((positions.shape[0], 0, 3)),) * 3
    mine = [point_segments == i for i in bodies]
    cop, moment = zip(*(_dominant(surfaces, by_surface[:, :, m], positions[:, m]) for m in mine))
    return np.stack([by_surface[:, :, m].sum((0, 2)) for m in mine], 1), np.stack(cop, 1), np.stack(moment, 1)


def _explained(with_contact: np.ndarray, without: np.ndarray) -> float:
    """1 - mean per-frame magnitude with contact / without (Fig. 6), over frames where both are finite."""
    a, b = np.linalg.norm(with_contact, axis=1), np.linalg.norm(without, axis=1)
    ok = np.isfinite(a) & np.isfinite(b)
    return float(1.0 - a[ok].mean() / b[ok].mean()) if ok.any() and b[ok].mean() > 0 else float("nan")


def contact_from_surfaces(dynamics: Dynamics, surfaces: tuple[Surface, ...], normalisation: str, force_scale: float,
                          constants: ContactConstants, location: np.ndarray, record: Optimisation | None,
                          supporting_points: int, by_surface: np.ndarray | None = None, patches: tuple = (),
                          motion: tuple[np.ndarray, np.ndarray] | None = None,
                          ground: np.ndarray = np.zeros(3)) -> Contact:
    """Every output of ``Contact`` for given surfaces (the estimate, or known ones), with the springs' forces
    (eqs. 4-7) or given point forces per surface ``by_surface`` (S, T, K, 3) [N] (``force_model`` "per_frame").
    ``motion``: the contact points' positions and velocities (T, K, 3) relative to the floor, when already known;
    ``ground`` the floor's velocity (3,) [m/s] (a treadmill's belt; ``ground.floor_velocity``)."""
    model = dynamics.model
    points = ContactPoints.of(model)
    if motion is None:
        positions, velocities = point_motion(model, dynamics.q, dynamics.v, points)
        motion = positions, velocities - ground
    positions, velocities = motion
    force_model = "spring" if by_surface is None else "per_frame"
    if by_surface is None:
        by_surface = np.stack([force_scale * contact_forces(positions, velocities, (s,), constants)
                               for s in surfaces])
    by_surface = by_surface.reshape((len(surfaces),) + positions.shape)
    forces = by_surface.sum(0)
    loaded = np.flatnonzero(np.any(np.nan_to_num(forces) != 0.0, axis=(0, 2)))  # the points that ever push
    segment_force, segment_torque = segment_wrenches(model, dynamics.q, points.segments[loaded],
                                                     positions[:, loaded], forces[:, loaded], dynamics.poses)
    weight = model.total_mass * float(np.linalg.norm(dynamics.gravity))
    feet = foot_segments(model)
    others = [int(i) for i in np.unique(points.segments[loaded]) if i not in feet and np.nanmax(
        np.linalg.norm(forces[:, points.segments == i].sum(1), axis=-1)) >= BODY_LOAD * weight]
    foot_force, foot_cop, foot_moment = _per_body(feet, surfaces, by_surface, positions, points.segments)
    other_force, other_cop, other_moment = _per_body(others, surfaces, by_surface, positions, points.segments)
    with_contact = rnea(model, dynamics.times, dynamics.q, dynamics.v, dynamics.a, gravity=dynamics.gravity,
                        external=ExternalForces(points.segments[loaded], positions[:, loaded], forces[:, loaded]),
                        options={**dynamics.options, "external": f"estimated contact ({force_model} forces)"})
    rest = resting_distance(surfaces[0].material, supporting_points, weight / force_scale, constants) \
        if force_model == "spring" and surfaces else 0.0
    return Contact(
        model=model, times=dynamics.times, surfaces=tuple(surfaces), constants=constants, normalisation=normalisation,
        force_scale=force_scale, location=np.asarray(location, dtype=float), resting_distance=rest,
        point_segments=points.segments, point_positions=positions, point_velocities=velocities,
        segment_force=segment_force, segment_torque=segment_torque, feet=tuple(model.segments[i].name for i in feet),
        foot_force=foot_force, foot_cop=foot_cop, foot_moment=foot_moment,
        other_bodies=tuple(model.segments[i].name for i in others), other_force=other_force, other_cop=other_cop,
        other_moment=other_moment,
        total_cop=_dominant(surfaces, by_surface[:, :, loaded], positions[:, loaded])[0],
        point_surface_forces=by_surface,
        root_wrench_without=dynamics.root_wrench,
        explained_force=_explained(with_contact.root_wrench[:, :3], dynamics.root_wrench[:, :3]),
        explained_torque=_explained(with_contact.root_wrench[:, 3:], dynamics.root_wrench[:, 3:]),
        dynamics=with_contact, optimisation=record, force_model=force_model, patches=tuple(patches),
        ground_velocity=np.asarray(ground, dtype=float))
