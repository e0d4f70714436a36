"""From what a reader found in a file to a ``Trial``: the steps every marker reader shares.

A reader first keeps one subject's markers of a file that holds several (``one_subject``), then hands over
the raw markers ``(T, M, 3)`` in file units and axes with
NaN for missing samples; here they are scaled to metres, turned Z up, samples
that are not finite or lie beyond ``ABSURD_M`` (a corrupt value, never a
position in a capture volume, whatever the units) and samples at exactly
(0, 0, 0) (how many systems write "not seen") made missing, labels cleaned,
markers without a single sample dropped (with a warning), the body's size
checked against the units (``plausibility.check_marker_spread``), and the gaps
summarised, each step recorded in ``Trial.conversions``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np

from ..errors import InputError, option
from .conventions import ImportOptions, to_z_up
from .plates import plate_note, plate_samples
from .plausibility import check_marker_spread
from .trial import ForcePlate, Trial

#: Marker coordinates beyond this [m] are corrupt values (a capture volume is tens of metres; a wrong unit
#: makes it at most 1000 times larger): they become missing samples.
ABSURD_M = 1e5


def assemble_trial(source: str, labels: list[str], markers: np.ndarray, rate: float, start_time: float, *,
                   scale: float, up_axis: str, options: ImportOptions, conversions: list[str],
                   warnings: list[str], plates: tuple[ForcePlate, ...] = (), metadata: dict | None = None) -> Trial:
    """The finished trial; ``markers`` are in file units/axes, ``plates`` already in world units/axes."""
    if markers.shape[1] == 0:
        raise InputError(f"{source} has no markers", "export the trial with its marker trajectories")
    if markers.shape[0] == 0:
        raise InputError(f"{source} has no frames", "export the trial with its marker trajectories")
    if not (np.isfinite(rate) and rate > 0):
        raise InputError(f"{source}: the marker rate {rate!r} Hz is not a positive number",
                         "fix the rate in the file header")
    conversions, warnings = list(conversions), list(warnings)
    with np.errstate(over="ignore", invalid="ignore"):
        markers = to_z_up(np.asarray(markers, dtype=np.float64) * scale, up_axis)
    _drop_corrupt(markers, labels, warnings)
    at_origin = np.all(markers == 0.0, axis=2)
    if at_origin.any():
        markers[at_origin] = np.nan
        conversions.append(f"samples: {_count(at_origin.sum(), 'marker sample')} at exactly (0, 0, 0), the usual "
                           "'not seen' value, read as missing")
    labels = _unprefixed(_unquoted(labels, conversions), options.strip_prefix, conversions, warnings)
    markers, labels, empty = _drop_empty(source, markers, labels, warnings)
    warnings += check_marker_spread(markers, scale)
    trial = Trial(source=source, labels=tuple(labels), markers=markers, rate=float(rate),
                  start_time=float(start_time), plates=tuple(plates), warnings=tuple(warnings),
                  metadata=dict(metadata or {}) | {"length_scale": scale, "empty_markers": empty})
    conversions.append(_gap_summary(trial))
    if plates:
        conversions += list(dict.fromkeys(n for p in plates for n in p.notes))
        conversions.append(plate_note(plates, rate))
    return replace(trial, plate_samples=plate_samples(plates, trial.times, rate), conversions=tuple(conversions))


def _drop_corrupt(markers: np.ndarray, labels: list[str], warnings: list[str]) -> None:
    """Samples with a non-finite or absurd coordinate (``ABSURD_M``) become missing, with one warning line."""
    with np.errstate(invalid="ignore"):
        corrupt = (np.abs(markers) > ABSURD_M).any(axis=2)  # infinities included
    if not corrupt.any():
        return
    markers[corrupt] = np.nan
    per_marker = corrupt.sum(axis=0)
    worst = ", ".join(f"{labels[m] if m < len(labels) else m} ({per_marker[m]})" for m in np.argsort(-per_marker)[:5]
                      if per_marker[m])
    warnings.append(f"{corrupt.sum()} marker samples were not finite or beyond {ABSURD_M / 1000:g} km (corrupt "
                    f"values) and are read as missing: {worst}{' ...' if np.count_nonzero(per_marker) > 5 else ''}")


def _unquote(label: str) -> str:
    """A label without surrounding spaces and quotes (some writers quote every name: "r_thigh3")."""
    label = label.strip()
    return label[1:-1].strip() if len(label) > 2 and label[0] == label[-1] and label[0] in "\"'" else label


def _unquoted(labels: list[str], conversions: list[str]) -> list[str]:
    """Labels ``_unquote``d, the quotes' removal said; a name left empty becomes ``markerN``."""
    labels = [label.strip() for label in labels]
    unquoted = [_unquote(label) for label in labels]
    quoted = sum(before != after for before, after in zip(labels, unquoted))
    if quoted:
        conversions.append(f"labels: removed the quotes around {_count(quoted, 'label')}")
    return [label or f"marker{i + 1}" for i, label in enumerate(unquoted)]


def _split(label: str) -> tuple[str, str]:
    """A label's subject prefix ("" if none) and marker name: ("A", "LASI") of "A:LASI", of "'A:LASI'"."""
    prefix, _, name = _unquote(label).rpartition(":")
    return prefix.strip(), name


