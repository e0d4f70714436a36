"""Reading the small text documents users write or keep (TOML options and marker sets, JSON models)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, TypeVar

from ..errors import InputError, MocapError

T = TypeVar("T")


def parse_document(path: str | Path, parse: Callable[[str], T], what: str, kind: str, fix: str,
                   error: type[MocapError] = InputError) -> T:
    """``parse`` of the UTF-8 text of ``path``; a missing or malformed file is one clear ``error`` naming
    ``what`` it should have been (e.g. "Marker-set file") and its ``kind`` (e.g. "TOML")."""
    path = Path(path)
    try:
        return parse(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{what} {path} does not exist", "check the path") from None
    except ValueError as failure:  # TOMLDecodeError, JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise error(f"{what} {path} is not valid {kind} ({failure})", fix) from None
