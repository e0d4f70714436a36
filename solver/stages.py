"""The pipeline's steps in data-flow order: what each one reads, which options and files, and what it computes.

``import`` (markers and force plates) -> ``calibrate`` (the subject's body model) -> ``gap_fill`` (marker
gaps filled, ``solver.kinematics.gap_fill``) -> ``reconstruct`` (OTM or Lee on the filled markers) ->
``dynamics`` (joint torques and root residuals, with and without the measured plate forces, the plates as they
act on the body by a contact estimate, ``contact.apply_plates``; an assumed body mass replaced by the plates')
-> ``contact`` (ground contact estimated from the motion alone; measured plates are used only to judge it: its
forces, and the joint moments with it against those with the plates) and
``zero_gravity`` (a zero-gravity variant: by default the captured motion on a free-floating body, or a
manoeuvre of the subject's model; see ``solver.zerog.variant``).

Paths off the default one (Lee's estimator, segments found from the motion, an OpenSim model's inertia) are
imported when taken, so that a default run does not load them.

A step is a function ``(path, state, options, progress) -> outputs``: ``state`` holds what the steps before it
produced, by ``PipelineResult`` field name, and ``outputs`` the fields it sets (a later step may replace a
field, e.g. ``dynamics`` rescales ``model`` and ``motion`` to the plates' body mass). ``Step.key`` is what
its result depends on besides the steps before it: the options it reads (``options.READ_BY``) and the
files it reads, stamped by size and modification time, so ``pipeline.run`` can tell when an earlier
result still holds.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Callable

from .contact import apply_plates, compare_moments_with_plates, estimate_contact, with_unmeasured_support
from .contact.plate_mass import agrees, disagreement, mass_from_plates, replaced_static_mass
from .contact.plate_timing import timing_warning
from .contact.plate_zero import zero_warnings
from .dynamics import inverse_dynamics, plate_forces
from .dynamics.derivatives import motion_derivatives
from .errors import InputError, ModelError, option
from .io import attach_plates, delayed_plates, load_trial, read_grf_mot
from .io.trial import Trial
from .kinematics import reconstruct
from .kinematics.gap_fill import fill_gaps
from .kinematics.marker_outliers import drop_marker_outliers
from .kinematics.marker_weights import isolated_marker_weights, root_weights
from .model import calibrate, with_body_mass
from .model.body_mass import STATIC_STANDING
from .model.markersets import normalize
from .model.vocabulary import video_keypoints
from .options import DISCOVER, READ_BY, PipelineOptions
from .plausibility import check_body, explain_empty_markers
from .zerog import zero_gravity_variant

Progress = Callable[[float, str], None]


def no_progress(fraction: float, message: str) -> None:
    """A ``Progress`` that reports nothing."""


def grf_beside(path: Path) -> Path | None:
    """OpenSim's convention: ``walk.trc`` comes with ``walk_grf.mot`` in the same folder."""
    candidate = path.with_name(f"{path.stem}_grf.mot")
    return candidate if path.suffix.lower() == ".trc" and candidate.is_file() else None


def read_trial(path: str | Path, options: PipelineOptions, grf: str | None) -> Trial:
    """A trial with its force plates: from the file, an explicit GRF .mot, or one found beside a TRC; moved by
    the plates' delay behind the markers, if given."""
    path = Path(path)
    trial = load_trial(path, options.import_options)
    found = (None if trial.plates else grf_beside(path)) if grf == "auto" else grf
    if found:
        trial = attach_plates(trial, read_grf_mot(found))
    if found and grf == "auto":
        trial = replace(trial, conversions=trial.conversions + (f"force plates read from {Path(found).name}, found "
                                                                f"next to {path.name} (OpenSim naming)",))
    return delayed_plates(trial, options.import_options.plate_delay)


def _import(path, state: dict, options: PipelineOptions, progress: Progress) -> dict:
    progress(0.0, f"reading {Path(path).name}")
    trial = read_trial(path, options, options.grf)
    progress(1.0, f"read {trial.n_markers} markers x {trial.n_frames} frames at {trial.rate:g} Hz, "
                  f"{len(trial.plates)} force plates")
    return {"trial": trial}


