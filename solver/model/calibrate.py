"""Calibrate a subject's ``BodyModel`` from a static trial or from the movement trial itself.

Steps (every one vectorized over frames):

1. Marker set: the labels read by meaning (``vocabulary``; generic labels
   through the C3D's ``POINT:DESCRIPTIONS``), or given (built-in name or TOML
   file, ``markersets``). A segment's markers are the set's markers for it
   that the movement trial has. A trial whose markers do not make a trunk
   (e.g. a lower-body set) gets one segment for its head, arms and trunk
   (HAT, ``templates.with_hat``), welded to the pelvis and placed from it
   (``joint_centres.upper_body_from_pelvis``). An arm whose markers cannot
   make its upper arm and forearm (a lost elbow marker) is one segment
   welded to the torso, hanging from its shoulder
   (``templates.with_hanging_arms``, ``joint_centres.hanging_arm``; beyond
   the papers), with a warning.
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
   from de Leva's mean length scaled by the subject's limb lengths; a head
   with no markers at all is held level instead (``level_head``;
   ``head="welded"`` keeps the weld). A hinged segment (shank, forearm) needs
   two points, one marker and its joint centre: its hinge fixes the rest; so
   does a ball-jointed one (thigh, upper arm) whose hinged child has three:
   the child's hinge axis fixes its turn (``fit.turn_towards``; beyond the
   papers). Any other segment without enough markers is an error naming
   what was found, what is missing and what would make it work.
5. Inertia (``inertia``) from the body mass (``body_mass``): the ``mass`` argument ("user"),
   else the quiet-standing weight on the static or movement trial's force
   plates / g ("force plates"), else 70 kg ("assumed ...", with a warning);
   ``shoe_mass`` of it on each foot (``inertia``, Shoes).
6. With a ``static`` trial, the model comes from it and the movement trial's
   own segment lengths must agree within ``length_tolerance`` (else the static
   is probably another subject's).
7. Per-frame rigid fits of the model to the movement trial (``fit``; ``calibration_report``) give the
   cluster residuals per segment and marker, and the initial pose ``q`` at
   the first frame where every segment was fitted.

The report (``Calibration``) is ``model.metadata["calibration"]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import ModelError, option
from ..io.trial import Trial
from .body import BodyModel, Segment
from .body_mass import check_shoes, resolve_body_mass
from .calibration_report import fit_residuals, initial_pose, marker_notes, marker_report
from .contact_points import ContactConfig, level_soles, level_soles_at_rest, with_contact_points
from .fit import fit_segments
from .inertia import (DE_LEVA, LUMBOSACRAL_HEIGHT, SHOE_MASS, SHOE_ROW, TORSO_CENTRE_SOURCES,
                      check_inertia, combine, dumas_torso_centre, endpoint, part_inertia, table_rows)
from .held import held_segments, with_held_segments
from .level_head import HEADS
from . import vocabulary
from .markersets import LANDMARKS, MarkerSet, get_markerset, normalize
from .points import Frames, Points, local_point, segment_frames
from .templates import (ANATOMY, ANATOMY_BY_NAME, HAT_MEMBERS, SIDES, Anatomy, Template, arm_members, get_template,
                        with_hanging_arms, with_hat)
from .unplaced_markers import unplaced_hints

#: Static and movement lengths may differ by this fraction before the static is rejected.
LENGTH_TOLERANCE = 0.10
#: The sole below the lowest foot marker (standing, no static trial to level it) [m]: the marker's radius
#: (about 7 mm) and the shoe sole or soft tissue under the 5th metatarsal or toe marker (about 2 cm).
SOLE_BELOW_MARKERS = 0.025
_LIMBS = ("upper_arm", "forearm", "thigh", "shank")


@dataclass(frozen=True)
class Calibration:
    """What calibration found and did. Lengths [m] are anatomical (joint centre to joint centre or tip;
    foot: heel to toe marker); ``movement_lengths`` those measured on the movement trial when a static was used;
    residuals [m] are RMS distances of markers from their segment's per-frame rigid fit on the movement
    trial; ``markers``: label -> what it is (``meaning``), the model ``segment`` it rides on (None: a
    landmark only) and the ``landmarks`` it gives; ``ignored``: label -> why it is not used; ``moving_with``: the
    segment each unnamed one of those moves with (``unplaced_markers``); ``initial_q`` is the pose at
    ``initial_frame`` of the movement trial, RMS marker error ``initial_marker_rms`` [m]."""

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
    held: dict = field(default_factory=dict)  # segment -> the rule it is held by (``model.held``)
    notes: tuple = ()
    warnings: tuple = ()
    markers: dict = field(default_factory=dict)
    ignored: dict = field(default_factory=dict)
    moving_with: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {f: getattr(self, f) for f in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, data: dict) -> "Calibration":
        tuples = {"welded", "initial_q", "notes", "warnings"}
        data = dict(data)
        if "held_level" in data:  # written before the HAT could be held too: the head held level
            data["held"] = {name: "level" for name in data.pop("held_level")}
        return cls(**{k: tuple(v) if k in tuples else v for k, v in data.items()})


def _start(a: Anatomy) -> str:
    """Where a segment's length is measured from: the heel for the foot (heel to toe), else its origin."""
    return a.landmarks[0] if a.name.startswith("foot") else a.origin


