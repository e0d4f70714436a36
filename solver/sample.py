"""The project's own sample recording: a stick figure walking over two force plates.

A 1.75 m, 70 kg figure walks 3 s at 1.3 m/s (stride 1.1 s, stance 60 %),
seen by a 100 Hz marker system (the 41-marker CMU / Vicon set of
``cmu_dribble_shoot_basketball.c3d``, without the subject prefix) over two
0.6 x 0.4 m plates sampled at 1000 Hz, one under a right and one under the
next left stance. ``write_sample`` writes it to C3D and TRC with the
project's own writers. It stands in until a forward simulation of the body
model (a later issue) replaces it, so it is self-contained and simple.

How it is built, all as smooth (C2) functions of time:

- the whole-body centre of mass follows a textbook walking pattern on top of
  the steady 1.3 m/s: 1.2 cm slower after each heel strike and faster before
  the next (braking, then propulsion), 1.2 cm up and down (highest at
  midstance), 2 cm toward the stance foot. The pelvis moves so that this
  holds while the limbs swing (a Fourier series found once by fixed-point
  steps, ``_pelvis_harmonics``); the trunk leans 3° forward;
- each foot follows a periodic pattern: heel strike with the toe 12° up,
  rolling about the heel to flat, flat, heel rise rolling about the ball of
  the foot to 70° at toe-off, then a swing to the next footprint (minimum
  jerk, lifted early). While a foot is on the ground its contact point
  (heel, whole sole, ball) does not move: no sliding. The foot is one rigid
  segment from heel to ball; the toes are not modelled;
- hip and knee angles follow from the leg lengths (two-link inverse
  kinematics, knee forward); shoulder and elbow angles swing sinusoidally,
  opposite to the legs;
- segment lengths are fractions of height (Winter 2009, table 4.1), masses
  and centres of mass fractions of body mass and segment length (de Leva
  1996, male); markers sit rigidly on the segments.

What is exact and what is approximate:

- exact (to a central difference with h = 1e-4 s, and to 32-bit floats in
  the C3D file): the ground reaction force, 0.84 to 1.16 body weight
  vertically and +-110 N fore-aft. The total force on the feet is
  ``M (a_com - g)``, with ``a_com`` differentiated from the figure's own
  centre of mass; it goes to the one foot on the ground in single support
  and is handed over linearly in double support. Each plate records only the
  foot standing on it; the other steps' forces are off-plate
  (``SampleWalk.foot_force``).
- approximate: the centre of pressure moves linearly from the heel to the
  toes over each stance and the free moment is zero, so the moments are not
  consistent with the figure's rotation (only the forces are); the figure has
  no pelvis or trunk rotation about the vertical, so its knees stay bent 20°
  or more in stance; joint angles are plausible, not measured; the markers
  carry 0.5 mm of Gaussian noise (fixed seed) and two deliberate gaps
  (``GAPS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .constants import STANDARD_GRAVITY
from .io.c3d import write_c3d
from .io.plates import mask_unloaded, plate_note, plate_samples
from .io.trc import write_trc
from .io.trial import ForcePlate, Trial

HEIGHT, MASS, GRAVITY = 1.75, 70.0, STANDARD_GRAVITY
RATE, PLATE_RATE, DURATION = 100.0, 1000.0, 3.0
SPEED, STRIDE_TIME, DUTY = 1.3, 1.1, 0.6
NOISE, SEED = 0.0005, 20240601
#: Deliberate marker gaps: (label, first frame, frames).
GAPS = (("LFIN", 120, 5), ("RSHN", 200, 3))
PLATE_SIZE = (0.6, 0.4)

#: The CMU / Vicon 41-marker set, in the order of ``cmu_dribble_shoot_basketball.c3d``.
LABELS = ("LFHD", "RFHD", "LBHD", "RBHD", "C7", "T10", "CLAV", "STRN", "RBAC", "LSHO", "LUPA", "LELB", "LFRM",
          "LWRA", "LWRB", "LFIN", "RSHO", "RUPA", "RELB", "RFRM", "RWRA", "RWRB", "RFIN", "LFWT", "RFWT", "LBWT",
          "RBWT", "LTHI", "LKNE", "LSHN", "LANK", "LHEE", "LTOE", "LMT5", "RTHI", "RKNE", "RSHN", "RANK", "RHEE",
          "RTOE", "RMT5")

# Lengths [m] (Winter 2009, table 4.1, as fractions of height).
THIGH, SHANK = 0.245 * HEIGHT, 0.246 * HEIGHT
ANKLE_HEIGHT = 0.039 * HEIGHT
TRUNK = (0.818 - 0.530) * HEIGHT  # mid-hip to shoulder level
HEAD = (1.0 - 0.818) * HEIGHT  # shoulder level to vertex
UPPER_ARM, FOREARM, HAND = 0.186 * HEIGHT, 0.146 * HEIGHT, 0.108 * HEIGHT
HIP_HALF_WIDTH, SHOULDER_HALF_WIDTH = 0.05 * HEIGHT, 0.1 * HEIGHT
HEEL_BACK, BALL_FORWARD, TOE_FORWARD = 0.055, 0.145, 0.21  # contact points from the ankle, along the sole

# Gait pattern.
PELVIS_HEIGHT, TRUNK_LEAN = 0.88, np.radians(3.0)  # mean mid-hip height [m], forward lean
COM_SURGE, COM_SWAY, COM_BOB = 0.012, 0.02, 0.012  # amplitudes of the centre of mass oscillation [m]
HARMONICS = 150  # Fourier harmonics of the pelvis oscillation
HEEL_STRIKE_PITCH, TOE_OFF_PITCH = np.radians(12.0), np.radians(70.0)
FOOT_FLAT, HEEL_OFF = 0.08, 0.32  # fractions of the stride after heel strike
HIP_PASSES_ANKLE = 0.2  # fraction of the stride after heel strike when the steady pelvis passes the ankle
SWING_LIFT, SWING_LEAD = 0.06, 0.09  # extra ankle lift and lead over minimum jerk in the swing [m]
RIGHT_HEEL_STRIKE = 0.6  # s; the left foot strikes half a stride later
FOOT_Y = HIP_HALF_WIDTH + 0.005  # lateral position of the feet

# Masses (de Leva 1996, fractions of body mass) and where each centre of mass lies (fraction from proximal end).
SEGMENT_MASS = {"head": 0.0694, "trunk": 0.4346, "upper_arm": 0.0271, "forearm": 0.0162, "hand": 0.0061,
                "thigh": 0.1416, "shank": 0.0433, "foot": 0.0137}
COM_FRACTION = {"trunk": 0.55, "upper_arm": 0.5772, "forearm": 0.4574, "hand": 0.3624, "thigh": 0.4095,
                "shank": 0.4459}
HEAD_COM = np.array([0.02, 0.0, 0.5 * HEAD])  # in the trunk frame (origin at the neck), half way to the vertex
FOOT_COM = np.array([0.06, 0.0, -0.035])  # in the foot frame (origin at the ankle)

# Markers: (label, segment, offset [m] in the segment frame: x forward, y left, z up along the segment).
# Left-side offsets; the right side mirrors y. Segment frames have their origin at the proximal joint.
_MARKERS_LEFT = {
    "FHD": ("head", (0.09, 0.055, 0.20)), "BHD": ("head", (-0.08, 0.055, 0.22)),
    "SHO": ("trunk_top", (0.0, SHOULDER_HALF_WIDTH + 0.015, 0.03)),
    "UPA": ("upper_arm", (-0.01, 0.045, -0.16)), "ELB": ("upper_arm", (0.0, 0.035, -UPPER_ARM)),
    "FRM": ("forearm", (0.0, 0.035, -0.13)), "WRA": ("forearm", (0.025, 0.01, -FOREARM)),
    "WRB": ("forearm", (-0.025, 0.01, -FOREARM)), "FIN": ("hand", (0.0, 0.01, -0.09)),
    "FWT": ("pelvis", (0.11, 0.12, 0.07)), "BWT": ("pelvis", (-0.10, 0.05, 0.09)),
    "THI": ("thigh", (0.0, 0.075, -0.26)), "KNE": ("thigh", (0.0, 0.05, -THIGH)),
    "SHN": ("shank", (0.0, 0.05, -0.22)), "ANK": ("shank", (0.0, 0.04, -SHANK)),
    "HEE": ("foot", (-0.075, 0.0, -0.035)), "TOE": ("foot", (0.145, -0.01, -0.03)),
    "MT5": ("foot", (0.11, 0.04, -0.05)),
}
_MARKERS_OWN = {  # markers without a mirror image (RUPA sits higher than LUPA, as in Plug-in Gait)
    "C7": ("trunk_top", (-0.07, 0.0, 0.0)), "T10": ("trunk_top", (-0.12, 0.0, -0.25)),
    "CLAV": ("trunk_top", (0.06, 0.0, -0.02)), "STRN": ("trunk_top", (0.10, 0.0, -0.17)),
    "RBAC": ("trunk_top", (-0.11, -0.10, -0.12)), "RUPA": ("Rupper_arm", (-0.01, -0.045, -0.11)),
}


@dataclass(frozen=True)
class SampleWalk:
    """The sample and its ground truth, on the plate time base (``PLATE_RATE``).

    ``trial`` is what a capture system would record (noisy markers with gaps,
    two plates); ``com``/``com_acceleration`` ``(Tf, 3)`` the figure's
    centre of mass and its acceleration; ``foot_force``/``foot_cop`` ``(Tf, 2, 3)`` the ground
    reaction forces on the left and right foot wherever they stand,
    ``foot_plate`` ``(Tf, 2)`` the plate under each foot (-1: none or off the
    ground).
    """

    trial: Trial
    plate_times: np.ndarray
    com: np.ndarray
    com_acceleration: np.ndarray
    foot_force: np.ndarray
    foot_cop: np.ndarray
    foot_plate: np.ndarray
    mass: float = MASS
    height: float = HEIGHT


def make_sample() -> SampleWalk:
    """Generate the sample walk (deterministic)."""
    times = np.arange(round(DURATION * RATE)) / RATE
    plate_times = np.arange(round(DURATION * PLATE_RATE)) / PLATE_RATE
    markers = recorded_markers(times)
    for label, first, count in GAPS:
        markers[first:first + count, LABELS.index(label)] = np.nan
    force, cop, on_ground, stance_heel_strike = _foot_forces(plate_times)
    corners = _plate_corners()
    foot_plate = np.full(on_ground.shape, -1)
    plates = []
    for p, (side, heel_strike) in enumerate(_PLATE_STEPS):
        on_plate = on_ground[:, side] & np.isclose(stance_heel_strike[:, side], heel_strike)
        foot_plate[on_plate, side] = p
        plate_force = np.where(on_plate[:, None], force[:, side], 0.0)
        plate_cop, free_moment = mask_unloaded(plate_force, cop[:, side], np.zeros((len(plate_times), 3)))
        plates.append(ForcePlate(name=f"FP{p + 1}", corners=corners[p], rate=PLATE_RATE, start_time=0.0,
                                 force=plate_force, cop=plate_cop, free_moment=free_moment))
    plates = tuple(plates)
    trial = Trial(source="Mocap Dynamics sample walk", labels=LABELS, markers=markers, rate=RATE,
                  plates=plates, plate_samples=plate_samples(plates, times, RATE),
                  conversions=("generated by solver.sample (deterministic stick-figure walk)",
                               plate_note(plates, RATE)),
                  metadata={"mass_kg": MASS, "height_m": HEIGHT})
    return SampleWalk(trial=trial, plate_times=plate_times, com=centre_of_mass(plate_times),
                      com_acceleration=com_acceleration(plate_times), foot_force=force, foot_cop=cop,
                      foot_plate=foot_plate)


def write_sample(folder: str | Path) -> dict[str, Path]:
    """Write the sample walk as ``sample_walk.c3d`` and ``sample_walk.trc`` into ``folder`` (created if needed)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    trial = make_sample().trial
    return {"c3d": write_c3d(trial, folder / "sample_walk.c3d"), "trc": write_trc(trial, folder / "sample_walk.trc")}


