"""A trial between steps: the pipeline options stored on its collection, and its last result in this session.

The options are read back through the solver's one option parser (``options_from_dict``), so every option
a trial was processed with carries over to its next step. The last result of each trial is kept in memory
for the Blender session: the next step resumes from it (``pipeline.run``'s ``previous``) and recomputes
only what its options change. A reopened .blend starts with none and recomputes what it needs; a result
that no longer matches the scene (after an undo) is still a valid ``previous``: the pipeline reuses a step
only when its options and files are unchanged.
"""

from __future__ import annotations

from dataclasses import replace

import bpy
from bpy.app.handlers import persistent

from ..solver.options import options_from_dict
from ..solver.pipeline import PipelineOptions, PipelineResult

#: The last result of each trial collection, by ``session_uid`` (stable across renames and undo).
_RESULTS: dict[int, PipelineResult] = {}


def stored_options(meta: dict, **changes) -> PipelineOptions:
    """The pipeline options a trial was last processed with (as stored on its collection), with ``changes``
    (``PipelineOptions`` fields)."""
    return replace(options_from_dict(meta.get("options", {})), **changes)


def last_result(collection: bpy.types.Collection | None) -> PipelineResult | None:
    """The trial's last pipeline result in this session, or None."""
    return None if collection is None else _RESULTS.get(collection.session_uid)


def collection_of(uid: int) -> bpy.types.Collection | None:
    """The collection whose ``session_uid`` is ``uid`` (None if it was deleted)."""
    return next((c for c in bpy.data.collections if c.session_uid == uid), None)


def keep_result(collection: bpy.types.Collection, result: PipelineResult) -> None:
    """Remember ``result`` as the trial's last one (and forget the results of collections that are gone)."""
    alive = {c.session_uid for c in bpy.data.collections}
    for uid in [uid for uid in _RESULTS if uid not in alive]:
        del _RESULTS[uid]
    _RESULTS[collection.session_uid] = result


@persistent
def _forget_all(*args) -> None:
    """Another .blend was loaded: its collections are other trials."""
    _RESULTS.clear()


def register():
    bpy.app.handlers.load_post.append(_forget_all)


def unregister():
    bpy.app.handlers.load_post.remove(_forget_all)
    _RESULTS.clear()
