"""One call that runs a trial end to end. The add-on, the CLI and the tests all use ``run``.

Stages run in data-flow order up to ``PipelineOptions.until``; each one is
timed and reported: ``import`` (markers and force plates) -> ``calibrate``
(the subject's body model). Later stages (reconstruct, dynamics, contact,
zero gravity) join here as they are built.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

from .errors import InputError
from .io import ImportOptions, attach_plates, load_trial, quiet_standing_weight, read_grf_mot
from .io.trial import Trial
from .model import BodyModel, calibrate

Progress = Callable[[float, str], None]

GRAVITY = 9.81
STAGES = ("import", "calibrate")


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
    (de Leva table).
    """

    import_options: ImportOptions = ImportOptions()
    grf: str | None = "auto"
    until: str = "calibrate"
    template: str = "full15"
    mass: float | None = None
    static: str | None = None
    markerset: str | None = None
    sex: str = "male"

    def __post_init__(self):
        if self.until not in STAGES:
            raise InputError(f"Unknown pipeline stage {self.until!r}", f"use one of {', '.join(STAGES)}")

    def runs(self, stage: str) -> bool:
        return STAGES.index(stage) <= STAGES.index(self.until)


@dataclass
class PipelineResult:
    """What a run produced, stage by stage, with the wall time of each stage in seconds."""

    source: str
    options: PipelineOptions
    trial: Trial
    model: BodyModel | None = None
    timings: dict = field(default_factory=dict)

    def report(self) -> dict:
        """A JSON-ready summary: what was read, converted and computed, and what the user should know."""
        report = {"source": self.source, "options": _options_report(self.options), "trial": _trial_report(self.trial)}
        if self.model is not None:
            report["model"] = _model_report(self.model)
        report["timings_s"] = dict(self.timings)
        return report


def _options_report(options: PipelineOptions) -> dict:
    out = asdict(options)
    out["import_options"] = asdict(options.import_options)
    return out


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
        "notes": list(cal.notes),
        "warnings": list(cal.warnings),
    }


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
        result.model = calibrate(trial, options.template, mass=options.mass, static=static,
                                 markerset=options.markerset, sex=options.sex)
        timings["calibrate"] = time.perf_counter() - t0
        progress(1.0, f"body model: {len(result.model.segments)} segments, {result.model.total_mass:.1f} kg "
                      f"({result.model.mass_source})")
    return result