def recorded_markers(times: np.ndarray) -> np.ndarray:
    """The markers at ``times`` as a capture system records them: ``markers_at`` with ``NOISE`` of white noise
    (seeded: the same every time)."""
    return markers_at(times) + np.random.default_rng(SEED).normal(0.0, NOISE, (len(times), len(LABELS), 3))


def markers_at(times: np.ndarray) -> np.ndarray:
    """Noise-free marker positions ``(T, 41, 3)`` [m], in ``LABELS`` order."""
    frames = _segment_frames(_points(np.asarray(times, dtype=float)))
    out = []
    for label in LABELS:
        segment, offset = _marker_place(label)
        origin, axes = frames[segment]
        out.append(origin + axes @ np.asarray(offset))
    return np.stack(out, axis=1)


def centre_of_mass(times: np.ndarray) -> np.ndarray:
    """Whole-body centre of mass ``(T, 3)`` [m] of the figure."""
    return _centre_of_mass(_points(np.asarray(times, dtype=float)))


def com_acceleration(times: np.ndarray, step: float = 1e-4) -> np.ndarray:
    """Centre-of-mass acceleration ``(T, 3)`` [m/s²] by a central difference of the exact trajectory."""
    times = np.asarray(times, dtype=float)
    return (centre_of_mass(times + step) - 2.0 * centre_of_mass(times) + centre_of_mass(times - step)) / step ** 2


