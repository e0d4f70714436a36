"""The command line: the pipeline's option flags, shared by ``python -m solver``, ``scripts/process_trial.py``
and ``scripts/batch.py`` (one parser, so they cannot drift), and ``python -m solver`` itself.

    python -m solver INPUT [--out DIR] [--options FILE.toml] [pipeline flags]     (from the repository root)

runs the pipeline on one recording, the solver alone (no Blender), and writes ``DIR/report.json`` (every
stage's figures, and the files written), ``DIR/report.txt`` (the summary it also prints), the tables and
the plots (``solver.results``); without ``--out``, DIR is ``out/NAME`` (``default_out``). Flags override the
values of ``--options``, which override the defaults.
Exit codes: 0 done; 2 bad input or options (one line on stderr: what is wrong and what to do); 130 (Ctrl-C)
or 143 (SIGTERM) interrupted (one line: "interrupted: nothing written", or what was already complete); 1 an
unexpected error (a bug: the traceback, then one ``error:`` line).

Output paths are checked (and their folders created) before any work; the outputs are written together at
the end (``io.atomic.staged_outputs``), so a failed or interrupted run leaves no file of its own behind.
Messages name options as flags (``CommandLineSpelling``).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from difflib import get_close_matches
from pathlib import Path
from typing import Callable, TypeVar

from .contact import FORCE_MODELS, SURFACE_MODELS
from .dynamics import SCHEMES
from .errors import UNSET, InputError, MocapError, Spelling, spoken_as
from .io.atomic import staged_outputs, writable_folder, write_text, written_paths
from .io.conventions import UNIT_OVERRIDES, UP_AXES
from .kinematics.gap_fill import CHOICES as GAP_FILL_METHODS
from .kinematics.marker_weights import MARKER_WEIGHTS, ROOT_WEIGHT
from .model import TEMPLATES
from .model.inertia import SEGMENT_MASS_SOURCES, TORSO_CENTRE_SOURCES
from .model.level_head import HEADS
from .pipeline import DISCOVER, STAGES, PipelineOptions, options_from_dict, options_from_toml, run
from .report import summary
from .results import write_results
from .zerog import KINDS as ZERO_GRAVITY_KINDS
from .zerog.manoeuvres import LIMBS as ZERO_GRAVITY_LIMBS

EXIT_OK, EXIT_BUG, EXIT_BAD_INPUT = 0, 1, 2
#: Interrupted by a signal: 128 + the signal's number, as shells report it (130 Ctrl-C, 143 SIGTERM).
EXIT_SIGNAL_BASE = 128
T = TypeVar("T")
_DEFAULT = PipelineOptions()

def _cutoff(text: str) -> float | str | None:
    """``--cutoff``: ``auto``, ``winter``, ``none`` or a positive frequency in Hz."""
    if text.lower() in ("auto", "winter", "none"):
        return None if text.lower() == "none" else text.lower()
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not auto, winter, none or a frequency in Hz") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive frequency in Hz")
    return value


#: Pipeline flags by group: (flag, the ``PipelineOptions`` field it sets (``table.field`` for the nested
#: ``import``, ``gap_fill`` and ``zero_gravity`` options), argparse keywords, whether its value is a path).
#: Flags that are not given are absent from the parsed namespace.
PIPELINE_FLAGS = {
    "pipeline": (
        ("--options", "options", {"metavar": "FILE.toml", "help": "pipeline options from a TOML file (flags "
                                                                  "override them)"}, True),
        ("--until", "until", {"choices": STAGES, "help": f"last stage to run (default: {_DEFAULT.until})"}, False),
    ),
    "import": (
        ("--grf", "grf", {"metavar": "FILE.mot", "help": "OpenSim .mot with the trial's ground reaction forces "
                                                         "(default: NAME_grf.mot next to NAME.trc, if any)"}, True),
        ("--units", "import.units", {"choices": UNIT_OVERRIDES, "help": "override the file's length unit"}, False),
        ("--up-axis", "import.up_axis", {"choices": UP_AXES, "help": (
            "the file's up axis (default: its format's convention, OpenSim's Y for a TRC, unless its markers "
            "stand clearly taller along the other)")}, False),
        ("--keep-prefix", "import.strip_prefix", {"action": "store_false", "help": "keep subject prefixes in marker "
                                                                            "labels"}, False),
        ("--subject", "import.subject", {"metavar": "NAME", "help": "the subject to read from a file that holds "
                                                                "several (NAME of NAME:LASI; default: the one with "
                                                                "most markers)"}, False),
        ("--plate-delay", "import.plate_delay", {"type": float, "metavar": "S", "help": (
            "how late the force plates run behind the markers, in seconds: they are moved that much earlier "
            "(default 0; the report warns when it measures a delay that matters)")}, False),
    ),
    "body model": (
        ("--model", "template", {"choices": sorted(TEMPLATES), "help": f"body model template (default: "
                                                                       f"{_DEFAULT.template})"}, False),
        ("--mass", "mass", {"type": float, "help": "subject mass in kg (default: the static trial's quiet "
                                                   "standing on force plates, unless the trial's own plates, while "
                                                   "they carry the whole body, differ by over 3 %%; else the trial's "
                                                   "own plates; else an assumed 70 kg that the report flags)"}, False),
        ("--static", "static", {"metavar": "FILE", "help": "static trial of the same subject for calibration "
                                                           "(.c3d or .trc)"}, True),
        ("--markerset", "markerset", {"metavar": "FILE.toml", "help": "TOML mapping of markers to segments, for "
                                                                      "unknown marker sets; 'discover' finds the "
                                                                      "segments from the motion (done anyway when "
                                                                      "the labels match no known set)"}, True),
        ("--sex", "sex", {"choices": ["male", "female"], "help": f"de Leva inertia table (default: "
                                                                 f"{_DEFAULT.sex})"}, False),
        ("--shoe-mass", "shoe_mass", {"type": float, "metavar": "KG", "help": "mass of each shoe, part of the "
                                      "body mass and added to the feet (default: "
                                      f"{_DEFAULT.shoe_mass:g}, a trainer's; 0: barefoot)"}, False),
        ("--torso-centre", "torso_centre", {"choices": list(TORSO_CENTRE_SOURCES), "help": "where the torso's "
                                            "centre of mass lies: Dumas et al. 2007's, behind its axis from L5/S1 "
                                            "to the neck, or the inertia table's (default: "
                                            f"{_DEFAULT.torso_centre})"}, False),
        ("--segment-masses", "segment_masses", {"choices": list(SEGMENT_MASS_SOURCES), "help": "the segments' "
                                                "shares of the body mass: Dumas et al. 2007's or the inertia "
                                                f"table's (default: {_DEFAULT.segment_masses})"}, False),
        ("--head", "head", {"choices": list(HEADS), "help": "segments without markers held by rules (level: a head "
                            "upright, facing where the torso faces; a lower-body set's head, arms and trunk "
                            "following the pelvis's slow motion) or welded to their parents as the papers' rigid "
                            f"upper body (default: {_DEFAULT.head})"}, False),
        ("--opensim-model", "opensim_model", {"metavar": "FILE.osim", "help": "segment masses, CM and inertia "
                                              "from an OpenSim model where its bodies map onto ours (e.g. an "
                                              "AddBiomechanics-scaled model) instead of the inertia table"}, True),
    ),
    "gap filling": (
        ("--fill", "gap_fill.method", {"choices": GAP_FILL_METHODS, "help": "how marker gaps are filled before "
                                       "reconstruction (default: auto, spline for short gaps, rigid body, PCA or "
                                       "two markers' hinge, where tested, for longer ones; none: off)"}, False),
        ("--fill-max-gap", "gap_fill.max_gap_s", {"type": float, "metavar": "S", "help": "fill no gap longer "
                                                  "than this (default: 0, no limit)"}, False),
    ),
    "reconstruction and dynamics": (
        ("--reconstruct", "method", {"choices": ["otm", "lee"], "help": "OTM (default) or Lee's "
                                                                        "constraint-consistent estimation"}, False),
        ("--otm-mode", "otm_mode", {"choices": ["fast", "paper"], "help": "OTM solver: fast (default) or the "
                                                                          "paper's QR mode (slow)"}, False),
        ("--tolerance", "tolerance", {"type": float, "help": f"OTM tolerance on ||Phi(q)|| (default "
                                                             f"{_DEFAULT.tolerance:g})"}, False),
        ("--marker-weights", "marker_weights", {"choices": list(MARKER_WEIGHTS), "help": "OTM's marker "
                                                f"weights: weighted (the pelvis's markers weigh {ROOT_WEIGHT:g}, "
                                                "and a marker that leaves its segment while the segment's other "
                                                "markers stay on it weighs less; the default) or equal (the "
                                                "paper's)"}, False),
        ("--cutoff", "cutoff", {"type": _cutoff, "metavar": "{auto,winter,none,HZ}", "help": "zero-lag "
                                "Butterworth cutoff before differentiating: auto (default: Winter's residual "
                                "analysis per trial where the body lands, 6 Hz for 0.4 s after a hard landing, "
                                "elsewhere at most 8 Hz or more for a runner's short contacts), winter (Winter's "
                                "throughout), none (the paper's raw differences) or a frequency in Hz"},
         False),
        ("--derivatives", "derivatives", {"choices": list(SCHEMES), "help": "finite differences: central (default) "
                                          "or forward (the paper's, consistent with Euler integration)"}, False),
    ),
    "contact": (
        ("--contact-forces", "contact_forces", {"choices": list(FORCE_MODELS), "help": "contact forces solved frame "
                                                "by frame within friction cones (default: per_frame) or the "
                                                "paper's springs (spring)"}, False),
        ("--surfaces", "surfaces", {"choices": list(SURFACE_MODELS), "help": "contact surfaces found from resting "
                                    "points: the floor, boxes, seats (detected; the default with per-frame "
                                    "forces) or the paper's one plane (plane; the default with springs)"}, False),
    ),
    "outputs": (
        ("--opensim", "opensim", {"action": "store_true", "help": "also write OUT/opensim/: the model (.osim), "
                                                                 "coordinates, external loads and moments as "
                                                                 "OpenSim files"}, False),
        ("--plots", "plots", {"action": "store_true", "help": "also draw the plots as PNG (marker errors, OTM "
                                                             "convergence, joint torques, GRF; needs matplotlib)"},
         False),
    ),
    "zero gravity": (
        ("--zero-gravity", "zero_gravity.kind", {"choices": ZERO_GRAVITY_KINDS, "help": "the zero-gravity variant "
                                                 "(default: captured, the trial's motion on a floating body)"}, False),
        ("--zero-g-momentum", "zero_gravity.momentum", {"choices": ["zero", "first_frames"], "help": "the captured "
                                                        "motion's initial momentum (default: zero)"}, False),
        ("--zero-g-limbs", "zero_gravity.limbs", {"choices": list(ZERO_GRAVITY_LIMBS), "help": "which limbs make "
                                                  "the manoeuvre (default: legs)"}, False),
        ("--zero-g-angle", "zero_gravity.angle_deg", {"type": float, "metavar": "DEG", "help": "manoeuvre angle "
                                                      "(hip flexion or sideways swing; default 60)"}, False),
        ("--zero-g-duration", "zero_gravity.duration_s", {"type": float, "metavar": "S", "help": "duration of "
                                                          "each manoeuvre step or ladder rung (default 1)"}, False),
        ("--zero-g-vmax", "zero_gravity.v_max_deg_s", {"type": float, "metavar": "DEG_S", "help": "joint speed cap "
                                                       "of the manoeuvres (default: none, the quintic)"}, False),
    ),
}


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr (exit code 2), like every other error."""

    def error(self, message: str):
        self.exit(EXIT_BAD_INPUT, f"error: {_suggested(self, message)}. Run {self.prog} --help for the options.\n")


