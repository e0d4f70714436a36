"""One call that runs a trial end to end. The add-on, the CLI and the tests all use ``run``.

Stages run in data-flow order up to ``PipelineOptions.until``; each one is
timed and reported: ``import`` (markers and force plates) -> ``calibrate``
(the subject's body model) -> ``reconstruct`` (marker gaps filled first,
``solver.kinematics.gap_fill``, then OTM or Lee on the filled markers) ->
``dynamics`` (joint torques and root residuals, with and without the measured plate forces) ->
``contact`` (ground contact estimated from the motion alone; measured plates
are used only to judge it) -> ``zero_gravity`` (a zero-gravity variant: by
default the captured motion on a free-floating body, or a manoeuvre of the
subject's model; see ``solver.zerog.variant``).
"""

from __future__ import annotations

import functools
import platform
import time
import tomllib
from dataclasses import asdict, dataclass, field, fields, replace
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Callable

import numpy as np

from .contact import FORCE_MODELS, SURFACE_MODELS, Contact, PlateComparison, compare_with_plates, estimate_contact
from .contact.plate_mass import mass_from_plates
from .dynamics import SCHEMES, Dynamics, inverse_dynamics, plate_forces
from .errors import InputError, ModelError, option
from .io import ImportOptions, attach_plates, load_trial, quiet_standing_weight, read_grf_mot
from .io.documents import parse_document
from .io.trial import Trial
from .kinematics import Motion, convergence_summary, marker_error_stats, reconstruct
from .kinematics.gap_fill import GapFill, GapFillOptions, fill_gaps
from .kinematics.lee import estimate_lee
from .kinematics.marker_outliers import drop_marker_outliers
from .model import BodyModel, calibrate, with_body_mass
from .model.discovery import Discovery, discover_markerset
from .model.markersets import normalize
from .opensim.inertia import apply_opensim_inertia
from .plausibility import check_body, check_mass_range, explain_empty_markers
from .zerog import ZeroGravity, ZeroGravityOptions, zero_gravity_variant

Progress = Callable[[float, str], None]

GRAVITY = 9.81
#: ``markerset`` value that finds the segments from the motion even when the labels are known.
DISCOVER = "discover"
STAGES = ("import", "calibrate", "reconstruct", "dynamics", "contact", "zero_gravity")
#: Options given as tables (TOML) or dotted names: the nested option objects of ``PipelineOptions``.
NESTED = {"import": ("import_options", ImportOptions), "gap_fill": ("gap_fill", GapFillOptions),
          "zero_gravity": ("zero_gravity", ZeroGravityOptions)}


def _no_progress(fraction: float, message: str) -> None:
    pass