# --- gait pattern -------------------------------------------------------------------------------------------

#: Limb segments by their proximal and distal joints.
_LIMBS = {"upper_arm": ("shoulder", "elbow"), "forearm": ("elbow", "wrist"), "hand": ("wrist", "hand_end"),
          "thigh": ("hip", "knee"), "shank": ("knee", "ankle")}
#: The plated steps: (foot index 0 = left / 1 = right, heel-strike time [s]).
_PLATE_STEPS = ((1, RIGHT_HEEL_STRIKE), (0, RIGHT_HEEL_STRIKE + STRIDE_TIME / 2))


def _smooth(u: np.ndarray) -> np.ndarray:
    """Quintic smoothstep: 0 -> 1 with zero first and second derivatives at both ends."""
    u = np.clip(u, 0.0, 1.0)
    return u ** 3 * (10.0 - 15.0 * u + 6.0 * u ** 2)


def _first_heel_strike(side: int) -> float:
    return RIGHT_HEEL_STRIKE + (STRIDE_TIME / 2 if side == 0 else 0.0)


def _footprint(heel_strike: np.ndarray) -> np.ndarray:
    """Forward position of the flat foot's ankle for the stance starting at ``heel_strike``."""
    return SPEED * (heel_strike + HIP_PASSES_ANKLE * STRIDE_TIME)


