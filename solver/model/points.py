"""Landmarks, joint centres and anatomical segment frames of one trial, per frame (``(T, 3)`` arrays).

``Points`` computes them on demand from a trial and a marker set: a landmark is the first of its
alternatives (``markersets.Point``) whose markers the trial has; joint centres come from
``joint_centres``. ``segment_frames`` builds the model frames of the anatomical segments, parents first.

With ``upper_body=False`` (a lower-body marker set) the neck, vertex, shoulders, elbows, wrists and hand
tips are not measured but placed from the pelvis (``joint_centres.upper_body_from_pelvis``): the head,
arms and trunk then form one rigid segment on the pelvis (HAT). With ``hanging`` sides, the elbow, wrist and
hand tip of each such arm (whose markers cannot build it) hang straight down from its shoulder centre
(``joint_centres.hanging_arm``): the arm is one rigid segment on the torso.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..io.trial import Trial
from .frames import project_joint, triad, unit
from .functional_joints import rigid_frames, score, turned
from .inertia import DE_LEVA
from .joint_centres import (ARM_ROWS, condyle_centre, hanging_arm, harrington_hips, lumbar_offset, rab_shoulder,
                            upper_body_from_pelvis)
from .markersets import LANDMARKS, MarkerSet, Point, normalize
from .templates import ANATOMY, ANATOMY_BY_NAME, Anatomy

#: The other side of a side.
OTHER_SIDE = {"l": "r", "r": "l"}
#: Points placed from the pelvis when the trial has no upper body.
UPPER_BODY = frozenset(["neck", "vertex"] + [f"{name}_{s}" for s in "lr"
                                             for name in ("shoulder", "elbow", "wrist", "hand_tip")])
#: The segments on either side of a joint, for its functional centre.
FUNCTIONAL = {"knee": ("thigh", "shank"), "ankle": ("shank", "foot"), "elbow": ("upper_arm", "forearm"),
              "wrist": ("forearm", "hand")}
#: A functional joint centre needs the joint to turn this far [deg] (``functional_joints.turned``; a static
#: trial turns its knees and ankles by 0-1, a walk its ankles by 18-32 and its knees by 52-62, STS1 16-93).
FUNCTIONAL_TURN = 10.0
#: Points of an arm placed hanging from its shoulder, per side.
HANGING = {s: frozenset(f"{name}_{s}" for name in ("elbow", "wrist", "hand_tip")) for s in "lr"}


class Missing(Exception):
    """A landmark the marker set does not map, or the trial does not have."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


