"""Calibrate a subject's ``BodyModel`` from a static trial or from the movement trial itself.

Steps (every one vectorized over frames):

1. Marker set: recognized from the labels, or given (built-in name or TOML
   file, ``markersets``). A segment's markers are the set's markers for it
   that the movement trial has.
2. Joint centres per frame (``joint_centres``) and anatomical segment frames
   (``templates``), parents first. A segment whose joint cannot follow its
   anatomical frame takes the nearest frame its joint allows relative to its
   parent's (``frames.project_joint``): a hinge knee keeps the thigh's
   flexion axis, a weld the parent's frame.
3. Geometry = medians over the calibration frames, in the segment frames:
   joint centres of the children (joint offsets), the tip, marker offsets.
   Segment lengths are therefore robust over frames.
4. A leaf segment (head, hand, foot) with too few markers for its own frame (three
   points, counting its joint centre) is welded to its parent, rides on it at
   its calibrated posture, and gets its tip from its markers or, with none,
   from de Leva's mean length scaled by the subject's limb lengths. Any other
   segment without enough markers is an error naming it.
5. Inertia (``inertia``) from the body mass: the ``mass`` argument ("user"),
   else the quiet-standing weight on the static or movement trial's force
   plates / g ("force plates"), else 70 kg ("assumed ...", with a warning).
6. With a ``static`` trial, the model comes from it and the movement trial's
   own segment lengths must agree within ``length_tolerance`` (else the static
   is probably another subject's).
7. Per-frame rigid fits of the model to the movement trial (``fit``) give the
   cluster residuals per segment and marker, and the initial pose ``q`` at
   the first frame where every segment was fitted.

The report (``Calibration``) is ``model.metadata["calibration"]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import ModelError, option
from ..io.plates import quiet_standing_weight
from ..io.trial import Trial
from .body import BodyModel, Segment
from .contact_points import ContactConfig, level_soles, with_contact_points
from .fit import fit_segments, marker_indices
from .frames import project_joint, triad
from .inertia import DE_LEVA, check_inertia, combine, endpoint, part_inertia, table_rows
from .joint_centres import condyle_centre, harrington_hips, lumbar_offset, rab_shoulder
from .markersets import LANDMARKS, MarkerSet, get_markerset, normalize
from .templates import ANATOMY, ANATOMY_BY_NAME, Anatomy, Template, get_template

STANDARD_GRAVITY = 9.81
DEFAULT_MASS = 70.0
ASSUMED_MASS = "assumed (no mass given and no quiet standing on force plates)"
#: Static and movement lengths may differ by this fraction before the static is rejected.
LENGTH_TOLERANCE = 0.10
#: Marker radius plus skin below the lowest foot marker: the sole [m].
SOLE_BELOW_MARKERS = 0.01
#: A marker whose RMS distance from its segment's rigid fit exceeds this is reported [m].
LOOSE_MARKER = 0.02
_LIMBS = ("upper_arm", "forearm", "thigh", "shank")


@dataclass(frozen=True)
class Calibration:
    """What calibration found and did. Lengths [m] are anatomical (joint centre to joint centre or tip;
    foot: heel to toe marker); ``movement_lengths`` those measured on the movement trial when a static was used;
    residuals [m] are RMS distances of markers from their segment's per-frame rigid fit on the movement
    trial; ``initial_q`` is the pose at ``initial_frame`` of the movement trial, RMS marker error
    ``initial_marker_rms`` [m]."""

    template: str
    table: str
    sex: str
    markerset: str
    mass: float
    mass_source: str
    source: str
    static: str | None
    lengths: dict
    movement_lengths: dict
    joint_centres: dict
    welded: tuple
    segment_residuals: dict
    marker_residuals: dict
    initial_frame: int
    initial_q: tuple
    initial_marker_rms: float
    notes: tuple = ()
    warnings: tuple = ()

    def to_dict(self) -> dict:
        return {f: getattr(self, f) for f in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, data: dict) -> "Calibration":
        tuples = {"welded", "initial_q", "notes", "warnings"}
        return cls(**{k: tuple(v) if k in tuples else v for k, v in data.items()})


class _Missing(Exception):
    """A landmark the marker set does not map, or the trial does not have."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