def _lift_shape(u: np.ndarray) -> np.ndarray:
    """0 -> 1 (at u = 3/8) -> 0 over the swing, flat (C2) at both ends."""
    return u ** 3 * (1.0 - u) ** 5 / (0.375 ** 3 * 0.625 ** 5)


def _lead_shape(u: np.ndarray) -> np.ndarray:
    """0 -> +1 -> -1 -> 0 over the swing (extremes at u = 1/2 -+ 1/sqrt(28)), flat (C2) at both ends."""
    return u ** 3 * (1.0 - u) ** 3 * (1.0 - 2.0 * u) / (2.0 / np.sqrt(28.0) * (3.0 / 14.0) ** 3)


def _com_pattern(times: np.ndarray) -> np.ndarray:
    """The wanted oscillation of the centre of mass about steady walking ``(T, 3)``.

    Forward: slower after each heel strike, faster before the next (braking, then propulsion); sideways: toward
    the stance foot; up: highest at midstance (30 % of a stride after heel strike), lowest in double support.
    """
    phase = (times - RIGHT_HEEL_STRIKE) / STRIDE_TIME
    return np.stack((COM_SURGE * np.sin(4 * np.pi * phase), -COM_SWAY * np.cos(2 * np.pi * (phase - 0.3)),
                     COM_BOB * np.cos(4 * np.pi * (phase - 0.3))), axis=1)


def _pelvis(times: np.ndarray, harmonics: np.ndarray) -> np.ndarray:
    """Mid-hip point ``(T, 3)``: steady walking plus a periodic oscillation (Fourier ``harmonics`` ``(K, 3)``)."""
    k = np.arange(1, len(harmonics) + 1)
    waves = np.exp(2j * np.pi * np.outer((times - RIGHT_HEEL_STRIKE) / STRIDE_TIME, k))  # (T, K)
    steady = np.stack((SPEED * times, np.zeros_like(times), np.full_like(times, PELVIS_HEIGHT)), axis=1)
    return steady + 2.0 * (waves @ harmonics).real