def _lengths(frames: Frames, points: Points) -> dict:
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


def _upper_body(points: Points, mset: MarkerSet, template: Template) -> tuple[bool, dict]:
    """Whether the trial's markers make a trunk (head and hands may ride on their parents), and the arms
    they cannot build: side -> what is missing (those arms hang from their shoulders)."""
    joints, _, problems = _plan(template, _attached(mset, points, True, {}))
    unbuilt = {p.split(" ")[0]: p for p in problems}
    if "torso" in unbuilt:
        return False, {}
    missing = segment_frames(points, joints).missing
    if "torso" in missing:
        return False, {}
    unbuilt.update((seg, f"{seg} (needs {need})") for seg, need in missing.items() if seg not in unbuilt)
    return True, {s: next(unbuilt[seg] for seg in arm_members(s)[:2] if seg in unbuilt) for s in SIDES
                  if set(arm_members(s)[:2]) & set(unbuilt)}


def _attached(markerset: MarkerSet, points: Points, upper: bool, hanging: dict) -> dict:
    """Anatomical segment -> the set's markers for it that the trial has, in the trial's spelling (none on
    the upper body of a lower-body model, nor on a hanging arm)."""
    unused = set(HAT_MEMBERS) if not upper else {m for s in hanging for m in arm_members(s)}
    return {a.name: () if a.name in unused else tuple(
        points.trial.labels[points.index[normalize(m)]]
        for m in markerset.segments.get(a.name, ()) if points.marker(m) is not None) for a in ANATOMY}


def _no_body(problems: list, attached: dict, mset: MarkerSet) -> ModelError:
    """The error for markers that cannot form a body: what was found, what is missing, what would work."""
    found = [f"{seg} ({', '.join(labels)})" for seg, labels in attached.items() if labels]
    unknown = f"; not recognized: {', '.join(mset.ignored)}" if mset.ignored else ""
    return ModelError(
        "These markers cannot form a body. Missing: " + "; ".join(problems)
        + f". Found: {'; '.join(found) or 'no marker the model can use'}{unknown}",
        "the model needs at least the pelvis (3 markers, e.g. both ASIS and the sacrum or both PSIS) and both "
        "legs (e.g. Plug-in Gait's LTHI LKNE LTIB LANK LHEE LTOE and RTHI ... RTOE); label them, or map the "
        "markers in a marker-set TOML file (format: solver/model/markersets/cmu41.toml) and pass it as "
        f"{option('markerset', hint='path')}")