@dataclass(frozen=True)
class PipelineOptions:
    """Everything a run needs besides the input file.

    ``grf``: an OpenSim GRF .mot for the trial ("auto": use ``<name>_grf.mot``
    next to a TRC if there is one). ``until``: the last stage to run.
    Body model: ``template`` (full15, brubaker12), ``mass`` [kg] (None: from
    quiet standing on force plates, else an assumed 70 kg that every report
    flags), ``static`` (a static trial of the same subject; its GRF found the
    same way), ``markerset`` (a TOML mapping for unknown marker sets), ``sex``
    (de Leva table); with ``markerset=None`` and labels that match no known set, or ``markerset="discover"``,
    the segments are found from the motion (``model.discovery``). ``gap_fill``: how marker gaps are filled
    before reconstruction (``GapFillOptions``; on by default). Dynamics: ``cutoff`` of the zero-lag low-pass filter before differentiating, in Hz,
    ``"auto"`` (Winter's residual analysis, per trial) or ``"none"`` (no filter, the paper's; None is
    taken as "none"); ``derivatives``
    ``"central"`` or ``"forward"`` (the paper's, consistent with Euler integration). Contact:
    ``contact_forces`` ``"per_frame"`` (solved frame by frame within friction cones) or ``"spring"``
    (Brubaker et al.'s eqs. 4-7); ``surfaces`` ``"detected"`` (the floor and raised surfaces found from
    resting points) or ``"plane"`` (the paper's eq. 10), None for the force model's own (detected for
    per-frame forces, the plane for springs). The defaults are the combination validated against force
    plates (README). ``zero_gravity``: which zero-gravity variant the last stage simulates.
    ``opensim``: the results also include the OpenSim model, coordinates, loads and moments
    (``solver.opensim.export``). ``opensim_model``: an OpenSim model (.osim) whose segment masses, CM and
    inertia replace the inertia table's where its bodies map onto ours (``solver.opensim.inertia``).
    """

    import_options: ImportOptions = ImportOptions()
    grf: str | None = "auto"
    until: str = STAGES[-1]
    template: str = "full15"
    mass: float | None = None
    static: str | None = None
    markerset: str | None = None
    sex: str = "male"
    gap_fill: GapFillOptions = GapFillOptions()
    method: str = "otm"
    otm_mode: str = "fast"
    tolerance: float = 1e-7
    cutoff: float | str = "auto"
    derivatives: str = "central"
    contact_forces: str = "per_frame"
    surfaces: str | None = None
    zero_gravity: ZeroGravityOptions = ZeroGravityOptions()
    opensim: bool = False
    opensim_model: str | None = None

    def __post_init__(self):
        if self.until not in STAGES:
            raise InputError(f"Unknown pipeline stage {option('until', self.until)}",
                             f"use one of {', '.join(STAGES)}")
        if self.method not in ("otm", "lee"):
            raise InputError(f"Unknown reconstruction method {option('method', self.method)}", "use otm or lee")
        if self.otm_mode not in ("fast", "paper"):
            raise InputError(f"Unknown OTM mode {option('otm_mode', self.otm_mode)}", "use fast or paper")
        if self.contact_forces not in FORCE_MODELS:
            raise InputError(f"Unknown contact force model {option('contact_forces', self.contact_forces)}",
                             f"use {' or '.join(FORCE_MODELS)}")
        if self.surfaces is not None and self.surfaces not in SURFACE_MODELS:
            raise InputError(f"Unknown contact surfaces {option('surfaces', self.surfaces)}",
                             f"use {' or '.join(SURFACE_MODELS)}")
        if self.contact_forces == "spring" and self.surfaces == "detected":
            raise InputError(f"Conflicting contact options: {option('contact_forces', 'spring')} needs the paper's "
                             "plane (eq. 10), not surfaces detected from resting points",
                             f"use {option('surfaces', 'plane')} with spring forces, or per_frame forces on "
                             "detected surfaces")
        if self.derivatives not in SCHEMES:
            raise InputError(f"Unknown derivatives {option('derivatives', self.derivatives)}",
                             f"use {' or '.join(SCHEMES)}")
        if self.cutoff is None or self.cutoff == "None":
            object.__setattr__(self, "cutoff", "none")
        if not isinstance(self.opensim, bool):
            raise InputError(f"Option {option('opensim', self.opensim)} is not true or false",
                             "set it to true or false")
        for name, optional in (("mass", True), ("tolerance", False), ("cutoff", True)):
            if name == "cutoff" and self.cutoff in ("auto", "none"):
                continue
            value = getattr(self, name)
            if (value is None and not optional) or (value is not None and (
                    isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0)):
                raise InputError(f"{option(name, value)} is not a positive number", f"give {name} in SI units")
        if self.mass is not None:
            check_mass_range(self.mass)

    @property
    def filter_cutoff(self) -> float | str | None:
        """``cutoff`` as inverse dynamics takes it (None for no filter)."""
        return None if self.cutoff == "none" else self.cutoff

    def runs(self, stage: str) -> bool:
        return STAGES.index(stage) <= STAGES.index(self.until)


