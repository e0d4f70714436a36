"""Do the force plates keep time with the markers? A GRF file or analog channel whose time base is off by a few
tens of milliseconds ruins every comparison with the plates and a body mass from them, and nothing else says so
(DJ3 with its plates 50 ms late: vertical RMSE 54.6 % BW instead of 12.7).

The vertical force the estimate from the motion puts on the plates' surfaces (``PlateComparison.estimated``)
is correlated with the plates' own (``measured``) at shifts of up to ``MAX_LAG_S`` either way. Where the
plates carry the body for long stretches (drop jumps, sit-to-stand) the two agree at r 0.99 and the best shift
is the plates' offset to the frame (shifted by -50 to +100 ms: found to 0 ms). On the walks the plates carry
single steps and the estimate loads a heel 30-50 ms before its plate does, so the best shift of a walk kept in
time is 10-50 ms at r 0.61-0.89: a warning needs the shifted agreement to be near-perfect (``CLEAR_R``), so
those are not flagged, and a walk out of time by less than 0.1 s mostly is not either. Beyond the paper.
"""

from __future__ import annotations

import numpy as np

from .compare import PlateComparison

#: The largest offset looked for [s], the smallest worth a warning [s] (two frames at 100 Hz), the agreement
#: the shifted forces must reach, and by how much more than in time.
MAX_LAG_S, MIN_LAG_S, CLEAR_R, GAIN = 0.2, 0.02, 0.95, 0.02


def plate_lag(comparison: PlateComparison) -> tuple[float, float, float] | None:
    """How late [s] the plates' vertical force follows the estimate's on them best (negative: early), the
    correlation there and with no shift; None where the trial is too short or either force is constant."""
    times, measured, estimated = comparison.times, comparison.measured[:, 2], comparison.estimated[:, 2]
    if len(times) < 8:
        return None
    step = float(np.median(np.diff(times)))
    reach = min(int(round(MAX_LAG_S / step)), len(times) // 4)
    correlations = {}
    for lag in range(-reach, reach + 1):  # the plates ``lag`` frames late: measured[t + lag] against estimated[t]
        m = measured[max(lag, 0):len(measured) + min(lag, 0)]
        e = estimated[max(-lag, 0):len(estimated) - max(lag, 0)]
        both = np.isfinite(m) & np.isfinite(e)
        if both.sum() < 8 or np.std(m[both]) == 0 or np.std(e[both]) == 0:
            return None
        correlations[lag] = float(np.corrcoef(m[both], e[both])[0, 1])
    best = max(correlations, key=correlations.get)
    return best * step, correlations[best], correlations[0]


def timing_warning(comparison: PlateComparison) -> str | None:
    """A warning where the plates' force clearly follows the motion shifted in time (module docstring)."""
    found = plate_lag(comparison)
    if found is None:
        return None
    lag, shifted, in_time = found
    if abs(lag) < MIN_LAG_S or shifted < CLEAR_R or shifted - in_time < GAIN:
        return None
    return (f"The force plates run {1000 * abs(lag):.0f} ms {'behind' if lag > 0 else 'ahead of'} the markers: "
            f"their vertical force follows the estimate's on them at r {shifted:.3f} shifted by that much, "
            f"{in_time:.3f} as recorded. The comparisons with the plates and a body mass from them are off; check "
            "the GRF file's time column against the markers'")