def _plan(template: Template, attached: dict) -> tuple[dict, list, list]:
    """Joint of each anatomical segment, data-driven welds, and the segments without enough markers."""
    joints, welded, problems = {}, [], []
    children = {s.parent for s in template.segments}
    labelled = {seg.name: [x for m in seg.members for x in attached[m]] for seg in template.segments}
    count = {seg.name: len(labelled[seg.name]) + (seg.parent is not None) for seg in template.segments}
    for seg in template.segments:
        for m in seg.members[1:]:
            joints[m] = ("weld", ())
        labels, points = labelled[seg.name], count[seg.name]
        joints[seg.members[0]] = (seg.joint, np.asarray(seg.axes, float).reshape(-1, 3))
        if points >= _points_needed(template, seg, count) or seg.joint == "weld":
            continue
        if seg.name not in children and seg.parent is not None:
            joints[seg.members[0]] = ("weld", ())
            welded.append(seg.name)
            if not labels and ANATOMY_BY_NAME[seg.members[-1]].default_tip is None:
                problems.append(f"{seg.name} (markers found: none; needs markers for its end, e.g. heel and toe)")
        else:
            if seg.parent is None:
                needs = "3 markers"
            elif seg.joint == "hinge":
                needs = "2 points: a marker plus its proximal joint centre"
            else:
                needs = "3 points: markers plus its proximal joint centre"
            problems.append(f"{seg.name} (markers found: {', '.join(labels) or 'none'}; needs {needs})")
    return joints, welded, problems


def _points_needed(template: Template, seg, count: dict) -> int:
    """Points (markers and the proximal joint centre) a segment needs: three for a rigid fit; two for a hinged
    one (the hinge fixes the rest) and for a ball-jointed one with a fully marked hinged child (the child's
    hinge axis fixes its turn about the line; beyond the papers)."""
    if seg.joint == "hinge" or seg.joint == "ball" and any(
            c.parent == seg.name and c.joint == "hinge" and count[c.name] >= 3 for c in template.segments):
        return 2
    return 3


def _leaves(template: Template) -> set:
    parents = {s.parent for s in template.segments}
    return {s.name for s in template.segments if s.name not in parents and s.parent is not None}