class _FlagsParser(argparse.ArgumentParser):
    """The pipeline flags alone, whose usage errors are ``InputError``s (``parse_pipeline_flags``)."""

    def error(self, message: str):
        raise InputError(_suggested(self, message), "use the flags of python -m solver --help")


def _suggested(parser: argparse.ArgumentParser, message: str) -> str:
    """``message`` with the flag each unrecognized one is likely a misspelling of (``--stattic`` -> ``--static``)."""
    if not message.startswith("unrecognized arguments: "):
        return message
    flags = [flag for action in parser._actions for flag in action.option_strings]
    words = message.split()[2:]
    guesses = [f"{word}: did you mean {close[0]}?" for word in words if word.startswith("--")
               and (close := get_close_matches(word.split("=")[0], flags, 1))]
    if not any(word.startswith("-") for word in words) and \
            any(Path(word).suffix.lower() in (".c3d", ".trc") for word in words):  # a second recording, no flag's
        guesses.append(f"{parser.prog} takes one recording: process several with scripts/batch.py")
    return f"{message} ({'; '.join(guesses)})" if guesses else message


def parse_pipeline_flags(flags: list[str]) -> argparse.Namespace:
    """Pipeline flags given as words (one trial's line in a batch's list), parsed as the command line would;
    ``InputError`` for an unknown flag or a bad value."""
    parser = _FlagsParser(add_help=False)
    add_pipeline_arguments(parser)
    return parser.parse_args(flags)