class Points:
    """World positions ``(T, 3)`` of landmarks and joint centres of one trial, computed on demand.

    ``frames`` holds the model frames of the segments built so far (``segment_frames`` fills it);
    ``methods`` records how each joint centre was found, and which landmarks were stand-ins; ``estimates``
    the landmarks placed without their lost marker (a heel, an ASIS, a lateral condyle), as warnings;
    ``hanging`` the sides whose arm hangs from its shoulder.
    """

    def __init__(self, trial: Trial, markerset: MarkerSet, sex: str, upper_body: bool = True,
                 hanging: frozenset = frozenset()):
        self.trial, self.markerset, self.sex, self.upper_body = trial, markerset, sex, upper_body
        self.hanging = hanging
        self.index = {normalize(label): i for i, label in enumerate(trial.labels)}
        self.frames: dict[str, np.ndarray] = {}
        self.methods: dict[str, str] = {}
        self.estimates: list[str] = []
        self.used: dict[str, Point] = {}
        self._cache: dict[str, np.ndarray] = {}

    def marker(self, label: str) -> np.ndarray | None:
        i = self.index.get(normalize(label))
        return None if i is None or np.isnan(self.trial.markers[:, i]).all() else self.trial.markers[:, i]

    def has(self, name: str) -> bool:
        try:
            self.get(name)
            return True
        except Missing:
            return False

    def get(self, name: str) -> np.ndarray:
        if name not in self._cache:
            if not self.upper_body and name in UPPER_BODY:
                self._cache.update(self._upper_body())
            elif any(name in HANGING[s] for s in self.hanging):
                self._cache.update(self._hanging_arm(name[-1]))
            else:
                self._cache[name] = self._landmark(name) if name in LANDMARKS else self._compute(name)
        return self._cache[name]

    def _landmark(self, name: str) -> np.ndarray:
        """The landmark from the trial's markers; a heel, a toe, an ASIS or an acromion the trial has no marker
        for, from the other side's."""
        try:
            return self._marked(name)
        except Missing:
            base, side = name[:-2], name[-1]
            if base not in ("heel", "toe", "asis", "acromion"):
                raise
            try:
                if base in ("heel", "toe"):
                    return self._from_other_foot(base, side)
                return self._asis_from_other_side(side) if base == "asis" else self._acromion_from_other_side(side)
            except Missing:  # the other side's marker is lost too: this landmark is what is missing
                raise Missing(name) from None

    def _asis_from_other_side(self, side: str) -> np.ndarray:
        """The ASIS mirrored from the other one across the pelvis's plane of symmetry: the plane through the
        midpoint of the two back pelvis markers (PSIS, or the back waist markers), normal to the line between
        them (beyond the template, which needs both ASIS: a lost one need not stop a trial)."""
        other = OTHER_SIDE[side]
        asis = self._marked(f"asis_{other}")
        self.get("psis")
        back = self.used["psis"].labels
        if len(back) != 2:  # the sacrum, or one PSIS: no plane of symmetry
            raise Missing(f"asis_{side}")
        a, b = (self.marker(label) for label in back)
        self._estimated(f"asis_{side}", f"stand-in: {self._labels(f'asis_{other}')} mirrored across the plane "
                                        f"between {' and '.join(back)} (no {'left' if side == 'l' else 'right'} "
                                        f"ASIS marker in {self.trial.source})")
        return mirrored(asis, 0.5 * (a + b), unit(a - b))

    def _acromion_from_other_side(self, side: str) -> np.ndarray:
        """The acromion mirrored from the other one across the trunk's plane of symmetry: the plane through C7,
        the jugular notch and the mid-hip (beyond the template, which needs both acromions for the torso's frame:
        a lost one made the whole upper body one segment on the pelvis). From the marker, median over frames:
        1.3-1.5 cm on subject 4's trials and CMU's, 2.0-2.5 on the video trials, 4.0-4.2 on the sprint and the
        squat."""
        other = OTHER_SIDE[side]
        acromion = self._marked(f"acromion_{other}")
        c7 = self.get("c7")
        normal = unit(np.cross(self.get("supr") - c7, self.get("mid_hip") - c7))
        self._estimated(f"acromion_{side}", f"stand-in: {self._labels(f'acromion_{other}')} mirrored across the "
                                            f"plane through C7, the jugular notch and the mid-hip (no "
                                            f"{'left' if side == 'l' else 'right'} acromion marker in "
                                            f"{self.trial.source})")
        return mirrored(acromion, c7, normal)

    def _marked(self, name: str) -> np.ndarray:
        """The first alternative whose markers the trial has (weighted sum of their tracks); one that is a
        regression on other landmarks' markers (not their mean) is also a warning."""
        points = self.markerset.landmarks.get(name, ())
        for k, point in enumerate(points):
            tracks = [self.marker(label) for label in point.labels]
            if all(t is not None for t in tracks):
                self.used[name] = point
                if k or point.stand_in:
                    missing = point.stand_in or " and ".join(points[0].labels)
                    how = f"stand-in {point} (no {missing} in {self.trial.source})"
                    if point.is_mean:
                        self.methods[name] = how
                    else:
                        self._estimated(name, how)
                return sum(w * t for (_, w), t in zip(point.weights, tracks))
        raise Missing(name)

    def _from_other_foot(self, landmark: str, side: str) -> np.ndarray:
        """A heel or toe mirrored from the other foot's marker (beyond the template, which needs both feet's heel
        and toe markers: a lost one need not stop a trial). Its offset from the ankle joint centre, in a frame
        of the line from the ankle to the foot's other marker (toe or heel; X) and the pelvis's Y (both feet's
        frames alike, whichever leg is built first), median over frames, the lateral part mirrored; then turned
        about that other marker so that the heel-to-toe line has the other foot's pitch where the foot rests
        (``_rest_pitch``: the template takes that line as the sole's, and a sole tilted by a few degrees moves
        the centre of pressure). From the marker, median over frames: heels 0.8-1.6 cm, toes 0.8-2.9 cm on
        subject 4's, CMU's and the video trials."""
        other, reference = OTHER_SIDE[side], {"heel": "toe", "toe": "heel"}[landmark]

        def foot(s: str) -> tuple[np.ndarray, np.ndarray]:
            ankle = self.get(f"ankle_{s}")
            return ankle, triad("x", self._marked(f"{reference}_{s}") - ankle, "y", self.frame("pelvis")[..., :, 1])

        ankle, rot = foot(other)
        offset = np.nanmedian(np.einsum("tji,tj->ti", rot, self._marked(f"{landmark}_{other}") - ankle), axis=0)
        ankle, rot = foot(side)
        self._estimated(f"{landmark}_{side}", f"stand-in: the other foot's {landmark} "
                                              f"({self._labels(f'{landmark}_{other}')}) mirrored (no {landmark} "
                                              f"marker for this foot in {self.trial.source})")
        placed = ankle + np.einsum("tij,j->ti", rot, offset * [1.0, -1.0, 1.0])

        def pitch(point: np.ndarray, end: np.ndarray) -> float:  # the foot's heel-to-toe pitch at rest
            return _rest_pitch(point, end) if landmark == "heel" else _rest_pitch(end, point)

        end = self._marked(f"{reference}_{side}")
        turn = pitch(self._marked(f"{landmark}_{other}"), self._marked(f"{reference}_{other}")) - pitch(placed, end)
        return _pitched(placed, end, turn if landmark == "toe" else -turn)

    def _estimated(self, name: str, how: str) -> None:
        self.methods[name] = how
        self.estimates.append(f"{name} placed without its marker: {how.removeprefix('stand-in: ')}")

    def _labels(self, name: str) -> str:
        return str(self.used[name]) if name in self.used else name

    def frame(self, segment: str) -> np.ndarray:
        if segment not in self.frames:
            raise Missing(f"the {segment} frame")
        return self.frames[segment]

    def anatomical_frame(self, a: Anatomy) -> np.ndarray:
        axis, start, end = a.primary
        u = self.get(end) - self.get(start)
        secondary, candidates = a.secondary
        for c in candidates:
            if isinstance(c, str):
                return triad(axis, u, secondary, self.frame(c[1:])[..., :, 1])
            if self.has(c[0]) and self.has(c[1]):
                return triad(axis, u, secondary, self.get(c[1]) - self.get(c[0]))
        raise Missing(" and ".join(candidates[0]))  # the preferred pair

    def _compute(self, name: str) -> np.ndarray:
        base, side = (name[:-2], name[-1]) if name[-2:] in ("_l", "_r") else (name, "")
        if base in ("asis_mid", "mid_hip", "shoulder_mid"):
            parts = {"asis_mid": "asis", "mid_hip": "hip", "shoulder_mid": "shoulder"}[base]
            return 0.5 * (self.get(f"{parts}_l") + self.get(f"{parts}_r"))
        if base == "neck":
            neck = 0.5 * (self.get("c7") + self.get("supr"))
            self.methods["neck"] = f"midpoint of C7 ({self._labels('c7')}) and jugular notch ({self._labels('supr')})"
            return neck
        if base == "hip":
            return self._hip(side)
        if base == "lumbar":
            pelvis = self.anatomical_frame(ANATOMY_BY_NAME["pelvis"])
            rows = DE_LEVA[self.sex]
            fraction = rows["lower_trunk"].length / rows["trunk"].length
            mid_hip = self.get("mid_hip")
            offset = lumbar_offset(mid_hip, self.get("neck"), pelvis, fraction)
            self.methods["lumbar"] = f"{fraction:.3f} of the way from mid-hip to neck (de Leva 1996 omphalion)"
            return mid_hip + pelvis @ offset
        if base == "shoulder":
            other = OTHER_SIDE[side]
            acromion = self.get(f"acromion_{side}")
            self.methods[name] = f"{self._labels('acromion_' + side)} - 17 % of bi-acromial width (Rab 2002)"
            return rab_shoulder(acromion, self.get(f"acromion_{other}"), self.frame("torso"))
        if base in ("elbow", "wrist", "knee", "ankle"):
            return self._condyles(base, side)
        raise Missing(name)

    def _hip(self, side: str) -> np.ndarray:
        name = f"hip_{side}"
        pelvis = self.anatomical_frame(ANATOMY_BY_NAME["pelvis"])
        regression = harrington_hips(self.get("asis_l"), self.get("asis_r"), self.get("psis"), pelvis)
        regression = regression[0 if side == "l" else 1]
        if self.has(f"hjc_{side}"):
            distance = np.nanmedian(np.linalg.norm(self.get(f"hjc_{side}") - regression, axis=-1))
            self.methods[name] = (f"marker {self._labels('hjc_' + side)} (Harrington et al. 2007 would put it "
                                  f"{100 * distance:.1f} cm away)")
            return self.get(f"hjc_{side}")
        self.methods[name] = "Harrington et al. 2007 regression on pelvic width and depth"
        return regression

    def _condyles(self, joint: str, side: str) -> np.ndarray:
        name = f"{joint}_{side}"
        proximal = {"elbow": "shoulder", "wrist": "elbow", "knee": "hip", "ankle": "knee"}[joint]
        body = "torso" if joint in ("elbow", "wrist") else "pelvis"

        def medial_direction() -> np.ndarray:  # from the lateral to the medial side
            return (-1.0 if side == "l" else 1.0) * self.frame(body)[..., :, 1]

        if not self.has(f"{joint}_lat_{side}") and not self.has(f"{joint}_med_{side}"):
            return self._functional(joint, side)
        if not self.has(f"{joint}_lat_{side}"):  # a lost lateral marker, the medial one kept
            self._estimated(name, f"{self._labels(f'{joint}_med_{side}')} moved laterally (no lateral marker)")
            return condyle_centre(self.get(f"{joint}_med_{side}"), None, self.get(f"{proximal}_{side}"),
                                  -medial_direction(), joint)
        lateral = self.get(f"{joint}_lat_{side}")
        if self.has(f"{joint}_med_{side}"):
            self.methods[name] = f"midpoint of {self._labels(f'{joint}_lat_{side}')} and " \
                                 f"{self._labels(f'{joint}_med_{side}')}"
            return condyle_centre(lateral, self.get(f"{joint}_med_{side}"), None, None, joint)
        self.methods[name] = f"{self._labels(f'{joint}_lat_{side}')} moved medially (no medial marker)"
        return condyle_centre(lateral, None, self.get(f"{proximal}_{side}"), medial_direction(), joint)

    def _functional(self, joint: str, side: str) -> np.ndarray:
        """A knee, ankle, elbow or wrist without a condyle marker: the point fixed relative to both its segments'
        own markers (SCoRE, Ehrig et al. 2006, ``functional_joints.score``; beyond the template), each segment
        needing three and the joint turning by ``FUNCTIONAL_TURN``. Against the lateral marker moved medially,
        median over frames, in the sagittal plane: knees 0.9-2.6 cm, ankles 0.7-4.3 cm on subject 4's and the
        sprint's trials (along the flexion axis, which a hinge's motion does not fix, up to 5 cm)."""
        parent, child = FUNCTIONAL[joint]
        groups = []
        for segment in (parent, child):
            tracks = [t for t in (self.marker(x) for x in self.markerset.segments.get(f"{segment}_{side}", ()))
                      if t is not None]
            if len(tracks) < 3:
                raise Missing(f"{joint}_lat_{side}")
            groups.append(rigid_frames(np.stack(tracks, axis=1)))
        fit = score(*groups) if turned(*groups) >= FUNCTIONAL_TURN else None
        if fit is None:
            raise Missing(f"{joint}_lat_{side}")
        self._estimated(f"{joint}_{side}", f"the point fixed relative to both the {parent}'s and the {child}'s "
                                           f"markers (SCoRE; no {joint} marker in {self.trial.source})")
        return fit.world

    def _leg_scale(self) -> float:
        """The subject's thighs and shanks over de Leva's (median of the four)."""
        rows = DE_LEVA[self.sex]
        return float(np.median([np.nanmedian(np.linalg.norm(self.get(f"{a}_{s}") - self.get(f"{b}_{s}"), axis=-1))
                                / (rows[row].length / 1000) for s in "lr"
                                for a, b, row in (("hip", "knee", "thigh"), ("knee", "ankle", "shank"))]))

    def _upper_body(self) -> dict[str, np.ndarray]:
        """The upper body's points placed from the pelvis, scaled by the legs (no upper-body markers)."""
        pelvis = self.anatomical_frame(ANATOMY_BY_NAME["pelvis"])
        points, self.methods["upper body"] = upper_body_from_pelvis(self.get("mid_hip"), pelvis, self._leg_scale(),
                                                                    DE_LEVA[self.sex])
        return points

    def _hanging_arm(self, side: str) -> dict[str, np.ndarray]:
        """An arm whose markers cannot build it, hanging straight down from its shoulder centre along the world
        vertical as the torso sees it on average (beyond the papers: a lost elbow marker need not make the whole
        upper body rigid), de Leva's lengths scaled by the legs."""
        torso = self.frame("torso")
        down = -unit(np.nanmedian(torso[..., 2, :], axis=0))  # world -Z in the torso frame
        scale = self._leg_scale()
        lengths = [scale * DE_LEVA[self.sex][row].length / 1000 for row in ARM_ROWS]
        self.methods[f"arm_{side}"] = f"hanging straight down from the shoulder, de Leva lengths x {scale:.2f}"
        return hanging_arm(self.get(f"shoulder_{side}"), torso @ down, lengths, side)


