"""Long work without freezing Blender: the solver runs in a worker thread, the scene changes on the main thread.

A ``Job`` runs ``compute(progress)`` in a worker thread (the solver only, never bpy) and is ticked from the
main thread by its operator's timer: ``tick`` returns True once the job is over, after ``apply(value)`` has
built the scene from what was computed (the only bpy change, made on the main thread in one go) or after the
computation failed. Esc cancels: the worker stops at its next progress report and nothing is applied, so the
scene is exactly as it was. An operator that finishes a job pushes one undo step, like any other.

Blender's render cannot leave the main thread: a ``SteppedJob`` renders one frame per tick instead, and
cancelling it (or an error) returns the scene to the undo step it pushed when it started.

``JobOperator`` is the operator side: the status bar shows the job's progress and message with Esc to
cancel, and one job runs at a time. Headless (``blender --background``, scripts, tests calling operators)
the same job runs synchronously and its progress is printed.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Generator
from typing import Callable

import bpy

from ..solver.errors import MocapError
from .messages import sidebar_messages

#: Seconds between two looks at a running job.
TICK = 0.1

_running: list["Job"] = []  # the job an operator is running in the background (at most one)


class Cancelled(Exception):
    """Raised in the worker by the progress report that follows a cancel."""


class Job:
    """``compute(progress)`` in a worker thread, then ``apply(value)`` on the main thread (see module).

    After the job is over: ``result`` is what ``apply`` returned; or ``error`` the ``MocapError`` that
    stopped it; or ``cancelled`` is True."""

    def __init__(self, label: str, compute: Callable, apply: Callable):
        self.label = label
        self.fraction, self.message = 0.0, label
        self.result, self.error, self.cancelled = None, None, False
        self._compute, self._apply = compute, apply
        self._context = contextvars.copy_context()  # e.g. the sidebar's spelling of options in messages
        self._stop = threading.Event()
        self._outcome = None  # (value, exception) once computed
        self._over = False
        self._echo = False

    def progress(self, fraction: float, message: str) -> None:
        """The solver's progress report (worker thread); raises ``Cancelled`` once the job is cancelled."""
        if self._stop.is_set():
            raise Cancelled
        self.fraction, self.message = min(max(float(fraction), 0.0), 1.0), message
        if self._echo:
            print(f"[mocap_dynamics] {message}", flush=True)

    def _work(self) -> None:
        try:
            self._outcome = (self._context.run(self._compute, self.progress), None)
        except BaseException as error:  # handed to the main thread by ``tick``
            self._outcome = (None, error)

    def start(self) -> "Job":
        """Compute in a worker thread; ``tick`` from the main thread until it returns True."""
        threading.Thread(target=self._work, name=f"Mocap Dynamics: {self.label}", daemon=True).start()
        return self

    def run(self) -> "Job":
        """Compute and apply here and now (headless), printing the progress."""
        self._echo = True
        self._work()
        self.tick()
        return self

    def cancel(self) -> None:
        """Stop at the solver's next progress report; nothing is applied."""
        self._stop.set()

    def tick(self) -> bool:
        """Main thread: False while the worker computes; then apply what it computed (once) and True.

        An exception that is not a ``MocapError`` is a bug: it is raised here, with its traceback."""
        if self._over:
            return True
        if self._outcome is None:
            return False
        self._over = True
        value, error = self._outcome
        if self._stop.is_set() or isinstance(error, Cancelled):
            self.cancelled = True
            return True
        if error is None:
            try:
                self.result = self._context.run(self._apply, value)
            except MocapError as failure:
                error = failure
        if error is not None and not isinstance(error, MocapError):
            raise error
        self.error = error
        return True


