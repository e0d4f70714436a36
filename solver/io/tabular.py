"""Numeric text blocks (TRC and OpenSim .mot/.sto data rows) parsed with numpy, not row by row.

Cells are separated by tabs or spaces. In tab-separated rows an empty cell
(two tabs in a row, or a trailing tab) is a missing value, as OpenSim writes
missing markers; "nan" is read as missing too. A row with fewer cells than
the header announces is missing its last cells (NaN); extra cells at the end
of a row are accepted only when empty. Rows written with decimal commas (a
European locale's export) and no point anywhere are read as decimal points.
"""

from __future__ import annotations

import codecs
import re
import warnings
from pathlib import Path

import numpy as np

from ..errors import InputError

#: A time column whose steps are under this fraction of its resolution, over at least this many rows, may repeat
#: times by rounding (``even_time``).
ROUNDED, MIN_ROUNDED_ROWS = 0.9, 10

_SPACES_AFTER_TAB = re.compile(r"\t +(?=\t|$)", re.MULTILINE)  # a cell of spaces only, after a tab
_SPACES_AT_START = re.compile(r"^ +(?=\t)", re.MULTILINE)  # a first cell of spaces only


def read_lines(path: Path, kind: str) -> list[str]:
    """The file's lines without line ends; InputError if it cannot be read or is binary (``kind``: the format).

    UTF-8 (a byte-order mark, as Windows editors write, is dropped) or, with its byte-order mark, UTF-16.
    """
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise InputError(f"Cannot read {path}: {error.strerror or error}", "check the path and permissions") from None
    if raw[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        raw = raw.decode("utf-16", errors="replace").encode("utf-8")
    if b"\x00" in raw[:65536]:
        raise InputError(f"{path.name} is not a {kind} text file (it holds binary data)", f"choose a {kind} file")
    text = raw.decode("utf-8-sig", errors="replace")
    return (text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text).split("\n")


def data_rows(lines: list[str], first: int) -> tuple[list[str], list[int]]:
    """The non-blank lines from index ``first`` on, and their 1-based line numbers."""
    numbers = [i + 1 for i in range(first, len(lines)) if lines[i].strip()]
    return [lines[n - 1] for n in numbers], numbers


def parse_rows(rows: list[str], line_numbers: list[int], n_columns: int, expected: str,
               source: str) -> tuple[np.ndarray, list[str]]:
    """The rows as a float64 array ``(len(rows), n_columns)``, and notes on what was filled in.

    ``rows`` are the non-blank data lines, ``line_numbers`` their 1-based line
    numbers in the file (for messages), ``expected`` says where ``n_columns``
    comes from (e.g. "the header says NumMarkers=51, so 155 columns").
    """
    text = "\n".join(rows)
    tabbed = "\t" in text
    if tabbed:
        text = _fill_empty_cells(text)
        lines = text.split("\n")
        counts = np.fromiter((line.count("\t") + 1 for line in lines), dtype=np.int64, count=len(lines))
    else:
        lines = rows
        counts = np.fromiter((len(line.split()) for line in lines), dtype=np.int64, count=len(lines))
    notes = []
    if np.any(counts != n_columns):
        lines, note = _fit_rows(lines, counts, n_columns, line_numbers, expected, source, "\t" if tabbed else None)
        text = "\n".join(lines)
        notes += [note] if note else []
    values = _numbers(text, len(lines) * n_columns)
    if values is None and "," in text and "." not in text:  # a decimal-comma locale's export: -0,297591
        values = _numbers(text.replace(",", "."), len(lines) * n_columns)
        notes += ["numbers: written with decimal commas, read as decimal points"] if values is not None else []
    if values is None:
        _raise_first_bad_cell(lines, line_numbers, source, "\t" if tabbed else None)
    return values.reshape(len(lines), n_columns), notes


def check_increasing(times: np.ndarray, line_numbers: list[int], source: str) -> None:
    """InputError naming the first row whose time is not larger than the one before (or is missing)."""
    bad = np.flatnonzero(~(np.diff(times) > 0))
    if np.isnan(times[:1]).any():
        bad = np.array([-1])
    if bad.size:
        i = bad[0] + 1
        previous = f" after {times[i - 1]:.6g} s" if i > 0 else ""
        raise InputError(f"{source}: time does not increase at line {line_numbers[i]} "
                         f"({times[i]:.6g} s{previous})",
                         "fix or remove that row: times must increase from row to row")


def even_time(times: np.ndarray, rate: float | None = None) -> np.ndarray | None:
    """Evenly stepping times that ``times`` are rounded from, where they do not increase row to row (a 1200 or
    2000 Hz plate's times written to the millisecond, 250 Hz markers' to the hundredth, repeat): the straight
    line through them, at ``rate`` (a header's) or else a whole rate in Hz if that fits too, its steps under
    ``ROUNDED`` of the smallest step written and each time within rounding (0.6 of that) of it, over
    ``MIN_ROUNDED_ROWS`` rows or more; None where they increase already, or round no such steps (a row repeated
    in a table sampled as finely as it is written)."""
    steps = np.diff(times)
    if len(times) < MIN_ROUNDED_ROWS or not np.isfinite(times).all() or (steps > 0).all() or (steps < 0).any():
        return None
    index = np.arange(len(times))
    written = np.min(steps[steps > 0], initial=np.inf)
    fitted = np.polyfit(index, times, 1)[0]
    candidates = ([1.0 / rate] if rate else []) + ([1.0 / max(round(1.0 / fitted), 1), fitted] if fitted > 0 else [])
    for step in candidates:
        even = np.mean(times - step * index) + step * index
        if step < ROUNDED * written and np.max(np.abs(times - even)) <= 0.6 * written:
            return even
    return None


def increasing_times(times: np.ndarray, line_numbers: list[int], source: str, rate: float | None = None
                     ) -> tuple[np.ndarray, tuple[str, ...]]:
    """``times`` checked to increase row to row (``check_increasing``), after reading a column written coarser
    than it is sampled as the even steps it rounds (``even_time``, at ``rate`` if it fits), and a note saying so."""
    even = even_time(times, rate)
    if even is None:
        check_increasing(times, line_numbers, source)
        return times, ()
    return even, (f"{source}: its time column, written to {np.min(np.diff(np.unique(times))):g} s, read as the even "
                  f"steps it rounds ({1 / (even[1] - even[0]):.6g} Hz)",)


def _fill_empty_cells(text: str) -> str:
    """Write "nan" into every empty cell of tab-separated rows (str.replace: much faster than a regex)."""
    if "\t " in text:
        text = _SPACES_AFTER_TAB.sub("\t", text)
    if "\n " in text or text.startswith(" "):
        text = _SPACES_AT_START.sub("", text)
    if "\t\t" in text:
        text = text.replace("\t\t", "\tnan\t").replace("\t\t", "\tnan\t")  # two passes fill runs of any length
    if "\t\n" in text:
        text = text.replace("\t\n", "\tnan\n")
    if "\n\t" in text:
        text = text.replace("\n\t", "\nnan\t")
    return ("nan" if text.startswith("\t") else "") + text + ("nan" if text.endswith("\t") else "")


def _numbers(text: str, n_values: int) -> np.ndarray | None:
    """All numbers in ``text`` (any whitespace separates them), or None if a cell is not a number."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # numpy's "could not be read to its end"
        try:
            values = np.fromstring(text, dtype=np.float64, sep=" ")
        except (DeprecationWarning, ValueError):
            return None
    return values if values.size == n_values else None


def _fit_rows(lines, counts, n_columns, line_numbers, expected, source, separator) -> tuple[list[str], str]:
    """Pad short rows with missing cells and trim empty extra cells; InputError if the columns disagree."""
    lines = list(lines)
    fixed_short = 0
    for i in np.flatnonzero(counts != n_columns):
        cells = lines[i].split(separator)
        extra = [c for c in cells[n_columns:] if c.strip().lower() not in ("", "nan")]
        if extra:
            raise InputError(f"{source}: line {line_numbers[i]} has {len(cells)} values, but {expected}",
                             "check that the header matches the data (marker or column count)")
        if len(cells) < n_columns:
            fixed_short += 1
            cells += ["nan"] * (n_columns - len(cells))
        lines[i] = "\t".join(cells[:n_columns])
    if fixed_short == len(lines):
        raise InputError(f"{source}: {expected}, but the data rows have {counts.max()} values",
                         "check that the header matches the data (marker or column count)")
    note = (f"rows: {fixed_short} rows had fewer values than the header announces; their last cells were read "
            "as missing") if fixed_short else ""
    return lines, note


def _raise_first_bad_cell(lines, line_numbers, source, separator) -> None:
    for line, number in zip(lines, line_numbers):
        for cell in line.split(separator):
            try:
                float(cell)
            except ValueError:
                raise InputError(f"{source}: line {number} has {cell.strip()!r} where a number should be",
                                 "fix or remove that line") from None
    raise InputError(f"{source}: the data rows could not be read as numbers", "check the file")