def _discovered(trial: Trial, static: Trial | None, progress: Progress, unknown: ModelError | None = None):
    """The marker set found from the motion (``model.discovery``), the trial (with virtual markers) and static
    trial to calibrate on, and the discovery. ``unknown``: why the labels made no body (said with discovery's
    own failure, in one line). A static trial is used with a discovered set only if it has the same labels and
    the set needs no virtual markers (they come from the movement's functional joints)."""
    from .model.discovery import discover_markerset  # only here: unlabelled or unknown markers are rare

    progress(0.1, "the labels make no body: finding the segments from the motion" if unknown
             else "finding the segments from the motion")
    try:
        found = discover_markerset(trial)
    except ModelError as error:
        if unknown is None:
            raise
        raise ModelError(f"{unknown.what}. {error.what}", error.fix) from None
    segments = ", ".join(f"{s} {c:.2f}" for s, c in found.confidence.items())
    progress(0.3, f"{len(found.clusters)} rigid clusters; segments (confidence): {segments}")
    if static is not None and (found.virtual or not found.markerset.labels <= {normalize(x) for x in static.labels}):
        reason = "the discovered set has virtual markers" if found.virtual else "its labels differ"
        found = replace(found, notes=found.notes + (f"static trial {static.source} not used: {reason}",))
        static = None
    return found.markerset, found.with_virtual_markers(trial), static, found


def _calibrated(trial: Trial, static: Trial | None, options: PipelineOptions, progress: Progress):
    """The calibrated model and the discovery, if the segments were found from the motion: when asked
    (``markerset="discover"``), or when no marker set was given and the labels, read by meaning, make no
    body (unless they are video keypoints: joint centres, two to a segment, which no motion turns into one)."""
    def build(markerset, calibration_trial, static_trial):
        return calibrate(calibration_trial, options.template, mass=options.mass, static=static_trial,
                         markerset=markerset, sex=options.sex, head=options.head,
                         shoe_mass=options.shoe_mass, torso_centre=options.torso_centre,
                         segment_masses=options.segment_masses)

    if options.markerset == DISCOVER:
        markerset, calibration_trial, static, found = _discovered(trial, static, progress)
        return build(markerset, calibration_trial, static), found
    try:
        return build(options.markerset, trial, static), None
    except ModelError as error:
        if options.markerset is not None:
            raise
        keypoints = video_keypoints(trial.labels)
        if len(keypoints) > trial.n_markers / 2:
            raise ModelError(
                f"{trial.source} holds video keypoints ({len(keypoints)} of its {trial.n_markers} markers, such as "
                f"{', '.join(keypoints[:3])}: OpenPose's joint centres), not markers on bony landmarks, and the "
                "body model needs three of those on each segment",
                "give it the markers a marker augmenter makes from the keypoints (OpenCap writes them beside the "
                "keypoints, named *_study; Pose2Sim's augmenter too), or a marker-based recording") from None
        markerset, calibration_trial, static, found = _discovered(trial, static, progress, unknown=error)
        try:
            return build(markerset, calibration_trial, static), found
        except ModelError as failed:  # what the labels lack says more than what the motion's segments did
            raise ModelError(f"{error.what}. The segments found from the motion failed too: {failed.what}",
                             error.fix) from None


def _static_trial(options: PipelineOptions) -> Trial:
    """The static trial with its plates; a file that cannot be one is named by its option."""
    try:
        return read_trial(options.static, options, "auto")
    except InputError as error:
        raise InputError(f"The static trial ({option('static', hint='FILE')}): {error.what}", error.fix) from None


def _calibrate(path, state: dict, options: PipelineOptions, progress: Progress) -> dict:
    progress(0.0, f"calibrating the {options.template} body model")
    static = _static_trial(options) if options.static else None
    trial = state["trial"]
    try:
        model, discovery = _calibrated(trial, static, options, progress)
    except ModelError as error:
        raise explain_empty_markers(error, trial) from None
    if options.opensim_model:
        from .opensim.inertia import apply_opensim_inertia

        model = apply_opensim_inertia(model, options.opensim_model)
    model = check_body(model, trial, static)  # units and mass plausible, or one line saying why not
    source = "for now: the trial's force plates are tried after the reconstruction" \
        if model.mass_source.startswith("assumed") and trial.plates else model.mass_source
    progress(1.0, f"body model: {len(model.segments)} segments, {model.total_mass:.1f} kg ({source})")
    return {"model": model, "discovery": discovery, "trial": drop_marker_outliers(trial, model)}


def _gap_fill(path, state: dict, options: PipelineOptions, progress: Progress) -> dict:
    gap_fill = fill_gaps(state["trial"], options.gap_fill, {s.name: s.markers for s in state["model"].segments})
    filled = gap_fill.summary()
    progress(1.0, f"gap filling ({options.gap_fill.method}): {filled['samples_filled']} samples in "
                  f"{filled['gaps_filled']} gaps filled, {filled['gaps_left']} gaps left")
    return {"gap_fill": gap_fill}


