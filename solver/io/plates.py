"""Force plates on the marker time base, centre of pressure rules, and body weight from quiet standing.

Resampling (``plate_samples``): marker frame ``k`` at time ``t_k`` owns the
plate samples in ``[t_k - dt/2, t_k + dt/2)``, ``dt`` = one marker frame;
force and free moment are the mean over those samples, the centre of pressure
their mean weighted by vertical force (so an almost unloaded sample barely
moves it). Plates slower than the markers are interpolated linearly instead.
Frames outside the plate's recording are NaN.

Centre of pressure: it is undefined while a plate is (nearly) unloaded, so it
is NaN wherever the vertical force is below ``UNLOADED_BELOW_N``; the free
moment is zero there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from ..errors import InputError, option
from ..runs import runs
from .plausibility import check_plate_times, cop_unit
from .trial import ForcePlate, PlateSamples, Trial

#: Vertical force [N] below which a plate counts as unloaded (COP NaN, free moment 0).
UNLOADED_BELOW_N = 20.0
#: Quiet standing: the total vertical force must stay above this [N] ...
STANDING_ABOVE_N = 100.0
#: ... and vary less than this (standard deviation / mean) over at least ``STANDING_SECONDS``.
STANDING_VARIATION = 0.03
STANDING_SECONDS = 1.0
#: Samples without a value between two that carry at least this fraction of a plate's peak vertical force are data
#: lost under load; elsewhere the plate was unloaded (``unloaded_where_missing``).
LOST_UNDER_LOAD = 0.5
#: A free moment about the centre of pressure is vertical on a level plate: a level part over this [N·m] RMS is a
#: moment about another point (``moment_about_cop``).
LEVEL_MOMENT_NM = 5.0


def loaded(force: np.ndarray) -> np.ndarray:
    """``(..., 3)`` force -> bool: the plate carries at least ``UNLOADED_BELOW_N`` vertically."""
    with np.errstate(invalid="ignore"):
        return force[..., 2] >= UNLOADED_BELOW_N


def pushing(force: np.ndarray) -> int:
    """+1 where a plate's vertical force ``force`` (T, 3) points up while loaded (the reaction on the subject),
    -1 down (the force on the plate), 0 never loaded: how the readers orient a plate from its data."""
    vertical = force[:, 2][np.abs(force[:, 2]) >= UNLOADED_BELOW_N]
    return int(np.sign(vertical.sum()))


def unloaded_where_missing(force: np.ndarray, free_moment: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """A plate's ``force`` and ``free_moment`` (T, 3) with the samples without a value (NaN) set to zero where the
    plate was unloaded: exports that write no value below their threshold rather than zero (the samples next to
    such a run carry little: the end of a stance, the start of the next, often above 20 N at 100 Hz). A run
    between samples that both carry at least ``LOST_UNDER_LOAD`` of the plate's peak vertical force is data lost
    mid-stance and stays NaN. Returns them and the number of samples set."""
    missing = ~np.isfinite(force).all(1)
    force, free_moment = force.copy(), free_moment.copy()
    with np.errstate(invalid="ignore"):
        heavy = np.abs(force[:, 2]) >= LOST_UNDER_LOAD * np.nanmax(np.abs(force[:, 2]), initial=0.0)
    count = 0
    for start, end in runs(missing):
        if not (0 < start and end < len(force) and heavy[start - 1] and heavy[end]):
            force[start:end], free_moment[start:end] = 0.0, 0.0
            count += end - start
    return force, free_moment, count


def moment_about_cop(force: np.ndarray, cop: np.ndarray, moment: np.ndarray) -> tuple[np.ndarray, bool]:
    """A plate's free moment (T, 3) about its centre of pressure, from ``moment`` given either so or about the
    lab's origin (some exports write the plate's whole moment): about the centre of pressure a level plate's
    moment is vertical; where ``moment``'s level part is over ``LEVEL_MOMENT_NM`` (RMS while loaded) and that of
    ``moment - cop × force`` under a tenth of it, the latter is returned, and True."""
    on = loaded(force) & np.isfinite(cop).all(1) & np.isfinite(moment).all(1)
    if not on.any():
        return moment, False
    about_cop = moment - np.cross(np.where(on[:, None], cop, 0.0), np.nan_to_num(force))
    level, level_about_cop = (np.sqrt(np.mean(np.sum(m[on, :2] ** 2, axis=1))) for m in (moment, about_cop))
    if level > LEVEL_MOMENT_NM and level_about_cop < 0.1 * level:
        return about_cop, True
    return moment, False


def mask_unloaded(force: np.ndarray, cop: np.ndarray, free_moment: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """COP NaN and free moment zero wherever the plate is unloaded; returns new ``(cop, free_moment)``."""
    on = loaded(force)[..., None]
    return np.where(on, cop, np.nan), np.where(on, free_moment, 0.0)


def plate_note(plates: Iterable[ForcePlate], rate: float) -> str:
    """One sentence on how the plates were put on the marker frames."""
    plates = tuple(plates)
    rates = sorted({f"{p.rate:g}" for p in plates})
    how = ("interpolated linearly" if any(p.rate < rate for p in plates) else
           "averaged over the samples within half a frame, COP weighted by vertical force")
    return (f"force plates: {len(plates)} at {'/'.join(rates)} Hz kept at full rate and put on the "
            f"{rate:g} Hz marker frames ({how}); COP missing and free moment zero below "
            f"{UNLOADED_BELOW_N:g} N vertical")


def plate_samples(plates: Iterable[ForcePlate], times: np.ndarray, rate: float) -> PlateSamples | None:
    """All plates on the marker frames ``times`` (rate ``rate``): arrays ``(T, P, 3)``; None without plates."""
    plates = tuple(plates)
    if not plates:
        return None
    per_plate = [_on_frames(plate, times, rate) for plate in plates]
    force, cop, free_moment = (np.stack([p[i] for p in per_plate], axis=1) for i in range(3))
    return PlateSamples(force=force, cop=cop, free_moment=free_moment)


def attach_plates(trial: Trial, plates: Iterable[ForcePlate]) -> Trial:
    """A new trial carrying ``plates`` (e.g. from ``read_grf_mot``), resampled onto the trial's frames.

    Plates the trial already had are replaced (with a warning).
    """
    plates = tuple(plates)
    if not plates:
        raise InputError(f"No force plates to attach to {trial.source}", "read the plates with read_grf_mot first")
    times = trial.times
    time_warnings = check_plate_times(plates, times)
    for plate in plates:
        t = plate.times
        if t[-1] < times[0] or t[0] > times[-1]:
            raise InputError(f"Force plate {plate.name!r} covers {t[0]:g}-{t[-1]:g} s, which does not overlap the "
                             f"markers' {times[0]:g}-{times[-1]:g} s",
                             "use the force file recorded with this trial")
    warnings = trial.warnings + tuple(time_warnings)
    if not any(loaded(plate.force).any() for plate in plates):
        warnings += (f"No force plate carries load at any time (every force under {UNLOADED_BELOW_N:g} N or missing): "
                     "nothing to compare with nor to weigh the body by; check that the force file belongs to this "
                     "trial",)
    if trial.plates:
        warnings += (f"The {len(trial.plates)} force plates read with the trial were replaced by the "
                     f"{len(plates)} attached ones",)
    samples = plate_samples(plates, times, trial.rate)
    placed, unit_notes = [], []
    for p, plate in enumerate(plates):
        factor, warning = cop_unit(plate.name, samples.cop[:, p], trial.markers)
        warnings += (warning,) if warning else ()
        if factor != 1.0:
            unit = "mm" if factor == 0.001 else "cm"
            unit_notes.append(f"{plate.name}: its centre of pressure lies under the feet in {unit}, not in metres "
                              f"(OpenSim's unit): read in {unit}, its free moment in N·{unit}")
            plate = replace(plate, cop=plate.cop * factor, free_moment=plate.free_moment * factor)
        placed.append(plate)
    if unit_notes:
        plates = tuple(placed)
        samples = plate_samples(plates, times, trial.rate)
    notes = (tuple(dict.fromkeys(n for p in plates for n in p.notes)) + tuple(unit_notes)
             + (plate_note(plates, trial.rate),))
    return replace(trial, plates=plates, plate_samples=samples, conversions=trial.conversions + notes,
                   warnings=warnings)


def delayed_plates(trial: Trial, delay: float) -> Trial:
    """``trial`` with its force plates moved ``delay`` [s] earlier (they ran that late behind the markers), put on
    the marker frames again; a warning when it has no plates to move."""
    if not delay:
        return trial
    if not trial.plates:
        return replace(trial, warnings=trial.warnings + (f"No force plates to move: "
                                                         f"{option('import.plate_delay', delay)} ignored",))
    plates = tuple(replace(plate, start_time=plate.start_time - delay) for plate in trial.plates)
    note = (f"force plates: moved {1000 * abs(delay):g} ms {'earlier' if delay > 0 else 'later'}, as given "
            f"({option('import.plate_delay', delay)})")
    return replace(trial, plates=plates, plate_samples=plate_samples(plates, trial.times, trial.rate),
                   conversions=trial.conversions + (note,))


def quiet_standing_weight(trial: Trial) -> float | None:
    """Body weight [N]: median total vertical GRF over the longest quiet-standing stretch, or None.

    Quiet standing: every ``STANDING_SECONDS`` window in the stretch has a total
    vertical force above ``STANDING_ABOVE_N`` that varies less than
    ``STANDING_VARIATION`` (coefficient of variation).
    """
    samples = trial.plate_samples
    window = int(np.ceil(STANDING_SECONDS * trial.rate - 1e-9))
    if samples is None or trial.n_frames < window or window < 2:
        return None
    total = samples.force[:, :, 2].sum(axis=1)  # NaN where a plate has no data
    sums = np.concatenate(([0.0], np.cumsum(total)))
    squares = np.concatenate(([0.0], np.cumsum(total ** 2)))
    mean = (sums[window:] - sums[:-window]) / window
    variance = np.maximum((squares[window:] - squares[:-window]) / window - mean ** 2, 0.0)
    with np.errstate(invalid="ignore"):
        steady = (mean > STANDING_ABOVE_N) & (np.sqrt(variance) < STANDING_VARIATION * mean)
    start, length = _longest_run(steady)
    if length == 0:
        return None
    return float(np.median(total[start:start + length + window - 1]))


def _longest_run(flags: np.ndarray) -> tuple[int, int]:
    """Start and length of the longest run of True in a 1-D bool array ((0, 0) if none)."""
    padded = np.concatenate(([False], flags, [False])).astype(np.int8)
    edges = np.diff(padded)
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    if starts.size == 0:
        return 0, 0
    best = int(np.argmax(ends - starts))
    return int(starts[best]), int(ends[best] - starts[best])


def _on_frames(plate: ForcePlate, times: np.ndarray, rate: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One plate's force, COP and free moment ``(T, 3)`` on the marker frames."""
    if plate.rate < rate:
        force, cop, free_moment = (_interpolate(a, plate.times, times)
                                   for a in (plate.force, plate.cop, plate.free_moment))
    else:
        force, cop, free_moment = _window_means(plate, times, rate)
    cop, free_moment = mask_unloaded(force, cop, free_moment)
    return force, cop, free_moment