def subjects(split: list[tuple[str, str]]) -> list[str]:
    """The prefixes of the subjects whose marker names another prefix's markers repeat ("A" and "B" of A:LASI
    and B:LASI, two people captured together), most markers first, from the labels ``_split``: the prefix with
    most markers and those that repeat some of its names. None if no prefix repeats its names: a lone subject,
    with props beside it even if the props' names repeat one another's (Ball1:b1 and Ball2:b1)."""
    names = {}
    for prefix, name in split:
        if prefix:
            names.setdefault(prefix, set()).add(name)
    if not names:
        return []
    largest = max(names, key=lambda p: len(names[p]))
    shared = [p for p in names if p == largest or names[p] & names[largest]]
    return sorted(shared, key=lambda p: -len(names[p])) if len(shared) > 1 else []


def one_subject(source: str, labels: list[str], subject: str | None) -> tuple[np.ndarray, list[str], list[str]]:
    """Which markers (M,) to read from a file that may hold several subjects (``subjects``): ``subject``'s (None:
    the one with most markers, with a warning naming the others) and those of no subject (props, unlabelled
    ones); with the conversion and warning lines. A reader calls it before anything looks at the markers (the
    up axis: two people side by side spread sideways). A ``subject`` that no label's prefix names is an
    InputError, or a warning if no label has a prefix."""
    split = [_split(label) for label in labels]
    found = subjects(split)
    owners = [prefix for prefix, _ in split]
    prefixes = list(dict.fromkeys(p for p in owners if p))
    everything = np.ones(len(labels), dtype=bool)
    if subject is not None and not prefixes:
        return everything, [], [f"{option('import.subject', subject)}: no label of {source} carries a subject "
                                "prefix (as in Subject:LASI), so all its markers were read"]
    warnings = []
    if subject is not None:
        chosen = next((p for p in prefixes if p.lower() == subject.lower()), None)
        if chosen is None:
            raise InputError(f"{option('import.subject', subject)} names no subject of {source}, whose labels' "
                             f"prefixes are {', '.join(prefixes)}", f"give one of {', '.join(prefixes)}")
    elif len(found) > 1:
        chosen = found[0]
        warnings.append(f"{source} holds {len(found)} subjects whose marker names repeat ({', '.join(found)}): "
                        f"processed {chosen}'s markers; for another, give {option('import.subject', found[1])}")
    else:
        return everything, [], []
    keep = np.array([owner not in found or owner == chosen for owner in owners])
    if keep.all():
        return keep, [], warnings
    dropped = list(dict.fromkeys(owner for owner, k in zip(owners, keep) if not k))
    return keep, [f"labels: kept subject {chosen}'s {_count(owners.count(chosen), 'marker')}, dropped the "
                  f"{_count(int((~keep).sum()), 'marker')} of {', '.join(dropped)}"], warnings


def _unprefixed(labels: list[str], strip_prefix: bool, conversions: list[str], warnings: list[str]) -> list[str]:
    """Labels without their subject prefix, except those it would give a name another marker has (two props'
    Ball1:b1 and Ball2:b1 stay as they are); names still repeated are numbered."""
    if strip_prefix and any(":" in label for label in labels):
        stripped = [label.rsplit(":", 1)[-1] or label for label in labels]
        owners = {}
        for label, name in zip(labels, stripped):
            owners.setdefault(name, set()).add(label)
        strip = [":" in label and len(owners[name]) == 1 for label, name in zip(labels, stripped)]
        kept = list(dict.fromkeys(label for label, s in zip(labels, strip) if ":" in label and not s))
        if any(strip):
            prefixes = sorted({label.rsplit(":", 1)[0] + ":" for label, s in zip(labels, strip) if s})
            conversions.append(f"labels: removed the prefix {', '.join(map(repr, prefixes))} "
                               f"({_count(sum(strip), 'label')})")
            labels = [name if s else label for label, name, s in zip(labels, stripped, strip)]
        if kept:
            warnings.append(f"Kept the label prefixes of {', '.join(kept)}: without them two markers would "
                            "share a name")
    repeats = [label for label, n in Counter(labels).items() if n > 1]
    if repeats:
        seen = Counter()
        renamed = []
        for label in labels:
            seen[label] += 1
            renamed.append(label if seen[label] == 1 else f"{label}_{seen[label]}")
        warnings.append(f"Marker names used more than once were numbered: {', '.join(repeats)}")
        labels = renamed
    return labels


def _drop_empty(source: str, markers: np.ndarray, labels: list[str], warnings: list[str]):
    """Markers without a single sample are dropped (with a warning); returns markers, labels, dropped labels."""
    has_samples = (~np.isnan(markers).any(axis=2)).any(axis=0)
    if not has_samples.any():
        raise InputError(f"{source}: no marker has a single valid sample",
                         "check the export: every marker is missing in every frame")
    empty = [label for label, ok in zip(labels, has_samples) if not ok]
    if empty:
        warnings.append(f"Dropped {len(empty)} marker(s) missing in every frame: {', '.join(empty)}")
        markers = markers[:, has_samples]
        labels = [label for label, ok in zip(labels, has_samples) if ok]
    return markers, labels, empty


def _gap_summary(trial: Trial) -> str:
    gaps = sorted((g for g in trial.gaps() if not g.complete), key=lambda g: -g.missing)
    if not gaps:
        return f"gaps: none (all {trial.n_markers} markers present in all {trial.n_frames} frames)"
    missing = 100 * (~trial.present()).mean()
    return (f"gaps: {missing:.2f} % of marker samples missing (NaN); {len(gaps)} of {trial.n_markers} markers "
            f"{'has' if len(gaps) == 1 else 'have'} gaps: "
            + "; ".join(f"{g.label} {_count(g.missing, 'frame')} in {_count(g.gaps, 'gap')} (longest {g.longest})"
                        for g in gaps))


def _count(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless one: "1 gap", "3 gaps"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
