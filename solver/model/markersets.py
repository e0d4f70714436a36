"""Marker sets: which markers ride on which segment, and which markers are which anatomical landmark.

A marker set is a TOML file (built-in ones in ``markersets/``)::

    name = "my_lab"
    extends = "cmu41"            # optional: start from a built-in set, override below
    [segments]                   # anatomical segment -> markers rigidly attached to it
    thigh_l = ["LTHI", "LKNE", "LTHI2"]
    [landmarks]                  # landmark -> a marker, or a list of markers (their mean)
    psis = "SACR"

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
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelError, option
from ..io.documents import parse_document
from .templates import ANATOMY_BY_NAME, SIDES

BUILTIN_DIR = Path(__file__).with_name("markersets")
#: Every landmark a marker set may name.
LANDMARKS = frozenset(
    ["psis", "c7", "supr", "vertex", "head_l", "head_r", "head_front", "head_back"]
    + [f"{name}_{s}" for s in SIDES for name in (
        "asis", "hjc", "acromion", "elbow_lat", "elbow_med", "wrist_lat", "wrist_med", "hand_tip",
        "knee_lat", "knee_med", "ankle_lat", "ankle_med", "heel", "toe")])
#: A built-in set is recognized when at least this fraction of its labels is in the trial.
MIN_MATCH = 0.6


def normalize(label: str) -> str:
    """Label as matched: prefix ``Subject:`` removed, upper case, stripped."""
    return label.split(":")[-1].strip().upper()


@dataclass(frozen=True)
class MarkerSet:
    name: str
    description: str
    segments: dict[str, tuple[str, ...]]
    landmarks: dict[str, tuple[str, ...]]
    source: str

    @property
    def labels(self) -> frozenset[str]:
        """Every label the set names (normalized)."""
        named = [m for ms in self.segments.values() for m in ms] + [m for ms in self.landmarks.values() for m in ms]
        return frozenset(normalize(m) for m in named)

    def match(self, labels) -> float:
        """Fraction of this set's labels present in ``labels``."""
        return len(self.labels & {normalize(x) for x in labels}) / len(self.labels)


def _as_tuple(value, where: str) -> tuple[str, ...]:
    values = (value,) if isinstance(value, str) else value
    if not isinstance(values, list | tuple) or not values or not all(isinstance(v, str) for v in values):
        raise ModelError(f"Marker set {where}: expected a marker label or a list of labels, got {value!r}",
                         'write e.g. knee_lat_l = "LKNE" or psis = ["LPSI", "RPSI"]')
    return tuple(values)


def parse_markerset(data: dict, source: str) -> MarkerSet:
    """A ``MarkerSet`` from parsed TOML; checks segment and landmark names."""
    base = BUILTIN[data["extends"]] if "extends" in data and data["extends"] in BUILTIN else None
    if "extends" in data and base is None:
        raise ModelError(f"Marker set {source}: extends unknown set {data['extends']!r}",
                         f"extend one of {', '.join(BUILTIN)}")
    segments = {k: _as_tuple(v, f"{source} [segments] {k}") for k, v in data.get("segments", {}).items()}
    landmarks = {k: _as_tuple(v, f"{source} [landmarks] {k}") for k, v in data.get("landmarks", {}).items()}
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


def recognize(labels) -> MarkerSet:
    """The built-in set whose labels best match ``labels``; ``ModelError`` if none matches well enough."""
    scores = {name: s.match(labels) for name, s in BUILTIN.items()}
    best = max(scores, key=scores.get)
    if scores[best] < MIN_MATCH:
        found = ", ".join(f"{name} {100 * score:.0f} %" for name, score in sorted(scores.items()))
        raise ModelError(f"Unknown marker set: the trial's labels match no built-in set well enough "
                         f"(labels found per set: {found}; {100 * MIN_MATCH:.0f} % needed)",
                         "write a marker-set TOML file mapping each segment to its markers and the anatomical "
                         f"landmarks to markers (format: {BUILTIN_DIR / 'cmu41.toml'}), and pass it as "
                         f"{option('markerset', hint='path')}")
    return BUILTIN[best]


def get_markerset(spec, labels) -> MarkerSet:
    """``spec``: None (recognize from ``labels``), a built-in name, a path to a TOML file, or a ``MarkerSet``."""
    if spec is None:
        return recognize(labels)
    if isinstance(spec, MarkerSet):
        return spec
    if str(spec) in BUILTIN:
        return BUILTIN[str(spec)]
    if Path(spec).suffix.lower() == ".toml":
        return load_markerset(spec)
    raise ModelError(f"Unknown marker set {spec!r}",
                     f"use one of {', '.join(BUILTIN)} or the path to a marker-set .toml file")
