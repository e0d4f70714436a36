"""One call that runs a trial end to end. The add-on, the CLI and the tests all use ``run``.

Stages run in data-flow order; each one is timed and reported. Today the
pipeline imports a trial (markers and force plates, optionally a GRF .mot) and
reports what it found; the later stages (calibrate, reconstruct, dynamics,
contact, zero gravity) join here as they are built.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from .io import ImportOptions, attach_plates, load_trial, quiet_standing_weight, read_grf_mot
from .io.trial import Trial

Progress = Callable[[float, str], None]

GRAVITY = 9.81


def _no_progress(fraction: float, message: str) -> None:
    pass


@dataclass(frozen=True)
class PipelineOptions:
    """Everything a run needs besides the input file; ``grf`` is an optional OpenSim GRF .mot."""

    import_options: ImportOptions = ImportOptions()
    grf: str | None = None


@dataclass
class PipelineResult:
    """What a run produced, stage by stage, with the wall time of each stage in seconds."""

    source: str
    options: PipelineOptions
    trial: Trial
    timings: dict = field(default_factory=dict)

    @property
    def body_weight(self) -> float | None:
        """Body weight [N] from quiet standing on the force plates, if the trial has it."""
        return quiet_standing_weight(self.trial)

    def report(self) -> dict:
        """A JSON-ready summary: what was read, what was converted, what the user should know."""
        trial = self.trial
        gaps = trial.gaps()
        weight = self.body_weight
        return {
            "source": self.source,
            "options": {"import": asdict(self.options.import_options), "grf": self.options.grf},
            "trial": {
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
            },
            "timings_s": dict(self.timings),
        }


def run(path: str | Path, options: PipelineOptions = PipelineOptions(), progress: Progress = _no_progress) -> PipelineResult:
    """Run the pipeline on one recording (C3D or TRC) and return every stage's result."""
    timings = {}
    progress(0.0, f"reading {Path(path).name}")
    t0 = time.perf_counter()
    trial = load_trial(path, options.import_options)
    if options.grf:
        trial = attach_plates(trial, read_grf_mot(options.grf))
    timings["import"] = time.perf_counter() - t0
    progress(1.0, f"read {trial.n_markers} markers x {trial.n_frames} frames at {trial.rate:g} Hz, "
                  f"{len(trial.plates)} force plates")
    return PipelineResult(source=str(path), options=options, trial=trial, timings=timings)
