"""Ground contact estimated from motion alone: the surfaces the body rests on, then the forces on them.

Two methods, chosen by ``estimate_contact``'s ``surfaces`` and ``forces``:

- the default, validated on real trials with force plates (walks, a drop jump from a box, sit-to-stand, video
  markers; README): the surfaces found from where and when body points rest (``support``: the floor, and a
  box, step or seat where the root wrench needs one), and each frame's point forces solved within friction
  cones at the points those surfaces make active (``per_frame``). Both go beyond the paper.
- Brubaker, Sigal & Fleet (2009) as published: one plane and its springs fitted by eq. 10
  (``paper_fit``), forces from the springs, eqs. 4-7 (``surfaces="plane", forces="spring"``).

Per-frame forces on the eq. 10 plane are a third combination. Springs need the materials eq. 10 fits, so
springs on surfaces found from resting points are refused.

Supports are found in the motion the dynamics differentiated. Where none rests there and the dynamics were
filtered, they are looked for again at Winter's cutoff (``winter_filtered``; beyond the paper): filtered at 8 Hz or
lower, a sprinter's feet are never still long enough within their 0.1 s stances (the sprint at ``--cutoff 8``: no
support; found at Winter's 32 Hz, its vertical GRF from motion alone misses the plates by 25.5 % BW, r 0.99; 29.7,
r 0.978 with the sliding judged at 8 Hz too). The contact reports it (``Contact.warnings``). The body mass from the
plates (``stages``) is found the same way.

Whether a point slides (``per_frame``'s sliding factor) is judged at Winter's cutoff too (the one the dynamics
found), where the motion is known; beyond the paper. The dynamics' filter away from touch-downs (8-11 Hz,
``dynamics.touchdowns``) keeps soft tissue out of the accelerations; a velocity, one derivative less, needs less of
it, and within a sprinter's 0.1 s stance that filter averages the foot's motion over the whole stance. At it the
sprint's heel points moved at 0.33-0.36 m/s (medians while the plate under the foot carried over 0.2 BW) and its
toe points at 0.57-0.76, so the heels took load although the sprinter lands and pushes off on the forefoot (our
centre of pressure 3.2-8.5 cm behind the plates' along the foot in the first third of each stance); at Winter's 32
Hz the heels move at 0.75-1.04 m/s and the toes at 0.57-0.81, and there our centre of pressure lies 3.2 cm behind
to 0.9 cm ahead of the plates'. The sprint's vertical GRF from motion alone 24.1 -> 22.1 % BW, horizontal 15.8 ->
15.4, centre of pressure in single support 4.4 -> 3.7 cm, hip, knee and ankle moments against ours with the plates
0.950 -> 0.964; its root force explained 75.2 -> 74.2 % (86 % in the frames with a point in reach, was 87.3;
since the soles are judged with their foot, ``sliding``: 22.7 % BW, 3.8 cm, 0.963, 74.7 %). The
nine other runs of the contact table (walks, drop jumps, sit-to-stand, video) change by 0.1 % BW at most: their
feet stand still in stance at either cutoff. Where points rest (``support``) stays judged at the dynamics'
filtering: at Winter's the sprint's floor fell from 1.6 to 3.2 cm below its plates (README, 2026-12-07). The
contact's ``point_velocities`` are the ones the sliding was judged on: the retarget's foot events read them.

Selecting raised surfaces (``detected_surfaces``): the floor (the lowest resting cluster) always supports;
each raised patch, lowest first, is kept when, among the frames its points rest, those in which the surfaces
kept so far leave a root wrench (``sqrt(|F|² + w|τ|²)``, weighted as the fit) above ``NEEDED`` of the body
weight last ``NEEDED_TIME`` in all, and adding the patch lowers the wrench there by more than ``GAIN`` of the
body weight on average: feet alone can push as hard as a seated body needs, but not behind themselves. A
subject standing still rests her hands and pelvis too, but her feet already explain everything: only supports
the motion needs remain. Judged over the frames that need a support rather than over all the frames the points
rest (as until 2026-12-07): the thighs also rest on a seat while the feet carry the body, rising and sitting
down, and they diluted the need of a sit-to-stand cut to its last two cycles (8.5-13.3 s of STS1: 0.13 BW on
average over the seat's resting frames, 0.28 over the half that needed it) below ``NEEDED``, so the seat was
not kept and the plates' impulse gave a body mass of 47.0 kg instead of 59.7 (vertical GRF 46.6 % BW from
motion alone). On the shared trials, their copies captured otherwise, cut (72 random cuts) or turned, no
other decision changed.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..dynamics import Dynamics, inverse_dynamics, motion_derivatives
from ..errors import SolverError
from ..kinematics.motion import Motion
from ..model.contact_points import sole_segments
from .activation import activations
from .ground import floor_velocity
from .model import ContactConstants, ContactPoints, Surface, SurfaceArrays, point_motion, point_positions
from .paper_fit import Bounds, fit_plane_and_springs
from .per_frame import JointLoads, PerFrameOptions, per_frame_forces
from .pyramids import facing_direction
from .result import Contact, contact_from_surfaces, foot_segments
from .sliding import sole_of
from .support import find_patches

#: How the point forces are found: solved per frame (the default), or the paper's springs (eqs. 4-7).
FORCE_MODELS = ("per_frame", "spring")
#: Where the surfaces come from: resting points (the default for per-frame forces), or eq. 10's one plane.
SURFACE_MODELS = ("detected", "plane")
#: A raised patch is tried where the surfaces kept leave a root wrench above this fraction of body weight in
#: frames its points rest ...
NEEDED = 0.15
#: ... for this long [s] in all ...
NEEDED_TIME = 0.1
#: ... and kept if it lowers the wrench in those frames by more than this fraction of body weight on average.
GAIN = 0.10


def default_dynamics(motion: Motion, forces: str = "per_frame") -> Dynamics:
    """The inverse dynamics each force model is validated with: filtered (the default cutoff: Winter's at
    touch-downs, ``dynamics.touchdowns``) central differences for per-frame forces, the paper's unfiltered forward
    differences for its springs."""
    if forces == "spring":
        return inverse_dynamics(motion)
    return inverse_dynamics(motion, cutoff="auto", scheme="central")


def estimate_contact(motion: Motion | None = None, *, dynamics: Dynamics | None = None, surfaces=None,
                     forces: str = "per_frame", normalisation="body_mass", starts=4, bounds: Bounds = Bounds(),
                     torque_weight: float = 1.0, constants: ContactConstants = ContactConstants(),
                     per_frame: PerFrameOptions = PerFrameOptions()) -> Contact:
    """The contact surfaces and forces that explain ``motion`` (see the module docstring).

    ``dynamics``: its inverse dynamics without external forces (``default_dynamics`` when not given); with
    ``motion`` too, the per-frame forces judge whether a point slides on ``motion`` at Winter's cutoff (module
    docstring), on the dynamics' own filtering without it. ``forces``: ``"per_frame"`` or ``"spring"``.
    ``surfaces``: ``"detected"`` (found from resting points; the default for per-frame forces), ``"plane"`` (eq. 10,
    initialised from the feet; the default for springs), or starting ``Surface`` objects for eq. 10 (several planes:
    a floor and a step, a box; the first start keeps their materials). Eq. 10's options: ``starts`` (how many,
    materials from ``paper_fit.START_MATERIALS``, or a sequence of ``Material``), ``bounds``, ``normalisation``
    (``paper_fit``). ``torque_weight`` [m⁻²] weighs the root torque against the root force, in eq. 10 and in the
    per-frame fit (1: the paper's plain sum).
    """
    if forces not in FORCE_MODELS:
        raise SolverError(f"Unknown contact force model {forces!r}",
                          "use 'per_frame' (solved frame by frame) or 'spring' (the paper's eqs. 4-7)")
    if surfaces is None:
        surfaces = "detected" if forces == "per_frame" else "plane"
    if isinstance(surfaces, str) and surfaces not in SURFACE_MODELS:
        raise SolverError(f"Unknown surfaces {surfaces!r}",
                          "use 'detected' (from resting points), 'plane' (eq. 10), or give Surface objects")
    if surfaces == "detected" and forces == "spring":
        raise SolverError("Spring contact forces cannot act on surfaces found from resting points (the springs "
                          "need the materials that eq. 10 fits)", "use the plane of eq. 10 with the springs, "
                                                                  "or per-frame forces on the detected surfaces")
    if dynamics is None:
        if motion is None:
            raise SolverError("Nothing to estimate contact from", "pass a Motion or its Dynamics")
        dynamics = default_dynamics(motion, forces)
    if dynamics.external is not None:
        raise SolverError("The dynamics given already include external forces",
                          "pass inverse dynamics computed without external forces")
    model = dynamics.model
    points = ContactPoints.of(model)
    if forces == "spring":  # the springs need the velocities of (q, v) themselves
        positions, velocities = point_motion(model, dynamics.q, dynamics.v, points)
        at_winter = None
    else:  # a point's rest needs only its speed: differences of its positions
        positions = point_positions(model, dynamics.q, points, dynamics.poses)
        velocities = np.gradient(positions, dynamics.times, axis=0) if len(positions) > 1 else np.zeros_like(positions)
        at_winter = winter_filtered(motion, dynamics, points)
    feet = foot_segments(model)
    on_feet = np.isin(points.segments, feet) if feet else np.ones(len(points.segments), bool)
    centre_of_mass = model.body_com(dynamics.q, dynamics.poses)
    ground = floor_velocity(positions, velocities, on_feet, centre_of_mass, dynamics.times)
    velocities = velocities - ground  # relative to the floor they touch (a treadmill's belt)
    sliding = velocities if at_winter is None else at_winter[3] - ground
    if surfaces == "detected":
        patches, by_surface = detected_surfaces(dynamics, points, positions, velocities, sliding, centre_of_mass,
                                                torque_weight, per_frame, constants, at_winter, ground)
        found = tuple(p.surface for p in patches)
        location = patches[0].centre[:2] if patches else np.zeros(2)
        return contact_from_surfaces(dynamics, found, "body_mass", model.total_mass, constants, location, None,
                                     int(np.count_nonzero(on_feet)), by_surface, patches, (positions, sliding),
                                     ground)
    best, record, name, scale, anchor = fit_plane_and_springs(dynamics, positions, velocities, on_feet, surfaces,
                                                              normalisation, starts, bounds, torque_weight,
                                                              constants)
    by_surface = None if forces == "spring" else _per_frame_by_surface(
        dynamics, best, (positions, sliding, centre_of_mass, points.padding, None, points.segments), per_frame,
        torque_weight, constants, joint_loads(dynamics, points))
    return contact_from_surfaces(dynamics, best, name, scale, constants, anchor[:2], record,
                                 int(np.count_nonzero(on_feet)), by_surface, motion=(positions, sliding),
                                 ground=ground)


def joint_loads(dynamics: Dynamics, points: ContactPoints) -> JointLoads:
    """The joints between the root and the contact points, with their torques without contact (``per_frame``'s
    effort term (**))."""
    model = dynamics.model
    carries = np.zeros((len(points.segments), len(model.segments)), dtype=bool)
    for k, s in enumerate(points.segments):
        while s > 0:  # the root is not a joint: its wrench is the residual
            carries[k, s], s = True, model.segments[s].parent
    joints = np.flatnonzero(carries.any(0))
    centres = dynamics.poses[1][:, joints]
    return JointLoads(dynamics.joint_torque_world[:, joints], centres, carries[:, joints])


def _per_frame_by_surface(dynamics: Dynamics, surfaces: tuple[Surface, ...], motion: tuple,
                          options: PerFrameOptions, torque_weight: float, constants: ContactConstants,
                          joints: JointLoads, frames: np.ndarray | slice = slice(None)) -> np.ndarray:
    """Per-frame point forces (``per_frame``) on ``frames``, by surface: (S, T, K, 3) [N]; ``motion`` the
    contact points' positions and velocities (T, K, 3), the body's centre of mass (T, 3), the points'
    padding (K,), which of them touch only the first surface (K,; None: all touch every surface) and their
    segments (K,) (``ContactPoints``), ``joints`` (``joint_loads``) the joints of the effort term, over all frames;
    the soles (``model.metadata["soles"]``) judged sliding as feet (``sliding``)."""
    positions, velocities, centre_of_mass, padding, floor_only, points_segments = motion
    soles = sole_segments(dynamics.model)
    weight = dynamics.model.total_mass * float(np.linalg.norm(dynamics.gravity))
    joints = JointLoads(joints.torque[frames], joints.centre[frames], joints.carries)
    return per_frame_forces(dynamics.root_wrench[frames], dynamics.root_origin[frames], positions[frames],
                            surfaces, weight, torque_weight, options, constants, centre_of_mass[frames],
                            velocities[frames], joints, dynamics.times[frames], padding, floor_only,
                            facing_direction(dynamics.poses[0][:, 0]),
                            *(None if w is None else w[frames] for w in (dynamics.touchdown, dynamics.settling)),
                            points_segments, soles)


def _wrench_left(dynamics: Dynamics, positions: np.ndarray, forces: np.ndarray, frames, torque_weight: float
                 ) -> np.ndarray:
    """``sqrt(|F|² + w |τ|²)`` (T,) of the root wrench left on ``frames`` once point forces (T, K, 3) act at
    ``positions`` (eq. 9 is linear in them; ``w`` the torque weight [m⁻²], as in the fit)."""
    forces = np.nan_to_num(forces)
    loaded = np.flatnonzero(forces.any(axis=(0, 2)))  # the points that ever push
    forces = forces[:, loaded]
    root = dynamics.root_wrench[frames]
    arms = positions[frames][:, loaded] - dynamics.root_origin[frames][:, None]
    force = root[:, :3] - forces.sum(1)
    torque = root[:, 3:] - np.cross(arms, forces).sum(1)
    return np.sqrt(np.sum(force ** 2, 1) + torque_weight * np.sum(torque ** 2, 1))


def winter_filtered(motion: Motion | None, dynamics: Dynamics, points: ContactPoints) -> tuple | None:
    """``motion``'s coordinates (T, nq) filtered at Winter's cutoff (the one the dynamics found, else his
    analysis) on the frames of ``dynamics``, their poses (``forward_kinematics``), the contact points' positions
    and velocities (T, K, 3) there, and that cutoff [Hz]; None without a motion, for unfiltered dynamics, or when
    the frames differ."""
    if motion is None or dynamics.options.get("cutoff_hz") is None:
        return None
    scheme = "central" if dynamics.options.get("first_frame") == 1 else "forward"
    winter = motion_derivatives(motion, cutoff=dynamics.options.get("winter_cutoff_hz", "winter"), scheme=scheme)
    if len(winter.times) != len(dynamics.times) or len(winter.times) < 2:
        return None
    poses = dynamics.model.forward_kinematics(winter.q)
    positions = point_positions(dynamics.model, winter.q, points, poses)
    return winter.q, poses, positions, np.gradient(positions, winter.times, axis=0), winter.options.get("cutoff_hz")


def _first_found(model, points: ContactPoints, motions: list, rate: float, gravity: np.ndarray) -> list:
    """The candidate patches (``support.find_patches``) of the first of ``motions`` (each: its cutoff [Hz] or
    None for the dynamics' own, the segments' rotations, the points' positions and velocities, the centre of
    mass) in which a point rests, each point judged by its own speed; failing that, with the soles' points judged
    with their foot (``support.rolling_speeds``: a sprinter's forefoot rolls through a stance in which no point of
    it is still for long)."""
    soles = sole_of(points.segments, sole_segments(model))
    for judged in (None, soles):
        for cutoff, rotations, where, speeds, centre_of_mass in motions:
            found = find_patches(model, points, rotations, where, speeds, centre_of_mass, rate, gravity, judged)
            if found:
                return [replace(patch, found_at_hz=cutoff, found_rolling=judged is not None) for patch in found]
    return []


def detected_surfaces(dynamics: Dynamics, points: ContactPoints, positions: np.ndarray, velocities: np.ndarray,
                      sliding: np.ndarray, centre_of_mass: np.ndarray, torque_weight: float, options: PerFrameOptions,
                      constants: ContactConstants, at_winter: tuple | None = None, ground: np.ndarray = np.zeros(3)):
    """The patches kept (``support.Patch``: the floor, then the raised patches the motion needs; see the
    module docstring) and their per-frame point forces (S, T, K, 3) [N]: the floor's alone, solved again
    with every kept surface in the frames where a point comes within reach of a raised one. Where no point
    rests in the dynamics' motion, the patches are looked for in the motion filtered at Winter's cutoff
    (``at_winter``: ``winter_filtered``'s, when known), then in both with the soles judged with their foot
    (``_first_found``).
    ``velocities`` (where points rest) and ``sliding`` (whether a point slides, ``per_frame``; both (T, K, 3)) are
    relative to the floor, which moves at ``ground`` [m/s] (``ground.floor_velocity``); ``centre_of_mass`` (T, 3)
    the body's in the dynamics' frames."""
    model = dynamics.model
    rate = 1.0 / (dynamics.times[1] - dynamics.times[0]) if len(dynamics.times) > 1 else 1.0
    motions = [(None, dynamics.poses[0], positions, velocities, centre_of_mass)]
    if at_winter is not None:
        q, poses, sharper, speeds, cutoff = at_winter
        motions.append((cutoff, poses[0], sharper, speeds - ground, model.body_com(q, poses)))
    candidates = _first_found(model, points, motions, rate, dynamics.gravity)
    if not candidates:
        return (), np.zeros((0,) + positions.shape)
    weight = model.total_mass * float(np.linalg.norm(dynamics.gravity))
    kept = [candidates[0]]
    motion = (positions, sliding, centre_of_mass, points.padding, points.floor_only, points.segments)
    joints = joint_loads(dynamics, points)
    on_floor = _per_frame_by_surface(dynamics, (kept[0].surface,), motion, options, torque_weight, constants, joints)
    left = _wrench_left(dynamics, positions, on_floor.sum(0), slice(None), torque_weight)
    last = None  # the surfaces, frames and forces of the last patch kept
    for patch in sorted(candidates[1:], key=lambda p: p.height):
        frames = np.flatnonzero(patch.resting)
        with np.errstate(invalid="ignore"):
            need = left[frames] > NEEDED * weight
        if need.sum() < NEEDED_TIME * rate:
            continue
        trial = tuple(p.surface for p in kept) + (patch.surface,)
        forces = _per_frame_by_surface(dynamics, trial, motion, options, torque_weight, constants, joints, frames)
        after = _wrench_left(dynamics, positions, forces.sum(0), frames, torque_weight)
        if np.nanmean(left[frames][need]) - np.nanmean(after[need]) > GAIN * weight:
            kept.append(patch)
            left[frames] = after
            last = trial, frames, forces
    if len(kept) == 1:
        return tuple(kept), on_floor
    surfaces = tuple(p.surface for p in kept)
    activation, surface, _ = activations(positions, SurfaceArrays(surfaces), constants, points.padding,
                                         points.floor_only, options.min_activation)
    near_raised = np.flatnonzero(np.any((surface > 0) & (activation > options.min_activation), axis=1))
    forces = np.concatenate([on_floor, np.zeros((len(kept) - 1,) + on_floor.shape[1:])])
    if last[0] == surfaces:  # each frame's (*) has one solution: the frames already solved on these surfaces
        reused = np.isin(last[1], near_raised)
        forces[:, last[1][reused]] = last[2][:, reused]
        near_raised = np.setdiff1d(near_raised, last[1])
    forces[:, near_raised] = _per_frame_by_surface(dynamics, surfaces, motion, options, torque_weight, constants,
                                                   joints, near_raised)
    return tuple(kept), forces
