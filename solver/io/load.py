"""``load_trial``: one entry point for every marker file format."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError, option
from .c3d import read_c3d
from .conventions import ImportOptions
from .trc import read_trc
from .trial import Trial

READERS = {".c3d": read_c3d, ".trc": read_trc}


def load_trial(path: str | Path, options: ImportOptions | None = None) -> Trial:
    """Read a C3D or TRC recording into a ``Trial``: metres, newtons, seconds, Z up, NaN for missing samples.

    ``trial.conversions`` says what was converted on the way in, ``trial.warnings``
    what the user should know. Any problem with the file raises ``InputError``.
    """
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path} is a folder, not a recording",
                         "give one .c3d or .trc file of it")
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise InputError(f"Cannot read {path.name}: unknown file type {path.suffix or '(no extension)'!r}",
                         f"load a .c3d or .trc marker file (a GRF .mot goes in {option('grf', hint='path')})")
    if not path.is_file():
        raise InputError(f"Cannot read {path}: no such file", "check the path")
    return reader(path, options or ImportOptions())
