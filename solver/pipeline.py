"""One call that runs a trial end to end. The add-on, the CLI and the tests all use ``run``.

The steps (``solver.stages``) run in data-flow order up to ``PipelineOptions.until``; each one is timed.
Given ``previous``, the result of an earlier run on the same file, ``run`` resumes: every step whose options,
files and earlier steps are unchanged is taken from ``previous`` as is (the very same objects), and only the
others are computed again. The options and their parser are ``solver.options``; the report is
``solver.report``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .contact import AppliedPlates, Contact, PlateComparison
from .dynamics import Dynamics
from .first_use import WAITS_FOR_HELPER, CompileAhead
from .io.trial import Trial
from .kinematics import Motion
from .kinematics.gap_fill import GapFill
from .model import BodyModel
from .options import DISCOVER, NESTED, STAGES, PipelineOptions, options_from_dict, options_from_toml, options_to_dict
from .report import build_report, versions
from .stages import STEPS, Progress, no_progress
from .zerog import ZeroGravity

if TYPE_CHECKING:  # imported when segments are found from the motion (``stages``)
    from .model.discovery import Discovery

__all__ = ["DISCOVER", "NESTED", "STAGES", "PipelineOptions", "PipelineResult", "Progress", "options_from_dict",
           "options_from_toml", "options_to_dict", "run", "versions"]


@dataclass(frozen=True)
class StepRun:
    """What one step of a run depended on (``stages.Step.key``) and produced (result fields)."""

    key: tuple
    outputs: dict


@dataclass
class PipelineResult:
    """What a run produced, stage by stage; ``timings`` the seconds of each step computed, ``reused`` the steps
    taken from the previous run; ``steps`` what ``run`` needs to resume from this result."""

    source: str
    options: PipelineOptions
    trial: Trial
    model: BodyModel | None = None
    gap_fill: GapFill | None = None
    discovery: Discovery | None = None
    motion: Motion | None = None
    dynamics: Dynamics | None = None
    dynamics_with_plates: Dynamics | None = None
    plates_applied: AppliedPlates | None = None
    contact: Contact | None = None
    dynamics_with_support: Dynamics | None = None
    plate_comparison: PlateComparison | None = None
    zero_gravity: ZeroGravity | None = None
    timings: dict = field(default_factory=dict)
    reused: tuple[str, ...] = ()
    steps: dict[str, StepRun] = field(default_factory=dict, repr=False)

    @property
    def best_dynamics(self) -> Dynamics | None:
        """The most complete torque estimate: with measured plate forces if the trial has them (and the contact
        estimated on the surfaces no plate measures, once estimated: ``contact.unmeasured``), else with the
        estimated contact forces, else with none."""
        return self.dynamics_with_support or self.dynamics_with_plates or \
            (self.contact.dynamics if self.contact is not None else None) or self.dynamics

    @property
    def motion_alone_dynamics(self) -> Dynamics | None:
        """The torques with the contact estimated from the motion, when the torques shown are other ones (the
        plates'), to set beside them; else None."""
        alone = self.contact.dynamics if self.contact is not None else None
        return alone if alone is not self.best_dynamics else None

    def report(self) -> dict:
        """A JSON-ready summary: what was read, converted and computed, and what the user should know."""
        return build_report(self)


def run(path: str | Path, options: PipelineOptions = PipelineOptions(), progress: Progress = no_progress,
        previous: PipelineResult | None = None, compile_ahead: bool = False) -> PipelineResult:
    """Run the pipeline on one recording (C3D or TRC) and return every stage's result.

    ``previous``: an earlier result on the same file; a step is reused from it when the step before it was
    reused (or it is the first) and its key (options and files it reads) is unchanged. ``compile_ahead``: on
    a first run, a helper process compiles the later steps' kernels meanwhile (``first_use.CompileAhead``;
    for a process of its own such as the CLI, not inside Blender)."""
    state, steps, timings, reused = {}, {}, {}, []
    ahead = CompileAhead.start(options) if compile_ahead else None
    try:
        for step in STEPS:
            if not step.runs(options):
                continue
            if ahead is not None and step.name == WAITS_FOR_HELPER:
                ahead.wait()
            key = step.key(path, options)
            earlier = previous.steps.get(step.name) if previous is not None else None
            if earlier is not None and earlier.key == key and (step.after is None or step.after in reused):
                outputs = earlier.outputs
                reused.append(step.name)
                progress(1.0, f"{step.name.replace('_', ' ')}: unchanged, reused")
            else:
                started = time.perf_counter()
                outputs = step.compute(path, state, options, progress)
                timings[step.name] = time.perf_counter() - started
            steps[step.name] = StepRun(key, outputs)
            state.update(outputs)
    finally:
        if ahead is not None:
            ahead.stop()
    return PipelineResult(source=str(path), options=options, **state, timings=timings, reused=tuple(reused),
                          steps=steps)
