"""Marker sets: which markers ride on which segment, and which markers are which anatomical landmark.

Without a marker set, the trial's labels are read by meaning (``vocabulary``: Plug-in Gait, Helen
Hayes, CAST, OpenCap, Qualisys, OptiTrack and descriptive names). A marker set given by name (the
built-in ``markersets/*.toml``) or as a TOML file overrides that reading::

    name = "my_lab"
    extends = "cmu41"            # optional: start from a built-in set, override below
    [segments]                   # anatomical segment -> markers rigidly attached to it
    thigh_l = ["LTHI", "LKNE", "LTHI2"]
    [landmarks]                  # landmark -> a marker, a list of markers (their mean),
    psis = "SACR"                #   a weighted sum {markers = [...], weights = [...]} (weights add up to 1),
    supr = [["CLAV"], ["STRN"]]  #   or a list of these alternatives, the first the trial has wins

Segments are the fifteen anatomical segments of ``templates.ANATOMY``
(``brubaker12`` merges head into torso and hands into forearms itself).
Landmarks (``_l``/``_r`` per side): ``asis``, ``psis`` (mid-PSIS or sacrum),
optional ``hjc`` (a hip-joint-centre marker, used as is), ``c7``, ``supr``
(jugular notch), ``acromion``, ``head_l/head_r/head_front/head_back`` (the
head markers on each side), optional ``vertex``, ``elbow_lat`` + optional
``elbow_med`` (humeral epicondyles), ``wrist_lat`` (radial styloid) +
optional ``wrist_med`` (ulnar), optional ``hand_tip`` (3rd metacarpal head),
``knee_lat`` + optional ``knee_med``, ``ankle_lat`` + optional ``ankle_med``,
``heel``, ``toe``. Labels match case-insensitively, without ``Subject:`` prefixes.
A landmark whose markers a trial lacks (e.g. CLAV empty in every frame) falls back
to the stand-ins the vocabulary finds among the trial's labels (e.g. the jugular
notch from STRN, C7 and T10).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import ModelError
from ..io.documents import parse_document
from . import vocabulary
from .templates import ANATOMY_BY_NAME, SIDES

BUILTIN_DIR = Path(__file__).with_name("markersets")
#: Every landmark a marker set may name.
LANDMARKS = frozenset(
    ["psis", "c7", "supr", "vertex", "head_l", "head_r", "head_front", "head_back"]
    + [f"{name}_{s}" for s in SIDES for name in (
        "asis", "hjc", "acromion", "elbow_lat", "elbow_med", "wrist_lat", "wrist_med", "hand_tip",
        "knee_lat", "knee_med", "ankle_lat", "ankle_med", "heel", "toe")])
#: A built-in set is named as the closest family when at least this fraction of its labels is in the trial.
MIN_MATCH = 0.6


#: Why a label a given marker set does not name is left out (``with_stand_ins``).
NOT_IN_SET = "not in the marker set"


def normalize(label: str) -> str:
    """Label as matched: prefix ``Subject:`` removed, upper case, stripped."""
    return label.split(":")[-1].strip().upper()


@dataclass(frozen=True)
class Point:
    """A landmark made of markers: ``sum(w * marker)`` over ``weights`` ((label, w), ...), the w adding
    up to 1 (an affine combination: it moves with the markers; equal weights are their mean).
    ``stand_in``: the marker it stands in for, in words ("" when it is the landmark's own)."""

    weights: tuple[tuple[str, float], ...]
    stand_in: str = field(default="", compare=False)

    @classmethod
    def mean(cls, labels) -> "Point":
        return cls(tuple((label, 1.0 / len(labels)) for label in labels))

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(label for label, _ in self.weights)

    @property
    def is_mean(self) -> bool:
        return all(abs(w - 1.0 / len(self.weights)) < 1e-9 for _, w in self.weights)

    def __str__(self) -> str:
        if self.is_mean:
            return self.labels[0] if len(self.labels) == 1 else "mean of " + ", ".join(self.labels)
        terms = " ".join(f"{'+' if w >= 0 else '-'} {abs(w):.2f} {label}" for label, w in self.weights)
        return terms[2:] if terms.startswith("+") else "-" + terms[2:]


@dataclass(frozen=True)
class MarkerSet:
    """``segments``: segment -> marker labels; ``landmarks``: landmark -> alternative ``Point``s, preferred
    first; ``meanings``: label -> what the marker is (from the vocabulary); ``ignored``: label -> why the set
    does not use it."""

    name: str
    description: str
    segments: dict[str, tuple[str, ...]]
    landmarks: dict[str, tuple[Point, ...]]
    source: str
    meanings: dict[str, str] = field(default_factory=dict)
    ignored: dict[str, str] = field(default_factory=dict)

    @property
    def labels(self) -> frozenset[str]:
        """Every label the set names in segments and preferred landmarks (normalized)."""
        named = [m for ms in self.segments.values() for m in ms] + [
            m for points in self.landmarks.values() for m in points[0].labels]
        return frozenset(normalize(m) for m in named)

    def match(self, labels) -> float:
        """Fraction of this set's labels present in ``labels``."""
        return len(self.labels & {normalize(x) for x in labels}) / len(self.labels)


def _labels(value, where: str) -> tuple[str, ...]:
    values = (value,) if isinstance(value, str) else value
    if not isinstance(values, list | tuple) or not values or not all(isinstance(v, str) for v in values):
        raise ModelError(f"Marker set {where}: expected a marker label or a list of labels, got {value!r}",
                         'write e.g. knee_lat_l = "LKNE" or psis = ["LPSI", "RPSI"]')
    return tuple(values)


def _point(value, where: str) -> Point:
    if not isinstance(value, dict):
        return Point.mean(_labels(value, where))
    labels, weights = _labels(value.get("markers"), where), value.get("weights")
    if (not isinstance(weights, list) or len(weights) != len(labels)
            or not all(isinstance(w, int | float) for w in weights) or abs(sum(weights) - 1.0) > 1e-6):
        raise ModelError(f"Marker set {where}: weights must be one number per marker, adding up to 1, "
                         f"got {weights!r}", 'write e.g. supr = {markers = ["STRN", "C7"], weights = [0.8, 0.2]}')
    return Point(tuple(zip(labels, (float(w) for w in weights))))


def _points(value, where: str) -> tuple[Point, ...]:
    """A landmark's alternatives: a list holding lists or tables is a list of alternatives."""
    if isinstance(value, list) and value and any(isinstance(v, list | dict) for v in value):
        return tuple(_point(v, where) for v in value)
    return (_point(value, where),)


def parse_markerset(data: dict, source: str) -> MarkerSet:
    """A ``MarkerSet`` from parsed TOML; checks segment and landmark names."""
    base = BUILTIN[data["extends"]] if "extends" in data and data["extends"] in BUILTIN else None
    if "extends" in data and base is None:
        raise ModelError(f"Marker set {source}: extends unknown set {data['extends']!r}",
                         f"extend one of {', '.join(BUILTIN)}")
    segments = {k: _labels(v, f"{source} [segments] {k}") for k, v in data.get("segments", {}).items()}
    landmarks = {k: _points(v, f"{source} [landmarks] {k}") for k, v in data.get("landmarks", {}).items()}
    bad_segments = sorted(set(segments) - set(ANATOMY_BY_NAME))
    bad_landmarks = sorted(set(landmarks) - LANDMARKS)
    if bad_segments or bad_landmarks:
        raise ModelError(f"Marker set {source}: unknown " + "; ".join(
            part for part in (f"segments {', '.join(bad_segments)}" if bad_segments else "",
                              f"landmarks {', '.join(bad_landmarks)}" if bad_landmarks else "") if part),
            f"segments are {', '.join(ANATOMY_BY_NAME)}; landmarks are {', '.join(sorted(LANDMARKS))}")
    if base is not None:
        segments = {**base.segments, **segments}
        landmarks = {**base.landmarks, **landmarks}
    if not segments:
        raise ModelError(f"Marker set {source} maps no markers to segments",
                         "add a [segments] table: segment = [marker labels]")
    return MarkerSet(str(data.get("name", Path(source).stem)), str(data.get("description", "")),
                     segments, landmarks, source)


def load_markerset(path: str | Path) -> MarkerSet:
    """Read a marker-set TOML file (see the module docstring for the format)."""
    path = Path(path)
    data = parse_document(path, tomllib.loads, "Marker-set file", "TOML",
                          "fix the file; see solver/model/markersets/cmu41.toml for an example", ModelError)
    return parse_markerset(data, str(path))


BUILTIN: dict[str, MarkerSet] = {}
for _file in sorted(BUILTIN_DIR.glob("*.toml")):
    _set = load_markerset(_file)
    BUILTIN[_set.name] = _set


def from_meanings(meanings: dict, ignored: dict, name: str, description: str = "",
                  source: str = "vocabulary") -> MarkerSet:
    """The marker set that labels with these meanings (``vocabulary.Meaning`` per label) make: segments from
    the meanings, landmarks derived by the vocabulary; ``ignored``: label -> why it is not used."""
    segments: dict[str, list[str]] = {}
    for m in meanings.values():
        if m.segment is not None:
            segments.setdefault(m.segment, []).append(m.label)
    landmarks = {landmark: tuple(Point(tuple(weights.items()), stand_in) for weights, stand_in in alternatives)
                 for landmark, alternatives in vocabulary.landmarks(meanings).items()}
    return MarkerSet(name, description, {k: tuple(v) for k, v in segments.items()}, landmarks, source,
                     {label: m.what for label, m in meanings.items()}, dict(ignored))


def recognize(labels, descriptions: dict | None = None) -> MarkerSet:
    """The marker set the vocabulary reads in ``labels`` (``descriptions``: C3D ``POINT:DESCRIPTIONS``
    per label, read for generic labels). Named after the closest built-in set when one is close."""
    meanings, ignored = vocabulary.interpret(labels, descriptions)
    scores = {name: s.match(labels) for name, s in BUILTIN.items()}
    family = max(scores, key=scores.get)
    close = scores[family] >= MIN_MATCH
    return from_meanings(meanings, ignored, f"auto (like {family})" if close else "auto",
                         "labels matched by meaning (solver/model/vocabulary.toml)"
                         + (f"; closest built-in set {family}: {100 * scores[family]:.0f} % of its labels" if close
                            else ""))


def from_rows(rows, name: str = "my_lab") -> MarkerSet:
    """The marker set of a mapping fixed by hand: ``rows`` of (label, concept, side), concept "" to ignore
    the marker, side "l", "r" or "" (see ``vocabulary.toml`` for the concepts)."""
    meanings, ignored = {}, {}
    for label, concept, side in rows:
        c = vocabulary.CONCEPTS.get(concept)
        if c is None:
            ignored[label] = "ignored by hand"
        elif c.ignore:
            ignored[label] = c.ignore
        elif c.sided and side not in ("l", "r"):
            ignored[label] = f"a {c.what} marker needs a side"
        else:
            meanings[label] = vocabulary.Meaning(label, concept, side if c.sided else "", c.segment_for(side))
    return from_meanings(meanings, ignored, name, "mapped by hand in the Mocap Dynamics sidebar", "sidebar")


def landmarks_by_label(mset: MarkerSet) -> dict[str, list[str]]:
    """Label -> the landmarks whose preferred point uses it."""
    found: dict[str, list[str]] = {}
    for name, points in sorted(mset.landmarks.items()):
        for label in points[0].labels:
            found.setdefault(label, []).append(name)
    return found


def with_stand_ins(mset: MarkerSet, labels, descriptions: dict | None = None) -> MarkerSet:
    """``mset`` with, after each landmark's own alternatives, the vocabulary's for the same landmark (for
    trials that lack the set's markers), the vocabulary's meanings of its labels, and the trial's
    labels it does not use."""
    auto = recognize(labels, descriptions)
    landmarks = {name: points + tuple(p for p in auto.landmarks.get(name, ()) if p not in points)
                 for name, points in mset.landmarks.items()}
    used = mset.labels | {normalize(m) for points in landmarks.values() for p in points for m in p.labels}
    ignored = {x: f"{NOT_IN_SET} {mset.name}" for x in labels if normalize(x) not in used}
    meanings = {x: what for x, what in auto.meanings.items() if normalize(x) in used}
    return replace(mset, landmarks=landmarks, meanings=meanings, ignored=ignored)


def get_markerset(spec, labels, descriptions: dict | None = None) -> MarkerSet:
    """``spec``: None (read ``labels`` by meaning), a built-in name, a path to a TOML file, or a ``MarkerSet``."""
    if spec is None:
        return recognize(labels, descriptions)
    if isinstance(spec, MarkerSet):
        mset = spec
    elif str(spec) in BUILTIN:
        mset = BUILTIN[str(spec)]
    elif Path(spec).suffix.lower() == ".toml":
        mset = load_markerset(spec)
    else:
        raise ModelError(f"Unknown marker set {spec!r}",
                         f"use one of {', '.join(BUILTIN)} or the path to a marker-set .toml file")
    return with_stand_ins(mset, labels, descriptions)


def markerset_toml(mset: MarkerSet) -> str:
    """``mset`` as a marker-set TOML file (the format ``load_markerset`` reads: ``--markerset`` on the command
    line, the Build Armature step's Marker Set field); JSON strings are TOML basic strings."""
    def quoted(labels) -> str:
        return "[" + ", ".join(json.dumps(x) for x in labels) + "]"

    def point(p: Point) -> str:
        if p.is_mean:
            return json.dumps(p.labels[0]) if len(p.labels) == 1 else quoted(p.labels)
        return f"{{ markers = {quoted(p.labels)}, weights = [{', '.join(repr(w) for _, w in p.weights)}] }}"

    lines = [f"name = {json.dumps(mset.name)}", f"description = {json.dumps(mset.description)}", "", "[segments]"]
    lines += [f"{seg} = {quoted(labels)}" for seg, labels in mset.segments.items() if labels]
    lines += ["", "[landmarks]"]
    for name, points in mset.landmarks.items():
        value = point(points[0]) if len(points) == 1 else "[" + ", ".join(
            point(p) if not p.is_mean or len(p.labels) > 1 else quoted(p.labels) for p in points) + "]"
        lines.append(f"{name} = {value}")
    if mset.ignored:
        lines += ["", "# not used: " + ", ".join(mset.ignored)]
    return "\n".join(lines) + "\n"
