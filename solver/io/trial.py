"""The ``Trial``: one motion-capture recording in the solver's units and axes.

Conventions (see README, "Conventions"): metres, newtons, seconds; world frame
right-handed with Z up; missing marker samples are NaN, never zero; force
plates report the ground reaction force acting *on the subject* (positive Z
while standing on a level plate).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..constants import STANDARD_GRAVITY
from ..report_schema import TrialSummary


@dataclass(frozen=True)
class ForcePlate:
    """One force platform in world coordinates, at its own (analog) rate.

    ``force`` is the ground reaction force on the subject [N], ``cop`` the
    centre of pressure on the plate surface [m] (NaN while the plate is
    unloaded), ``free_moment`` the moment about the COP [N·m] (vertical for a
    level plate). ``corners`` are the four plate corners [m], in order around
    the plate, NaN when the file does not give them (OpenSim GRF files).
    ``foot``: the one foot (segment name) the plate measures, when known (a
    plate under both feet split between them, ``contact.shared_plates``).
    """

    name: str
    corners: np.ndarray  # (4, 3)
    rate: float  # Hz, full (analog) rate
    start_time: float  # s, time of the first sample
    force: np.ndarray  # (Tf, 3)
    cop: np.ndarray  # (Tf, 3)
    free_moment: np.ndarray  # (Tf, 3)
    notes: tuple[str, ...] = ()  # what the reader converted; joins Trial.conversions when attached
    foot: str = ""

    @property
    def times(self) -> np.ndarray:
        return self.start_time + np.arange(len(self.force)) / self.rate


@dataclass(frozen=True)
class PlateSamples:
    """All plates on the marker time base: arrays ``(T, P, 3)``; see ``ForcePlate`` for meaning."""

    force: np.ndarray
    cop: np.ndarray
    free_moment: np.ndarray


@dataclass(frozen=True)
class MarkerGaps:
    """Gap statistics of one marker: frames missing, number of gaps, longest gap in frames."""

    label: str
    missing: int
    gaps: int
    longest: int

    @property
    def complete(self) -> bool:
        return self.missing == 0


@dataclass(frozen=True)
class Trial:
    """A recording: markers ``(T, M, 3)`` [m], labels, rate [Hz], start time [s], force plates.

    ``plates`` keep the plates at full rate; ``plate_samples`` has them
    resampled to the marker frames (what the solvers use). ``conversions``
    records, in words, everything the reader changed on the way in (units,
    axes, prefixes, dropped samples), so reports can say what was done;
    ``warnings`` what the user should know but that did not stop the import
    (e.g. a marker with no samples at all was dropped).
    """

    source: str
    labels: tuple[str, ...]
    markers: np.ndarray
    rate: float
    start_time: float = 0.0
    plates: tuple[ForcePlate, ...] = ()
    plate_samples: PlateSamples | None = None
    conversions: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    metadata: dict = field(default_factory=dict)

    @property
    def n_frames(self) -> int:
        return self.markers.shape[0]

    @property
    def n_markers(self) -> int:
        return self.markers.shape[1]

    @property
    def times(self) -> np.ndarray:
        return self.start_time + np.arange(self.n_frames) / self.rate

    @property
    def duration(self) -> float:
        return (self.n_frames - 1) / self.rate

    def marker(self, label: str) -> np.ndarray:
        """Trajectory ``(T, 3)`` of one marker by label."""
        return self.markers[:, self.labels.index(label)]

    def present(self) -> np.ndarray:
        """``(T, M)`` bool: True where the marker sample exists."""
        return ~np.isnan(self.markers).any(axis=2)

    def gaps(self) -> tuple[MarkerGaps, ...]:
        """Per-marker gap statistics, vectorized over frames."""
        missing = ~self.present()  # (T, M)
        padded = np.zeros((missing.shape[0] + 2, missing.shape[1]), dtype=np.int8)
        padded[1:-1] = missing
        edges = np.diff(padded, axis=0).T  # (M, T + 1): +1 at a gap's start, -1 one past its end
        marker, start = np.nonzero(edges == 1)  # marker by marker, in time order: the k-th start and end pair up
        length = np.nonzero(edges == -1)[1] - start
        count = np.bincount(marker, minlength=len(self.labels))
        longest = np.zeros(len(self.labels), dtype=int)
        np.maximum.at(longest, marker, length)
        return tuple(MarkerGaps(label, int(n), int(c), int(k))
                     for label, n, c, k in zip(self.labels, missing.sum(axis=0), count, longest))

    def summary(self) -> TrialSummary:
        """The report's ``trial`` section: size, gaps, quiet-standing weight on the plates, conversions."""
        from .plates import quiet_standing_weight

        gaps = self.gaps()
        weight = quiet_standing_weight(self)
        return {
            "frames": self.n_frames,
            "rate_hz": self.rate,
            "start_time_s": self.start_time,
            "duration_s": self.duration,
            "markers": self.n_markers,
            "force_plates": len(self.plates),
            "missing_samples_percent": 100.0 * sum(g.missing for g in gaps) / max(1, self.n_frames * self.n_markers),
            "markers_with_gaps": {g.label: {"missing": g.missing, "gaps": g.gaps, "longest": g.longest}
                                  for g in gaps if not g.complete},
            "body_weight_n": weight,
            "body_mass_kg_from_plates": None if weight is None else weight / STANDARD_GRAVITY,
            "conversions": list(self.conversions),
            "warnings": list(self.warnings),
        }


def _interpolate(values: np.ndarray, times: np.ndarray, new_times: np.ndarray) -> np.ndarray:
    """Linear interpolation along axis 0; NaN wherever either neighbouring sample is NaN or outside the data."""
    i = np.clip(np.searchsorted(times, new_times, side="right") - 1, 0, len(times) - 2)
    w = ((new_times - times[i]) / (times[i + 1] - times[i])).reshape((-1,) + (1,) * (values.ndim - 1))
    with np.errstate(invalid="ignore"):
        out = np.where(w < 1e-9, values[i],
                       np.where(w > 1 - 1e-9, values[i + 1], (1 - w) * values[i] + w * values[i + 1]))
    outside = (new_times < times[0] - 1e-9) | (new_times > times[-1] + 1e-9)
    out[outside] = np.nan
    return out


def resample(trial: Trial, rate: float) -> Trial:
    """The trial on a new marker rate [Hz] over the same time span (gaps stay gaps, plates keep full rate)."""
    if trial.n_frames < 2 or rate == trial.rate:
        return trial
    n = int(np.floor(trial.duration * rate + 1e-9)) + 1
    new_times = trial.start_time + np.arange(n) / rate
    samples = trial.plate_samples
    if samples is not None:
        samples = PlateSamples(*(_interpolate(a, trial.times, new_times) for a in
                                 (samples.force, samples.cop, samples.free_moment)))
    return replace(trial, markers=_interpolate(trial.markers, trial.times, new_times), rate=float(rate),
                   plate_samples=samples,
                   conversions=trial.conversions + (f"resampled from {trial.rate:g} Hz to {rate:g} Hz (linear)",))
