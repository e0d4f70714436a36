"""Compile the solver's kernels ahead of their first use.

numba compiles a kernel the first time it runs and caches it on disk (``NUMBA_CACHE_DIR``): the first run of
each stage waits for it. ``compile_kernels`` runs the default pipeline on the project's own short sample walk
(``solver.sample``), which compiles every kernel a default run needs with the argument types real trials give
them, so the Blender extension can do it in the background right after it is enabled.
"""

from __future__ import annotations

import tempfile

from .pipeline import PipelineOptions, Progress, run
from .sample import write_sample


def compile_kernels(progress: Progress) -> None:
    """Run every default stage once on the sample walk (its results are dropped)."""
    with tempfile.TemporaryDirectory(prefix="mocap-dynamics-") as folder:
        run(write_sample(folder)["c3d"], PipelineOptions(), progress)
