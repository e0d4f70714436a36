"""Estimated against measured ground reaction forces, when the trial has force plates (cf. Brubaker Fig. 9).

The plates are only compared with, never used by the estimate. Matching:

- frames: the contact estimate's frames (``Contact.times``) are found among
  the trial's marker frames, where ``Trial.plate_samples`` puts the plates;
- surfaces: a plate measures the surface it is part of: the estimated surface
  whose top passes nearest the plate's centres of pressure (the floor, or a
  box with a plate on top), or a box standing on the plate (the centres of
  pressure under its top, its estimated load following the plate's; beyond
  the papers). Only the estimated forces on those surfaces are
  compared: a subject sitting on a chair or standing on a box without a plate
  loads the plates with nothing, and the estimate must say so too;
- a *plate stance* is a run of frames with the plate's vertical force above
  ``threshold``; each of its frames belongs to the foot owning the contact
  point nearest the plate's centre of pressure, as the torques with the
  plates apply it (``plate_feet``: a foot landing on a plate the other has
  not left, a crossover step on a split-belt treadmill), the stance cut
  where its foot changes (a hand-over, whose timing is not measured);
  frames without a centre of pressure or a pose go to the foot whose
  points are, on average over the stance, horizontally nearest it; a
  *foot stance* is a run with the estimated vertical force of
  that foot on the plates' surfaces above ``threshold``. Plate stances and
  foot stances of the same foot that overlap, directly or through one
  another, are one contact: its onset and offset timing errors are estimated
  minus measured, first onset and last offset, in seconds (none where a run
  touches the first or last frame: it was cut off);
- a plate only sees the feet on it, so the forces are compared on *covered*
  frames only: every foot stance overlaps a plate stance of its foot (no
  loaded foot off the plates), every plate has data and the frame a pose.
  The frames in which a plate carries both feet at once (combined plates,
  a crossover step) are not compared here, with a warning; the pipeline
  splits such a plate between them first (``shared_plates``). A foot that stands
  partly off the plate of its stance (its estimated load outside the plate's
  outline and those of the other plates measuring it meanwhile, ``PARTLY_OFF``)
  is measured only in part: its stance is not covered either, and a warning
  says so.

Figures, over the covered frames: RMSE of the total vertical force and of
the horizontal force vector in % of body weight (``m g`` of the model),
Pearson correlations of the vertical, anteroposterior (direction of travel
of the root) and mediolateral components; per foot the same (the plates of
a foot's stances summed as its measured force); the centre-of-pressure
error [cm] per foot in single support (frames where the plates see one foot
loaded, with at least ``SINGLE_SUPPORT`` of the body weight); contact timing.
``threshold`` defaults to 5 % of body weight, above plate noise.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..dynamics.touchdowns import AFTER, BEFORE
from ..errors import SolverError
from ..io.trial import Trial
from ..runs import runs
from .plate_feet import SHARED, feet_of_plates, outside, pieces
from .result import Contact

if TYPE_CHECKING:  # compare_moments reads this module's correlation
    from .compare_moments import MomentComparison

#: Default contact threshold, as a fraction of body weight.
THRESHOLD_BW = 0.05
#: An unmatched foot stance is a step off the plates when the plates miss this share of its estimated load or
#: more over it (a plate under both feet, its load given to the other foot, misses none of it) and the
#: estimate loads the foot with ``STEP_LOAD`` of the body weight at least once: the steps beside the plates of
#: the trials in ``../shared/data`` peak at 0.41-3.3 BW; a seated foot the plate reads below ``threshold``, at
#: 0.08.
OFF_PLATES_MISSED, STEP_LOAD = 0.5, 0.25
#: Single support: the plates see one foot loaded, with at least this fraction of body weight.
SINGLE_SUPPORT = 0.5
#: The plates see all the contact where surfaces without plates carry under this fraction of body weight.
OFF_PLATES = 0.02
#: A plate measures a raised surface (a box standing on it) when its COP lies this far [m] inside its sides.
UNDER_BOX = 0.02
#: A plate carries both feet when, in the frames (at least ``MIN_SHARED_S`` [s]) in which the estimate has each foot
#: carry ``BOTH_FEET`` of the body weight on the plates' surfaces, it measures over ``WHOLE_SHARE`` of their sum
#: (median; a plate under one foot measures that foot's share).
BOTH_FEET, WHOLE_SHARE, MIN_SHARED_S = 0.25, 0.8, 0.1
#: Frames of the estimate and of the trial match if their times differ by less than this fraction of a frame.
TIME_TOLERANCE = 0.01
#: A foot stands partly off the plate of its stance when this share of its estimated load or more rests on contact
#: points over ``OUTLINE_MARGIN`` [m] outside the plate's outline (the sole model's error: its heel points sit at
#: the heel marker, behind the heel's contact) (C3D files give it; OpenSim GRF files do not). The sprint's clean
#: strikes: none of it; its forefoot moved off a plate (a test): over half.
PARTLY_OFF, OUTLINE_MARGIN = 0.2, 0.03


@dataclass(frozen=True)
class ContactEvent:
    """One contact seen by plate ``plate`` (the first, if several) and estimated on foot ``foot`` (index into
    ``Contact.feet``): onset and offset times [s] measured and estimated, NaN where cut off by the trial's ends."""

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

    ``measured``/``estimated`` (T, 3) totals on the plates' surfaces [N]; ``measured_plates``/
    ``estimated_plates`` (T, P, 3): each plate and the estimated force of the foot matched to it during its
    contacts (zero elsewhere); ``measured_feet``/``estimated_feet`` (T, F, 3) and ``measured_cop``/
    ``estimated_cop`` (T, F, 3) per foot; ``covered`` (T,) the frames compared, ``single`` (T, F) the covered
    frames in which the plates see only that foot. RMSEs in % body weight, ``forward`` the anteroposterior
    direction (3,), ``plate_surfaces`` the surface each plate measures, ``off_plates`` (T,) the vertical force
    [N] the estimate puts on surfaces no plate measures (a box, a seat), ``steps_off_plates`` (T, F) the frames
    of each foot's stances that no plate stance matches and whose load the plates miss (``OFF_PLATES_MISSED``,
    ``STEP_LOAD``: a step beside the plates), ``both_feet`` (T, P) the frames in which a plate carries both feet
    (``plate_feet``; not compared); ``warnings`` what the plates say
    against the estimate's premises (``plate_mass.disagreement``: another body mass); ``moments`` the joint
    moments with the estimate against those with the plates (``compare_moments_with_plates``), when both were
    computed.
    """

    times: np.ndarray
    measured: np.ndarray
    estimated: np.ndarray
    measured_plates: np.ndarray
    estimated_plates: np.ndarray
    measured_feet: np.ndarray
    estimated_feet: np.ndarray
    measured_cop: np.ndarray
    estimated_cop: np.ndarray
    covered: np.ndarray
    single: np.ndarray
    plate_names: tuple[str, ...]
    plate_surfaces: tuple[int, ...]
    feet: tuple[str, ...]
    events: tuple[ContactEvent, ...]
    body_weight: float
    threshold: float
    forward: np.ndarray
    off_plates: np.ndarray
    steps_off_plates: np.ndarray
    both_feet: np.ndarray
    warnings: tuple[str, ...] = ()
    moments: MomentComparison | None = None

    @property
    def plates_see_all(self) -> np.ndarray:
        """(T,) the covered frames in which surfaces without plates carry under ``OFF_PLATES`` of the body
        weight: there the plates see all the contact. (Elsewhere a covered frame compares the feet only: the
        plates and the estimate agree that the floor carries nothing while the subject stands on a box.)"""
        with np.errstate(invalid="ignore"):
            return self.covered & (self.off_plates < OFF_PLATES * self.body_weight)

    @property
    def away_from_touchdowns(self) -> np.ndarray:
        """(T,) outside the impact of every plate's touch-down, from ``touchdowns.BEFORE`` before each measured
        onset to ``touchdowns.AFTER`` after it (the window in which the default filter keeps Winter's cutoff, an
        impact's force settling in a tenth of a second), where neither filtered markers nor 6 Hz coordinates
        follow the plates' impact peak."""
        away = np.ones(len(self.times), dtype=bool)
        for onset in (event.measured_onset for event in self.events if np.isfinite(event.measured_onset)):
            away &= ~((self.times >= onset - BEFORE) & (self.times <= onset + AFTER))
        return away

    def _figures(self, measured: np.ndarray, estimated: np.ndarray, frames: np.ndarray) -> dict:
        m, e = measured[frames], estimated[frames]
        bw = 100.0 / self.body_weight
        left = np.cross([0.0, 0.0, 1.0], self.forward)
        rmse = (lambda d: float(np.sqrt(np.mean(d))) * bw if len(m) else float("nan"))  # noqa: E731
        return {"rmse_vertical_bw_percent": rmse((e[:, 2] - m[:, 2]) ** 2),
                "rmse_horizontal_bw_percent": rmse(np.sum((e[:, :2] - m[:, :2]) ** 2, 1)),
                "correlation_vertical": correlation(m[:, 2], e[:, 2]),
                "correlation_anteroposterior": correlation(m @ self.forward, e @ self.forward),
                "correlation_mediolateral": correlation(m @ left, e @ left)}

    @cached_property
    def totals(self) -> dict:
        """The figures of the totals over the covered frames (``summary``'s top level)."""
        return self._figures(self.measured, self.estimated, self.covered)

    def totals_over(self, frames: np.ndarray) -> dict:
        """The figures of the totals over the covered frames among ``frames`` (T,) (e.g. a time window)."""
        return self._figures(self.measured, self.estimated, self.covered & frames)

    rmse_vertical = property(lambda self: self.totals["rmse_vertical_bw_percent"])
    rmse_horizontal = property(lambda self: self.totals["rmse_horizontal_bw_percent"])
    correlation_vertical = property(lambda self: self.totals["correlation_vertical"])
    correlation_anteroposterior = property(lambda self: self.totals["correlation_anteroposterior"])
    correlation_mediolateral = property(lambda self: self.totals["correlation_mediolateral"])

    def cop_error(self, foot: int) -> float:
        """Mean horizontal distance [cm] between the estimated and measured COP of ``foot`` in single support."""
        d = np.linalg.norm(self.estimated_cop[self.single[:, foot], foot, :2]
                           - self.measured_cop[self.single[:, foot], foot, :2], axis=1)
        d = d[np.isfinite(d)]
        return float(100 * d.mean()) if len(d) else float("nan")

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
        mean_abs = (lambda e: float(np.mean(np.abs(e))) if len(e) else None)  # noqa: E731
        feet = {}
        for f, name in enumerate(self.feet):
            loaded = self.covered & ((self.measured_feet[:, f, 2] > self.threshold)
                                     | (self.estimated_feet[:, f, 2] > self.threshold))
            events = [ev for ev in self.events if ev.foot == f]
            feet[name] = {**self._figures(self.measured_feet[:, f], self.estimated_feet[:, f], self.covered),
                          "frames_loaded": int(loaded.sum()), "cop_error_single_support_cm": self.cop_error(f),
                          "single_support_frames": int(self.single[:, f].sum()),
                          "onset_error_mean_abs_s": mean_abs([e.onset_error for e in events
                                                              if np.isfinite(e.onset_error)]),
                          "offset_error_mean_abs_s": mean_abs([e.offset_error for e in events
                                                               if np.isfinite(e.offset_error)])}
        cops = [v["cop_error_single_support_cm"] for v in feet.values()
                if np.isfinite(v["cop_error_single_support_cm"])]
        return {"frames_compared": int(self.covered.sum()), "frames": len(self.times),
                **self.totals,
                "where_plates_see_all": {"frames_compared": int(self.plates_see_all.sum()),
                                         **self._figures(self.measured, self.estimated, self.plates_see_all)},
                "cop_error_single_support_cm": float(np.mean(cops)) if cops else None,
                "contacts": len(self.events), "onset_error_mean_abs_s": mean_abs(self.onset_errors),
                "offset_error_mean_abs_s": mean_abs(self.offset_errors), "body_weight_n": self.body_weight,
                "plate_surfaces": list(self.plate_surfaces), "feet": feet, "warnings": list(self.warnings),
                **({} if self.moments is None else {"joint_moments": self.moments.summary()})}


def trial_frames(contact: Contact, trial: Trial) -> np.ndarray:
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


def correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson's r of ``a`` and ``b``; NaN for fewer than three samples or a constant one."""
    if len(a) < 3 or np.std(a) == 0 or np.std(b) == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def plate_surfaces(contact: Contact, cop: np.ndarray, force: np.ndarray) -> tuple[int, ...]:
    """The surface each plate measures: the one whose top passes nearest the plate's loaded COPs (T, P, 3), or
    a raised one under whose top they lie (a box standing on the plate, the COP at the plate's top) if its
    estimated load follows the plate's vertical force (T, P, 3) more closely (a chair's seat over the feet's
    plates does not: it carries load when they do not)."""
    if not contact.surfaces:
        return (0,) * cop.shape[1]
    out = []
    for p in range(cop.shape[1]):
        seen = cop[:, p][np.isfinite(cop[:, p]).all(1)]
        if not len(seen):
            out.append(0)
            continue
        middle = np.median(seen, axis=0)
        nearest = int(np.argmin([abs(s.top.distance(middle)) for s in contact.surfaces]))
        under = [k for k, s in enumerate(contact.surfaces) if k and k != nearest and _under(s, middle)]
        load = np.nan_to_num(force[:, p, 2])
        out.append(max([nearest, *under], key=lambda k: np.nan_to_num(
            correlation(load, np.nan_to_num(contact.surface_force[:, k, 2])), nan=-1.0)) if under else nearest)
    return tuple(out)


def _under(surface, point: np.ndarray) -> bool:
    """Whether ``point`` lies under ``surface``'s top, at least ``UNDER_BOX`` inside its sides."""
    sides = [face.distance(point) for face in surface.faces if abs(face.normal[2]) < 0.5]
    return bool(sides) and max(sides) < -UNDER_BOX and surface.top.distance(point) < 0


def compare_with_plates(contact: Contact, trial: Trial, *, threshold: float | None = None) -> PlateComparison:
    """Per-frame measured vs estimated GRF in total and per foot, RMSE in % body weight, correlations, COP
    errors and contact timing errors (see the module docstring)."""
    frames = trial_frames(contact, trial)
    samples = trial.plate_samples
    measured_plates = samples.force[frames]
    measured_plate_cop = samples.cop[frames]
    n_frames, n_plates = measured_plates.shape[:2]
    body_weight = contact.body_weight
    threshold = THRESHOLD_BW * body_weight if threshold is None else float(threshold)
    feet = contact.feet
    surfaces = plate_surfaces(contact, measured_plate_cop, measured_plates)
    seen = sorted(set(surfaces)) if contact.surfaces else []
    foot_on_plates = contact.foot_surface_force[:, :, seen].sum(2)
    foot_index = [contact.model.index(name) for name in feet]
    foot_place = np.stack([contact.point_positions[:, contact.point_segments == i].mean(1) for i in foot_index], 1) \
        if feet else np.zeros((n_frames, 0, 3))
    with np.errstate(invalid="ignore"):
        foot_stances = [runs(foot_on_plates[:, f, 2] > threshold) for f in range(len(feet))]
        plate_stances = [runs(measured_plates[:, p, 2] > threshold) for p in range(n_plates)]
    estimated_plates = np.zeros_like(measured_plates)
    measured_feet = np.zeros((n_frames, len(feet), 3))
    cop_moment = np.zeros((n_frames, len(feet), 3))
    covered_stance = [np.zeros(len(s), bool) for s in foot_stances]
    measured_stances = [[] for _ in feet]  # (start, end, plate) of the plate stances each foot was given
    owners = feet_of_plates(contact.point_positions, contact.point_segments, contact.point_forces[..., 2], foot_index,
                            np.stack([plate.corners for plate in trial.plates]), measured_plate_cop, threshold)
    under_both = plates_under_both_feet(trial, measured_plates, foot_on_plates, body_weight)
    with np.errstate(invalid="ignore"):
        for p in under_both:  # a plate under both feet (no outline needed): where the estimate loads both
            owners[(foot_on_plates[..., 2] > threshold).all(1), p] = SHARED
        for p, plate in enumerate(trial.plates):
            if plate.foot in feet:  # a plate split between the feet
                owners[:, p] = feet.index(plate.foot)
        both_feet = (owners == SHARED) & (measured_plates[..., 2] > threshold)  # (T, P): neither share measured
    handed_over = set()  # (plate, frame): where a plate stance passes from one foot to the other (``plate_feet``)
    for p, stances in enumerate(plate_stances):
        for run_start, run_end in stances:
            cop = measured_plate_cop[run_start:run_end, p, :2]
            seen_near = np.isfinite(cop).all(1) & np.isfinite(foot_place[run_start:run_end, :, :2]).all((1, 2))
            if not feet or not seen_near.any():  # no COP, or no pose: the stance goes to no foot
                continue
            distance = np.linalg.norm(foot_place[run_start:run_end][seen_near, :, :2] - cop[seen_near, None],
                                      axis=-1).mean(0)
            for a, b, f in pieces(owners[run_start:run_end, p], int(np.nanargmin(distance))):
                start, end = run_start + a, run_start + b
                handed_over |= {(p, frame) for frame in (start, end) if run_start < frame < run_end}
                if f == SHARED:
                    continue
                force = np.nan_to_num(measured_plates[start:end, p])
                measured_feet[start:end, f] += force
                cop_moment[start:end, f] += np.nan_to_num(measured_plate_cop[start:end, p]) * force[:, 2:3]
                overlapping = [k for k, (s, e) in enumerate(foot_stances[f]) if s < end and e > start]
                lo, hi = min([start] + [foot_stances[f][k][0] for k in overlapping]), \
                    max([end] + [foot_stances[f][k][1] for k in overlapping])
                estimated_plates[lo:hi, p] = foot_on_plates[lo:hi, f]
                covered_stance[f][overlapping] = True
                measured_stances[f].append((start, end, p))
    times = contact.times
    events = [event for f in range(len(feet))
              for event in _contact_events(measured_stances[f], foot_stances[f], f, times, 1.0 / trial.rate,
                                           handed_over)]
    estimated = contact.surface_force[:, seen].sum(1) if seen else np.zeros((n_frames, 3))
    covered = np.isfinite(measured_plates).all((1, 2)) & np.isfinite(estimated).all(1)  # no pose: no estimate
    covered &= ~both_feet.any(1)
    partly_off = _partly_off(contact, trial, measured_stances, foot_index)
    partial = [np.zeros(len(s), bool) for s in foot_stances]  # the foot stances a plate measures in part
    for f, _, start, end, _ in partly_off:
        covered[start:end] = False
        partial[f][[k for k, (s, e) in enumerate(foot_stances[f]) if s < end and e > start]] = True
    steps_off_plates = np.zeros((n_frames, len(feet)), bool)
    missed = estimated[:, 2] - np.nansum(measured_plates[..., 2], axis=1)  # what the plates do not see
    for f, stances in enumerate(foot_stances):
        for (start, end), matched, part in zip(stances, covered_stance[f], partial[f]):
            if part or not matched:
                covered[start:end] = False
            if not (part or matched):  # a step beside the plates if they miss its load
                load = foot_on_plates[start:end, f, 2]
                steps_off_plates[start:end, f] = np.nanmax(load) >= STEP_LOAD * body_weight and \
                    np.nansum(missed[start:end]) > OFF_PLATES_MISSED * np.nansum(load)
    with np.errstate(invalid="ignore", divide="ignore"):
        measured_cop = cop_moment / measured_feet[..., 2:3]
        loaded = measured_feet[..., 2] > threshold
    measured_cop[~loaded] = np.nan
    alone = measured_feet[..., 2] > SINGLE_SUPPORT * body_weight
    single = covered[:, None] & alone & (loaded.sum(1, keepdims=True) == 1)
    origin = contact.dynamics.root_origin[np.isfinite(contact.dynamics.root_origin).all(1), :2]
    travel = origin[-1] - origin[0] if len(origin) else np.zeros(2)
    forward = np.r_[travel / np.linalg.norm(travel), 0.0] if np.linalg.norm(travel) > 0.1 else np.array([1.0, 0, 0])
    return PlateComparison(
        times=times, measured=np.nansum(measured_plates, axis=1), estimated=estimated,
        measured_plates=np.nan_to_num(measured_plates), estimated_plates=estimated_plates,
        measured_feet=measured_feet, estimated_feet=foot_on_plates, measured_cop=measured_cop,
        estimated_cop=contact.foot_cop, covered=covered, single=single,
        plate_names=tuple(p.name for p in trial.plates), plate_surfaces=surfaces, feet=feet, events=tuple(events),
        body_weight=body_weight, threshold=threshold, forward=forward,
        off_plates=np.delete(contact.surface_force, seen, axis=1)[..., 2].sum(1), steps_off_plates=steps_off_plates,
        both_feet=both_feet, warnings=_under_both_feet(trial, under_both)
        + tuple(f"force plate {trial.plates[p].name!r} carries both feet at once for {n / trial.rate:.2f} s (a foot "
                "landing on a plate the other has not left: a crossover step on a split belt): those frames are not "
                "compared, and there the torques with the plates give its whole load to the foot nearest its centre "
                "of pressure; contact.apply_plates splits it between them first"
                for p, n in enumerate(both_feet.sum(0)) if n and p not in under_both)
        + tuple(f"{feet[f]} stands partly off force plate {trial.plates[p].name!r} at {times[start]:.2f}-"
                f"{times[end - 1]:.2f} s ({100 * share:.0f} % of its estimated load outside the plate's outline): "
                "the plate measures only part of its force, so that stance is not compared and the torques with "
                "the plates miss the rest" for f, p, start, end, share in partly_off))


def _partly_off(contact: Contact, trial: Trial, measured_stances: list, foot_index: list[int]) -> list:
    """``(foot, plate, start, end, share)`` of the plate stances (``measured_stances``: per foot, ``(start, end,
    plate)``) in which the foot rests ``PARTLY_OFF`` of its estimated load or more outside the plate's outline
    and outside those of the other plates measuring that foot meanwhile (a foot across two plates is measured)."""
    found = []
    for f, stances in enumerate(measured_stances):
        mine = contact.point_segments == foot_index[f]
        for start, end, p in stances:
            outlines = [trial.plates[q].corners for s, e, q in stances if s < end and e > start]
            load = np.nan_to_num(contact.point_forces[start:end][:, mine, 2]).clip(0.0)
            if not all(np.isfinite(corners).all() for corners in outlines) or load.sum() <= 0.0:
                continue
            positions = contact.point_positions[start:end][:, mine, :2]
            off = np.logical_and.reduce([outside(corners, positions, OUTLINE_MARGIN) for corners in outlines])
            share = float(load[off].sum() / load.sum())
            if share >= PARTLY_OFF:
                found.append((f, p, start, end, share))
    return found


def _contact_events(measured: list[tuple[int, int, int]], estimated: list[tuple[int, int]], foot: int,
                   times: np.ndarray, dt: float, handed_over: set = frozenset()) -> list[ContactEvent]:
    """The contacts of one foot: its plate stances ``measured`` (start, end, plate) and its foot stances
    ``estimated`` (start, end), frame runs, that overlap directly or through one another are one contact, from
    the first onset to the last offset of each kind (a seated foot's plate load that dips under the threshold
    for a moment while the estimate's does not is one contact, not a second one with the estimate's onset
    seconds early). A contact needs both kinds; an onset or offset at the trial's ends, or where a plate passes
    from one foot to the other (``handed_over``: (plate, frame)), is NaN (not seen)."""
    groups, end = [], -1
    for start, stop, plate in sorted([*measured, *((s, e, -1) for s, e in estimated)]):
        if start >= end:
            groups.append([])
        groups[-1].append((start, stop, plate))
        end = max(end, stop)

    def first_onset(group):
        start = min(s for s, _, _ in group)
        seen = start > 0 and not any((p, s) in handed_over for s, _, p in group if s == start)
        return times[start] if seen else np.nan

    def last_offset(group):
        stop = max(e for _, e, _ in group)
        seen = stop < len(times) and not any((p, e) in handed_over for _, e, p in group if e == stop)
        return times[stop - 1] + dt if seen else np.nan

    events = []
    for group in groups:
        plates, feet = [r for r in group if r[2] >= 0], [r for r in group if r[2] < 0]
        if plates and feet:
            events.append(ContactEvent(plate=plates[0][2], foot=foot, measured_onset=first_onset(plates),
                                       estimated_onset=first_onset(feet), measured_offset=last_offset(plates),
                                       estimated_offset=last_offset(feet)))
    return events


def plates_under_both_feet(trial: Trial, force: np.ndarray, on_plates: np.ndarray, body_weight: float) -> list[int]:
    """The plates (indices) that carry both feet at once, from the plates' ``force`` (T, P, 3) and the estimate's
    force on each foot on the plates' surfaces ``on_plates`` (T, 2, 3), on the same frames."""
    if on_plates.shape[1] != 2:
        return []
    with np.errstate(invalid="ignore", divide="ignore"):
        both = (on_plates[..., 2] > BOTH_FEET * body_weight).all(1)
        share = force[..., 2] / on_plates[..., 2].sum(1)[:, None]  # (T, P)
    out = []
    for p in range(force.shape[1]):
        shared = both & np.isfinite(share[:, p])
        if shared.sum() >= MIN_SHARED_S * trial.rate and np.median(share[shared, p]) > WHOLE_SHARE:
            out.append(p)
    return out


def _under_both_feet(trial: Trial, plates: list[int]) -> tuple[str, ...]:
    """A warning per plate that carries both feet at once (``plates_under_both_feet``); the pipeline splits such a plate
    between them first (``contact.apply_plates``)."""
    return tuple(f"force plate {trial.plates[p].name!r} carries both feet at once: its load goes to the foot nearest "
                 "its centre of pressure, so double support is not compared and the torques with the plates put both "
                 "feet's load on one foot; contact.apply_plates splits it between them first, or give the plates "
                 "one per foot" for p in plates)