class SteppedJob:
    """Work that must run on the main thread (Blender's render), a piece per tick: ``steps()`` makes a generator
    that yields ``(fraction, message)`` after each piece (a frame) and returns the job's ``result``. Between
    ticks the interface runs, and Esc stops the job between two pieces.

    Started in the background (``start``), the job first pushes an undo step; cancelled, or stopped by an error,
    it closes the generator (which cleans up after itself: temporary files) and returns the scene to that undo
    step, exactly as it was. Same interface as ``Job``."""

    def __init__(self, label: str, steps: Callable[[], Generator]):
        self.label = label
        self.fraction, self.message = 0.0, label
        self.result, self.error, self.cancelled = None, None, False
        self._make = steps
        self._steps = None
        self._context = contextvars.copy_context()
        self._over, self._echo, self._undo = False, False, False

    def start(self) -> "SteppedJob":
        """Remember the scene (an undo step); ``tick`` from the main thread until it returns True."""
        bpy.ops.ed.undo_push(message=f"Before {self.label}")
        self._undo = True
        return self

    def run(self) -> "SteppedJob":
        """Every piece here and now (headless), printing the progress."""
        self._echo = True
        while not self.tick():
            pass
        return self

    def cancel(self) -> None:
        """Stop now (main thread, between two pieces): clean up and restore the scene; nothing is kept."""
        if not self._over:
            self._stop()
            self.cancelled = True

    def _stop(self) -> None:
        self._over = True
        if self._steps is not None:
            self._steps.close()
        if self._undo:  # back to the step ``start`` pushed
            bpy.ops.ed.undo_push(message=f"{self.label} stopped")
            bpy.ops.ed.undo()

    def tick(self) -> bool:
        """Main thread: the next piece of work; True once the job is over (done, failed or cancelled).

        An exception that is not a ``MocapError`` is a bug: it is raised here, with its traceback."""
        if self._over:
            return True
        try:
            if self._steps is None:
                self._steps = self._context.run(self._make)
            self.fraction, self.message = self._context.run(next, self._steps)
        except StopIteration as done:
            self._over = True
            self.result = done.value
            return True
        except BaseException as error:
            self._steps = None  # a generator that raised is closed already
            self._stop()
            if not isinstance(error, MocapError):
                raise
            self.error = error
            return True
        if self._echo:
            print(f"[mocap_dynamics] {self.message}", flush=True)
        return False


def busy() -> bool:
    """A job is running in the background."""
    return bool(_running)


def running() -> Job | None:
    return _running[0] if _running else None


def _headless(context: bpy.types.Context) -> bool:
    return bpy.app.background or context.window is None


def _status(job: Job):
    """The status bar while ``job`` runs: its progress and message, and Esc to cancel."""

    def draw(header, context):
        layout = header.layout
        layout.label(text=f"Mocap Dynamics: {job.label}")
        layout.progress(factor=job.fraction, type="BAR", text=job.message)
        layout.label(text="Cancel", icon="EVENT_ESC")

    return draw


class JobOperator:
    """Mixin for an operator whose work is a ``Job``.

    ``job(context)`` makes the job (or reports why it cannot and returns None); ``finished(context,
    result)`` reports what the finished job did and returns the operator's result. ``execute`` runs the job
    in the background when Blender has a window (the operator stays modal until the job is over), else here
    and now. Job operators have no redo panel: redoing would run the job again, synchronously."""

    def execute(self, context):
        if busy():
            self.report({"ERROR"}, f"{running().label} is running. Wait for it, or press Esc to cancel it.")
            return {"CANCELLED"}
        with sidebar_messages():
            job = self.job(context)
        if job is None:
            return {"CANCELLED"}
        if _headless(context):
            return self._finish(context, job.run())
        self._job, self._workspace = job.start(), context.workspace
        _running.append(job)
        window_manager = context.window_manager
        self._timer = window_manager.event_timer_add(TICK, window=context.window)
        window_manager.modal_handler_add(self)
        self._workspace.status_text_set(_status(job))
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        if event.type == "ESC" and event.value == "PRESS":
            self._end(context)
            self._job.cancel()
            self.report({"WARNING"}, f"{self._job.label}: cancelled, nothing changed")
            return {"CANCELLED"}
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        try:
            over = self._job.tick()
        except BaseException:
            self._end(context)
            raise
        if not over:
            self._workspace.status_text_set(_status(self._job))  # redraws the status bar
            for area in context.screen.areas if context.screen else ():
                if area.type == "VIEW_3D":
                    area.tag_redraw()  # the sidebar shows the running step
            return {"PASS_THROUGH"}
        self._end(context)
        return self._finish(context, self._job)

    def _end(self, context) -> None:
        context.window_manager.event_timer_remove(self._timer)
        self._workspace.status_text_set(None)
        _running.remove(self._job)

    def _finish(self, context, job: Job):
        if job.cancelled:
            return {"CANCELLED"}
        if job.error is not None:
            self.report({"ERROR"}, job.error.one_line())
            return {"CANCELLED"}
        return self.finished(context, job.result)