@dataclass
class Frames:
    """Model frames, origins and tips ``(T, ...)`` per anatomical segment; what could not be built."""

    rot: dict = field(default_factory=dict)
    origin: dict = field(default_factory=dict)
    tip: dict = field(default_factory=dict)
    missing: dict = field(default_factory=dict)


def segment_frames(points: Points, joints: dict) -> Frames:
    """Anatomical segments parents first; ``joints`` maps each to (joint type, axes). A segment whose joint
    cannot follow its anatomical frame takes the nearest frame the joint allows (a weld: the parent's)."""
    out = Frames()
    for a in ANATOMY:
        joint, axes = joints[a.name]
        if a.parent is not None and a.parent not in out.rot:
            out.missing[a.name] = f"its parent {a.parent}"
            continue
        try:
            origin = points.get(a.origin)
            if joint == "weld":
                rot = out.rot[a.parent]
            else:
                anatomical = points.anatomical_frame(a)
                if a.parent is None:
                    rot = anatomical
                else:
                    parent = out.rot[a.parent]
                    rot = parent @ project_joint(joint, axes, np.swapaxes(parent, -1, -2) @ anatomical)[0]
        except Missing as missing:
            out.missing[a.name] = missing.name
            continue
        points.frames[a.name] = out.rot[a.name] = rot
        out.origin[a.name] = origin
        if points.has(a.tip):
            out.tip[a.name] = points.get(a.tip)
        elif a.default_tip is None:
            out.missing[a.name] = a.tip
    return out


