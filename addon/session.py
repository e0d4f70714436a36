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
from pathlib import Path, PureWindowsPath

import bpy
from bpy.app.handlers import persistent

from ..solver.errors import InputError
from ..solver.options import PATHS, options_from_dict
from ..solver.pipeline import PipelineOptions, PipelineResult

#: The options of a path property: "//" (relative to the .blend) allowed, as Blender 4.5+ wants it said.
PATH_OPTIONS = {"PATH_SUPPORTS_BLEND_RELATIVE"} if bpy.app.version >= (4, 5, 0) else set()

#: The last result of each trial collection, by ``session_uid`` (stable across renames and undo).
_RESULTS: dict[int, PipelineResult] = {}


def stored_options(meta: dict, **changes) -> PipelineOptions:
    """The pipeline options a trial was last processed with (as stored on its collection), with ``changes``
    (``PipelineOptions`` fields)."""
    return replace(options_from_dict(meta.get("options", {})), **changes)


def located(path: str | None) -> str | None:
    """``path``, or the file of that name beside the saved .blend when nothing is at ``path`` any more (the
    project's folder moved, or opened on another machine); None and "auto" stay as they are."""
    if path in (None, "auto") or Path(path).exists() or not bpy.data.filepath:
        return path
    beside = Path(bpy.data.filepath).parent / PureWindowsPath(path).name  # either separator
    return str(beside) if beside.is_file() else path


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


def output_path(path: str, field: str, folder: bool = True) -> str:
    """An operator's output ``path`` (a folder, or a file with ``folder`` False) made absolute, "//" relative
    to the saved .blend and an empty folder its folder; ``InputError`` naming ``field`` where the .blend is
    not saved, so nothing is written into whatever folder Blender was started from."""
    if path and not path.startswith("//"):
        return bpy.path.abspath(path)
    if not path and not folder:
        raise InputError(f"No {field} chosen", f"choose a {field} to write")
    if not bpy.data.filepath:
        raise InputError(f"No {field} chosen" if not path else
                         f"{field} {path} is relative to the .blend file, which is not saved yet",
                         f"choose a {field}, or save the .blend file to write beside it")
    return bpy.path.abspath(path or "//")


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