@lru_cache(maxsize=1)
def _pelvis_harmonics() -> np.ndarray:
    """Pelvis oscillation that makes the whole-body centre of mass follow ``_com_pattern``.

    The swinging limbs move the centre of mass; the pelvis moves against them (as a walker's trunk does), found
    by a few fixed-point steps on one stride, each removing the remaining error's harmonics 1..``HARMONICS``.
    """
    samples = 2200
    times = RIGHT_HEEL_STRIKE + np.arange(samples) * STRIDE_TIME / samples
    target = _com_pattern(times) + np.outer(times, [SPEED, 0.0, 0.0])
    harmonics = np.fft.rfft(_com_pattern(times), axis=0)[1:HARMONICS + 1] / samples
    for _ in range(6):
        error = _centre_of_mass(_points(times, harmonics)) - target
        harmonics -= np.fft.rfft(error, axis=0)[1:HARMONICS + 1] / samples
    return harmonics


def _stance_pose(fraction: np.ndarray, ankle_x: np.ndarray, y: float) -> tuple[np.ndarray, np.ndarray]:
    """Ankle ``(T, 3)`` and foot pitch (toe up > 0) at ``fraction`` of the stride after heel strike."""
    heel_roll = HEEL_STRIKE_PITCH * (1.0 - _smooth(fraction / FOOT_FLAT))
    toe_roll = -TOE_OFF_PITCH * _smooth((fraction - HEEL_OFF) / (DUTY - HEEL_OFF))
    pitch = np.where(fraction < FOOT_FLAT, heel_roll, np.where(fraction < HEEL_OFF, 0.0, toe_roll))
    pivot = np.where(fraction < FOOT_FLAT, -HEEL_BACK, BALL_FORWARD)  # heel, then ball of the foot
    ankle = np.stack((ankle_x + pivot, np.full_like(ankle_x, y), np.zeros_like(ankle_x)), axis=1)
    ankle += _pitched(np.stack((-pivot, ANKLE_HEIGHT * np.ones_like(pivot)), axis=1), pitch)
    return ankle, pitch


class _Foot(NamedTuple):
    """One foot over time: ankle ``(T, 3)``, pitch (toe up > 0), on the ground, the heel strike of the current or
    last stance [s], and the fraction of the stride since then."""

    ankle: np.ndarray
    pitch: np.ndarray
    on_ground: np.ndarray
    heel_strike: np.ndarray
    fraction: np.ndarray


def _foot(times: np.ndarray, side: int) -> _Foot:
    """The left (``side`` 0) or right (1) foot's periodic pattern."""
    y = FOOT_Y if side == 0 else -FOOT_Y
    first = _first_heel_strike(side)
    stride = np.floor((times - first) / STRIDE_TIME)
    heel_strike = first + stride * STRIDE_TIME
    fraction = (times - heel_strike) / STRIDE_TIME
    ankle_x = _footprint(heel_strike)
    ankle, pitch = _stance_pose(fraction, ankle_x, y)
    lift_off, _ = _stance_pose(np.full_like(times, DUTY), ankle_x, y)
    landing, _ = _stance_pose(np.zeros_like(times), ankle_x + SPEED * STRIDE_TIME, y)
    u = np.clip((fraction - DUTY) / (1.0 - DUTY), 0.0, 1.0)
    swing_ankle = lift_off + _smooth(u)[:, None] * (landing - lift_off)
    # Lift early in the swing and lead the minimum-jerk path early, lag it late (terminal swing reaches less).
    swing_ankle[:, 2] += SWING_LIFT * _lift_shape(u)
    swing_ankle[:, 0] += SWING_LEAD * _lead_shape(u)
    swing_pitch = -TOE_OFF_PITCH + _smooth(u) * (HEEL_STRIKE_PITCH + TOE_OFF_PITCH)
    on_ground = fraction < DUTY
    return _Foot(np.where(on_ground[:, None], ankle, swing_ankle), np.where(on_ground, pitch, swing_pitch),
                 on_ground, heel_strike, fraction)


def _pitched(offsets: np.ndarray, pitch: np.ndarray) -> np.ndarray:
    """Sagittal (x, z) offsets ``(T, 2)`` rotated by ``pitch`` (toe up > 0), as 3-D vectors ``(T, 3)``."""
    c, s = np.cos(pitch), np.sin(pitch)
    x, z = offsets[:, 0], offsets[:, 1]
    return np.stack((c * x - s * z, np.zeros_like(x), s * x + c * z), axis=1)