def mirrored(point: np.ndarray, on_plane: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """``point`` (T, 3) mirrored across the plane through ``on_plane`` with unit ``normal`` (T, 3)."""
    return point - 2.0 * np.sum((point - on_plane) * normal, axis=-1, keepdims=True) * normal


def local_point(rot: np.ndarray, origin: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Median over frames of ``point`` in the frame (``rot``, ``origin``); NaN if never seen."""
    local = np.einsum("tji,tj->ti", rot, point - origin)
    ok = ~np.isnan(local).any(axis=1)
    return np.median(local[ok], axis=0) if ok.any() else np.full(3, np.nan)


def _rest_pitch(heel: np.ndarray, toe: np.ndarray) -> float:
    """The heel-to-toe line's pitch [rad] (toe up positive), median over the frames in which the foot is lowest."""
    low = 0.5 * (heel[:, 2] + toe[:, 2])
    rest = low <= np.nanpercentile(low, 20)
    d = toe[rest] - heel[rest]
    return float(np.nanmedian(np.arctan2(d[:, 2], np.linalg.norm(d[:, :2], axis=1))))


def _pitched(point: np.ndarray, pivot: np.ndarray, angle: float) -> np.ndarray:
    """``point`` turned about ``pivot`` by ``angle`` in the vertical plane through both, raising it for angle > 0."""
    d = point - pivot
    horizontal = np.maximum(np.linalg.norm(d[:, :2], axis=1), 1e-9)
    pitch = np.arctan2(d[:, 2], horizontal) + angle
    length = np.linalg.norm(d, axis=1)
    direction = d[:, :2] / horizontal[:, None]
    return pivot + np.column_stack([direction * (length * np.cos(pitch))[:, None], length * np.sin(pitch)])