def _reconstruct(path, state: dict, options: PipelineOptions, progress: Progress) -> dict:
    trial, model = state["gap_fill"].trial, state["model"]
    progress(0.0, f"reconstructing {trial.n_frames} frames ({options.method})")
    frames = lambda done, total: progress(done / total, f"frame {done}/{total}")  # noqa: E731
    if options.method == "lee":
        from .kinematics.lee import estimate_lee  # its kernels load only when chosen

        motion = estimate_lee(trial, model, progress=frames)
    else:
        weighted = options.marker_weights == "weighted"
        base = root_weights(model) if weighted else None
        motion = reconstruct(trial, model, mode=options.otm_mode, tolerance=options.tolerance, weights=base,
                             progress=frames)
        lighter = isolated_marker_weights(model, motion.marker_errors) if weighted else None
        if lighter is not None:
            progress(0.0, "reconstructing again, markers that left their segment weighing less")
            motion = reconstruct(trial, model, mode=options.otm_mode, tolerance=options.tolerance,
                                 weights=base * lighter, progress=frames)
            motion.info["down_weighted"] = {label: int(n) for label, n in
                                            zip(model.marker_labels, (lighter < 1).sum(axis=0)) if n}
    progress(1.0, f"reconstructed: {int(motion.converged.sum())}/{len(motion.converged)} frames converged")
    return {"motion": motion}


def _dynamics(path, state: dict, options: PipelineOptions, progress: Progress) -> dict:
    """Inverse dynamics without and with the measured plate forces. An assumed body mass is replaced by the one
    the trial's plates give (``contact.plate_mass``), from a contact estimate (whose surfaces and timing do not
    depend on the mass), and so is a static trial's that they contradict (``plate_mass.replaced_static_mass``
    says why); the model, motion and dynamics are then rescaled to it, the derivatives taken again (the
    default filter finds touch-downs by the centre of mass's speed, which the shoes' fixed mass moves a little).
    The plates act as ``contact.apply_plates`` places them, by the contact estimated with the default options
    (which the contact step reuses when its options are those)."""
    progress(0.0, "inverse dynamics")
    trial, model, motion = state["trial"], state["model"], state["motion"]
    derived = motion_derivatives(motion, cutoff=options.filter_cutoff, scheme=options.derivatives)
    outputs = {"dynamics": inverse_dynamics(motion, derivatives=derived)}
    applied, assumed = None, model.mass_source.startswith("assumed")
    if (assumed or model.mass_source.startswith(STATIC_STANDING)) and trial.plates:
        applied = apply_plates(estimate_contact(motion, dynamics=outputs["dynamics"]), trial)
        found = mass_from_plates(applied.contact, applied.comparison)
        if found is not None and (assumed or not agrees(found, model.total_mass)):
            note = "" if assumed else replaced_static_mass(found, model.total_mass, model.mass_source)
            model = with_body_mass(model, found.mass, found.source, note)
            motion = replace(motion, model=model)
            derived = motion_derivatives(motion, cutoff=options.filter_cutoff, scheme=options.derivatives)
            outputs = {"model": model, "motion": motion, "dynamics": inverse_dynamics(motion, derivatives=derived)}
            applied = None  # placed again on the rescaled motion
            progress(0.5, f"body mass {found.mass:.1f} kg from the force plates")
        elif assumed:
            progress(0.5, f"body mass {model.total_mass:.1f} kg assumed: the force plates never carry the whole "
                          f"body long enough to weigh it (set {option('mass', hint='kg')})")
    outputs["dynamics_with_plates"] = outputs["plates_applied"] = None
    measured = plate_forces(trial, motion)
    if measured is not None:
        if applied is None:
            applied = apply_plates(estimate_contact(motion, dynamics=outputs["dynamics"]), trial)
        if applied.trial is not trial:
            measured = plate_forces(applied.trial, motion)
        with_plates = inverse_dynamics(motion, derivatives=derived, external=measured)
        how = "measured force plates" + (f", {applied.how}" if applied.how else "")
        outputs["dynamics_with_plates"] = replace(with_plates, options={**with_plates.options, "external": how})
        outputs["plates_applied"] = applied
    progress(1.0, f"joint torques and root residuals for {len(outputs['dynamics'].times)} frames")
    return outputs


