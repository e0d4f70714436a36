"""Estimated against measured ground reaction forces, when the trial has force plates (cf. Brubaker Fig. 9).

The plates are only compared with, never used by the estimate. Matching:

- frames: the contact estimate's frames (``Contact.times``) are found among
  the trial's marker frames, where ``Trial.plate_samples`` puts the plates;
- a *plate stance* is a run of frames with the plate's vertical force above
  ``threshold``; it belongs to the foot whose contact points are, on
  average over the stance, horizontally nearest the plate's centre of
  pressure; a *foot stance* is a run with the estimated vertical force on
  that foot above ``threshold``. A plate stance and a foot stance of the same
  foot that overlap are one contact: its onset and offset timing errors are
  estimated minus measured, in seconds (none where a run touches the first
  or last frame: it was cut off);
- a plate only sees the feet on it, so the totals are compared on *covered*
  frames only: every foot stance overlaps a plate stance of its foot (no
  loaded foot off the plates) and every plate has data.

Figures: RMSE of the total vertical force and of the horizontal force vector
in % of body weight (``m g`` of the model), Pearson correlations of the
vertical, anteroposterior (direction of travel of the root) and mediolateral
components, all over the covered frames. ``threshold`` defaults to 5 % of
body weight, above plate noise and the estimate's sigmoid tails.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import SolverError
from ..io.trial import Trial
from .estimate import Contact

#: Default contact threshold, as a fraction of body weight.
THRESHOLD_BW = 0.05
#: Frames of the estimate and of the trial match if their times differ by less than this fraction of a frame.
TIME_TOLERANCE = 0.01


@dataclass(frozen=True)
class ContactEvent:
    """One contact seen by plate ``plate`` and estimated on foot ``foot`` (index into ``Contact.feet``):
    onset and offset times [s] measured and estimated, NaN where cut off by the trial's ends."""

    plate: int
    foot: int
    measured_onset: float
    estimated_onset: float
    measured_offset: float
    estimated_offset: float

    @property
    def onset_error(self) -> float:
        return self.estimated_onset - self.measured_onset

    @property
    def offset_error(self) -> float:
        return self.estimated_offset - self.measured_offset


@dataclass(frozen=True)
class PlateComparison:
    """Measured vs estimated ground reaction forces on the contact frames (see the module docstring).

    ``measured``/``estimated`` (T, 3) totals [N]; ``measured_plates``/``estimated_plates`` (T, P, 3): each plate
    and the estimated force of the foot matched to it during its contacts (zero elsewhere); ``covered`` (T,)
    the frames compared. RMSEs in % body weight, ``forward`` the anteroposterior direction (3,).
    """

    times: np.ndarray
    measured: np.ndarray
    estimated: np.ndarray
    measured_plates: np.ndarray
    estimated_plates: np.ndarray
    covered: np.ndarray
    plate_names: tuple[str, ...]
    feet: tuple[str, ...]
    events: tuple[ContactEvent, ...]
    body_weight: float
    threshold: float
    forward: np.ndarray
    rmse_vertical: float
    rmse_horizontal: float
    correlation_vertical: float
    correlation_anteroposterior: float
    correlation_mediolateral: float

    @property
    def onset_errors(self) -> np.ndarray:
        """Onset timing errors [s] of the contacts whose onsets were seen (estimated - measured)."""
        e = np.array([ev.onset_error for ev in self.events], dtype=float)
        return e[np.isfinite(e)]

    @property
    def offset_errors(self) -> np.ndarray:
        e = np.array([ev.offset_error for ev in self.events], dtype=float)
        return e[np.isfinite(e)]

    def summary(self) -> dict:
        """Key figures, JSON-ready."""
        mean_abs = (lambda e: float(np.mean(np.abs(e))) if len(e) else None)
        return {"frames_compared": int(self.covered.sum()), "frames": len(self.times),
                "rmse_vertical_bw_percent": self.rmse_vertical, "rmse_horizontal_bw_percent": self.rmse_horizontal,
                "correlation_vertical": self.correlation_vertical,
                "correlation_anteroposterior": self.correlation_anteroposterior,
                "correlation_mediolateral": self.correlation_mediolateral,
                "contacts": len(self.events), "onset_error_mean_abs_s": mean_abs(self.onset_errors),
                "offset_error_mean_abs_s": mean_abs(self.offset_errors), "body_weight_n": self.body_weight}


def runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """``[start, end)`` of every run of True in a 1-D bool array."""
    edges = np.diff(np.concatenate(([0], flags.astype(np.int8), [0])))
    return list(zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist()))