class _Points:
    """World positions ``(T, 3)`` of landmarks and joint centres of one trial, computed on demand.

    ``frames`` holds the model frames of the segments built so far (``_frames`` fills it);
    ``methods`` records how each joint centre was found.
    """

    def __init__(self, trial: Trial, markerset: MarkerSet, sex: str):
        self.trial, self.markerset, self.sex = trial, markerset, sex
        self.index = {normalize(label): i for i, label in enumerate(trial.labels)}
        self.frames: dict[str, np.ndarray] = {}
        self.methods: dict[str, str] = {}
        self._cache: dict[str, np.ndarray] = {}

    def marker(self, label: str) -> np.ndarray | None:
        i = self.index.get(normalize(label))
        return None if i is None or np.isnan(self.trial.markers[:, i]).all() else self.trial.markers[:, i]

    def has(self, name: str) -> bool:
        try:
            self.get(name)
            return True
        except _Missing:
            return False

    def get(self, name: str) -> np.ndarray:
        if name not in self._cache:
            self._cache[name] = self._landmark(name) if name in LANDMARKS else self._compute(name)
        return self._cache[name]

    def _landmark(self, name: str) -> np.ndarray:
        tracks = [self.marker(label) for label in self.markerset.landmarks.get(name, ())]
        if not tracks or any(t is None for t in tracks):
            raise _Missing(name)
        return np.mean(tracks, axis=0)

    def _labels(self, name: str) -> str:
        return " and ".join(self.markerset.landmarks[name])

    def frame(self, segment: str) -> np.ndarray:
        if segment not in self.frames:
            raise _Missing(f"the {segment} frame")
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
        raise _Missing(" and ".join(candidates[0]))  # the preferred pair

    def _compute(self, name: str) -> np.ndarray:
        base, side = (name[:-2], name[-1]) if name[-2:] in ("_l", "_r") else (name, "")
        if base in ("asis_mid", "mid_hip", "shoulder_mid"):
            parts = {"asis_mid": "asis", "mid_hip": "hip", "shoulder_mid": "shoulder"}[base]
            return 0.5 * (self.get(f"{parts}_l") + self.get(f"{parts}_r"))
        if base == "neck":
            self.methods["neck"] = f"midpoint of C7 ({self._labels('c7')}) and jugular notch ({self._labels('supr')})"
            return 0.5 * (self.get("c7") + self.get("supr"))
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
            other = "r" if side == "l" else "l"
            self.methods[name] = f"{self._labels('acromion_' + side)} - 17 % of bi-acromial width (Rab 2002)"
            return rab_shoulder(self.get(f"acromion_{side}"), self.get(f"acromion_{other}"), self.frame("torso"))
        if base in ("elbow", "wrist", "knee", "ankle"):
            return self._condyles(base, side)
        raise _Missing(name)

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
        lateral = self.get(f"{joint}_lat_{side}")
        if self.has(f"{joint}_med_{side}"):
            self.methods[name] = f"midpoint of {self._labels(f'{joint}_lat_{side}')} and " \
                                 f"{self._labels(f'{joint}_med_{side}')}"
            return condyle_centre(lateral, self.get(f"{joint}_med_{side}"), None, None, joint)
        medial = (-1.0 if side == "l" else 1.0) * self.frame(body)[..., :, 1]
        self.methods[name] = f"{self._labels(f'{joint}_lat_{side}')} moved medially (no medial marker)"
        return condyle_centre(lateral, None, self.get(f"{proximal}_{side}"), medial, joint)


@dataclass
class _Frames:
    """Model frames, origins and tips ``(T, ...)`` per anatomical segment; what could not be built."""

    rot: dict = field(default_factory=dict)
    origin: dict = field(default_factory=dict)
    tip: dict = field(default_factory=dict)
    missing: dict = field(default_factory=dict)


def _frames(points: _Points, joints: dict) -> _Frames:
    """Anatomical segments parents first; ``joints`` maps each to (joint type, axes)."""
    out = _Frames()
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
        except _Missing as missing:
            out.missing[a.name] = missing.name
            continue
        points.frames[a.name] = out.rot[a.name] = rot
        out.origin[a.name] = origin
        if points.has(a.tip):
            out.tip[a.name] = points.get(a.tip)
        elif a.default_tip is None:
            out.missing[a.name] = a.tip
    return out