def add_pipeline_arguments(parser: argparse.ArgumentParser, *, per_trial: bool = True) -> None:
    """Add the pipeline flags (``PIPELINE_FLAGS``) to ``parser``; ``per_trial=False`` leaves out ``--grf``
    (one trial's forces), for commands that process many trials."""
    for group, flags in PIPELINE_FLAGS.items():
        arguments = parser.add_argument_group(group)
        for flag, dest, keywords, _ in flags:
            if per_trial or dest != "grf":
                arguments.add_argument(flag, dest=dest, default=argparse.SUPPRESS, **keywords)


def pipeline_options(args: argparse.Namespace) -> PipelineOptions:
    """The ``PipelineOptions`` of parsed flags: defaults, then ``--options``, then the flags given."""
    given = vars(args)
    base = options_from_toml(given["options"]) if "options" in given else PipelineOptions()
    values = {}
    for _, dest, _, _ in _flags():
        if dest in given and dest != "options":  # "table.field" fills a nested table (``pipeline.NESTED``)
            *table, name = dest.split(".")
            (values.setdefault(table[0], {}) if table else values)[name] = given[dest]
    return options_from_dict(values, base)


def pipeline_argv(args: argparse.Namespace, folder: Path = Path()) -> list[str]:
    """The pipeline flags that were given, as arguments again (paths made absolute, relative ones taken from
    ``folder``, by default the working folder), for a child process."""
    given, argv = vars(args), []
    for flag, dest, keywords, is_path in _flags():
        if dest not in given:
            continue
        value = given[dest]
        if keywords.get("action") == "store_false":
            argv += [] if value else [flag]
        elif keywords.get("action") == "store_true":
            argv += [flag] if value else []
        else:
            absolute = is_path and value not in ("auto", DISCOVER)
            argv += [flag, str((folder / value).resolve()) if absolute else str(value)]
    return argv


