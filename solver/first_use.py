"""Compile the solver's kernels ahead of their first use.

numba compiles a kernel the first time it runs and caches it on disk (``NUMBA_CACHE_DIR``): the first run of
each stage waits for it, and a compile uses one core. Two ways to wait less:

- ``compile_kernels`` runs the default pipeline on the project's own short sample walk (``solver.sample``),
  which compiles every kernel a default run needs with the argument types real trials give them, so the
  Blender extension can do it in the background right after it is enabled;
- ``CompileAhead``: on a first run (the kernels of inverse dynamics and zero gravity not in the cache yet), a
  forked helper process compiles them (``compile_after_reconstruct``) while this process compiles and runs
  OTM's and then the contact's; ``pipeline.run`` waits for the helper before the zero-gravity step, and every
  step loads from the cache what the helper compiled. (The helper compiles inverse dynamics first, done long
  before OTM; the contact kernel is this process's share, so that both finish about together.) Where
  ``os.fork`` does not exist (Windows) each kernel is compiled when first used, as before.
"""

from __future__ import annotations

import contextvars
import os
import signal
import sys
import tempfile
from dataclasses import replace

import numpy as np

from .kinematics.motion import Motion
from .kinematics.reconstruct import continuous_quaternions
from .model.fit import fit_segments
from .options import PipelineOptions
from .sample import MASS, write_sample
from .stages import STEPS, Progress, no_progress

#: The step before which the run waits for ``CompileAhead``'s helper (it compiles inverse dynamics first).
WAITS_FOR_HELPER = "zero_gravity"


def compile_kernels(progress: Progress) -> None:
    """Run every default stage once on the sample walk (its results are dropped)."""
    from .pipeline import run

    with tempfile.TemporaryDirectory(prefix="mocap-dynamics-") as folder:
        run(write_sample(folder)["c3d"], PipelineOptions(), progress)


def compile_after_reconstruct() -> None:
    """Compile the kernels of inverse dynamics and zero gravity without OTM's: the default steps on the sample
    walk (its subject's mass given and its plates left out, so inverse dynamics needs no contact estimate, which
    places the plates: the contact kernel is the run's own share), with its motion fitted segment by segment
    (``model.fit``) instead of reconstructed, and no contact step."""
    with tempfile.TemporaryDirectory(prefix="mocap-dynamics-") as folder:
        path, options, state = write_sample(folder)["c3d"], PipelineOptions(mass=MASS), {}
        for step in STEPS:
            if step.name == "dynamics":
                state["trial"] = replace(state["trial"], plates=(), plate_samples=None)
            if step.name == "reconstruct":
                trial, model = state["gap_fill"].trial, state["model"]
                q = continuous_quaternions(model, fit_segments(model, trial.labels, trial.markers).q)
                state["motion"] = Motion.from_q(model, trial.times, q, "otm", converged=np.ones(len(q), dtype=bool))
            elif step.name != "contact":
                state.update(step.compute(path, state, options, no_progress))


def _kernels_ahead() -> tuple:
    from .dynamics.energy import _segment_motion
    from .dynamics.inverse import _rnea_frames
    from .lowpass import _recursion
    from .zerog.free_floating import _integrate

    return _rnea_frames, _integrate, _segment_motion, _recursion


def _cached(kernel) -> bool:
    """Whether numba's disk cache holds ``kernel`` compiled from its current source (numba's cache index, an
    internal interface: anything unexpected counts as cached, so that nothing is started)."""
    try:
        return bool(kernel._cache._cache_file._load_index())
    except Exception:
        return True


class CompileAhead:
    """A forked helper process running ``compile_after_reconstruct`` (module docstring)."""

    def __init__(self, pid: int):
        self.pid = pid

    @classmethod
    def start(cls, options: PipelineOptions) -> "CompileAhead | None":
        """The helper, when this run reaches the zero-gravity step, this platform can fork and one of the
        helper's kernels is not in numba's cache; None otherwise."""
        if not hasattr(os, "fork") or not options.runs(WAITS_FOR_HELPER) or \
                all(_cached(kernel) for kernel in _kernels_ahead()):
            return None
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the helper: silent; its only trace is numba's cache
            code = 1
            try:
                silent = os.open(os.devnull, os.O_WRONLY)
                os.dup2(silent, 1)
                os.dup2(silent, 2)
                contextvars.Context().run(compile_after_reconstruct)  # none of the caller's staged outputs
                code = 0
            finally:
                os._exit(code)
        return cls(pid)

    def wait(self) -> None:
        """Until the helper has finished (its kernels are then in the cache)."""
        if self.pid:
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
            self.pid = 0

    def stop(self) -> None:
        """End the helper if it still runs (the run stopped early or was interrupted)."""
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            self.wait()