def _contact(path, state: dict, options: PipelineOptions, progress: Progress) -> dict:
    progress(0.0, "estimating ground contact from the motion")
    applied = state.get("plates_applied")
    if applied is not None and options.contact_forces == "per_frame" and options.surfaces in (None, "detected"):
        contact = applied.contact  # the dynamics step's estimate, made with these options
    else:
        contact = estimate_contact(state["motion"], dynamics=state["dynamics"], forces=options.contact_forces,
                                   surfaces=options.surfaces)
    with_plates, comparison, with_support = state.get("dynamics_with_plates"), None, None
    if applied is not None:  # another body mass from the plates, plates out of time or not zeroed
        comparison = applied.judge(contact)
        plate_mass, model = mass_from_plates(contact, comparison), contact.model
        told = (None if plate_mass is None else disagreement(plate_mass, model.total_mass, model.mass_source),
                timing_warning(comparison, contact.root_wrench_without[:, 2],
                               math.hypot(*contact.ground_velocity[:2])),
                *zero_warnings(contact, applied.trial, comparison))
        comparison = replace(comparison, warnings=comparison.warnings + tuple(w for w in told if w))
        comparison = replace(comparison, moments=compare_moments_with_plates(contact.dynamics, with_plates,
                                                                             comparison.plates_see_all))
        with_support = with_unmeasured_support(with_plates, contact, comparison)
    progress(1.0, contact.headline)
    if with_support is not None:
        progress(1.0, f"joint torques with the {with_support.options['external']}")
    return {"contact": contact, "plate_comparison": comparison, "dynamics_with_support": with_support}


def _zero_gravity(path, state: dict, options: PipelineOptions, progress: Progress) -> dict:
    progress(0.0, f"zero gravity: {options.zero_gravity.kind.replace('_', ' ')}")
    zero_gravity = zero_gravity_variant(options.zero_gravity, state["model"], state["motion"])
    angle, _ = zero_gravity.torso_reorientation
    progress(1.0, f"zero gravity: {zero_gravity.motion.n_frames} frames, the torso turns {angle:.1f} deg")
    return {"zero_gravity": zero_gravity}


def _source_files(path, options: PipelineOptions) -> tuple:
    grf = grf_beside(Path(path)) if options.grf == "auto" else options.grf
    return path, grf


def _calibration_files(path, options: PipelineOptions) -> tuple:
    static = options.static and grf_beside(Path(options.static))
    return options.static, static, options.markerset, options.opensim_model


def _stamp(path) -> tuple | None:
    """A file as its resolved path, size and modification time (None if it is not a file): a changed file has
    another stamp."""
    if path is None:
        return None
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return (str(path),)
    return str(Path(path).resolve()), status.st_size, status.st_mtime_ns


@dataclass(frozen=True)
class Step:
    """One step: ``compute(path, state, options, progress) -> outputs``; it reads the outputs of the step
    ``after`` (and so of every step before that one), and the files ``files(path, options)``; it runs when
    the pipeline runs its ``stage`` (``options.STAGES``) and ``wanted(options)``."""

    name: str
    stage: str
    after: str | None
    compute: Callable[..., dict]
    files: Callable[[str | Path, PipelineOptions], tuple] = lambda path, options: ()
    wanted: Callable[[PipelineOptions], bool] = lambda options: True

    def runs(self, options: PipelineOptions) -> bool:
        return options.runs(self.stage) and self.wanted(options)

    def key(self, path: str | Path, options: PipelineOptions) -> tuple:
        """What the step's result depends on besides the steps before it: the options it reads (an option not
        in ``READ_BY`` counts as read by the first step) and the stamps of its files."""
        first = self.name == STEPS[0].name
        read = [f.name for f in fields(options)
                if READ_BY.get(f.name, STEPS[0].name if first else None) == self.name]
        return tuple((name, getattr(options, name)) for name in read) + tuple(map(_stamp, self.files(path, options)))


STEPS = (
    Step("import", "import", None, _import, _source_files),
    Step("calibrate", "calibrate", "import", _calibrate, _calibration_files),
    Step("gap_fill", "reconstruct", "calibrate", _gap_fill),
    Step("reconstruct", "reconstruct", "gap_fill", _reconstruct),
    Step("dynamics", "dynamics", "reconstruct", _dynamics),
    Step("contact", "contact", "dynamics", _contact),
    Step("zero_gravity", "zero_gravity", "dynamics", _zero_gravity,
         wanted=lambda options: options.zero_gravity.kind != "none"),
)
