"""Do the force plates keep time with the markers? A GRF file or analog channel whose time base is off by a few
tens of milliseconds ruins every comparison with the plates and a body mass from them, and nothing else says so
(DJ3 with its plates 50 ms late: vertical RMSE 54.6 % BW instead of 12.7).

Where the plates see all the contact (``PlateComparison.plates_see_all``) their total vertical force is the one
the motion needs, ``m (a_CM - g)`` vertically: the root force without contact (eq. 9's residual,
``Contact.root_wrench_without``), which no contact model shapes. The two are correlated over those frames at
shifts of up to ``MAX_LAG_S`` either way, and the best shift is refined between frames by the parabola through
the correlations about it. Beyond the paper.

On the six shared trials with GRF files, their time columns moved by -80 to +80 ms (session check, 2026-12-06,
``tests/unit/test_contact_plate_timing.py`` for two of them), the shift found is the one made plus 2-7 ms, at r
0.984-0.996 against 0.30-0.95 as recorded, and every shift of 30 ms or more is flagged. As recorded, the walks and
the sit-to-stand come out 5-7 ms late (GRF files at 100 Hz, likely averaged down from the plates' rate), the drop
jumps 2-4 ms and the sprint's analog plates 3 ms (r 0.965): under ``MIN_LAG_S``, so not flagged. The earlier
measure, the estimate's force on the plates over every frame, found the drop jumps' and the sit-to-stand's
offsets, but not the walks': there the estimate loads a heel 30-50 ms before its plate does, so their best shifts
came out 10-50 ms late at r 0.61-0.91, under the near-perfect agreement a warning needs (``CLEAR_R``), and
walking4 went unflagged at every shift up to 80 ms either way.
"""

from __future__ import annotations

import numpy as np

from ..errors import option
from .compare import PlateComparison

#: The largest offset looked for [s], the smallest worth a warning [s] (two frames at 100 Hz), the agreement
#: the shifted forces must reach, and by how much more than in time; the frames they must share.
MAX_LAG_S, MIN_LAG_S, CLEAR_R, GAIN, MIN_FRAMES = 0.2, 0.02, 0.95, 0.02, 8
#: On a moving floor (a treadmill's belt) a smaller offset is worth a warning: the plates' centre of pressure
#: trails the foot by the belt's speed times it [m], and this much moves the torques with the plates (a split-belt
#: walk's plates 9.7 ms late on a 1.10 m/s belt: given as ``import.plate_delay``, the COP from motion alone 1.8 cm
#: from theirs instead of 2.3, the moments against those with them r 0.90 instead of 0.88).
MIN_COP_SHIFT_M = 0.01


def plate_lag(comparison: PlateComparison, root_force: np.ndarray) -> tuple[float, float, float] | None:
    """How late [s] the plates' vertical force follows the motion's ``root_force`` (T,) [N] (the vertical root
    force without contact, on the comparison's frames) best (negative: early), over the frames in which the plates
    see all the contact both ways; the correlation there and with no shift. None where the trial is too short,
    the plates see all in too few frames, or either force is constant there."""
    times, measured = comparison.times, comparison.measured[:, 2]
    seen = comparison.plates_see_all & np.isfinite(measured) & np.isfinite(root_force)
    if len(times) < MIN_FRAMES:
        return None
    step = float(np.median(np.diff(times)))
    reach = min(int(round(MAX_LAG_S / step)), len(times) // 4)
    correlations = np.full(2 * reach + 1, np.nan)
    for i, lag in enumerate(range(-reach, reach + 1)):  # the plates ``lag`` frames late: measured[t + lag], t
        plates, motion = slice(max(lag, 0), len(times) + min(lag, 0)), slice(max(-lag, 0), len(times) - max(lag, 0))
        both = seen[plates] & seen[motion]
        m, e = measured[plates][both], root_force[motion][both]
        if len(m) >= MIN_FRAMES and np.std(m) > 0 and np.std(e) > 0:
            correlations[i] = np.corrcoef(m, e)[0, 1]
    if np.isnan(correlations[reach]):
        return None
    best = int(np.nanargmax(correlations))
    return (best - reach + _vertex(correlations, best)) * step, float(correlations[best]), float(correlations[reach])


def _vertex(values: np.ndarray, i: int) -> float:
    """Where between -0.5 and 0.5 of sample ``i`` the parabola through ``values[i - 1:i + 2]`` peaks (0 at an end
    or a flat top)."""
    if i == 0 or i == len(values) - 1 or not np.isfinite(values[i - 1:i + 2]).all():
        return 0.0
    before, at, after = values[i - 1:i + 2]
    curvature = before - 2 * at + after
    return float(np.clip(0.5 * (before - after) / curvature, -0.5, 0.5)) if curvature < 0 else 0.0


def timing_warning(comparison: PlateComparison, root_force: np.ndarray, floor_speed: float = 0.0) -> str | None:
    """A warning where the plates' force clearly follows the motion shifted in time (module docstring), or on a
    floor moving at ``floor_speed`` [m/s] where the shift puts their centre of pressure ``MIN_COP_SHIFT_M`` or more
    behind the foot."""
    found = plate_lag(comparison, root_force)
    if found is None:
        return None
    lag, shifted, in_time = found
    trails = floor_speed * abs(lag)
    if shifted < CLEAR_R or shifted <= in_time or not (
            abs(lag) >= MIN_LAG_S and shifted - in_time >= GAIN or trails >= MIN_COP_SHIFT_M):
        return None
    belt = (f"; on the floor moving at {floor_speed:.2f} m/s their centre of pressure trails the foot by "
            f"{100 * trails:.1f} cm") if trails >= MIN_COP_SHIFT_M else ""
    return (f"The force plates run {1000 * abs(lag):.0f} ms {'behind' if lag > 0 else 'ahead of'} the markers: "
            f"their vertical force follows the one the motion needs at r {shifted:.3f} shifted by that much, "
            f"{in_time:.3f} as recorded{belt}. The comparisons with the plates, the torques with them and a body "
            "mass from them are off; check the GRF file's time column against the markers', or give the delay "
            f"({option('import.plate_delay', round(lag, 4))})")
