"""The manifest of a results folder: the files the last run wrote there.

A results folder (``python -m solver --out``, ``--tables``, a batch trial's folder, the sidebar's Export)
gets ``manifest.json``: which recording its files are about, when they were written, and their names. A new
run into the same folder removes the files the previous manifest lists and the new run did not write again
(the tables of a stage it no longer reaches, say), so every file the manifest lists belongs to one run, and
no stale table sits beside a new report. Files no manifest of ours lists are never touched.
"""

from __future__ import annotations

import json
import os
import uuid
from datetime import datetime, timezone
from pathlib import Path

from ..errors import InputError

MANIFEST = "manifest.json"
WRITER = "Mocap Dynamics"


def manifest_files(folder: str | os.PathLike) -> list[str]:
    """The file names the folder's manifest lists ([] without a manifest of ours)."""
    try:
        data = json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict) or data.get("written_by") != WRITER or not isinstance(data.get("files"), list):
        return []
    return [name for name in data["files"] if isinstance(name, str) and name == Path(name).name]


def update_manifest(folder: str | os.PathLike, names: list[str], source: str) -> Path:
    """Remove the previous run's files that ``names`` does not include; write the manifest of ``names``."""
    folder = Path(folder)
    for stale in set(manifest_files(folder)) - set(names) - {MANIFEST}:
        (folder / stale).unlink(missing_ok=True)
    text = json.dumps({"written_by": WRITER, "source": source,
                       "written_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                       "files": sorted(set(names) | {MANIFEST})}, indent=2)
    path = folder / MANIFEST
    temporary = folder / f".manifest.{uuid.uuid4().hex[:8]}.partial.json"
    try:
        temporary.write_text(text + "\n", encoding="utf-8")
        os.replace(temporary, path)
    except OSError as error:
        raise InputError(f"Cannot write {path}: {error.strerror or error}",
                         "check that the folder is writable and the disk has room") from None
    finally:
        temporary.unlink(missing_ok=True)
    return path
