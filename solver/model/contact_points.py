"""Contact points: where the ground may push on the body (Brubaker, Sigal & Fleet 2009, §5).

"Eight contact points are placed around the end of each body segment, except
for the feet, which have four contact points on the bottom." Here:

- a ring of ``ring_points`` points (default 8) in the plane through the
  segment's tip perpendicular to its long axis (origin -> tip), of radius
  ``ring_scale`` (default 1) times the segment's radius of gyration about that
  axis, ``sqrt(I_long / m)``. (A solid cylinder's is R/√2; limbs taper toward
  their distal ends, so the radius of gyration itself is a fair distal radius.)
- on each foot: heel and toe, medial and lateral, on the sole plane (the
  lowest foot marker minus marker radius and skin, ``model.metadata["feet"]``):
  heel points at the heel marker, toe points at the toe marker, half-widths
  ``heel_width`` and ``toe_width`` of the heel-toe distance (typical adult
  breadths: heel about 27 %, forefoot about 40 % of the heel-to-toe-marker length).

Beyond the paper (``ContactConfig.seat``, on by default): sitting loads the
buttocks and the backs of the thighs, where the paper places no point. The
pelvis gets two points at the ischial tuberosities (from each hip joint
centre, in units of the hip-centre distance ``w``: ``0.2 w`` posterior,
``0.17 w`` medial, ``0.55 w`` inferior — bone plus compressed soft tissue), and
each thigh a second ring at mid-length, of the radius of the solid cylinder
with the thigh's radius of gyration (``√2`` times it: the thigh is thickest
there). The ischial points stand for bone and *compressed* tissue: unloaded,
the buttocks reach ``ContactConfig.seat_padding`` (2 cm) lower, and a seat
carries load from the moment they touch it. Sit-to-stand shows it: the plates
under the feet lose and regain the body's weight while the ischial points are
still 3-5 cm above their seated level, sitting down and standing up alike
(STS1). ``model.metadata["contact_padding"]`` keeps each segment's padding per
contact point; the per-frame contact forces count a point that far above a
surface as touching it (``contact.per_frame.activations``). The thigh's ring at
the knee is pushed only by the floor (``model.metadata["contact_floor_only"]``):
seated, it rests at the seat's height and shows how far forward the thighs lie
(the seat found from resting points reaches it), but a chair's seat ends short
of the knees (it is shallower than the thigh from buttock to knee), and a seat
pushing the knee rings keeps the subject sitting while she rises on her feet
(STS1: up to a quarter of the body weight with the pelvis 20 cm above the
seat; vertical GRF from motion alone 9.1 -> 7.4 % BW with the static trial).

With a static standing trial, ``level_soles`` then moves each sole point so
that in the standing pose it lies on the floor: shoes, marker heights and a
foot frame tilted by its heel and toe markers otherwise leave the sole a few
centimetres above the ground and tilted, which the contact model reads as a
raised, sloping floor. Only the frames in which the foot stands on the floor
count: a static trial that shows a foot only lifted or on a box (a movement
trial given as the static one) would otherwise sink its sole by that height
(DJ3 given as its own landing's static trial: vertical GRF RMSE 57.6 % BW,
17.0 with the rule).

Without a static trial, ``level_soles_at_rest`` levels them on the movement
trial itself, beyond the paper: where a foot rests flat on its support (its
four sole points still relative to it, and within 8 cm of one height: the sole
model's error, not a foot on its toes), a shoe's sole lies flat there, so each
point gets the mean height of the four. Built from
the heel and toe markers alone, the sole tilted 1.1-2.8 cm from heel to toe
on the six trials with plates (heels low on subject 4's): the heel's points
sank into the floor in stance and touched it early at heel strike, and the
floor found among the tilted points lay between heel and toe.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..errors import option
from ..io.trial import Trial
from .body import BodyModel
from .fit import SegmentFit, fit_segments


@dataclass(frozen=True)
class ContactConfig:
    """Which segments get contact points and how many. ``segments``: None = every segment;
    feet (segments with foot landmarks) get the four sole points when ``feet`` is True."""

    segments: tuple[str, ...] | None = None
    ring_points: int = 8
    ring_scale: float = 1.0
    feet: bool = True
    heel_width: float = 0.135
    toe_width: float = 0.20
    seat: bool = True
    seat_padding: float = 0.02


#: Ischial tuberosity from its hip joint centre, in units of the hip-centre distance: (posterior, medial,
#: inferior), see the module docstring.
ISCHIUM = (0.2, 0.17, 0.55)


def ring(tip: np.ndarray, radius: float, n: int) -> np.ndarray:
    """``n`` points on a circle of ``radius`` around ``tip``, in the plane perpendicular to ``tip``'s direction
    (the segment's long axis from its origin); the first point is toward +X made orthogonal (anterior)."""
    axis = tip / np.linalg.norm(tip)
    ref = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 0.0, 1.0])
    e1 = ref - (ref @ axis) * axis
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(axis, e1)
    phi = 2 * np.pi * np.arange(n) / n
    return tip + radius * (np.cos(phi)[:, None] * e1 + np.sin(phi)[:, None] * e2)