def _build_frames(template: Template, points: Points, joints: dict, welded: list) -> Frames:
    """Frames of the calibration trial; a leaf whose own frame cannot be built is welded to its parent."""
    frames = segment_frames(points, joints)
    leaves = _leaves(template)
    unbuildable = [s for s in template.segments if s.name in leaves and s.members[0] in frames.missing
                   and s.parent is not None and s.members[0] not in welded]
    if unbuildable:
        for s in unbuildable:
            joints[s.members[0]] = ("weld", ())
            welded.append(s.name)
        frames = segment_frames(points, joints)
    if frames.missing:
        def what(need: str) -> str:
            alternatives = points.markerset.landmarks.get(need)
            if need not in LANDMARKS:
                return need
            return (f"{need} = {' or '.join(str(p) for p in alternatives)}, not in the trial" if alternatives
                    else f"{need}: no marker of the trial reads as {vocabulary.wanted(need)}")
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
            placed = [local_point(f.rot[a.name], f.origin[a.name], p.marker(m)) for p, f in sources
                      if a.name in f.rot and p.marker(m) is not None]
            placed = [x for x in placed if not np.isnan(x).any()]
            if placed:
                markers[m] = placed[0]
            else:
                unplaced.append(m)
        geo[a.name] = {
            "joint_offset": np.zeros(3) if a.parent is None else local_point(
                frames.rot[a.parent], frames.origin[a.parent], origin),
            "tip": local_point(rot, origin, frames.tip[a.name]) if a.name in frames.tip else None,
            "landmarks": {n: local_point(rot, origin, points.get(n)) for n in a.landmarks if points.has(n)},
            "markers": markers,
        }
    lost = [n for a in ANATOMY for n in a.landmarks if n not in geo[a.name]["landmarks"]]
    if lost:  # both heels (one is mirrored from the other: ``Points``)
        raise ModelError("Cannot place " + "; ".join(f"{n} (no marker of the trial reads as "
                                                     f"{vocabulary.wanted(n)})" for n in lost),
                         f"label them, or map {' and '.join(lost)} to the trial's markers in a marker-set TOML "
                         "file ([landmarks] table, format: solver/model/markersets/cmu41.toml) and pass it as "
                         f"{option('markerset', hint='path')}")
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
                table: str, contact: ContactConfig | None = None, metadata: dict | None = None,
                shoe_mass: float = 0.0, torso_centre: str = "table", segment_masses: str = "table") -> BodyModel:
    """Assemble model segments from anatomical geometry: merge members, add inertia, foot landmarks and
    contact points. ``geo`` as returned by calibration (per anatomical segment: joint_offset, tip,
    landmarks, markers, all in the segment frame); ``joints`` per anatomical segment (type, axes);
    ``shoe_mass`` [kg] of ``mass`` on each foot, distributed like it (``inertia``, Shoes); ``torso_centre``
    "dumas" moves the torso's CM to Dumas et al.'s (``inertia``, The torso's centre of mass); ``segment_masses``
    "dumas" shares the mass out as Dumas et al. do (``inertia``, The segments' masses)."""
    rows = table_rows(table, sex, segment_masses)
    neutral, points = {}, {}
    for a in ANATOMY:
        neutral[a.name] = geo[a.name]["joint_offset"] + (neutral[a.parent] if a.parent else 0.0)
        points[a.origin] = neutral[a.name]
        points[a.tip] = neutral[a.name] + geo[a.name]["tip"]
        points.update({n: neutral[a.name] + v for n, v in geo[a.name]["landmarks"].items()})
    parts = {s.name: [(row.lstrip("-"), -1.0 if row.startswith("-") else 1.0, ANATOMY_BY_NAME[m])
                      for m in s.members for row in ANATOMY_BY_NAME[m].inertia] for s in template.segments}
    total = sum(sign * rows[row].mass for p in parts.values() for row, sign, _ in p)
    shoes = {name: shoe_mass for name, p in parts.items()
             if shoe_mass > 0 and any(row == SHOE_ROW and sign > 0 for row, sign, _ in p)}
    body = mass - sum(shoes.values())
    index = {s.name: i for i, s in enumerate(template.segments)}
    segments, feet = [], {}
    for s in template.segments:
        base = neutral[s.members[0]]
        pieces, torso = [], []
        for row_name, sign, a in parts[s.name]:
            row = rows[row_name]
            part = body * row.mass / total + (shoes.get(s.name, 0.0) if row_name == SHOE_ROW else 0.0)
            com, inertia = part_inertia(row, part, points[endpoint(row.start, a.side)] - base,
                                        points[endpoint(row.end, a.side)] - base)
            (torso if torso_centre == "dumas" and a.name == "torso" else pieces).append((sign * part, com, inertia))
        if torso:  # the torso's table parts as one, at Dumas et al.'s CM
            part, _, inertia = combine(torso)
            depth = (np.linalg.norm(points["lumbar"] - points["mid_hip"])  # our lumbar joint above L5/S1
                     - LUMBOSACRAL_HEIGHT[sex] * np.linalg.norm(points["hip_l"] - points["hip_r"]))
            pieces.append((part, dumas_torso_centre(points["lumbar"] - base, points["neck"] - base, depth, sex),
                           inertia))
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
                                "feet": feet, "shoes": shoes, "torso_centre": torso_centre,
                                "segment_masses": segment_masses})
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
              length_tolerance: float = LENGTH_TOLERANCE, head: str = "level",
              shoe_mass: float = SHOE_MASS, torso_centre: str = "dumas", segment_masses: str = "dumas") -> BodyModel:
    """Build the subject's ``BodyModel`` for ``trial`` (the module docstring lists the steps).

    ``markerset``: None (recognize), a built-in name (cmu41, vicon53, opencap), a TOML path or a
    ``MarkerSet``. ``static``: a static trial of the same subject and marker set, for the geometry.
    ``sex`` and ``table`` ("de_leva" or "lee") choose the inertia table; ``shoe_mass`` [kg] the mass of each
    shoe, part of the body mass (0: barefoot); ``torso_centre`` where the torso's CM lies ("dumas": Dumas et al.
    2007, behind its axis from L5/S1 to the neck; "table": the table's; ``inertia``) and ``segment_masses`` how the body
    mass is shared out ("dumas": Dumas et al. 2007; "table": the table's; ``inertia``); ``contact`` the contact
    points.
    ``head``: segments without markers are held by their rules ("level", ``model.held``: a head held level, a
    lower-body set's head, arms and trunk following the pelvis's slow motion) or welded to their parents at
    their calibrated postures ("welded", the papers' rigid upper body). The report is
    ``model.metadata["calibration"]`` (a ``Calibration``).
    """
    tmpl = get_template(template)
    table_rows(table, sex, segment_masses)
    if torso_centre not in TORSO_CENTRE_SOURCES:
        raise ModelError(f"Unknown torso centre {option('torso_centre', torso_centre)}",
                         f"use {' or '.join(TORSO_CENTRE_SOURCES)}")
    if head not in HEADS:
        raise ModelError(f"Unknown head option {option('head', head)}", f"use {' or '.join(HEADS)}")
    labelled = static if static is not None else trial
    mset = get_markerset(markerset, labelled.labels, labelled.metadata.get("point_descriptions"))
    body_mass, mass_source, warnings = resolve_body_mass(mass, (static, trial))
    check_shoes(shoe_mass, body_mass)
    upper, hanging = _upper_body(Points(labelled, mset, sex), mset, tmpl)
    tmpl = with_hanging_arms(tmpl, hanging) if upper else with_hat(tmpl)
    movement = Points(trial, mset, sex, upper, frozenset(hanging))
    attached = _attached(mset, movement, upper, hanging)
    joints, welded, problems = _plan(tmpl, attached)
    if problems:
        raise _no_body(problems, attached, mset)
    cal = Points(static, mset, sex, upper, frozenset(hanging)) if static is not None else movement
    sources = [(cal, _build_frames(tmpl, cal, joints, welded))]
    movement_lengths = {}
    if static is not None:
        sources.append((movement, segment_frames(movement, joints)))
        movement_lengths = _lengths(sources[1][1], movement)
    geo, unplaced = _geometry(sources, attached, sex)
    lengths = _model_lengths(geo)
    if static is not None:
        _compare_lengths(lengths, movement_lengths, length_tolerance)
    model = build_model(tmpl, geo, joints, body_mass, mass_source, sex, table, contact, {"markerset": mset.name},
                        shoe_mass, torso_centre, segment_masses)
    if head == "level":
        model = with_held_segments(model)
    held = {model.segments[k].name: model.segments[k].held for k in held_segments(model)}
    welded = [w for w in welded if w not in held]
    if static is not None:
        model, sole_warnings = level_soles(model, static)
        warnings = warnings + sole_warnings
    fit = fit_segments(model, trial.labels, trial.markers)
    if static is None:
        model = level_soles_at_rest(model, fit, trial.rate)
    segment_residuals, marker_residuals = fit_residuals(model, fit)
    t0, q0, rms0, pose_warnings = initial_pose(model, fit, trial)
    markers, ignored = marker_report(model, trial, mset, (cal, movement), unplaced, upper, hanging)
    moving = unplaced_hints(model, trial, ignored)
    notes, note_warnings = marker_notes(ignored, welded, held, marker_residuals, upper, hanging)
    report = Calibration(
        template=tmpl.name, table=table, sex=sex, markerset=mset.name, mass=body_mass, mass_source=mass_source,
        source=trial.source, static=static.source if static is not None else None, lengths=lengths,
        movement_lengths=movement_lengths, joint_centres=dict(cal.methods), welded=tuple(welded),
        held=held,
        segment_residuals=segment_residuals, marker_residuals=marker_residuals, initial_frame=t0,
        initial_q=tuple(float(v) for v in q0), initial_marker_rms=rms0, notes=notes,
        warnings=warnings + tuple(cal.estimates) + pose_warnings + note_warnings, markers=markers, ignored=ignored,
        moving_with=moving)
    return replace(model, metadata={**model.metadata, "calibration": report})
