"""Marker labels matched by meaning: what each label is, from the vocabulary in ``vocabulary.toml``.

A label is cut into tokens (separators ``_ . - : space``, and case changes: ``WaistLFront`` -> Waist, L,
Front); a token that names a side (``[sides]``) gives the side, noise tokens (``_study``) are dropped, and
the rest, joined in upper case, is the stem. Without a side token, a leading side (``LASI``, ``LEFTKNEE``)
is tried after the whole label. The stem is looked up in this order, the first hit wins:

1. the exact names of the landmarks (``KNE``, ``LEPI``, ``ELBOWLAT``), sided concepts when the label has
   a side, unsided ones when it has none;
2. the exact names of segment clusters (``THIGH``, ``TIB``, ``RBAK``);
3. a cluster stem followed by cluster suffixes and a number (``TH1``, ``THAP``, ``SHANKANTSUP``).

An unpaired segment's cluster (pelvis, torso, head) takes labels with or without a side. A label that is
no name (``*52``, ``M001``, ``12``) is *generic*: its C3D ``POINT:DESCRIPTIONS`` text, if the file has
one, is matched instead. ``interpret`` returns each label's ``Meaning`` and, for the others, why they are
ignored; ``landmarks`` turns meanings into the calibration landmarks of a marker set (``[landmarks]``).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .templates import ANATOMY_BY_NAME

VOCABULARY_FILE = Path(__file__).with_name("vocabulary.toml")
_VOCABULARY = tomllib.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))
SIDE_TOKENS = {token: side for side, key in (("l", "left"), ("r", "right"))
               for token in _VOCABULARY["sides"][key]}
NOISE = frozenset(_VOCABULARY["noise"]["tokens"])
_SUFFIX = re.compile("(?:{})*[0-9]*".format("|".join(sorted(_VOCABULARY["cluster"]["suffixes"], key=len,
                                                                   reverse=True))))
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+[a-z]*|[A-Z]")
_GENERIC = re.compile(r"\*?[0-9]+|(?:M|MARKER|MKR|PT|POINT|UNLABELED|UNLABELLED|UNNAMED|UNKNOWN|C)[ _-]?[0-9]+",
                      re.IGNORECASE)


@dataclass(frozen=True)
class Concept:
    """One kind of marker: a landmark or a segment's cluster marker (see ``vocabulary.toml``)."""

    name: str
    what: str
    segment: str | None
    sided: bool
    names: tuple[str, ...]
    stems: tuple[str, ...]
    ignore: str | None

    def segment_for(self, side: str) -> str | None:
        """The anatomical segment a marker of this concept on ``side`` rides on (None: a point only)."""
        if self.segment is None or self.ignore:
            return None
        return self.segment if self.segment in ANATOMY_BY_NAME else f"{self.segment}_{side}"


CONCEPTS = {name: Concept(name, c["what"], c.get("segment"), bool(c.get("sided", False)),
                          tuple(c["names"]), tuple(sorted(c.get("stems", ()), key=len, reverse=True)),
                          c.get("ignore"))
            for name, c in _VOCABULARY["concepts"].items()}
#: Calibration landmark -> alternatives, each a dict concept reference -> weight (see ``vocabulary.toml``).
DERIVATIONS = {name: tuple(alt if isinstance(alt, dict) else {c: 1.0 / len(alt) for c in alt} for alt in alts)
               for name, alts in _VOCABULARY["landmarks"].items()}
_UNPAIRED = frozenset(c.segment for c in CONCEPTS.values() if not c.sided and c.segment)
#: OpenCap's files hold its marker augmenter's anatomical markers (``r_knee_study``: the token below) beside
#: OpenPose's video keypoints (``RKnee``, ``Neck``: joint centres, not the landmarks of the same names), which
#: OpenCap's own inverse kinematics leaves out; so does the vocabulary, with this reason.
AUGMENTED = "STUDY"
KEYPOINT = "a video keypoint (a joint centre from OpenPose) beside OpenCap's anatomical markers (_study), " \
           "which are used"
