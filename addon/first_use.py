"""The first use: compile the solver's kernels in the background, with a status line, so no click waits for it.

Right after the extension is enabled (and at the first import of a file, if that did not happen), a worker
thread runs ``solver.first_use.compile_kernels`` while the status bar says so; numba caches the kernels on
disk (the extension's user folder, see the package's ``__init__``). A file beside the cache then records
that this version's kernels are compiled, and later sessions skip the warm-up. A step started meanwhile
waits only for the kernels it needs (numba compiles one kernel at a time and keeps what it compiled).
Headless sessions (``--background``) compile on first use, as plain Python does.
"""

from __future__ import annotations

import os
import traceback
from pathlib import Path

import bpy

from ..solver.first_use import compile_kernels
from ..solver.report import versions
from .jobs import TICK, Job

_warm_up: list[Job] = []  # the warm-up of this session, once started


def _marker() -> Path | None:
    """The file that says this version's kernels are in numba's cache (None where numba caches beside the
    sources, in a checkout)."""
    folder = os.environ.get("NUMBA_CACHE_DIR")
    if not folder:
        return None
    return Path(folder) / f"compiled-{versions()['mocap_dynamics']}-numba-{versions()['numba']}"


def compiled() -> bool:
    marker = _marker()
    return marker is not None and marker.is_file()


def _status(job: Job | None) -> None:
    """The warm-up's line in every window's status bar (None clears it)."""

    def draw(header, context):
        header.layout.label(text="Mocap Dynamics: preparing the solver for its first use (compiling, once)")
        header.layout.progress(factor=job.fraction, type="BAR", text=job.message)

    for window in bpy.context.window_manager.windows:
        window.workspace.status_text_set(None if job is None else draw)


def _tick() -> float | None:
    """App timer: the status line while the warm-up runs; clear it when it is over."""
    job = _warm_up[0]
    try:
        if not job.tick():
            _status(job)
            return TICK
    except Exception:  # a bug: said on the console; the steps compile what they need when they run
        traceback.print_exc()
    _status(None)
    if job.error is not None:
        print(f"[mocap_dynamics] compiling the kernels ahead of use failed: {job.error.one_line()}")
    return None


def warm_up_job() -> Job:
    """The warm-up: ``compile_kernels`` in a worker thread; then the file that says it is done."""

    def done(value):
        marker = _marker()
        if marker is not None:
            try:
                marker.write_text("numba's cache holds this version's kernels\n")
            except OSError:  # then the next session compiles (loads) them again
                pass

    return Job("Compiling the solver's kernels", compile_kernels, done)


def warm_up() -> Job | None:
    """Start the warm-up with its status line, unless this session did, the kernels are compiled already, or
    Blender runs headless. Returns the running job (None if none was started)."""
    if _warm_up or bpy.app.background or compiled():
        return None
    _warm_up.append(warm_up_job().start())
    bpy.app.timers.register(_tick, first_interval=TICK)
    return _warm_up[0]


def _start() -> None:
    warm_up()


def register():
    bpy.app.timers.register(_start, first_interval=1.0)  # once Blender has opened its window


def unregister():
    for function in (_start, _tick):
        if bpy.app.timers.is_registered(function):
            bpy.app.timers.unregister(function)
    if _warm_up and not _warm_up[0].tick():
        _warm_up[0].cancel()
        _status(None)
