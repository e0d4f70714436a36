"""Landmarks and joint centres placed without their lost markers (beyond the template, which needs every one:
a marker lost for a whole trial need not stop it, nor make the upper body one rigid segment).

Each function takes the trial's ``points.Points`` and returns the point's world trajectory ``(T, 3)``, or None
when the markers it needs are lost too; it records how in ``Points.estimated``, a warning in the report. From
the lost marker's place, median over frames, on the shared trials (session scripts dropping markers):

- a heel or toe: the other foot's, mirrored, at that foot's heel-to-toe pitch at rest (``from_other_foot``):
  heels 0.8-1.6 cm, toes 0.8-2.9 cm;
- an ASIS or an acromion: the other one mirrored across the pelvis's or the trunk's plane of symmetry
  (``asis_from_other_side``: 0.8-3.5 cm; ``acromion_from_other_side``: 1.3-4.2 cm);
- both acromions (a thorax marked at C7 and the sternum only, as lower-body gait sets with a thorax are):
  where the shoulder centres of a marker-less upper body sit, from the neck across the trunk's plane of
  symmetry (``acromion_from_trunk``: 1.0-6.4 cm, the trunk's left-right axis within 0.5-6.4 degrees);
- a knee, ankle, elbow or wrist with neither condyle marker: the point fixed relative to both its segments'
  own markers (``functional_centre``, SCoRE): knees 0.9-2.6 cm, ankles 0.7-4.3 cm in the sagittal plane.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .frames import triad, unit
from .functional_joints import rigid_frames, score, turned
from .joint_centres import RAB_SHOULDER, SHOULDER_DROP, SHOULDER_WIDTH

if TYPE_CHECKING:
    from .points import Points

#: The other side of a side.
OTHER_SIDE = {"l": "r", "r": "l"}
#: The segments on either side of a joint, for its functional centre.
FUNCTIONAL = {"knee": ("thigh", "shank"), "ankle": ("shank", "foot"), "elbow": ("upper_arm", "forearm"),
              "wrist": ("forearm", "hand")}
#: A functional joint centre needs the joint to turn this far [deg] (``functional_joints.turned``; a static
#: trial turns its knees and ankles by 0-1, a walk its ankles by 18-32 and its knees by 52-62, STS1 16-93).
FUNCTIONAL_TURN = 10.0


def lost_landmark(points: Points, name: str) -> np.ndarray | None:
    """A heel, toe, ASIS or acromion landmark whose marker the trial lacks, from the other side's (both acromions:
    from the trunk); None for any other landmark, or when the other side's marker is lost too."""
    base, side = name[:-2], name[-1]
    if base in ("heel", "toe"):
        return from_other_foot(points, base, side)
    if base == "asis":
        return asis_from_other_side(points, side)
    if base == "acromion":
        if points.is_marked(f"acromion_{OTHER_SIDE[side]}"):
            return acromion_from_other_side(points, side)
        return acromion_from_trunk(points, side)
    return None


