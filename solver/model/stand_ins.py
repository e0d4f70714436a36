"""Landmarks and joint centres placed without their lost markers (beyond the template, which needs every one:
a marker lost for a whole trial need not stop it, nor make the upper body one rigid segment).

Each function takes the trial's ``points.Points`` and returns the point's world trajectory ``(T, 3)``, or None
when the markers it needs are lost too; it records how in ``Points.estimated``, a warning in the report. From
the lost marker's place, median over frames, on the shared trials (session scripts dropping markers):

- a heel or toe: the other foot's, mirrored, at that foot's heel-to-toe pitch at rest (``from_other_foot``):
  heels 0.8-1.6 cm, toes 0.8-2.9 cm;
- an ASIS or an acromion: the other one mirrored across the pelvis's or the trunk's plane of symmetry
  (``asis_from_other_side``: 0.8-3.5 cm; ``acromion_from_other_side``: 1.3-4.2 cm);
- a knee, ankle, elbow or wrist with neither condyle marker: the point fixed relative to both its segments'
  own markers (``functional_centre``, SCoRE): knees 0.9-2.6 cm, ankles 0.7-4.3 cm in the sagittal plane.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .frames import triad, unit
from .functional_joints import rigid_frames, score, turned

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
    """A heel, toe, ASIS or acromion landmark whose marker the trial lacks, from the other side's; None for
    any other landmark, or when the other side's marker is lost too."""
    base, side = name[:-2], name[-1]
    if base in ("heel", "toe"):
        return from_other_foot(points, base, side)
    if base == "asis":
        return asis_from_other_side(points, side)
    if base == "acromion":
        return acromion_from_other_side(points, side)
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


def acromion_from_other_side(points: Points, side: str) -> np.ndarray:
    """The acromion mirrored from the other one across the trunk's plane of symmetry, through C7, the jugular
    notch and the mid-hip (the torso's frame needs both acromions). From the marker: 1.3-1.5 cm on subject 4's
    trials and CMU's, 2.0-2.5 on the video trials, 4.0-4.2 on the sprint and the squat."""
    other = OTHER_SIDE[side]
    acromion = points.marked(f"acromion_{other}")
    c7 = points.get("c7")
    normal = unit(np.cross(points.get("supr") - c7, points.get("mid_hip") - c7))
    points.estimated(f"acromion_{side}", f"stand-in: {points.labels_of(f'acromion_{other}')} mirrored across the "
                                         f"plane through C7, the jugular notch and the mid-hip (no {_words(side)} "
                                         f"acromion marker in {points.trial.source})")
    return mirrored(acromion, c7, normal)


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