def _local(rot: np.ndarray, origin: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Median over frames of ``point`` in the frame (``rot``, ``origin``); NaN if never seen."""
    local = np.einsum("tji,tj->ti", rot, point - origin)
    ok = ~np.isnan(local).any(axis=1)
    return np.median(local[ok], axis=0) if ok.any() else np.full(3, np.nan)


def _start(a: Anatomy) -> str:
    """Where a segment's length is measured from: the heel for the foot (heel to toe), else its origin."""
    return a.landmarks[0] if a.name.startswith("foot") else a.origin


def _lengths(frames: _Frames, points: _Points) -> dict:
    """Per-frame segment lengths, median over frames, for segments whose ends this trial shows."""
    out = {}
    for name, tip in frames.tip.items():
        start = _start(ANATOMY_BY_NAME[name])
        if points.has(start):
            d = np.linalg.norm(tip - points.get(start), axis=1)
            if not np.isnan(d).all():
                out[name] = float(np.nanmedian(d))
    return out


def _model_lengths(geo: dict) -> dict:
    """Segment lengths of the calibrated geometry (origin or heel to tip)."""
    return {a.name: float(np.linalg.norm(geo[a.name]["tip"] - geo[a.name]["landmarks"].get(_start(a), 0.0)))
            for a in ANATOMY}


def _body_mass(mass, trials) -> tuple[float, str, tuple]:
    if mass is not None:
        if not np.isfinite(mass) or mass <= 0:
            raise ModelError(f"Body mass {option('mass', mass)} is not a positive number",
                             "give the subject's mass in kg")
        return float(mass), "user", ()
    for t in trials:
        weight = quiet_standing_weight(t) if t is not None and t.plates else None
        if weight:
            return weight / STANDARD_GRAVITY, "force plates", ()
    return DEFAULT_MASS, ASSUMED_MASS, (
        f"Body mass assumed {DEFAULT_MASS:g} kg: no mass was given and no trial has quiet standing on force "
        f"plates. Set {option('mass', hint='kg')}, or give a static trial standing on force plates "
        f"({option('static', hint='path')}), for real masses and torques",)


def _attached(markerset: MarkerSet, points: _Points) -> dict:
    """Anatomical segment -> the set's markers for it that the trial has, in the trial's spelling."""
    return {a.name: tuple(points.trial.labels[points.index[normalize(m)]]
                          for m in markerset.segments.get(a.name, ()) if points.marker(m) is not None)
            for a in ANATOMY}


def _plan(template: Template, attached: dict) -> tuple[dict, list, list]:
    """Joint of each anatomical segment, data-driven welds, and the segments without enough markers."""
    joints, welded, problems = {}, [], []
    children = {s.parent for s in template.segments}
    for seg in template.segments:
        for m in seg.members[1:]:
            joints[m] = ("weld", ())
        labels = [x for m in seg.members for x in attached[m]]
        points = len(labels) + (seg.parent is not None)
        joints[seg.members[0]] = (seg.joint, np.asarray(seg.axes, float).reshape(-1, 3))
        if points >= 3:
            continue
        if seg.name not in children and seg.parent is not None:
            joints[seg.members[0]] = ("weld", ())
            welded.append(seg.name)
        else:
            needs = "3 markers" if seg.parent is None else "3 points: markers plus its proximal joint centre"
            problems.append(f"{seg.name} (markers found: {', '.join(labels) or 'none'}; needs {needs})")
    return joints, welded, problems


def _leaves(template: Template) -> set:
    parents = {s.parent for s in template.segments}
    return {s.name for s in template.segments if s.name not in parents and s.parent is not None}


def _build_frames(template: Template, points: _Points, joints: dict, welded: list) -> _Frames:
    """Frames of the calibration trial; a leaf whose own frame cannot be built is welded to its parent."""
    frames = _frames(points, joints)
    leaves = _leaves(template)
    unbuildable = [s for s in template.segments if s.name in leaves and s.members[0] in frames.missing
                   and s.parent is not None and s.members[0] not in welded]
    if unbuildable:
        for s in unbuildable:
            joints[s.members[0]] = ("weld", ())
            welded.append(s.name)
        frames = _frames(points, joints)
    if frames.missing:
        def what(need: str) -> str:
            labels = points.markerset.landmarks.get(need)
            if need not in LANDMARKS:
                return need
            return f"{need} = {' + '.join(labels)}, not in the trial" if labels else f"{need}, not in the marker set"
        raise ModelError("Cannot locate these segments: " + "; ".join(
            f"{seg} (needs {' and '.join(what(n) for n in need.split(' and '))})"
            for seg, need in frames.missing.items()),
            "map the landmarks to the trial's markers in a marker-set TOML file ([landmarks] table, format: "
            f"solver/model/markersets/cmu41.toml) and pass it as {option('markerset', hint='path')}")
    return frames


def _geometry(sources: list, attached: dict, sex: str) -> tuple[dict, list]:
    """Per anatomical segment: joint offset, tip, landmarks and marker offsets in its model frame.

    ``sources`` are (points, frames) pairs in order of preference (static, then movement): the geometry
    comes from the first; a marker missing there takes its offset from the next. Returns the geometry and
    the markers that could not be placed.
    """
    (points, frames), unplaced = sources[0], []
    geo = {}
    for a in ANATOMY:
        rot, origin = frames.rot[a.name], frames.origin[a.name]
        markers = {}
        for m in attached[a.name]:
            placed = [_local(f.rot[a.name], f.origin[a.name], p.marker(m)) for p, f in sources
                      if a.name in f.rot and p.marker(m) is not None]
            placed = [x for x in placed if not np.isnan(x).any()]
            if placed:
                markers[m] = placed[0]
            else:
                unplaced.append(m)
        geo[a.name] = {
            "joint_offset": np.zeros(3) if a.parent is None else _local(
                frames.rot[a.parent], frames.origin[a.parent], origin),
            "tip": _local(rot, origin, frames.tip[a.name]) if a.name in frames.tip else None,
            "landmarks": {n: _local(rot, origin, points.get(n)) for n in a.landmarks if points.has(n)},
            "markers": markers,
        }
    nan = [a for a, g in geo.items() if np.isnan(g["joint_offset"]).any()
           or (g["tip"] is not None and np.isnan(g["tip"]).any())]
    if nan:
        raise ModelError(f"No frame shows all the markers needed to locate {', '.join(nan)}",
                         "use a trial (or static trial) where these markers are visible together")
    measured = [np.linalg.norm(geo[f"{limb}_{s}"]["tip"]) / (DE_LEVA[sex][limb].length / 1000)
                for limb in _LIMBS for s in "lr" if geo[f"{limb}_{s}"]["tip"] is not None]
    scale = float(np.median(measured))
    for a in ANATOMY:
        if geo[a.name]["tip"] is None:
            row, direction = a.default_tip
            geo[a.name]["tip"] = scale * DE_LEVA[sex][row].length / 1000 * np.asarray(direction)
    return geo, unplaced


def build_model(template: Template, geo: dict, joints: dict, mass: float, mass_source: str, sex: str,
                table: str, contact: ContactConfig | None = None, metadata: dict | None = None) -> BodyModel:
    """Assemble model segments from anatomical geometry: merge members, add inertia, foot landmarks and
    contact points. ``geo`` as returned by calibration (per anatomical segment: joint_offset, tip,
    landmarks, markers, all in the segment frame); ``joints`` per anatomical segment (type, axes)."""
    rows = table_rows(table, sex)
    neutral, points = {}, {}
    for a in ANATOMY:
        neutral[a.name] = geo[a.name]["joint_offset"] + (neutral[a.parent] if a.parent else 0.0)
        points[a.origin] = neutral[a.name]
        points[a.tip] = neutral[a.name] + geo[a.name]["tip"]
        points.update({n: neutral[a.name] + v for n, v in geo[a.name]["landmarks"].items()})
    parts = {s.name: [(row.lstrip("-"), -1.0 if row.startswith("-") else 1.0, ANATOMY_BY_NAME[m])
                      for m in s.members for row in ANATOMY_BY_NAME[m].inertia] for s in template.segments}
    total = sum(sign * rows[row].mass for p in parts.values() for row, sign, _ in p)
    index = {s.name: i for i, s in enumerate(template.segments)}
    segments, feet = [], {}
    for s in template.segments:
        base = neutral[s.members[0]]
        pieces = []
        for row_name, sign, a in parts[s.name]:
            row = rows[row_name]
            com, inertia = part_inertia(row, mass * row.mass / total, points[endpoint(row.start, a.side)] - base,
                                        points[endpoint(row.end, a.side)] - base)
            pieces.append((sign * mass * row.mass / total, com, inertia))
        seg_mass, com, inertia = combine(pieces)
        check_inertia(s.name, seg_mass, inertia)
        markers = [(label, neutral[m] - base + offset) for m in s.members
                   for label, offset in geo[m]["markers"].items()]
        joint, axes = joints[s.members[0]]
        parent_base = neutral[template.segments[index[s.parent]].members[0]] if s.parent else base
        segments.append(Segment(
            name=s.name, parent=index[s.parent] if s.parent else -1, joint=joint,
            joint_offset=base - parent_base, axes=axes if joint in ("hinge", "universal") else (),
            tip=neutral[s.members[-1]] + geo[s.members[-1]]["tip"] - base, mass=seg_mass, com=com,
            inertia=inertia, markers=tuple(label for label, _ in markers),
            marker_offsets=np.array([o for _, o in markers]).reshape(-1, 3)))
        for m in s.members:
            heel = next((v for n, v in geo[m]["landmarks"].items() if n.startswith("heel_")), None)
            if heel is not None:
                toe = neutral[m] + geo[m]["tip"] - base
                z = [heel[2], toe[2]] + [o[2] for _, o in markers]
                feet[s.name] = {"heel": [float(v) for v in neutral[m] + heel - base],
                                "toe": [float(v) for v in toe], "sole": float(min(z) - SOLE_BELOW_MARKERS)}
    model = BodyModel(tuple(segments), mass_source=mass_source,
                      metadata={**(metadata or {}), "template": template.name, "table": table, "sex": sex,
                                "feet": feet})
    return with_contact_points(model, contact or ContactConfig())


def _compare_lengths(static_lengths: dict, moving_lengths: dict, tolerance: float) -> None:
    off = {n: (static_lengths[n], moving_lengths[n]) for n in static_lengths.keys() & moving_lengths.keys()
           if abs(moving_lengths[n] / static_lengths[n] - 1) > tolerance}
    if off:
        raise ModelError(
            "The static trial does not fit the movement trial: segment lengths differ by more than "
            f"{100 * tolerance:.0f} % (" + "; ".join(
                f"{n} {a:.3f} m static vs {b:.3f} m moving ({100 * (b / a - 1):+.0f} %)"
                for n, (a, b) in sorted(off.items())) + ")",
            "use a static trial of the same subject and session, or calibrate from the movement trial alone "
            f"(without {option('static', hint='path')})")


def calibrate(trial: Trial, template: str = "full15", mass: float | None = None, static: Trial | None = None,
              markerset=None, sex: str = "male", table: str = "de_leva", contact: ContactConfig | None = None,
              length_tolerance: float = LENGTH_TOLERANCE) -> BodyModel:
    """Build the subject's ``BodyModel`` for ``trial`` (the module docstring lists the steps).

    ``markerset``: None (recognize), a built-in name (cmu41, vicon53, opencap), a TOML path or a
    ``MarkerSet``. ``static``: a static trial of the same subject and marker set, for the geometry.
    ``sex`` and ``table`` ("de_leva" or "lee") choose the inertia table; ``contact`` the contact points.
    The report is ``model.metadata["calibration"]`` (a ``Calibration``).
    """
    tmpl = get_template(template)
    table_rows(table, sex)
    mset = get_markerset(markerset, (static if static is not None else trial).labels)
    body_mass, mass_source, warnings = _body_mass(mass, (static, trial))
    movement = _Points(trial, mset, sex)
    attached = _attached(mset, movement)
    joints, welded, problems = _plan(tmpl, attached)
    if problems:
        raise ModelError("Not enough markers to define these segments: " + "; ".join(problems),
                         "map more of the trial's markers to them in a marker-set TOML file ([segments] table, "
                         "format: solver/model/markersets/cmu41.toml) and pass it as "
                         f"{option('markerset', hint='path')}")
    cal = _Points(static, mset, sex) if static is not None else movement
    sources = [(cal, _build_frames(tmpl, cal, joints, welded))]
    movement_lengths = {}
    if static is not None:
        sources.append((movement, _frames(movement, joints)))
        movement_lengths = _lengths(sources[1][1], movement)
    geo, unplaced = _geometry(sources, attached, sex)
    lengths = _model_lengths(geo)
    if static is not None:
        _compare_lengths(lengths, movement_lengths, length_tolerance)
    model = build_model(tmpl, geo, joints, body_mass, mass_source, sex, table, contact, {"markerset": mset.name})
    if static is not None:
        model = level_soles(model, static)
    fit = fit_segments(model, trial.labels, trial.markers)
    segment_residuals, marker_residuals = _residuals(model, fit)
    t0, q0, rms0, pose_warnings = _initial_pose(model, fit, trial)
    notes, note_warnings = _notes(trial, mset, unplaced, welded, marker_residuals)
    report = Calibration(
        template=tmpl.name, table=table, sex=sex, markerset=mset.name, mass=body_mass, mass_source=mass_source,
        source=trial.source, static=static.source if static is not None else None, lengths=lengths,
        movement_lengths=movement_lengths, joint_centres=dict(cal.methods), welded=tuple(welded),
        segment_residuals=segment_residuals, marker_residuals=marker_residuals, initial_frame=t0,
        initial_q=tuple(float(v) for v in q0), initial_marker_rms=rms0, notes=notes,
        warnings=warnings + pose_warnings + note_warnings)
    return replace(model, metadata={**model.metadata, "calibration": report})


def _residuals(model: BodyModel, fit) -> tuple[dict, dict]:
    """RMS over frames of each marker's distance from its segment's rigid fit; per segment over its markers."""
    errors = fit.marker_errors
    with np.errstate(invalid="ignore"):
        per_marker = np.sqrt(np.nanmean(errors ** 2, axis=0))
    markers = {m: float(r) for m, r in zip(model.marker_labels, per_marker) if np.isfinite(r)}
    segments, first = {}, 0
    for s in model.segments:
        block = errors[:, first:first + len(s.markers)]
        first += len(s.markers)
        if s.markers and not np.isnan(block).all():
            segments[s.name] = float(np.sqrt(np.nanmean(block ** 2)))
    return segments, markers


def _initial_pose(model: BodyModel, fit, trial: Trial) -> tuple[int, np.ndarray, float, tuple]:
    """First frame where every segment was fitted, its ``q``, and the RMS marker error of the model there."""
    frames = np.flatnonzero(fit.valid)
    warnings = ()
    if frames.size:
        t0 = int(frames[0])
    else:
        t0 = int(np.argmax((~np.isnan(fit.q)).sum(axis=1)))
        warnings = (f"No frame of {trial.source} fits every segment; the initial pose is frame {t0}, "
                    "with the unfitted joints at neutral",)
    q0 = np.where(np.isnan(fit.q[t0]), model.neutral_q(), fit.q[t0])
    measured = trial.markers[t0, marker_indices(model, trial.labels)]
    with np.errstate(invalid="ignore"):
        rms = float(np.sqrt(np.nanmean(np.sum((model.marker_positions(q0) - measured) ** 2, axis=1))))
    return t0, q0, rms, warnings


def _notes(trial: Trial, mset: MarkerSet, unplaced: list, welded: list, marker_residuals: dict) -> tuple:
    """What the user should know (notes) and act on (warnings) about the markers."""
    segment_labels = {normalize(m) for ms in mset.segments.values() for m in ms}
    ignored = [x for x in trial.labels if normalize(x) not in mset.labels]
    landmark_only = [x for x in trial.labels if normalize(x) in mset.labels - segment_labels]
    notes = [text + ", ".join(labels) for text, labels in (
        ("Markers not in the marker set, ignored: ", ignored),
        ("Markers used as landmarks only (not attached): ", landmark_only),
        ("Markers never seen with their segment's landmarks, not attached: ", unplaced)) if labels]
    notes += [f"{w}: too few markers for its own frame; welded to its parent at its calibrated posture"
              for w in welded]
    loose = [f"{m} ({100 * r:.1f} cm)" for m, r in marker_residuals.items() if r > LOOSE_MARKER]
    warnings = (f"Markers that move more than {100 * LOOSE_MARKER:.0f} cm RMS relative to their segment "
                "(check labels and placement): " + ", ".join(loose),) if loose else ()
    return tuple(notes), warnings