def sole(heel: np.ndarray, toe: np.ndarray, sole_z: float, heel_width: float, toe_width: float) -> np.ndarray:
    """Four sole points (heel medial/lateral, toe medial/lateral order: heel +Y, heel -Y, toe +Y, toe -Y)."""
    heel, toe = np.asarray(heel, float), np.asarray(toe, float)
    length = np.linalg.norm((toe - heel)[:2])
    forward = (toe - heel)[:2] / length
    left = np.array([-forward[1], forward[0], 0.0])
    points = [np.r_[p[:2], sole_z] + sign * width * length * left
              for p, width in ((heel, heel_width), (toe, toe_width)) for sign in (1.0, -1.0)]
    return np.array(points)


def with_contact_points(model: BodyModel, config: ContactConfig | None = None) -> BodyModel:
    """``model`` with contact points placed per ``config`` (replacing any it had)."""
    config = config or ContactConfig()
    feet = model.metadata.get("feet", {})
    chosen = model.names if config.segments is None else config.segments
    segments, padding, floor_only, soles = [], {}, {}, []
    for s in model.segments:
        if s.name not in chosen:
            points = np.zeros((0, 3))
        elif s.name in feet and config.feet:
            f = feet[s.name]
            points = sole(f["heel"], f["toe"], f["sole"], config.heel_width, config.toe_width)
            soles.append(s.name)
        else:
            axis = s.tip / s.length
            radius = config.ring_scale * np.sqrt(axis @ s.inertia @ axis / s.mass)
            points = ring(s.tip, radius, config.ring_points)
            if config.seat and s.name.startswith("thigh"):
                floor_only[s.name] = [True] * len(points) + [False] * config.ring_points
                points = np.concatenate([points, ring(s.tip / 2, np.sqrt(2) * radius, config.ring_points)])
            if config.seat and s.name == "pelvis":
                seat = ischia(model)
                padding[s.name] = [0.0] * len(points) + [config.seat_padding] * len(seat)
                points = np.concatenate([points, seat])
        segments.append(replace(s, contact_points=points))
    return replace(model, segments=tuple(segments),
                   metadata={**model.metadata, "contact_padding": padding, "contact_floor_only": floor_only,
                             "soles": soles})


def ischia(model: BodyModel) -> np.ndarray:
    """The two ischial tuberosities (2, 3) in the pelvis frame (``ISCHIUM``); none without two hips."""
    hips = [s.joint_offset for s in model.segments
            if s.name.startswith("thigh") and model.segments[s.parent].name == "pelvis"]
    if len(hips) != 2:
        return np.zeros((0, 3))
    width = np.linalg.norm(hips[0] - hips[1])
    middle = (hips[0] + hips[1]) / 2
    back, medial, down = ISCHIUM
    return np.array([hip + width * np.array([-back, 0.0, -down]) + medial * width * (middle - hip)
                     / np.linalg.norm(middle - hip) for hip in hips])


#: A foot stands on the floor in a frame of the static trial when its lowest sole point is this close to the
#: floor's height [m]: before levelling the sole lies within a few centimetres of it (shoes, marker heights,
#: ``calibrate.SOLE_BELOW_MARKERS``); a lifted foot, or one on a box or step, lies farther.
STANDING = 0.05


def floor_height(trial: Trial) -> float:
    """Height of the floor under a standing subject [m]: the median loaded centre of pressure, else z = 0."""
    if trial.plate_samples is not None:
        cop_z = trial.plate_samples.cop[..., 2]
        if np.isfinite(cop_z).any():
            return float(np.nanmedian(cop_z))
    return 0.0


def level_soles(model: BodyModel, static: Trial) -> tuple[BodyModel, tuple[str, ...]]:
    """Sole points moved (in their foot frames) onto the floor in the static trial's standing pose.

    Each foot is fitted to its markers in every frame of ``static`` where the
    whole model fits; in the frames where it stands on the floor (its lowest
    sole point within ``STANDING`` of the floor's height) a sole point keeps its
    horizontal place under the foot and gets the floor's height; the point in
    the foot frame is the median over those frames. A foot that never stands
    there (a static trial on a box, a foot lifted throughout) keeps its sole
    points, and the warning returned says so.
    """
    feet = sole_segments(model)
    fit = fit_segments(model, static.labels, static.markers)
    if not feet or not fit.valid.any():
        return model, ()
    rotations, origins = model.forward_kinematics(fit.q[fit.valid])
    floor = floor_height(static)
    segments, lifted = list(model.segments), []
    for k in feet:
        world = _in_world(rotations[:, k], origins[:, k], segments[k].contact_points)
        standing = np.abs(world[..., 2].min(axis=1) - floor) < STANDING
        if not standing.any():
            lifted.append(segments[k].name)
            continue
        world = world[standing]
        world[..., 2] = floor
        segments[k] = _placed(segments[k], rotations[standing, k], origins[standing, k], world)
    feet_are = f"{' and '.join(lifted)} never {'stand' if len(lifted) > 1 else 'stands'}"
    warning = (f"{feet_are} on the floor (z = {100 * floor:.1f} cm) in the static trial {static.source}: soles not "
               f"levelled; give a static trial standing on the floor ({option('static', hint='FILE')})",) \
        if lifted else ()
    return replace(model, segments=tuple(segments)), warning


