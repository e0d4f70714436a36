"""Atomic file writing: a file is either written whole or not at all, and a run's files all or none.

Every writer writes into a temporary file in the destination folder (same
file system, so the final ``os.replace`` is atomic) and renames it only after
the writing succeeded; on any error the temporary file is removed and the
destination is untouched.

Inside ``staged_outputs()`` (a command-line run, ``write_results``) the
renames wait until the block ends: the run's files appear together, after
all the work, and an error or an interrupt (Ctrl-C, SIGTERM) anywhere before
leaves none of them and no temporary file. A folder marked with
``results_folder`` gets a manifest of the run's files (``manifest``). Every
file moved into place is remembered (``written_paths``), so an interrupted
command can say what it kept.
"""

from __future__ import annotations

import os
import signal
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from ..errors import InputError
from .manifest import update_manifest

_STAGE: ContextVar["Outputs | None"] = ContextVar("mocap_dynamics_outputs", default=None)
_WRITTEN: list[Path] = []
_SIGNALS = {getattr(signal, name) for name in ("SIGINT", "SIGTERM") if hasattr(signal, name)}


class Outputs:
    """The files of one run: temporaries waiting for ``commit`` to move them onto their final paths."""

    def __init__(self):
        self.staged: dict[Path, Path] = {}  # final path -> temporary
        self.folders: dict[Path, str] = {}  # results folder -> the recording its files are about

    def results_folder(self, folder: str | os.PathLike, source: str) -> None:
        """Give ``folder`` a manifest of this run's files in it, and remove an earlier run's (``manifest``)."""
        self.folders[Path(folder)] = str(source)

    def stage(self, final: Path, temporary: Path) -> None:
        previous = self.staged.pop(final, None)
        if previous is not None:
            previous.unlink(missing_ok=True)
        self.staged[final] = temporary

    def discard(self) -> None:
        for temporary in self.staged.values():
            temporary.unlink(missing_ok=True)
        self.staged.clear()

    def commit(self) -> list[Path]:
        """Move every staged file into place (Ctrl-C and SIGTERM wait until it is done); update the manifests."""
        committed = []
        with signals_deferred():
            try:
                for final, temporary in list(self.staged.items()):
                    _replace(temporary, final)
                    del self.staged[final]
                    committed.append(final)
                for folder, source in self.folders.items():
                    names = [p.name for p in committed if p.parent.resolve() == folder.resolve()]
                    committed.append(update_manifest(folder, names, source))
            finally:
                _WRITTEN.extend(committed)
                self.discard()
        return committed


@contextmanager
def signals_deferred() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block ends, then act as they would have. For work that must not stop
    halfway: moving a run's files into place, and drawing a plot (matplotlib's renderer calls back into Python,
    and an exception raised there by a signal handler broke it: a ``ValueError`` or a segmentation fault).

    The handlers are swapped, not the signals blocked: a process's signal reaches any thread that does not block
    it, and Python then raises in the main thread all the same. Only in the main thread (elsewhere no handler
    runs), and only for signals whose handler Python installed (Blender's own are left alone)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {number: signal.getsignal(number) for number in _SIGNALS}
    previous = {number: handler for number, handler in previous.items() if handler is not None}
    for number in previous:
        signal.signal(number, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        for number in dict.fromkeys(caught):
            signal.raise_signal(number)


@contextmanager
def staged_outputs() -> Iterator[Outputs]:
    """Stage every atomic write inside the block and commit them when it ends; join an enclosing block."""
    outer = _STAGE.get()
    if outer is not None:
        yield outer
        return
    outputs = Outputs()
    token = _STAGE.set(outputs)
    try:
        yield outputs
    except BaseException:
        outputs.discard()
        raise
    finally:
        _STAGE.reset(token)
    outputs.commit()


def written_paths() -> list[Path]:
    """Every file this process moved into place, in order."""
    return list(_WRITTEN)


@contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; move it onto ``path`` when the block succeeds (inside
    ``staged_outputs``: when that block ends).

    The temporary name ends with ``suffix`` (default: ``path``'s), for writers that insist on one. The
    temporary path is absolute: Blender 4.5's writers resolve a relative one against a folder of their own,
    not the current one (``save_as_mainfile`` looked for ``out/`` under the repository, not the current folder).
    """
    path = Path(path)
    if not path.parent.is_dir():
        raise InputError(f"Cannot write {path}: the folder {path.parent} does not exist",
                         "create the folder first or choose another one")
    if path.is_dir():
        raise InputError(f"Cannot write {path}: it is a folder", "give a file name")
    ending = path.suffix if suffix is None else suffix
    temporary = path.absolute().with_name(f".{path.stem}.{uuid.uuid4().hex[:8]}.partial{ending}")
    stage = _STAGE.get()
    try:
        yield temporary
        if stage is not None:
            stage.stage(path, temporary)
        else:
            _replace(temporary, path)
            _WRITTEN.append(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _replace(temporary: Path, path: Path) -> None:
    try:
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise InputError(f"Cannot write {path}: {error.strerror or error}",
                         "check that the folder is writable and the disk has room") from error


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8, ``\\n`` line ends) atomically; return the path."""
    with atomic_path(path) as temporary, open(temporary, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    return Path(path)


def writable_folder(path: str | os.PathLike, flag: str, file: str | os.PathLike | None = None) -> Path:
    """Check, before any work, that files can be written into the folder ``path``: it is a folder, or its
    nearest existing parent is one, and a file can be created there. ``InputError`` naming ``flag`` (the
    option that gave the path; ``file``, the file it names, if it names one) when not. Nothing is created
    (``make_folder`` does that when writing)."""
    path = Path(path)
    shown = Path(file) if file is not None else path
    place = "a path in a folder" if file is not None else "a folder"
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        where = "is a file" if existing == shown else f"is under {existing}, which is a file"
        raise InputError(f"{flag} {shown} {where}, not a folder", f"give {flag} {place}")
    probe = existing / f".{uuid.uuid4().hex[:8]}.partial"
    try:
        probe.touch()
        probe.unlink()
    except OSError as error:
        raise InputError(f"Cannot write into {flag} {shown}: {existing} is not writable "
                         f"({error.strerror or error})", f"give {flag} {place} you can write to") from None
    return path


def make_folder(path: str | os.PathLike, flag: str) -> Path:
    """Create the folder ``path`` and its parents if needed; ``InputError`` naming ``flag`` when it cannot."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"Cannot create the folder {path} for {flag}: {error.strerror or error}",
                         f"give {flag} a folder you can write to") from None
    return path


def writable_file(path: str | os.PathLike, flag: str, suffix: str | None = None) -> Path:
    """Check, before any work, that the file ``path`` can be written (``writable_folder`` for its folder);
    ``InputError`` naming ``flag`` when not, or when it does not end in ``suffix``."""
    path = Path(path)
    if suffix is not None and path.suffix.lower() != suffix:
        raise InputError(f"{flag} {path} is not a {suffix} file", f"give {flag} a path ending in {suffix}")
    if path.is_dir():
        raise InputError(f"{flag} {path} is a folder", f"give {flag} a file name")
    writable_folder(path.parent, flag, file=path)
    return path
