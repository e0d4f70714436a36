"""Gap filling before reconstruction: which method fills which gap, and what was filled.

``fill_gaps(trial, options, segments)`` returns a ``GapFill``: the trial with its gaps filled, which
sample was filled by which method, and every gap that was left (and why). With the default options
(``method="auto"``) a gap of at most ``spline_max_s`` with measured samples on both sides is filled by a
spline through the marker's own samples (``spline``); a longer gap by the other markers of its segment
and its rigid neighbours moving as a rigid body (``rigid``) when at least three of them are measured
throughout, else from the marker's correlation with all other markers (``pca``, Gløersen & Federolf 2016):
up to ``pca_max_s``, and beyond when test fills of gaps as long elsewhere in the marker are trustworthy;
else by two donors and the spin about their axis from a third point or interpolated (``hinge``) when
carrying the marker that way from the gap's ends to where it is measured misses by at most
``hinge_trusted_error_m``. Nothing longer than ``max_gap_s`` is filled. The defaults come from
``scripts/bench_gap_fill.py``: see the README for the accuracy measured on real trials.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...errors import InputError, option
from ...io.trial import Trial
from .gaps import Gaps, find_gaps
from .pca import MIN_TRAINING_FRAMES, TEST_GAPS, expected_error, meet_ends, pca_fill
from .hinge import MIN_TEST_FRAMES, hinge_fill
from .rigid import MIN_DONORS, donor_candidates, rigid_fill
from .spline import DEGREES, spline_fill
from ...report_schema import GapFillSummary

METHODS = ("spline", "rigid", "pca", "hinge")  # codes in ``GapFill.method``: index + 1
CHOICES = ("auto", *METHODS, "none")
#: Measured samples a spline needs on each side of a gap.
SPLINE_SUPPORT = 2


@dataclass(frozen=True)
class GapFillOptions:
    """Which gaps are filled, and how.

    ``method``: ``"auto"`` (spline, then rigid body, then PCA, then hinge, as in the module docstring), one
    method for every gap (``"spline"``, ``"rigid"``, ``"pca"``, ``"hinge"``; untested), or ``"none"``.
    ``spline_max_s``: ``auto`` splines gaps up to this long [s]; ``pca_max_s``: ``auto`` fills gaps up to
    this long by PCA when the rigid-body fill cannot, and longer ones when PCA fills of gaps as long cut where
    the marker is measured miss by at most ``pca_trusted_error_m`` [m] RMS (``pca.expected_error``; 0: never);
    ``hinge_trusted_error_m``: ``auto`` fills a gap the others leave by the hinge fill when its test on the
    trial (``hinge.expected_error``) misses by at most this [m] RMS (0: never); ``max_gap_s``: no gap longer
    than this is filled (0: no limit).
    ``spline``: ``"cubic"`` or ``"quintic"``. ``pca_meet_ends``: the PCA fill meets the measured samples at
    both ends of a gap (beyond the paper, see ``pca``); False: Gløersen & Federolf's fill as published.
    ``pca_axes``: the PCA's columns along the subject's level axes (``"subject"``, beyond the paper:
    ``pca.subject_axes``) or the lab's (``"lab"``, the paper's).
    """

    method: str = "auto"
    spline_max_s: float = 0.1
    pca_max_s: float = 0.5
    max_gap_s: float = 0.0
    spline: str = "cubic"
    pca_meet_ends: bool = True
    pca_axes: str = "subject"
    pca_trusted_error_m: float = 0.01
    hinge_trusted_error_m: float = 0.01

    def __post_init__(self):
        if self.method not in CHOICES:
            raise InputError(f"Unknown gap fill method {self.method!r}", f"use one of {', '.join(CHOICES)}")
        if not isinstance(self.pca_meet_ends, bool):
            raise InputError(f"Gap fill option pca_meet_ends = {self.pca_meet_ends!r} is not true or false",
                             "give pca_meet_ends = true or false")
        if self.pca_axes not in ("subject", "lab"):
            raise InputError(f"Gap fill option pca_axes = {self.pca_axes!r} is not subject or lab",
                             "give pca_axes = \"subject\" or \"lab\"")
        if self.spline not in DEGREES:
            raise InputError(f"Unknown spline {self.spline!r} for gap filling", f"use {' or '.join(DEGREES)}")
        for name in ("spline_max_s", "pca_max_s", "max_gap_s", "pca_trusted_error_m", "hinge_trusted_error_m"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                unit = "seconds" if name.endswith("_s") else "metres"
                raise InputError(f"{option(f'gap_fill.{name}', value)} is not a number of {unit}",
                                 f"give {option(f'gap_fill.{name}', hint=unit)} as a number of {unit}, 0 or more")


@dataclass(frozen=True)
class Gap:
    """One gap of a marker: frames ``start:stop`` (0-based), filled by ``method`` or left (``reason``)."""

    label: str
    start: int
    stop: int
    method: str | None
    reason: str = ""


@dataclass(frozen=True)
class GapFill:
    """A trial with its gaps filled: ``trial`` (filled markers), ``method`` ``(T, M)`` (index into
    ``METHODS`` + 1 of the method that filled a sample; 0 where it was measured or is still missing) and
    every gap, filled or not."""

    trial: Trial
    method: np.ndarray
    gaps: tuple[Gap, ...]
    options: GapFillOptions

    @property
    def filled(self) -> np.ndarray:
        """``(T, M)`` bool: True where the sample was filled, not measured."""
        return self.method > 0

    def summary(self) -> GapFillSummary:
        """For the report: how much was filled, per marker the frames filled by each method (1-based frame
        ranges, as in the file), and the gaps left with the reason."""
        trial, filled = self.trial, self.filled
        markers, left = {}, {}
        for gap in self.gaps:
            frames = [gap.start + 1, gap.stop]
            if gap.method is None:
                left.setdefault(gap.label, []).append({"frames": frames, "reason": gap.reason})
                continue
            entry = markers.setdefault(gap.label, {"frames_filled": 0, "by_method": {}, "gaps": []})
            entry["frames_filled"] += gap.stop - gap.start
            entry["by_method"][gap.method] = entry["by_method"].get(gap.method, 0) + gap.stop - gap.start
            entry["gaps"].append({"frames": frames, "method": gap.method})
        return {
            "options": {"method": self.options.method, "spline_max_s": self.options.spline_max_s,
                        "pca_max_s": self.options.pca_max_s, "max_gap_s": self.options.max_gap_s,
                        "spline": self.options.spline, "pca_meet_ends": self.options.pca_meet_ends,
                        "pca_axes": self.options.pca_axes,
                        "pca_trusted_error_m": self.options.pca_trusted_error_m,
                        "hinge_trusted_error_m": self.options.hinge_trusted_error_m},
            "samples_filled": int(filled.sum()),
            "samples_filled_percent": 100.0 * filled.sum() / max(1, filled.size),
            "samples_by_method": {name: int((self.method == k + 1).sum()) for k, name in enumerate(METHODS)},
            "gaps_filled": sum(g.method is not None for g in self.gaps),
            "gaps_left": sum(g.method is None for g in self.gaps),
            "samples_still_missing": int(np.isnan(trial.markers).any(axis=2).sum()),
            "markers": markers,
            "left": left,
        }


def fill_gaps(trial: Trial, options: GapFillOptions = GapFillOptions(),
              segments: dict[str, tuple[str, ...]] | None = None) -> GapFill:
    """Fill the gaps of ``trial``'s markers; ``segments`` (segment -> marker labels, e.g. the calibrated
    model's) says which markers move together for the rigid-body fill. Fills use measured samples only,
    never other fills, so the order of the gaps does not matter. Loops run over gaps and markers, never
    over frames."""
    present = trial.present()
    gaps = find_gaps(~present)
    mates = segment_mates(trial.labels, segments or {})
    spline_ok = _spline_support(present, gaps)
    filling = _Filling(trial, present, gaps, options)
    queued = {"spline": [], "pca": []}  # filled marker by marker, all of a marker's gaps at once
    donors = {}  # marker -> its rigid fill's candidate donors (``rigid.donor_candidates``)
    for g, (m, start, stop) in enumerate(zip(gaps.marker, gaps.start, gaps.stop)):
        candidates, filling.outcome[g] = _candidates(options, (stop - start) / trial.rate, spline_ok[g])
        for name in candidates:
            if name == "spline" or (name == "pca" and filling.pca_trusted(g)):
                queued[name].append(g)
                break
            if name in ("rigid", "hinge"):
                if m not in donors:
                    donors[m] = donor_candidates(trial.markers, m, mates[m])
                if filling.rigid(g, mates[m], donors[m]) if name == "rigid" else filling.hinge(g, donors[m]):
                    break
    for m in np.unique(gaps.marker[queued["spline"]]):
        chosen = [g for g in queued["spline"] if gaps.marker[g] == m]
        frames = np.concatenate([np.arange(gaps.start[g], gaps.stop[g]) for g in chosen])
        filling.put_all(chosen, frames, spline_fill(trial.times, trial.markers[:, m], frames,
                                                    DEGREES[options.spline]), "spline")
    for m in np.unique(gaps.marker[queued["pca"]]):
        filling.pca([g for g in queued["pca"] if gaps.marker[g] == m])
    return filling.result()


class _Filling:
    """The filled markers, the method per sample and each gap's outcome while ``fill_gaps`` works."""

    def __init__(self, trial: Trial, present: np.ndarray, gaps: Gaps, options: GapFillOptions):
        self.trial, self.present, self.gaps, self.options = trial, present, gaps, options
        self.markers = trial.markers.copy()
        self.method = np.zeros(present.shape, dtype=np.int8)
        self.outcome = [""] * len(gaps)  # the method that filled each gap, or why it was left
        self.tested = {}  # (marker, gap length) -> PCA's expected error [m] (``pca.expected_error``)

    def put(self, g: int, positions: np.ndarray, name: str) -> None:
        m, start, stop = self.gaps.marker[g], self.gaps.start[g], self.gaps.stop[g]
        self.markers[start:stop, m] = positions
        self.method[start:stop, m] = METHODS.index(name) + 1
        self.outcome[g] = name

    def put_all(self, chosen: list[int], frames: np.ndarray, positions: np.ndarray, name: str) -> None:
        """Gaps ``chosen`` of one marker from ``positions`` at ``frames`` (which hold all their frames)."""
        at = np.full((self.trial.n_frames, 3), np.nan)
        at[frames] = positions
        for g in chosen:
            self.put(g, at[self.gaps.start[g]:self.gaps.stop[g]], name)

    def rigid(self, g: int, mates: list[int], donors: tuple[np.ndarray, np.ndarray]) -> bool:
        """Gap ``g`` by the rigid fill (``rigid``); False, with the reason, when too few donors are measured."""
        m, start, stop = self.gaps.marker[g], self.gaps.start[g], self.gaps.stop[g]
        positions = rigid_fill(self.trial.markers, self.present, m, start, stop, mates, donors)
        if positions is None:
            self.outcome[g] = (f"fewer than {MIN_DONORS} markers of its segment or rigid neighbours are measured "
                               "through the gap and move rigidly together")
            return False
        self.put(g, positions, "rigid")
        return True

    def hinge(self, g: int, donors: tuple[np.ndarray, np.ndarray]) -> bool:
        """Gap ``g`` by the hinge fill (``hinge``) when ``auto``'s test of it on the trial passes (any other
        method: whenever it is possible); False, with the reason, when not."""
        m, start, stop, length = self.gaps.marker[g], self.gaps.start[g], self.gaps.stop[g], int(self.gaps.length[g])
        auto = self.options.method == "auto"
        if auto and not self.options.hinge_trusted_error_m:
            self.outcome[g] = "; ".join(filter(None, [self.outcome[g], "hinge fill off (hinge_trusted_error_m = 0)"]))
            return False
        found = hinge_fill(self.trial.markers, self.present, m, start, stop, *donors)
        if found is not None and (not auto or found[1] <= self.options.hinge_trusted_error_m):
            self.put(g, found[0], "hinge")
            return True
        self.outcome[g] = "; ".join(filter(None, [self.outcome[g], (
            "no two of its segment's markers or rigid neighbours are measured through the gap and stay rigid "
            f"together, with the marker measured in {MIN_TEST_FRAMES} frames near the gap to test a hinge fill on"
            if found is None else
            f"its best hinge fill from two donors misses by {1000 * found[1]:.1f} mm RMS where the marker is "
            f"measured up to {length + 1} frames from the gap (hinge_trusted_error_m = "
            f"{self.options.hinge_trusted_error_m:g})")]))
        return False

    def pca(self, chosen: list[int]) -> None:
        """Gaps ``chosen`` of one marker by PCA, reconstructed with their measured neighbours so the fill can
        meet them (``pca.meet_ends``) unless the options ask for the paper's fill."""
        gaps, n_frames = self.gaps, self.trial.n_frames
        m = gaps.marker[chosen[0]]
        frames = np.unique(np.concatenate([np.arange(max(gaps.start[g] - 1, 0), min(gaps.stop[g] + 1, n_frames))
                                           for g in chosen]))
        positions = pca_fill(self.trial.markers, self.present, m, frames, self.options.pca_axes)
        if positions is None:
            for g in chosen:
                self.outcome[g] = (f"fewer than {MIN_TRAINING_FRAMES} frames have this marker and its predictors "
                                   "measured to learn the PCA model from")
            return
        at = np.full((n_frames, 3), np.nan)
        at[frames] = positions
        measured = self.trial.markers[:, m]
        for g in chosen:
            start, stop = gaps.start[g], gaps.stop[g]
            fill = at[start:stop]
            if self.options.pca_meet_ends:
                misfit = [measured[f] - at[f] if 0 <= f < n_frames else None for f in (start - 1, stop)]
                fill = meet_ends(fill, start, stop, *misfit)
            self.put(g, fill, "pca")

    def pca_trusted(self, g: int) -> bool:
        """True when ``auto`` may fill gap ``g`` by PCA: it is at most ``pca_max_s`` long, or PCA fills of
        gaps as long cut where the marker is measured miss by at most ``pca_trusted_error_m`` (else the
        gap's outcome says why not)."""
        options, length = self.options, int(self.gaps.length[g])
        if options.method != "auto" or length / self.trial.rate <= options.pca_max_s + 1e-9:
            return True
        if not options.pca_trusted_error_m:
            self.outcome[g] += f"; longer than pca_max_s = {options.pca_max_s:g} s"
            return False
        m = self.gaps.marker[g]
        if (m, length) not in self.tested:
            self.tested[m, length] = expected_error(self.trial.markers, self.present, m, length, self.options.pca_axes)
        error = self.tested[m, length]
        if error is not None and error <= options.pca_trusted_error_m:
            return True
        self.outcome[g] += (f"; longer than pca_max_s = {options.pca_max_s:g} s, and " +
                            (f"the marker is not measured {length + 2} frames in a row in {TEST_GAPS} places to "
                             "test a PCA fill on (the trial is too short to learn the motion from)"
                             if error is None else
                             f"PCA fills of {length}-frame gaps cut where the marker is measured miss by "
                             f"{1000 * error:.1f} mm RMS (pca_trusted_error_m = {options.pca_trusted_error_m:g}): "
                             "the trial has not shown the model enough of the motion"))
        return False

    def result(self) -> GapFill:
        filled = self.method > 0
        trial, conversions = self.trial, self.trial.conversions
        if filled.any():
            conversions += (f"gaps: {int(filled.sum())} missing samples of {int(filled.any(axis=0).sum())} "
                            f"markers filled ({self.options.method} gap filling; listed in the report)",)
        listed = tuple(Gap(trial.labels[m], int(start), int(stop), *((o, "") if o in METHODS else (None, o)))
                       for m, start, stop, o in zip(self.gaps.marker, self.gaps.start, self.gaps.stop, self.outcome))
        return GapFill(replace(trial, markers=self.markers, conversions=conversions), self.method, listed,
                       self.options)