def _flags():
    return (flag for flags in PIPELINE_FLAGS.values() for flag in flags)


class CommandLineSpelling(Spelling):
    """Options as this command line's flags (``PIPELINE_FLAGS``): ``--units mm``, ``--mass KG``; an option
    without a flag as its line in the ``--options`` file."""

    def spell(self, name: str, value=UNSET, hint: str = "value") -> str:
        found = next(((flag, keywords) for flag, dest, keywords, _ in _flags() if dest == name), None)
        if found is None:
            table, _, field = name.rpartition(".")
            shown = f"<{hint}>" if value is UNSET else repr(value)
            return f"{field} = {shown} in the {f'[{table}] table of the ' if table else ''}--options file"
        flag, keywords = found
        if keywords.get("action") == "store_false":
            return flag
        return f"{flag} {keywords.get('metavar', hint.upper()) if value is UNSET else value}"


COMMAND_LINE = CommandLineSpelling()


class Interrupted(BaseException):
    """SIGTERM, raised like Ctrl-C's ``KeyboardInterrupt`` so that every ``with`` block on the way out cleans
    up (temporary files, staged outputs). A ``BaseException``: ``except Exception`` does not swallow it."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_interrupted(signum, frame):
    raise Interrupted(signum)


@contextmanager
def interruptible() -> Iterator[None]:
    """SIGTERM raises ``Interrupted`` inside this block (main thread only; elsewhere it changes nothing)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def interrupted_line() -> str:
    """The one line an interrupted command prints: what it had written before (complete files only)."""
    kept = list(dict.fromkeys(written_paths()))
    if not kept:
        return "interrupted: nothing written"
    names = ", ".join(p.name for p in kept[:4]) + (f" and {len(kept) - 4} more" if len(kept) > 4 else "")
    return f"interrupted: kept the {len(kept)} file{'s' if len(kept) > 1 else ''} already complete ({names})"


