"""One exception family for everything a user can fix.

Every error says what was wrong and what to do about it. The Blender operators
turn it into ``self.report({'ERROR'}, ...)``; the CLI prints ``one_line()`` and
exits non-zero. Anything that is *not* a ``MocapError`` is a bug in this project.
"""


class MocapError(Exception):
    """Base class: ``what`` went wrong, and ``fix``, what the user can do."""

    def __init__(self, what: str, fix: str = ""):
        self.what = what.rstrip(".")
        self.fix = fix.rstrip(".")[:1].upper() + fix.rstrip(".")[1:]
        super().__init__(self.one_line())

    def one_line(self) -> str:
        return f"{self.what}. {self.fix}." if self.fix else f"{self.what}."


class InputError(MocapError):
    """A file that cannot be read as a motion-capture trial (missing, truncated, inconsistent)."""


class ModelError(MocapError):
    """The body model cannot be built or calibrated from the data given."""


class SolverError(MocapError):
    """A solver was asked for something it cannot do with these inputs."""