#: OpenPose's body keypoints (BODY_25 and HALPE, as OpenCap and Pose2Sim write them; upper case, no separators).
KEYPOINT_NAMES = frozenset(["NOSE", "NECK", "HEAD", "HIP", "MIDHIP"] + [
    side + name for side in "LR" for name in ("EYE", "EAR", "SHOULDER", "ELBOW", "WRIST", "HIP", "KNEE", "ANKLE",
                                               "HEEL", "BIGTOE", "SMALLTOE")])
#: Calibration landmarks that have no side (the others come as NAME_l and NAME_r).
UNSIDED_LANDMARKS = frozenset(["psis", "c7", "supr", "vertex", "head_l", "head_r", "head_front", "head_back"])


@dataclass(frozen=True)
class Meaning:
    """What a label is: its concept, side ("l", "r" or ""), the segment it rides on (None: a point
    only, e.g. a virtual hip centre) and whether it was read from the file's description."""

    label: str
    concept: str
    side: str
    segment: str | None
    from_description: bool = False

    @property
    def what(self) -> str:
        side = {"l": "left ", "r": "right ", "": ""}[self.side]
        text = side + CONCEPTS[self.concept].what
        return text + " (from the file's description)" if self.from_description else text


def tokens(label: str) -> list[str]:
    """Upper-case tokens of a label: split at separators and case changes, ``Subject:`` prefix removed."""
    label = label.split(":")[-1].strip()
    return [t.upper() for part in re.split(r"[\s_.\-]+", label) if part for t in _CAMEL.findall(part)
            or [part]]


def _parses(label: str):
    """Candidate (side, stem) readings of a label, most likely first."""
    words = [t for t in tokens(label) if t not in NOISE]
    sides = [i for i, t in enumerate(words) if t in SIDE_TOKENS]
    if sides and len(words) > 1:
        i = sides[0]
        yield SIDE_TOKENS[words[i]], "".join(words[:i] + words[i + 1:])
        return
    stem = "".join(words)
    yield "", stem
    for token in sorted(SIDE_TOKENS, key=len, reverse=True):
        if stem.startswith(token) and len(stem) > len(token):
            yield SIDE_TOKENS[token], stem[len(token):]


def _lookup(side: str, stem: str) -> str | None:
    """The concept a stem names on ``side`` (module docstring, steps 1-3), or None."""
    def fits(c: Concept) -> bool:
        return c.sided == bool(side) or (not c.sided and c.segment in _UNPAIRED and bool(side))
    landmarks = [c for c in CONCEPTS.values() if not c.stems]
    clusters = [c for c in CONCEPTS.values() if c.stems]
    for c in landmarks:
        if stem in c.names and c.sided == bool(side):
            return c.name
    for c in clusters:
        if stem in c.names and fits(c):
            return c.name
    for c in clusters:
        if fits(c) and any(stem.startswith(s) and len(stem) > len(s) and _SUFFIX.fullmatch(stem[len(s):])
                           for s in c.stems):
            return c.name
    return None


def meaning(label: str, text: str | None = None) -> Meaning | None:
    """What ``label`` means (reading ``text``, its description, instead when given), or None."""
    for side, stem in _parses(text if text is not None else label):
        concept = _lookup(side, stem)
        if concept is not None:
            return Meaning(label, concept, side, CONCEPTS[concept].segment_for(side), text is not None)
    return None


def video_keypoints(labels) -> list[str]:
    """The ``labels`` that are OpenPose's body keypoints (``RKnee``, ``midHip``): joint centres from video; none
    unless one is OpenPose's own (a big or small toe, the mid-hip), since marker sets name knees and ankles too."""
    found = {x: "".join(tokens(x)) for x in labels}
    found = {x: name for x, name in found.items() if name in KEYPOINT_NAMES}
    return list(found) if {"MIDHIP", "LBIGTOE", "RBIGTOE", "LSMALLTOE", "RSMALLTOE"} & set(found.values()) else []