def options_from_dict(values: dict, base: PipelineOptions = PipelineOptions()) -> PipelineOptions:
    """``base`` with the given fields replaced; the tables ``import``, ``gap_fill`` and ``zero_gravity`` set
    the fields of the nested ``ImportOptions``, ``GapFillOptions`` and ``ZeroGravityOptions``."""
    values = dict(values)
    tables = {name: values.pop(name, {}) for name in NESTED}
    known = {f.name for f in fields(PipelineOptions)} - {field for field, _ in NESTED.values()}
    unknown = sorted(set(values) - known)
    for name, (_, kind) in NESTED.items():
        unknown += [f"{name}.{k}" for k in sorted(set(tables[name]) - {f.name for f in fields(kind)})]
    if unknown:
        raise InputError(f"Unknown pipeline option(s): {', '.join(unknown)}",
                         f"use {', '.join(sorted(known))}, and "
                         + " and ".join(f"[{name}] {', '.join(f.name for f in fields(kind))}"
                                        for name, (_, kind) in NESTED.items()))
    try:
        nested = {field: replace(getattr(base, field), **tables[name]) for name, (field, _) in NESTED.items()}
        return replace(base, **nested, **values)
    except TypeError as error:
        raise InputError(f"Bad pipeline options: {error}", "check the option names and values") from None


def options_from_toml(path: str | Path, base: PipelineOptions = PipelineOptions()) -> PipelineOptions:
    """Pipeline options from a TOML file: top-level keys are ``PipelineOptions`` fields
    (e.g. ``until = "dynamics"``, ``mass = 61.5``), an ``[import]`` table holds ``units``, ``up_axis``,
    ``strip_prefix``, a ``[gap_fill]`` table ``method``, ``max_gap_s`` and the rest of ``GapFillOptions``, a
    ``[zero_gravity]`` table ``kind``, ``momentum``, ``angle_deg`` and the rest of
    ``ZeroGravityOptions``. Relative paths (``static``, ``markerset``, ``grf``, ``opensim_model``) are taken from
    the file's folder."""
    path = Path(path)
    values = parse_document(path, tomllib.loads, "Options file", "TOML", "fix the file")
    for key in ("static", "markerset", "grf", "opensim_model"):
        if (isinstance(values.get(key), str) and values[key] not in ("auto", DISCOVER)
                and not Path(values[key]).is_absolute()):
            values[key] = str(path.parent / values[key])
    return options_from_dict(values, base)


@dataclass
class PipelineResult:
    """What a run produced, stage by stage, with the wall time of each stage in seconds."""

    source: str
    options: PipelineOptions
    trial: Trial
    model: BodyModel | None = None
    gap_fill: GapFill | None = None
    discovery: Discovery | None = None
    motion: Motion | None = None
    dynamics: Dynamics | None = None
    dynamics_with_plates: Dynamics | None = None
    contact: Contact | None = None
    plate_comparison: PlateComparison | None = None
    zero_gravity: ZeroGravity | None = None
    timings: dict = field(default_factory=dict)

    @property
    def best_dynamics(self) -> Dynamics | None:
        """The most complete torque estimate: with measured plate forces if the trial has them, else with the
        estimated contact forces, else with none."""
        return self.dynamics_with_plates or (self.contact.dynamics if self.contact is not None else None) \
            or self.dynamics

    def report(self) -> dict:
        """A JSON-ready summary: what was read, converted and computed, and what the user should know."""
        report = {"source": self.source, "versions": dict(versions()), "options": asdict(self.options),
                  "trial": _trial_report(self.trial)}
        if self.discovery is not None:
            report["discovery"] = self.discovery.summary()
        if self.model is not None:
            report["model"] = _model_report(self.model)
        if self.gap_fill is not None:
            report["gap_fill"] = self.gap_fill.summary()
        if self.motion is not None:
            report["reconstruction"] = _reconstruction_report(self.motion)
        if self.dynamics is not None:
            report["dynamics"] = _dynamics_report(self.dynamics, self.dynamics_with_plates)
        if self.contact is not None:
            report["contact"] = self.contact.summary()
            if self.plate_comparison is not None:
                report["contact"]["plates"] = self.plate_comparison.summary()
        if self.zero_gravity is not None:
            report["zero_gravity"] = self.zero_gravity.summary()
        report["timings_s"] = dict(self.timings)
        return report