def log(fraction: float, message: str) -> None:
    """Progress as lines on stdout (headless runs)."""
    print(f"[mocap_dynamics] {message}", flush=True)


def check_not_a_folder(path: str | Path, batch: str = "scripts/batch.py") -> None:
    """A folder given as the recording: one line that points to the command for a folder, ``batch``."""
    if Path(path).is_dir():
        raise InputError(f"{path} is a folder, not a recording",
                         f"give one .c3d or .trc file of it, or process the folder with {batch}")


def solve(path: str | Path, options: PipelineOptions, out: str | Path) -> dict:
    """Run the pipeline on one recording; write report.json, report.txt, the tables (and plots) into ``out``
    (checked and created first), all together at the end; return the report."""
    check_not_a_folder(path)
    out = writable_folder(out, "--out")
    with staged_outputs():
        result = run(path, options, log, compile_ahead=True)
        written, notes = write_results(result, out, flag="--out")
        report = result.report()
        report["tables"] = {"files": [str(p) for p in written], "notes": notes}
        write_text(out / "report.json", json.dumps(report, indent=2))
        text = summary(report)
        write_text(out / "report.txt", text)
    log(1.0, f"wrote report.json, report.txt and {len(written)} files to {out}"
        + "".join(f"; {note}" for note in notes))
    print(text, end="", flush=True)
    return report


def main(argv: list[str] | None = None) -> int:
    """``python -m solver``; returns the exit code."""
    parser = OneLineParser(prog="python -m solver", description="Process one motion-capture trial with the "
                                                                "solver alone (no Blender).")
    parser.add_argument("input", help="a .c3d or .trc recording")
    parser.add_argument("--out", metavar="DIR", help="folder for report.json, report.txt, tables and plots "
                                                     "(created; default: out/NAME, NAME the recording's)")
    add_pipeline_arguments(parser)
    args = parser.parse_args(argv)
    out = args.out if args.out is not None else default_out(args.input)
    return guarded(lambda: solve(args.input, pipeline_options(args), out))[0]


def default_out(path: str | Path) -> Path:
    """Where ``python -m solver`` writes without ``--out``: ``out/NAME`` in the current folder, NAME the
    recording's file name without its extension (as ``make demo`` writes ``out/``)."""
    return Path("out") / Path(path).stem


def _signal_inside(error: BaseException) -> BaseException | None:
    """The ``KeyboardInterrupt`` or ``Interrupted`` behind ``error``, if a C extension turned the signal into
    another exception (numba's dispatcher raises ``SystemError`` when the handler fires while it loads a kernel)."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, (KeyboardInterrupt, Interrupted)):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def guarded(action: Callable[[], T]) -> tuple[int, T | None]:
    """Run ``action`` for a command line: (exit code, its result). Messages name options as flags. A
    ``MocapError`` is one ``error:`` line on stderr (exit 2); Ctrl-C or SIGTERM one ``interrupted:`` line (exit
    130 or 143); anything else is a bug: the traceback, then one ``error:`` line (exit 1)."""
    try:
        with interruptible(), spoken_as(COMMAND_LINE):
            return EXIT_OK, action()
    except (KeyboardInterrupt, Interrupted) as error:
        print(interrupted_line(), file=sys.stderr, flush=True)
        return EXIT_SIGNAL_BASE + getattr(error, "signum", signal.SIGINT), None
    except MocapError as error:
        print(f"error: {error.one_line()}", file=sys.stderr)
        return EXIT_BAD_INPUT, None
    except Exception as error:
        signal_error = _signal_inside(error)
        if signal_error is not None:  # raised inside a C extension (numba loading a kernel) that wrapped it
            print(interrupted_line(), file=sys.stderr, flush=True)
            return EXIT_SIGNAL_BASE + getattr(signal_error, "signum", signal.SIGINT), None
        traceback.print_exc()
        print(f"error: unexpected {type(error).__name__}: {error} (a bug: please report it with the traceback "
              "above)", file=sys.stderr)
        return EXIT_BUG, None
