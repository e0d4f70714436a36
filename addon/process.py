"""The one path from a file to a finished scene: the operators, the CLI and the tests call ``process_trial``.

It runs the solver pipeline, then builds or extends the trial's collection. If
anything fails while building, every data-block created so far is removed
again, so a failure never leaves a half-built scene behind.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import bpy

from ..solver.pipeline import PipelineOptions, PipelineResult, Progress, run
from .trial_scene import SceneOptions, add_results, create_trial_collection

#: The bpy.data collections a run may add to; rolled back together on failure.
_DATA = ("objects", "meshes", "materials", "actions", "collections", "armatures")


@contextlib.contextmanager
def all_or_nothing():
    """Remove every data-block created inside the block if it raises."""
    before = {name: set(getattr(bpy.data, name)) for name in _DATA}
    try:
        yield
    except BaseException:
        if bpy.context.object is not None and bpy.context.object.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        for name in _DATA:
            pool = getattr(bpy.data, name)
            for block in set(pool) - before[name]:
                pool.remove(block)
        raise


def process_trial(context: bpy.types.Context, path: str | Path, options: PipelineOptions = PipelineOptions(),
                  scene_options: SceneOptions = SceneOptions(), progress: Progress | None = None,
                  collection: bpy.types.Collection | None = None) -> tuple[PipelineResult, bpy.types.Collection]:
    """Run the pipeline on ``path``; create the trial's collection (or extend ``collection``) with the results."""
    progress = progress or (lambda fraction, message: None)
    result = run(path, options, progress)
    progress(0.0, "building the scene")
    with all_or_nothing():
        if collection is None:
            collection = create_trial_collection(context, result, scene_options)
        add_results(context, result, collection, scene_options)
    progress(1.0, f"scene ready: collection {collection.name!r}")
    return result, collection