def _candidates(options: GapFillOptions, seconds: float, spline_ok: bool) -> tuple[tuple[str, ...], str]:
    """The methods to try on a gap of ``seconds``, in order, and why it is left if none is possible."""
    if options.method == "none":
        return (), "gap filling is off"
    if options.max_gap_s and seconds > options.max_gap_s + 1e-9:
        return (), f"longer than max_gap_s = {options.max_gap_s:g} s"
    if options.method == "auto":
        if spline_ok and seconds <= options.spline_max_s + 1e-9:
            return ("spline",), ""
        return ("rigid", "pca", "hinge"), ""  # PCA beyond pca_max_s and hinge only when tested on the trial
    if options.method == "spline" and not spline_ok:
        return (), f"a spline needs {SPLINE_SUPPORT} measured samples on each side of the gap"
    return (options.method,), ""


def _spline_support(present: np.ndarray, gaps: Gaps) -> np.ndarray:
    """True for gaps with ``SPLINE_SUPPORT`` measured samples right before and right after them."""
    n_frames = present.shape[0]
    ok = gaps.inside.copy()
    for k in range(1, SPLINE_SUPPORT + 1):
        before, after = gaps.start - k, gaps.stop + k - 1
        ok &= (before >= 0) & (after < n_frames)
        ok[ok] &= present[before[ok], gaps.marker[ok]] & present[after[ok], gaps.marker[ok]]
    return ok


def segment_mates(labels: tuple[str, ...], segments: dict[str, tuple[str, ...]]) -> list[list[int]]:
    """For each marker, the indices of the other markers on its segment (empty when it is on none)."""
    index = {label: i for i, label in enumerate(labels)}
    mates = [[] for _ in labels]
    for members in segments.values():
        found = [index[label] for label in members if label in index]
        for i in found:
            mates[i] = [j for j in found if j != i]
    return mates
