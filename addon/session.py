"""A trial between steps: the pipeline options stored on its collection, and its last result in this session.

The options are read back through the solver's one option parser (``options_from_dict``), so every option
a trial was processed with carries over to its next step. The last result of each trial is kept in memory
for the Blender session: the next step resumes from it (``pipeline.run``'s ``previous``) and recomputes
only what its options change. A reopened .blend starts with none and recomputes what it needs; a result
that no longer matches the scene (after an undo) is still a valid ``previous``: the pipeline reuses a step
only when its options and files are unchanged. The trial's files are looked for beside the saved .blend when
they are gone from where they were (``located``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import bpy
from bpy.app.handlers import persistent

from ..solver.errors import InputError
from ..solver.options import PATHS, options_from_dict
from ..solver.pipeline import PipelineOptions, PipelineResult
from .paths import located

#: The last result of each trial collection, by ``session_uid`` (stable across renames and undo).
_RESULTS: dict[int, PipelineResult] = {}


def stored_options(meta: dict, **changes) -> PipelineOptions:
    """The pipeline options a trial was last processed with (as stored on its collection), with ``changes``
    (``PipelineOptions`` fields)."""
    return replace(options_from_dict(meta.get("options", {})), **changes)


def trial_inputs(meta: dict, **changes) -> tuple[str, PipelineOptions]:
    """The trial's recording and pipeline options (as stored, with ``changes``), their files ``located``;
    ``MocapError`` for options that do not go together or a recording that is gone."""
    options = stored_options(meta, **changes)
    options = replace(options, **{name: located(getattr(options, name)) for name in PATHS})
    source = located(meta["source"])
    if not Path(source).is_file():
        raise InputError(f"The trial's recording {source} is not there any more",
                         "put it back, or beside this .blend file, and run the step again")
    return source, options


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