def mirrored(point: np.ndarray, on_plane: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """``point`` (T, 3) mirrored across the plane through ``on_plane`` with unit ``normal`` (T, 3)."""
    return point - 2.0 * np.sum((point - on_plane) * normal, axis=-1, keepdims=True) * normal


def _words(side: str) -> str:
    return "left" if side == "l" else "right"


def asis_from_other_side(points: Points, side: str) -> np.ndarray | None:
    """The ASIS mirrored from the other one across the pelvis's plane of symmetry: the plane through the
    midpoint of the two back pelvis markers (PSIS, or the back waist markers), normal to the line between them.
    The sacrum or one PSIS alone give no plane: None."""
    other = OTHER_SIDE[side]
    asis = points.marked(f"asis_{other}")
    points.get("psis")
    back = points.used["psis"].labels
    if len(back) != 2:
        return None
    a, b = (points.marker(label) for label in back)
    points.estimated(f"asis_{side}", f"stand-in: {points.labels_of(f'asis_{other}')} mirrored across the plane "
                                     f"between {' and '.join(back)} (no {_words(side)} ASIS marker in "
                                     f"{points.trial.source})")
    return mirrored(asis, 0.5 * (a + b), unit(a - b))


def trunk_plane(points: Points) -> tuple[np.ndarray, np.ndarray]:
    """C7 and the unit normal, pointing left, of the trunk's plane of symmetry through C7, the jugular notch and the
    mid-hip (T, 3) each."""
    c7 = points.get("c7")
    return c7, unit(np.cross(points.get("supr") - c7, points.get("mid_hip") - c7))


def acromion_from_other_side(points: Points, side: str) -> np.ndarray:
    """The acromion mirrored from the other one across the trunk's plane of symmetry, through C7, the jugular
    notch and the mid-hip (the torso's frame needs both acromions). From the marker: 1.3-1.5 cm on subject 4's
    trials and CMU's, 2.0-2.5 on the video trials, 4.0-4.2 on the sprint and the squat."""
    other = OTHER_SIDE[side]
    acromion = points.marked(f"acromion_{other}")
    c7, normal = trunk_plane(points)
    points.estimated(f"acromion_{side}", f"stand-in: {points.labels_of(f'acromion_{other}')} mirrored across the "
                                         f"plane through C7, the jugular notch and the mid-hip (no {_words(side)} "
                                         f"acromion marker in {points.trial.source})")
    return mirrored(acromion, c7, normal)


def acromion_from_trunk(points: Points, side: str) -> np.ndarray:
    """An acromion where neither has a marker, placed from C7, the jugular notch and the mid-hip, so that Rab's
    shoulder centre below it (``joint_centres.rab_shoulder``) lands where a marker-less upper body's does
    (``upper_body_from_pelvis``): ``SHOULDER_WIDTH`` trunk lengths (neck to mid-hip, median over frames) apart
    across the trunk's plane of symmetry and ``SHOULDER_DROP`` trunk lengths below the neck, level with the
    neck front to back (beyond the papers: the torso's frame needs two acromions, and without them its markers
    went unused and the head, arms and trunk rode on the pelvis). From the markers, median over frames: subject 4's
    trials 1.0-3.9 cm, CMU 1.9-2.3, the video trials 2.0-4.3, the sprint 3.0-4.1, the Vicon squat 3.2-6.4; the line
    between them 0.5-1.9 degrees from the markers' (the sprint's and the squat's 5.8-6.4)."""
    c7, left = trunk_plane(points)
    neck, mid_hip = 0.5 * (c7 + points.get("supr")), points.get("mid_hip")
    along = neck - mid_hip
    up = unit(along - np.sum(along * left, axis=-1, keepdims=True) * left)
    trunk = float(np.nanmedian(np.linalg.norm(along, axis=-1)))
    width = SHOULDER_WIDTH * trunk
    points.estimated(f"acromion_{side}", f"stand-in: {SHOULDER_WIDTH * 50:.1f} % of the trunk's length to the "
                                         f"{_words(side)} of the neck (C7 and the jugular notch), across the plane "
                                         "through them and the mid-hip (no acromion marker in "
                                         f"{points.trial.source})")
    sign = 1.0 if side == "l" else -1.0
    return neck + (RAB_SHOULDER * width - SHOULDER_DROP * trunk) * up + sign * 0.5 * width * left


def from_other_foot(points: Points, landmark: str, side: str) -> np.ndarray:
    """A heel or toe mirrored from the other foot's marker: its offset from the ankle joint centre in a frame of
    the line from the ankle to the foot's other marker (toe or heel; X) and the pelvis's Y (both feet's frames
    alike, whichever leg is built first), median over frames, the lateral part mirrored; then turned about that
    other marker so that the heel-to-toe line has the other foot's pitch where the foot rests (``rest_pitch``:
    the template takes that line for the sole's, and a sole tilted by a few degrees moves the centre of
    pressure). From the marker: heels 0.8-1.6 cm, toes 0.8-2.9 cm on subject 4's, CMU's and the video trials."""
    other, reference = OTHER_SIDE[side], {"heel": "toe", "toe": "heel"}[landmark]

    def foot(s: str) -> tuple[np.ndarray, np.ndarray]:
        ankle = points.get(f"ankle_{s}")
        return ankle, triad("x", points.marked(f"{reference}_{s}") - ankle, "y", points.frame("pelvis")[..., :, 1])

    def pitch(point: np.ndarray, end: np.ndarray) -> float:  # the foot's heel-to-toe pitch at rest
        return rest_pitch(point, end) if landmark == "heel" else rest_pitch(end, point)

    ankle, rot = foot(other)
    mark, other_end = points.marked(f"{landmark}_{other}"), points.marked(f"{reference}_{other}")
    offset = np.nanmedian(np.einsum("tji,tj->ti", rot, mark - ankle), axis=0)
    ankle, rot = foot(side)
    points.estimated(f"{landmark}_{side}", f"stand-in: the other foot's {landmark} "
                                           f"({points.labels_of(f'{landmark}_{other}')}) mirrored (no {landmark} "
                                           f"marker for this foot in {points.trial.source})")
    placed = ankle + np.einsum("tij,j->ti", rot, offset * [1.0, -1.0, 1.0])
    end = points.marked(f"{reference}_{side}")
    turn = pitch(mark, other_end) - pitch(placed, end)
    return pitched(placed, end, turn if landmark == "toe" else -turn)


def rest_pitch(heel: np.ndarray, toe: np.ndarray) -> float:
    """The heel-to-toe line's pitch [rad] (toe up positive), median over the frames in which the foot is lowest."""
    low = 0.5 * (heel[:, 2] + toe[:, 2])
    rest = low <= np.nanpercentile(low, 20)
    d = toe[rest] - heel[rest]
    return float(np.nanmedian(np.arctan2(d[:, 2], np.linalg.norm(d[:, :2], axis=1))))


def pitched(point: np.ndarray, pivot: np.ndarray, angle: float) -> np.ndarray:
    """``point`` turned about ``pivot`` by ``angle`` in the vertical plane through both, raising it for angle > 0."""
    d = point - pivot
    horizontal = np.maximum(np.linalg.norm(d[:, :2], axis=1), 1e-9)
    pitch = np.arctan2(d[:, 2], horizontal) + angle
    length = np.linalg.norm(d, axis=1)
    direction = d[:, :2] / horizontal[:, None]
    return pivot + np.column_stack([direction * (length * np.cos(pitch))[:, None], length * np.sin(pitch)])


def functional_centre(points: Points, joint: str, side: str) -> np.ndarray | None:
    """A knee, ankle, elbow or wrist without a condyle marker: the point fixed relative to both its segments' own
    markers (SCoRE, Ehrig et al. 2006, ``functional_joints.score``), each segment needing three and the joint
    turning by ``FUNCTIONAL_TURN``; else None. Against the lateral marker moved medially, in the sagittal plane:
    knees 0.9-2.6 cm, ankles 0.7-4.3 cm on subject 4's and the sprint's trials (along the flexion axis, which a
    hinge's motion does not fix, up to 5 cm)."""
    parent, child = FUNCTIONAL[joint]
    groups = []
    for segment in (parent, child):
        tracks = [t for t in (points.marker(x) for x in points.markerset.segments.get(f"{segment}_{side}", ()))
                  if t is not None]
        if len(tracks) < 3:
            return None
        groups.append(rigid_frames(np.stack(tracks, axis=1)))
    fit = score(*groups) if turned(*groups) >= FUNCTIONAL_TURN else None
    if fit is None:
        return None
    points.estimated(f"{joint}_{side}", f"the point fixed relative to both the {parent}'s and the {child}'s "
                                        f"markers (SCoRE; no {joint} marker in {points.trial.source})")
    return fit.world
