"""The one path from a file to a finished scene: the operators, the CLI and the tests go through here.

``trial_job`` is what the sidebar runs: the solver pipeline in the background (resuming from the trial's last
result in this session), then ``build_scene`` on the main thread. ``process_trial`` does the same here and now
(scripts). If anything fails while building, every data-block created so far is removed again, so a failure
never leaves a half-built scene behind.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import bpy

from ..solver.errors import MocapError
from ..solver.pipeline import PipelineOptions, PipelineResult, Progress, run
from .jobs import Job
from .session import collection_of, keep_result, last_result
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


def build_scene(context: bpy.types.Context, result: PipelineResult, scene_options: SceneOptions = SceneOptions(),
                collection: bpy.types.Collection | None = None) -> bpy.types.Collection:
    """Create the trial's collection (or extend ``collection``) with ``result``, all or nothing; it becomes the
    trial's last result for the next step."""
    with all_or_nothing():
        if collection is None:
            collection = create_trial_collection(context, result, scene_options)
        add_results(context, result, collection, scene_options)
    keep_result(collection, result)
    return collection


def process_trial(context: bpy.types.Context, path: str | Path, options: PipelineOptions = PipelineOptions(),
                  scene_options: SceneOptions = SceneOptions(), progress: Progress | None = None,
                  collection: bpy.types.Collection | None = None) -> tuple[PipelineResult, bpy.types.Collection]:
    """Run the pipeline on ``path``; create the trial's collection (or extend ``collection``) with the results."""
    progress = progress or (lambda fraction, message: None)
    result = run(path, options, progress, previous=last_result(collection))
    progress(0.0, "building the scene")
    collection = build_scene(context, result, scene_options, collection)
    progress(1.0, f"scene ready: collection {collection.name!r}")
    return result, collection


def _collection(uid: int) -> bpy.types.Collection:
    """The trial collection whose ``session_uid`` is ``uid``; a ``MocapError`` if it was deleted meanwhile."""
    found = collection_of(uid)
    if found is None:
        raise MocapError("The trial's collection was deleted while the step ran", "run the step again")
    return found


def trial_job(label: str, path: str | Path, options: PipelineOptions, scene_options: SceneOptions = SceneOptions(),
              collection: bpy.types.Collection | None = None) -> Job:
    """The job of a sidebar step: the pipeline on ``path`` in the background, resuming from the trial's last
    result; then its collection (``collection``, or a new one) built on the main thread. The job's result is
    ``(PipelineResult, collection)``."""
    previous = last_result(collection)
    uid = None if collection is None else collection.session_uid

    def apply(result: PipelineResult):
        target = None if uid is None else _collection(uid)
        return result, build_scene(bpy.context, result, scene_options, target)

    return Job(label, lambda progress: run(path, options, progress, previous=previous), apply)