def _frames(contact: Contact, trial: Trial) -> np.ndarray:
    """Index in the trial's frames of each contact frame."""
    if trial.plate_samples is None:
        raise SolverError(f"{trial.source} has no force plates to compare with",
                          "attach the plates (read_grf_mot + attach_plates) or skip the comparison")
    index = np.rint((contact.times - trial.start_time) * trial.rate).astype(int)
    inside = (index >= 0) & (index < trial.n_frames)
    if not inside.all() or np.max(np.abs(trial.times[index] - contact.times)) > TIME_TOLERANCE / trial.rate:
        raise SolverError("The contact estimate's frames are not frames of this trial",
                          "compare the estimate with the trial its motion was reconstructed from")
    return index


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    if len(a) < 3 or np.std(a) == 0 or np.std(b) == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def compare_with_plates(contact: Contact, trial: Trial, *, threshold: float | None = None) -> PlateComparison:
    """Per-frame measured vs estimated GRF, RMSE in % body weight, correlations and contact timing errors."""
    frames = _frames(contact, trial)
    samples = trial.plate_samples
    measured_plates = samples.force[frames]
    n_frames, n_plates = measured_plates.shape[:2]
    body_weight = contact.model.total_mass * float(np.linalg.norm(contact.dynamics.gravity))
    threshold = THRESHOLD_BW * body_weight if threshold is None else float(threshold)
    feet = contact.feet
    foot_index = [contact.model.index(name) for name in feet]
    foot_place = np.stack([contact.point_positions[:, contact.point_segments == i].mean(1) for i in foot_index], 1) \
        if feet else np.zeros((n_frames, 0, 3))
    with np.errstate(invalid="ignore"):
        foot_stances = [runs(contact.foot_force[:, f, 2] > threshold) for f in range(len(feet))]
        plate_stances = [runs(measured_plates[:, p, 2] > threshold) for p in range(n_plates)]
    estimated_plates = np.zeros_like(measured_plates)
    covered_stance = [np.zeros(len(s), bool) for s in foot_stances]
    events = []
    dt = 1.0 / trial.rate
    times = contact.times
    for p, stances in enumerate(plate_stances):
        for start, end in stances:
            cop = samples.cop[frames[start:end], p, :2]
            if not feet or not np.isfinite(cop).any():
                continue
            distance = np.nanmean(np.linalg.norm(foot_place[start:end, :, :2] - cop[:, None], axis=-1), axis=0)
            f = int(np.nanargmin(distance))
            overlapping = [k for k, (s, e) in enumerate(foot_stances[f]) if s < end and e > start]
            lo, hi = min([start] + [foot_stances[f][k][0] for k in overlapping]), \
                max([end] + [foot_stances[f][k][1] for k in overlapping])
            estimated_plates[lo:hi, p] = contact.foot_force[lo:hi, f]
            covered_stance[f][overlapping] = True
            if overlapping:
                s_est, e_est = foot_stances[f][overlapping[0]][0], foot_stances[f][overlapping[-1]][1]
                events.append(ContactEvent(
                    plate=p, foot=f,
                    measured_onset=times[start] if start > 0 else np.nan,
                    estimated_onset=times[s_est] if s_est > 0 else np.nan,
                    measured_offset=times[end - 1] + dt if end < n_frames else np.nan,
                    estimated_offset=times[e_est - 1] + dt if e_est < n_frames else np.nan))
    covered = np.isfinite(measured_plates).all((1, 2))
    for f, stances in enumerate(foot_stances):
        for (start, end), seen in zip(stances, covered_stance[f]):
            if not seen:
                covered[start:end] = False
    measured = np.nansum(measured_plates, axis=1)
    estimated = contact.total_force
    travel = contact.dynamics.root_origin[-1, :2] - contact.dynamics.root_origin[0, :2]
    forward = np.r_[travel / np.linalg.norm(travel), 0.0] if np.linalg.norm(travel) > 0.1 else np.array([1.0, 0, 0])
    left = np.cross([0.0, 0.0, 1.0], forward)
    m, e = measured[covered], estimated[covered]
    bw = 100.0 / body_weight
    return PlateComparison(
        times=times, measured=measured, estimated=estimated, measured_plates=np.nan_to_num(measured_plates),
        estimated_plates=estimated_plates, covered=covered, plate_names=tuple(p.name for p in trial.plates),
        feet=feet, events=tuple(events), body_weight=body_weight, threshold=threshold, forward=forward,
        rmse_vertical=float(np.sqrt(np.mean((e[:, 2] - m[:, 2]) ** 2)) * bw) if len(m) else float("nan"),
        rmse_horizontal=float(np.sqrt(np.mean(np.sum((e[:, :2] - m[:, :2]) ** 2, 1))) * bw) if len(m) else float("nan"),
        correlation_vertical=_correlation(m[:, 2], e[:, 2]),
        correlation_anteroposterior=_correlation(m @ forward, e @ forward),
        correlation_mediolateral=_correlation(m @ left, e @ left))
