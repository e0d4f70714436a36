"""Landmarks, joint centres and anatomical segment frames of one trial, per frame (``(T, 3)`` arrays).

``Points`` computes them on demand from a trial and a marker set: a landmark is the first of its
alternatives (``markersets.Point``) whose markers the trial has, or when its marker is lost a stand-in
(``stand_ins``); joint centres come from ``joint_centres``. ``segment_frames`` builds the model frames of
the anatomical segments, parents first.

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
from .inertia import DE_LEVA
from .joint_centres import (ARM_ROWS, condyle_centre, hanging_arm, harrington_hips, lumbar_offset, rab_shoulder,
                            upper_body_from_pelvis)
from .markersets import LANDMARKS, MarkerSet, Point, normalize
from .stand_ins import OTHER_SIDE, functional_centre, lost_landmark
from .templates import ANATOMY, ANATOMY_BY_NAME, Anatomy

#: Points placed from the pelvis when the trial has no upper body.
UPPER_BODY = frozenset(["neck", "vertex"] + [f"{name}_{s}" for s in "lr"
                                             for name in ("shoulder", "elbow", "wrist", "hand_tip")])
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
    the landmarks placed without their lost marker (``stand_ins``, a condyle from the other one), as warnings;
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
        for, from the other side's (``stand_ins``)."""
        try:
            return self.marked(name)
        except Missing:
            try:
                placed = lost_landmark(self, name)
            except Missing:  # the other side's marker is lost too: this landmark is what is missing
                placed = None
            if placed is None:
                raise Missing(name) from None
            return placed

    def marked(self, name: str) -> np.ndarray:
        """The first alternative whose markers the trial has (weighted sum of their tracks); one that is a
        regression on other landmarks' markers (not their mean) is also a warning."""
        found = self._first_marked(name)
        if found is None:
            raise Missing(name)
        k, point = found
        self.used[name] = point
        if k or point.stand_in:
            missing = point.stand_in or " and ".join(self.markerset.landmarks[name][0].labels)
            how = f"stand-in {point} (no {missing} in {self.trial.source})"
            if point.is_mean:
                self.methods[name] = how
            else:
                self.estimated(name, how)
        return sum(w * self.marker(label) for label, w in point.weights)

    def is_marked(self, name: str) -> bool:
        """Whether the trial has the markers of one of the landmark's alternatives (``marked`` would find it)."""
        return self._first_marked(name) is not None

    def _first_marked(self, name: str) -> tuple[int, Point] | None:
        """(its rank, the alternative) of the first of the landmark's alternatives whose markers the trial has."""
        return next(((k, point) for k, point in enumerate(self.markerset.landmarks.get(name, ()))
                     if all(self.marker(label) is not None for label in point.labels)), None)

    def estimated(self, name: str, how: str) -> None:
        """Record that ``name`` was placed without its lost marker, and ``how``: a warning in the report."""
        self.methods[name] = how
        self.estimates.append(f"{name} placed without its marker: {how.removeprefix('stand-in: ')}")

    def labels_of(self, name: str) -> str:
        """The markers a landmark was made of, in words (its name if not made yet)."""
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
            self.methods["neck"] = (f"midpoint of C7 ({self.labels_of('c7')}) and jugular notch "
                                    f"({self.labels_of('supr')})")
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
            self.methods[name] = f"{self.labels_of('acromion_' + side)} - 17 % of bi-acromial width (Rab 2002)"
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
            self.methods[name] = (f"marker {self.labels_of('hjc_' + side)} (Harrington et al. 2007 would put it "
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
            placed = functional_centre(self, joint, side)
            if placed is None:
                raise Missing(f"{joint}_lat_{side}")
            return placed
        if not self.has(f"{joint}_lat_{side}"):  # a lost lateral marker, the medial one kept
            self.estimated(name, f"{self.labels_of(f'{joint}_med_{side}')} moved laterally (no lateral marker)")
            return condyle_centre(self.get(f"{joint}_med_{side}"), None, self.get(f"{proximal}_{side}"),
                                  -medial_direction(), joint)
        lateral = self.get(f"{joint}_lat_{side}")
        if self.has(f"{joint}_med_{side}"):
            self.methods[name] = f"midpoint of {self.labels_of(f'{joint}_lat_{side}')} and " \
                                 f"{self.labels_of(f'{joint}_med_{side}')}"
            return condyle_centre(lateral, self.get(f"{joint}_med_{side}"), None, None, joint)
        self.methods[name] = f"{self.labels_of(f'{joint}_lat_{side}')} moved medially (no medial marker)"
        return condyle_centre(lateral, None, self.get(f"{proximal}_{side}"), medial_direction(), joint)

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


def local_point(rot: np.ndarray, origin: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Median over frames of ``point`` in the frame (``rot``, ``origin``); NaN if never seen."""
    local = np.einsum("tji,tj->ti", rot, point - origin)
    ok = ~np.isnan(local).any(axis=1)
    return np.median(local[ok], axis=0) if ok.any() else np.full(3, np.nan)