#: A foot rests flat on its support in a frame of the movement trial when its sole points move up or down,
#: relative to one another (the foot turning) and along the support slower than this [m/s], measured across
#: ``FLAT_WINDOW`` [s] (less noise than frame to frame); the support's own velocity is the median of the foot's
#: where it neither turns nor rises, a treadmill's belt's, or zero where that is slower than this (the ground,
#: as ``contact.ground`` takes it; and then the same in a lab turned about the vertical), ...
FLAT_SPEED, FLAT_WINDOW = 0.2, 0.1
#: ... and they lie within this height [m] of each other: the sole model's error (up to 5.5 cm heel to toe, the
#: Vicon squat's right foot standing), not a foot on its toes or heel.
FLAT_TILT = 0.08
#: A foot is levelled when it rests flat this long [s] in all; else its sole stays as built.
FLAT_TIME = 0.1


def level_soles_at_rest(model: BodyModel, fit: SegmentFit, rate: float) -> BodyModel:
    """Sole points levelled (in their foot frames) where each foot rests flat in the movement trial whose per-frame
    rigid ``fit`` is given (sampled at ``rate`` [Hz]; ``FLAT_SPEED``, ``FLAT_TILT``): in those frames each point
    keeps its horizontal place under the foot and gets the mean height of the foot's sole points; the point in the
    foot frame is the median over the frames (module docstring). A foot that never rests flat (a sprinter's, on
    the forefoot) keeps its sole."""
    feet = sole_segments(model)
    half = max(1, int(round(0.5 * FLAT_WINDOW * rate)))
    if not feet or fit.valid.sum() <= 2 * half:
        return model
    rotations = np.full((len(fit.valid), len(model.segments), 3, 3), np.nan)
    origins = np.full((len(fit.valid), len(model.segments), 3), np.nan)
    rotations[fit.valid], origins[fit.valid] = model.forward_kinematics(fit.q[fit.valid])
    segments = list(model.segments)
    for k in feet:
        world = _in_world(rotations[:, k], origins[:, k], segments[k].contact_points)
        flat = np.zeros(len(world), bool)
        with np.errstate(invalid="ignore"):
            moved = (world[2 * half:] - world[:-2 * half]) * rate / (2 * half)  # velocities over the window
            along = moved.mean(axis=1)[:, :2]
            level = ((np.linalg.norm(moved - moved.mean(axis=1, keepdims=True), axis=-1).max(1) < FLAT_SPEED)
                     & (np.abs(moved[..., 2]).max(1) < FLAT_SPEED)
                     & (np.ptp(world[half:-half, :, 2], axis=1) < FLAT_TILT))
            support = np.nanmedian(along[level], axis=0) if level.any() else np.zeros(2)
            support = support if np.linalg.norm(support) >= FLAT_SPEED else np.zeros(2)
            flat[half:-half] = level & (np.linalg.norm(along - support, axis=1) < FLAT_SPEED)
        if flat.sum() < FLAT_TIME * rate:
            continue
        levelled = world[flat]
        levelled[..., 2] = levelled[..., 2].mean(axis=1, keepdims=True)
        segments[k] = _placed(segments[k], rotations[flat, k], origins[flat, k], levelled)
    return replace(model, segments=tuple(segments))


def sole_segments(model: BodyModel) -> list[int]:
    """The segments with the four sole points (``with_contact_points``; a foot given a ring instead has none)."""
    return [k for k, s in enumerate(model.segments) if s.name in model.metadata.get("soles", ())]


def _in_world(rotations: np.ndarray, origins: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``points`` (P, 3) of a segment's frame in the world (T, P, 3), the frame at ``rotations`` (T, 3, 3) and
    ``origins`` (T, 3)."""
    return origins[:, None] + np.einsum("tij,pj->tpi", rotations, points)


def _placed(segment, rotations: np.ndarray, origins: np.ndarray, world: np.ndarray):
    """``segment`` with its contact points where they lie at ``world`` (T, P, 3) in its frames at ``rotations``
    (T, 3, 3) and ``origins`` (T, 3): the median over the frames, in the segment's frame."""
    local = np.einsum("tji,tpj->tpi", rotations, world - origins[:, None])
    return replace(segment, contact_points=np.median(local, axis=0))