def _knee(hip: np.ndarray, ankle: np.ndarray) -> np.ndarray:
    """Knee centre by two-link inverse kinematics, bending forward (+X); a leg too short stays straight."""
    reach = ankle - hip
    distance = np.minimum(np.linalg.norm(reach, axis=1), THIGH + SHANK)
    along = reach / np.linalg.norm(reach, axis=1)[:, None]
    forward = np.array([1.0, 0.0, 0.0]) - along[:, :1] * along
    forward /= np.linalg.norm(forward, axis=1)[:, None]
    a = (THIGH ** 2 - SHANK ** 2 + distance ** 2) / (2.0 * distance)
    return hip + a[:, None] * along + np.sqrt(np.maximum(THIGH ** 2 - a ** 2, 0.0))[:, None] * forward


def _points(times: np.ndarray, harmonics: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Joint centres ``(T, 3)`` of the figure: pelvis, neck, and per side (L/R) hip ... ankle, shoulder ... hand."""
    pelvis = _pelvis(times, _pelvis_harmonics() if harmonics is None else harmonics)
    lean = np.array([np.sin(TRUNK_LEAN), 0.0, np.cos(TRUNK_LEAN)])
    neck = pelvis + TRUNK * lean
    points = {"pelvis": pelvis, "neck": neck}
    stride_phase = (times - RIGHT_HEEL_STRIKE) / STRIDE_TIME
    for side, sign in (("L", 1.0), ("R", -1.0)):
        points[side + "hip"] = pelvis + [0.0, sign * HIP_HALF_WIDTH, 0.0]
        foot = _foot(times, 0 if side == "L" else 1)
        points[side + "ankle"], points[side + "pitch"] = foot.ankle, foot.pitch
        points[side + "knee"] = _knee(points[side + "hip"], foot.ankle)
        leg_phase = stride_phase - (0.5 if side == "L" else 0.0)  # 0 at this side's heel strike
        shoulder_flexion = np.radians(5.0 - 18.0 * np.cos(2 * np.pi * leg_phase))  # arm back as the leg lands
        elbow_flexion = np.radians(22.5 - 7.5 * np.cos(2 * np.pi * leg_phase))
        shoulder = neck + [0.0, sign * SHOULDER_HALF_WIDTH, 0.0]
        elbow = shoulder + UPPER_ARM * _hanging(shoulder_flexion)
        wrist = elbow + FOREARM * _hanging(shoulder_flexion + elbow_flexion)
        points.update({side + "shoulder": shoulder, side + "elbow": elbow, side + "wrist": wrist,
                       side + "hand_end": wrist + HAND * _hanging(shoulder_flexion + elbow_flexion)})
    return points


def _centre_of_mass(points: dict[str, np.ndarray]) -> np.ndarray:
    frames = _segment_frames(points)
    weighted = SEGMENT_MASS["head"] * (frames["head"][0] + frames["head"][1] @ HEAD_COM)
    weighted += SEGMENT_MASS["trunk"] * _along(points["pelvis"], points["neck"], COM_FRACTION["trunk"])
    for side in "LR":
        weighted += SEGMENT_MASS["foot"] * (frames[f"{side}foot"][0] + frames[f"{side}foot"][1] @ FOOT_COM)
        for segment, (proximal, distal) in _LIMBS.items():
            weighted += SEGMENT_MASS[segment] * _along(points[side + proximal], points[side + distal],
                                                       COM_FRACTION[segment])
    return weighted / sum(SEGMENT_MASS[s] * (1 if s in ("head", "trunk") else 2) for s in SEGMENT_MASS)


def _hanging(flexion: np.ndarray) -> np.ndarray:
    """Unit vectors ``(T, 3)`` pointing down, swung forward by ``flexion``."""
    return np.stack((np.sin(flexion), np.zeros_like(flexion), -np.cos(flexion)), axis=1)


def _along(proximal: np.ndarray, distal: np.ndarray, fraction: float) -> np.ndarray:
    return proximal + fraction * (distal - proximal)


def _segment_frames(points: dict[str, np.ndarray]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per segment: origin ``(T, 3)`` and axes ``(T, 3, 3)`` (columns x forward, y left, z up along the segment)."""
    n = len(points["pelvis"])
    frames = {"pelvis": (points["pelvis"], np.broadcast_to(np.eye(3), (n, 3, 3)))}
    trunk_axes = _axes_along(points["neck"] - points["pelvis"])
    frames["trunk_top"] = frames["head"] = (points["neck"], trunk_axes)
    for side in "LR":
        for segment, (proximal, distal) in _LIMBS.items():
            origin = points[side + proximal]
            frames[side + segment] = (origin, _axes_along(origin - points[side + distal]))
        pitch = points[side + "pitch"]
        c, s, zero = np.cos(pitch), np.sin(pitch), np.zeros(n)
        foot_axes = np.stack((np.stack((c, zero, s), axis=1), np.tile([0.0, 1.0, 0.0], (n, 1)),
                              np.stack((-s, zero, c), axis=1)), axis=2)
        frames[side + "foot"] = (points[side + "ankle"], foot_axes)
    return frames


def _axes_along(up: np.ndarray) -> np.ndarray:
    """Frame ``(T, 3, 3)`` whose z is along ``up``, x forward (perpendicular to world Y), y = z × x."""
    z = up / np.linalg.norm(up, axis=1)[:, None]
    x = np.cross([0.0, 1.0, 0.0], z)
    x /= np.linalg.norm(x, axis=1)[:, None]
    return np.stack((x, np.cross(z, x), z), axis=2)


def _marker_place(label: str) -> tuple[str, np.ndarray]:
    """Segment frame name and offset of one marker."""
    if label in _MARKERS_OWN:
        segment, offset = _MARKERS_OWN[label]
        return segment, np.asarray(offset)
    side, name = label[0], label[1:]
    segment, offset = _MARKERS_LEFT[name]
    offset = np.asarray(offset) * ([1, 1, 1] if side == "L" else [1, -1, 1])
    central = segment in ("head", "trunk_top", "pelvis")
    return (segment if central else side + segment), offset


# --- forces -------------------------------------------------------------------------------------------------

def _foot_forces(times: np.ndarray):
    """Ground reaction force and COP on each foot ``(T, 2, 3)``, on-ground flags and stance heel strikes ``(T, 2)``."""
    total = MASS * (com_acceleration(times) + [0.0, 0.0, GRAVITY])
    feet = [_foot(times, side) for side in (0, 1)]
    on_ground = np.stack([f.on_ground for f in feet], axis=1)
    heel_strike = np.stack([f.heel_strike for f in feet], axis=1)
    fraction = np.stack([f.fraction for f in feet], axis=1)
    # Share: one foot down takes it all; in double support (the first DUTY - 0.5 of the leading foot's stride)
    # the leading foot takes over linearly from the trailing one.
    double_support = DUTY - 0.5
    leading = fraction < double_support
    handed_over = np.where(leading, fraction, fraction[:, ::-1]) / double_support
    share = np.where(on_ground.all(axis=1, keepdims=True), np.where(leading, handed_over, 1.0 - handed_over),
                     on_ground.astype(float))
    force = share[:, :, None] * total[:, None, :]
    # COP: linearly from the heel to the toes over the stance, on the floor.
    cop_x = _footprint(heel_strike) - HEEL_BACK + np.clip(fraction / DUTY, 0, 1) * (HEEL_BACK + TOE_FORWARD)
    cop_y = np.broadcast_to([FOOT_Y, -FOOT_Y], cop_x.shape)
    cop = np.stack((cop_x, cop_y, np.zeros_like(cop_x)), axis=2)
    return force, np.where(on_ground[:, :, None], cop, np.nan), on_ground, heel_strike


def _plate_corners() -> list[np.ndarray]:
    """Plates (``PLATE_SIZE``, long side forward) centred under the plated footprints, on the walkway centre line.

    Corners in the C3D order: the plate's x forward, y to the right, z down into the floor.
    """
    length, width = PLATE_SIZE
    corners = []
    for _, heel_strike in _PLATE_STEPS:
        centre_x = _footprint(heel_strike) + (TOE_FORWARD - HEEL_BACK) / 2
        corners.append(np.array([[centre_x + length / 2, -width / 2, 0.0], [centre_x - length / 2, -width / 2, 0.0],
                                 [centre_x - length / 2, width / 2, 0.0], [centre_x + length / 2, width / 2, 0.0]]))
    return corners
