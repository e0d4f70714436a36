"""One exception family for everything a user can fix, in the caller's language.

Every error says what was wrong and what to do about it. The Blender operators
turn it into ``self.report({'ERROR'}, ...)``; the CLI prints ``one_line()`` and
exits non-zero. Anything that is *not* a ``MocapError`` is a bug in this project.

A message that names an option (the fix is often "import with the units mm")
names it through ``option(name, value)``, spelled for whoever called: Python
callers read ``ImportOptions(units='mm')``, the command line ``--units mm``
(``solver.cli``), the Blender sidebar its field, ``Units = Millimetres``
(``addon.messages``). The caller says who it is with ``spoken_as(spelling)``
around the work; the default is Python. Option names are the ``PipelineOptions``
fields, ``import.<field>`` and ``zero_gravity.<field>`` for the nested options.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

#: ``option(name)`` without a value: the option is named, not set to something.
UNSET = object()
#: The nested option tables: option name prefix -> the Python class that holds them.
NESTED_CLASSES = {"import": "ImportOptions", "zero_gravity": "ZeroGravityOptions", "gap_fill": "GapFillOptions"}


class MocapError(Exception):
    """Base class: ``what`` went wrong, and ``fix``, what the user can do."""

    def __init__(self, what: str, fix: str = ""):
        self.what = what.rstrip(".")
        self.fix = fix.rstrip(".")[:1].upper() + fix.rstrip(".")[1:]
        super().__init__(self.one_line())

    def one_line(self) -> str:
        """The message on one line, whatever went into it (a corrupt file's names may hold line breaks)."""
        text = f"{self.what}. {self.fix}." if self.fix else f"{self.what}."
        return " ".join(text.split())


class InputError(MocapError):
    """A file that cannot be read as a motion-capture trial (missing, truncated, inconsistent)."""


class ModelError(MocapError):
    """The body model cannot be built or calibrated from the data given."""


class SolverError(MocapError):
    """A solver was asked for something it cannot do with these inputs."""


class Spelling:
    """How a kind of caller names an option: the Python spelling; subclasses for the CLI and Blender."""

    def spell(self, name: str, value=UNSET, hint: str = "value") -> str:
        """``name`` (e.g. "mass", "import.units") set to ``value``; ``hint`` says what a value is ("kg")."""
        table, _, field = name.rpartition(".")
        shown = f"<{hint}>" if value is UNSET else repr(value)
        return f"{NESTED_CLASSES[table]}({field}={shown})" if table else f"{field}={shown}"


_SPELLING: ContextVar[Spelling] = ContextVar("mocap_dynamics_spelling", default=Spelling())


def option(name: str, value=UNSET, hint: str = "value") -> str:
    """The option ``name`` (set to ``value``, if given) as the current caller spells it (see the module notes)."""
    return _SPELLING.get().spell(name, value, hint)


@contextmanager
def spoken_as(spelling: Spelling) -> Iterator[None]:
    """Messages made inside this block name options as ``spelling`` does."""
    token = _SPELLING.set(spelling)
    try:
        yield
    finally:
        _SPELLING.reset(token)
