"""Paths an operator reads or writes, as a Blender user gives them: "//" relative to the saved .blend, files
that moved with it, no output into whatever folder Blender was started from."""

from __future__ import annotations

from pathlib import Path, PureWindowsPath

import bpy

from ..solver.errors import InputError

#: The options of a path property: "//" (relative to the .blend) allowed, as Blender 4.5+ wants it said.
PATH_OPTIONS = {"PATH_SUPPORTS_BLEND_RELATIVE"} if bpy.app.version >= (4, 5, 0) else set()


def located(path: str | None) -> str | None:
    """``path``, or the file of that name beside the saved .blend when nothing is at ``path`` any more (the
    project's folder moved, or opened on another machine); None and "auto" stay as they are."""
    if path in (None, "auto") or Path(path).exists() or not bpy.data.filepath:
        return path
    beside = Path(bpy.data.filepath).parent / PureWindowsPath(path).name  # either separator
    return str(beside) if beside.is_file() else path


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