#: Why a label is left out when nothing says what it is (``interpret``).
GENERIC_NAME = "a generic name, and the file has no description that says what it is"
UNKNOWN_NAME = "not a marker name the vocabulary knows"


def is_generic(label: str) -> bool:
    """True for labels that are no names: numbers, ``*52``, ``M001``, ``Marker12``."""
    return _GENERIC.fullmatch(label.split(":")[-1].strip()) is not None


def interpret(labels, descriptions: dict | None = None) -> tuple[dict, dict]:
    """``({label: Meaning}, {label: why it is ignored})`` for ``labels``; ``descriptions`` maps labels to
    their C3D ``POINT:DESCRIPTIONS`` text (used for labels the vocabulary does not know)."""
    descriptions = {k.split(":")[-1].strip().upper(): v for k, v in (descriptions or {}).items()}
    meanings, ignored = {}, {}
    study = {label: AUGMENTED in tokens(label) for label in labels}
    augmented = any(study.values())
    for label in labels:
        if augmented and not study[label]:
            ignored[label] = KEYPOINT
            continue
        found = meaning(label)
        text = descriptions.get(label.split(":")[-1].strip().upper())
        if found is None and text:
            found = meaning(label, text)
        if found is None:
            ignored[label] = GENERIC_NAME if is_generic(label) else UNKNOWN_NAME
        elif CONCEPTS[found.concept].ignore:
            ignored[label] = CONCEPTS[found.concept].ignore
        else:
            meanings[label] = found
    return meanings, ignored


def landmarks(meanings: dict) -> dict[str, tuple[tuple[dict, str], ...]]:
    """Calibration landmark -> the alternatives the labels allow, preferred first, each ``({label: weight},
    what it stands in for)``: "" for the landmark's first alternative, else the missing marker in words.

    A landmark key without a side (``asis``) gives ``asis_l`` and ``asis_r``; an alternative is possible
    when every concept it names has markers; a concept with several markers contributes their mean.
    """
    by_concept: dict[tuple[str, str], list[str]] = {}
    for m in meanings.values():
        by_concept.setdefault((m.concept, m.side), []).append(m.label)
    found = {}
    for key, alternatives in DERIVATIONS.items():
        sided = key not in UNSIDED_LANDMARKS
        for side in ("l", "r") if sided else ("",):
            name = f"{key}_{side}" if sided else key
            options = []
            for k, alternative in enumerate(alternatives):
                weights = {}
                for ref, weight in alternative.items():
                    concept, _, ref_side = ref.partition(":")
                    labels = by_concept.get((concept, ref_side or side))
                    if not labels:
                        break
                    for label in labels:
                        weights[label] = weights.get(label, 0.0) + weight / len(labels)
                else:
                    options.append((weights, marker_words(name) if k else ""))
            if options:
                found[name] = tuple(options)
    return found


def wanted(landmark: str) -> str:
    """What markers would give a calibration landmark, in words, e.g. "a right toe (...) marker such as RTOE"."""
    words = marker_words(landmark)
    return f"{'an' if words[0] in 'aeiou' else 'a'} {words}"


def marker_words(landmark: str) -> str:
    """``wanted`` without its article: "right toe (...) marker such as RTOE"."""
    key, side = (landmark[:-2], landmark[-1]) if landmark not in UNSIDED_LANDMARKS else (landmark, "")
    concept, _, ref_side = next(iter(DERIVATIONS[key][0])).partition(":")
    side = side or ref_side
    c = CONCEPTS[concept]
    names = c.names[:2]
    prefix = {"l": "L", "r": "R", "": ""}[side]
    words = {"l": "left ", "r": "right ", "": ""}[side]
    return f"{words}{c.what} marker, such as {' or '.join(prefix + n for n in names)}"
