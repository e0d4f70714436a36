"""Progress for long work: the window manager's progress bar and status text, or log lines when headless."""

from __future__ import annotations

import bpy


class ProgressReporter:
    """Callable ``(fraction, message)`` for the solver; use as a context manager around the work."""

    def __init__(self, context: bpy.types.Context):
        self.window_manager = context.window_manager
        self.workspace = context.workspace
        self.headless = bpy.app.background or self.window_manager is None or not self.window_manager.windows

    def __enter__(self):
        if not self.headless:
            self.window_manager.progress_begin(0.0, 1.0)
        return self

    def __call__(self, fraction: float, message: str) -> None:
        if self.headless:
            print(f"[mocap_dynamics] {message}", flush=True)
            return
        self.window_manager.progress_update(fraction)
        if self.workspace is not None:
            self.workspace.status_text_set(f"Mocap Dynamics: {message}")

    def __exit__(self, *exc):
        if not self.headless:
            self.window_manager.progress_end()
            if self.workspace is not None:
                self.workspace.status_text_set(None)
        return False
