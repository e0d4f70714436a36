"""Atomic file writing: a file is either written whole or not at all.

Every writer writes into a temporary file in the destination folder (same
file system, so the final ``os.replace`` is atomic) and renames it only after
the writing succeeded; on any error the temporary file is removed and the
destination is untouched.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import InputError


@contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; move it onto ``path`` when the block succeeds.

    The temporary name ends with ``suffix`` (default: ``path``'s), for writers that insist on one.
    """
    path = Path(path)
    if not path.parent.is_dir():
        raise InputError(f"Cannot write {path}: the folder {path.parent} does not exist",
                         "create the folder first or choose another one")
    if path.is_dir():
        raise InputError(f"Cannot write {path}: it is a folder", "give a file name")
    ending = path.suffix if suffix is None else suffix
    temporary = path.with_name(f".{path.stem}.{uuid.uuid4().hex[:8]}.partial{ending}")
    try:
        yield temporary
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise InputError(f"Cannot write {path}: {error.strerror or error}",
                         "check that the folder is writable and the disk has room") from error
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8, ``\\n`` line ends) atomically; return the path."""
    with atomic_path(path) as temporary, open(temporary, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    return Path(path)
