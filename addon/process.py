"""The one path from a file to a finished scene: the operators, the CLI and the tests call ``process_trial``.

It runs the solver pipeline, then builds the scene. If anything fails while
building, every data-block created so far is removed again, so a failure never
leaves a half-built scene behind.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import bpy

from ..solver.pipeline import PipelineOptions, PipelineResult, Progress, run
from .trial_scene import SceneOptions, build_trial_scene

#: The bpy.data collections a run may add to; rolled back together on failure.
_DATA = ("objects", "meshes", "materials", "actions", "collections")


@contextlib.contextmanager
def all_or_nothing():
    """Remove every data-block created inside the block if it raises."""
    before = {name: set(getattr(bpy.data, name)) for name in _DATA}
    try:
        yield
    except BaseException:
        for name in _DATA:
            pool = getattr(bpy.data, name)
            for block in set(pool) - before[name]:
                pool.remove(block)
        raise


def process_trial(context: bpy.types.Context, path: str | Path, options: PipelineOptions = PipelineOptions(),
                  scene_options: SceneOptions = SceneOptions(),
                  progress: Progress | None = None) -> tuple[PipelineResult, bpy.types.Collection]:
    """Run the pipeline on ``path`` and build its collection in the active scene."""
    progress = progress or (lambda fraction, message: None)
    result = run(path, options, progress)
    progress(0.0, "building the scene")
    with all_or_nothing():
        collection = build_trial_scene(context, result, scene_options)
    progress(1.0, f"scene ready: collection {collection.name!r}")
    return result, collection