def _window_means(plate: ForcePlate, times: np.ndarray, rate: float):
    n = len(times)
    frame = np.floor((plate.times - times[0]) * rate + 0.5 + 1e-6).astype(np.int64)
    inside = (frame >= 0) & (frame < n)
    frame = frame[inside]

    def weighted_mean(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
        total = np.bincount(frame, weights=weights, minlength=n)
        sums = np.stack([np.bincount(frame, weights=weights * values[:, c], minlength=n) for c in range(3)], axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return sums / total[:, None]  # NaN for frames without samples

    force, cop, free_moment = plate.force[inside], plate.cop[inside], plate.free_moment[inside]
    ones = np.ones(len(frame))
    on = loaded(force) & np.isfinite(cop).all(axis=1)
    return (weighted_mean(force, ones),
            weighted_mean(np.where(on[:, None], cop, 0.0), np.where(on, force[:, 2], 0.0)),
            weighted_mean(free_moment, ones))


def _interpolate(values: np.ndarray, times: np.ndarray, new_times: np.ndarray) -> np.ndarray:
    """Linear interpolation of ``(Tf, 3)`` samples; NaN outside the samples' time span."""
    out = np.stack([np.interp(new_times, times, values[:, c]) for c in range(3)], axis=1)
    out[(new_times < times[0] - 1e-9) | (new_times > times[-1] + 1e-9)] = np.nan
    return out
