"""What a calibration reports about its markers (``calibrate``'s step 7): each marker's and segment's residual
from its rigid fit, the initial pose, what every label of the trial is used for or why not, and the notes and
warnings a user reads in ``Calibration``."""

from __future__ import annotations

import numpy as np

from ..errors import option
from ..io.trial import Trial
from .body import BodyModel
from .fit import marker_indices
from .held import DESCRIPTIONS, HAT
from .markersets import MarkerSet, normalize
from .templates import HAT_MEMBERS, arm_members

#: A marker whose RMS distance from its segment's rigid fit exceeds this is reported [m].
LOOSE_MARKER = 0.02


def fit_residuals(model: BodyModel, fit) -> tuple[dict, dict]:
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


def initial_pose(model: BodyModel, fit, trial: Trial) -> tuple[int, np.ndarray, float, tuple]:
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


def marker_report(model: BodyModel, trial: Trial, mset: MarkerSet, points: tuple, unplaced: list,
                  upper: bool, hanging: dict) -> tuple[dict, dict]:
    """Per label of ``trial``: what it is, the model segment it rides on and the landmarks it gives; and
    why the others are not used (``upper``: the trial has a trunk; ``hanging``: side -> why that arm hangs)."""
    segment = {normalize(m): s.name for s in model.segments for m in s.markers}
    landmarks: dict[str, list] = {}
    for p in points:
        for name, point in sorted(p.used.items()):
            for label in point.labels:
                landmarks.setdefault(normalize(label), []).append(name)
    meanings = {normalize(k): v for k, v in mset.meanings.items()}
    reasons = {normalize(k): v for k, v in mset.ignored.items()}
    if upper:
        upper_reasons = {normalize(m): f"arm_{s} hangs from the shoulder: its markers cannot build it"
                         for s in hanging for seg in arm_members(s) for m in mset.segments.get(seg, ())}
    else:
        upper_reasons = {normalize(m): "too few upper-body markers for a trunk: the head, arms and trunk are one "
                                       "segment (HAT) placed from the pelvis"
                         for seg in HAT_MEMBERS for m in mset.segments.get(seg, ())}
    markers, ignored = {}, {}
    for label in trial.labels:
        key = normalize(label)
        if key in segment or key in landmarks:
            markers[label] = {"meaning": meanings.get(key, ""), "segment": segment.get(key),
                              "landmarks": sorted(set(landmarks.get(key, ())))}
        elif key in reasons:
            ignored[label] = reasons[key]
        elif key in upper_reasons:
            ignored[label] = upper_reasons[key]
        elif label in unplaced:
            ignored[label] = "never seen together with its segment's landmarks"
        else:
            ignored[label] = "no segment or landmark of the model uses it"
    return markers, ignored


def marker_notes(ignored: dict, welded: list, held: dict, marker_residuals: dict, upper: bool,
                 hanging: dict) -> tuple:
    """What the user should know (notes) and act on (warnings) about the markers (``hanging``: side -> what its
    arm's markers cannot build)."""
    by_reason: dict[str, list] = {}
    for label, reason in ignored.items():
        by_reason.setdefault(reason, []).append(label)
    notes = [f"Markers ignored ({reason}): {', '.join(labels)}" for reason, labels in by_reason.items()]
    if not upper:
        on = "on" if HAT in held else "welded to"
        notes.append(f"Lower-body marker set: head, arms and trunk are one segment (HAT) {on} the pelvis, "
                     "with de Leva's masses and inertia, placed upright from the pelvis")
    notes += [f"{w}: too few markers for its own frame; welded to its parent at its calibrated posture"
              for w in welded]
    notes += [f"{h}: no markers; {DESCRIPTIONS[rule]}: its joint angles are assumed, not measured "
              f"({option('head', 'welded')} welds it to its parent instead)" for h, rule in held.items()]
    loose = [f"{m} ({100 * r:.1f} cm)" for m, r in marker_residuals.items() if r > LOOSE_MARKER]
    warnings = (f"Markers that move more than {100 * LOOSE_MARKER:.0f} cm RMS relative to their segment "
                "(check labels and placement): " + ", ".join(loose),) if loose else ()
    warnings += tuple(f"arm_{s} hangs straight down from the shoulder, welded to the torso: its markers cannot "
                      f"build it (missing: {why}), so its swing is in neither the forces nor the torques; label or "
                      f"map its elbow and wrist markers to use them" for s, why in hanging.items())
    return tuple(notes), warnings