@functools.cache
def versions() -> dict:
    """Mocap Dynamics (the manifest's version), Python and the solver's libraries, for reports (read once: the
    package metadata takes milliseconds to parse)."""
    manifest = Path(__file__).resolve().parents[1] / "blender_manifest.toml"
    found = {"mocap_dynamics": tomllib.loads(manifest.read_text())["version"] if manifest.is_file() else None,
             "python": platform.python_version()}
    for package in ("numpy", "scipy", "numba", "ezc3d"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:  # bundled wheels inside Blender may lack metadata
            found[package] = getattr(__import__(package), "__version__", None)
    return found


def _trial_report(trial: Trial) -> dict:
    gaps = trial.gaps()
    weight = quiet_standing_weight(trial)
    return {
        "frames": trial.n_frames,
        "rate_hz": trial.rate,
        "start_time_s": trial.start_time,
        "duration_s": trial.duration,
        "markers": trial.n_markers,
        "force_plates": len(trial.plates),
        "missing_samples_percent": 100.0 * sum(g.missing for g in gaps) / max(1, trial.n_frames * trial.n_markers),
        "markers_with_gaps": {g.label: {"missing": g.missing, "gaps": g.gaps, "longest": g.longest}
                              for g in gaps if not g.complete},
        "body_weight_n": weight,
        "body_mass_kg_from_plates": None if weight is None else weight / GRAVITY,
        "conversions": list(trial.conversions),
        "warnings": list(trial.warnings),
    }


def _model_report(model: BodyModel) -> dict:
    cal = model.metadata["calibration"]
    worst = sorted(cal.marker_residuals.items(), key=lambda kv: -kv[1])[:5]
    return {
        "template": cal.template,
        "segments": len(model.segments),
        "dof": model.nv,
        "mass_kg": model.total_mass,
        "mass_source": model.mass_source,
        "mass_assumed": model.mass_source.startswith("assumed"),
        "inertia_table": f"{cal.table} ({cal.sex})",
        "markerset": cal.markerset,
        "static": cal.static,
        "segment_lengths_m": cal.lengths,
        "cluster_residuals_m": cal.segment_residuals,
        "worst_markers_m": dict(worst),
        "joint_centres": cal.joint_centres,
        "welded": list(cal.welded),
        "initial_marker_rms_m": cal.initial_marker_rms,
        "markers": cal.markers,
        "ignored_markers": cal.ignored,
        "notes": list(cal.notes),
        "warnings": list(cal.warnings),
        "inertia_from_opensim_model": model.metadata.get("opensim_inertia"),
    }


def _reconstruction_report(motion: Motion) -> dict:
    summary = convergence_summary(motion)
    stats = marker_error_stats(motion)
    worst = np.argsort(-stats.median)[:5]
    return {
        "method": motion.method,
        "frames": summary.frames,
        "frames_converged": summary.converged,
        "converged_percent": summary.rate_percent,
        "frames_without_data": summary.no_data_frames,
        "iterations_mean": summary.iterations_mean,
        "iterations_max": summary.iterations_max,
        "constraint_norm_max": summary.constraint_norm_max,
        "seconds_per_frame": summary.seconds_per_frame,
        "marker_rms_m": summary.marker_rms,
        "worst_markers_median_m": {stats.labels[i]: float(stats.median[i]) for i in worst},
    }


def _residual_figures(dynamics: Dynamics) -> dict:
    weight = dynamics.model.total_mass * GRAVITY
    force = np.linalg.norm(dynamics.root_wrench[:, :3], axis=1)
    torque = np.linalg.norm(dynamics.root_wrench[:, 3:], axis=1)
    return {"root_force_mean_n": float(np.nanmean(force)), "root_force_mean_percent_bw": float(100 * np.nanmean(force) / weight),
            "root_force_max_n": float(np.nanmax(force)), "root_torque_mean_nm": float(np.nanmean(torque))}


def _dynamics_report(dynamics: Dynamics, with_plates: Dynamics | None) -> dict:
    best = with_plates or dynamics
    peaks = np.nanmax(np.linalg.norm(best.joint_torque_world, axis=-1), axis=0)
    report = {
        "frames": len(dynamics.times),
        "derivatives": dynamics.options,
        "without_external_forces": _residual_figures(dynamics),
        "peak_joint_torque_nm": {s.name: float(peaks[k]) for k, s in enumerate(best.model.segments)
                                 if k > 0 and s.joint != "weld"},
        "torques_with": "measured force plates" if with_plates is not None else "no external forces",
    }
    if with_plates is not None:
        report["with_measured_plates"] = _residual_figures(with_plates)
        report["root_force_ratio_with_to_without_plates"] = (report["with_measured_plates"]["root_force_mean_n"]
                                                             / report["without_external_forces"]["root_force_mean_n"])
    return report


def _grf_beside(path: Path) -> Path | None:
    """OpenSim's convention: ``walk.trc`` comes with ``walk_grf.mot`` in the same folder."""
    candidate = path.with_name(f"{path.stem}_grf.mot")
    return candidate if path.suffix.lower() == ".trc" and candidate.is_file() else None


def _read(path: str | Path, options: PipelineOptions, grf: str | None) -> Trial:
    """A trial with its force plates: from the file, an explicit GRF .mot, or one found beside a TRC."""
    path = Path(path)
    trial = load_trial(path, options.import_options)
    if grf == "auto":
        found = None if trial.plates else _grf_beside(path)
        if found is None:
            return trial
        trial = attach_plates(trial, read_grf_mot(found))
        return replace(trial, conversions=trial.conversions + (f"force plates read from {found.name}, found next "
                                                               f"to {path.name} (OpenSim naming)",))
    return attach_plates(trial, read_grf_mot(grf)) if grf else trial


def _mass_from_plates(result: PipelineResult, options: PipelineOptions, progress: Progress) -> None:
    """An assumed body mass replaced by the one the trial's plates give (``contact.plate_mass``), from a
    contact estimate (whose surfaces and timing do not depend on the mass); the model, motion and dynamics
    are rescaled to it."""
    contact = estimate_contact(dynamics=result.dynamics)
    found = mass_from_plates(contact, compare_with_plates(contact, result.trial))
    if found is None:
        return
    result.model = with_body_mass(result.model, found.mass, found.source)
    result.motion = replace(result.motion, model=result.model)
    result.dynamics = inverse_dynamics(result.motion, cutoff=options.filter_cutoff, scheme=options.derivatives)
    progress(0.5, f"body mass {found.mass:.1f} kg from the force plates")


def _discovered(trial: Trial, static: Trial | None, progress: Progress, unknown: ModelError | None = None):
    """The marker set found from the motion (``model.discovery``), the trial (with virtual markers) and static
    trial to calibrate on, and the discovery. ``unknown``: why the labels made no body (said with discovery's
    own failure, in one line). A static trial is used with a discovered set only if it has the same labels and
    the set needs no virtual markers (they come from the movement's functional joints)."""
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
    body."""
    def build(markerset, calibration_trial, static_trial):
        return calibrate(calibration_trial, options.template, mass=options.mass, static=static_trial,
                         markerset=markerset, sex=options.sex)

    if options.markerset == DISCOVER:
        markerset, calibration_trial, static, found = _discovered(trial, static, progress)
        return build(markerset, calibration_trial, static), found
    try:
        return build(options.markerset, trial, static), None
    except ModelError as error:
        if options.markerset is not None:
            raise
        markerset, calibration_trial, static, found = _discovered(trial, static, progress, unknown=error)
        return build(markerset, calibration_trial, static), found


def run(path: str | Path, options: PipelineOptions = PipelineOptions(), progress: Progress = _no_progress) -> PipelineResult:
    """Run the pipeline on one recording (C3D or TRC) and return every stage's result."""
    timings = {}
    progress(0.0, f"reading {Path(path).name}")
    t0 = time.perf_counter()
    trial = _read(path, options, options.grf)
    timings["import"] = time.perf_counter() - t0
    progress(1.0, f"read {trial.n_markers} markers x {trial.n_frames} frames at {trial.rate:g} Hz, "
                  f"{len(trial.plates)} force plates")
    result = PipelineResult(source=str(path), options=options, trial=trial, timings=timings)
    if options.runs("calibrate"):
        progress(0.0, f"calibrating the {options.template} body model")
        t0 = time.perf_counter()
        static = _read(options.static, options, "auto") if options.static else None
        try:
            model, result.discovery = _calibrated(trial, static, options, progress)
        except ModelError as error:
            raise explain_empty_markers(error, trial) from None
        if options.opensim_model:
            model = apply_opensim_inertia(model, options.opensim_model)
        result.model = check_body(model, trial, static)  # units and mass plausible, or one line saying why not
        result.trial = trial = drop_marker_outliers(trial, result.model)
        timings["calibrate"] = time.perf_counter() - t0
        progress(1.0, f"body model: {len(result.model.segments)} segments, {result.model.total_mass:.1f} kg "
                      f"({result.model.mass_source})")
    if options.runs("reconstruct"):
        t0 = time.perf_counter()
        result.gap_fill = fill_gaps(trial, options.gap_fill, {s.name: s.markers for s in result.model.segments})
        timings["gap_fill"] = time.perf_counter() - t0
        filled = result.gap_fill.summary()
        progress(1.0, f"gap filling ({options.gap_fill.method}): {filled['samples_filled']} samples in "
                      f"{filled['gaps_filled']} gaps filled, {filled['gaps_left']} gaps left")
        progress(0.0, f"reconstructing {trial.n_frames} frames ({options.method})")
        t0 = time.perf_counter()
        frames = lambda done, total: progress(done / total, f"frame {done}/{total}")  # noqa: E731
        if options.method == "lee":
            result.motion = estimate_lee(result.gap_fill.trial, result.model, progress=frames)
        else:
            result.motion = reconstruct(result.gap_fill.trial, result.model, mode=options.otm_mode,
                                        tolerance=options.tolerance, progress=frames)
        timings["reconstruct"] = time.perf_counter() - t0
        converged = result.motion.converged
        progress(1.0, f"reconstructed: {int(converged.sum())}/{len(converged)} frames converged")
    if options.runs("dynamics"):
        progress(0.0, "inverse dynamics")
        t0 = time.perf_counter()
        result.dynamics = inverse_dynamics(result.motion, cutoff=options.filter_cutoff, scheme=options.derivatives)
        if result.model.mass_source.startswith("assumed") and trial.plates:
            _mass_from_plates(result, options, progress)
        measured = plate_forces(trial, result.motion)
        if measured is not None:
            cutoff = result.dynamics.options.get("cutoff_hz", options.filter_cutoff)  # the filter used without
            result.dynamics_with_plates = inverse_dynamics(result.motion, cutoff=cutoff, scheme=options.derivatives,
                                                           external=measured)
        timings["dynamics"] = time.perf_counter() - t0
        progress(1.0, f"joint torques and root residuals for {len(result.dynamics.times)} frames")
    if options.runs("contact"):
        progress(0.0, "estimating ground contact from the motion")
        t0 = time.perf_counter()
        result.contact = estimate_contact(result.motion, dynamics=result.dynamics, forces=options.contact_forces,
                                          surfaces=options.surfaces)
        if trial.plates:
            result.plate_comparison = compare_with_plates(result.contact, trial)
        timings["contact"] = time.perf_counter() - t0
        found = result.contact.summary()["surfaces"]
        progress(1.0, f"contact on {', '.join(s['name'] for s in found) or 'no support found'}: explains "
                      f"{100 * result.contact.explained_force:.0f} % of the root force")
    if options.runs("zero_gravity") and options.zero_gravity.kind != "none":
        progress(0.0, f"zero gravity: {options.zero_gravity.kind.replace('_', ' ')}")
        t0 = time.perf_counter()
        result.zero_gravity = zero_gravity_variant(options.zero_gravity, result.model, result.motion)
        timings["zero_gravity"] = time.perf_counter() - t0
        angle, _ = result.zero_gravity.torso_reorientation
        progress(1.0, f"zero gravity: {result.zero_gravity.motion.n_frames} frames, the torso turns {angle:.1f} deg")
    return result
