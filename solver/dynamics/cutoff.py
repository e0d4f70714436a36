"""The low-pass cutoff of a trial by Winter's residual analysis (Winter, *Biomechanics and Motor Control of
Human Movement*, 4th ed., §3.4.4.3).

For a signal ``x`` and a cutoff ``f`` the residual is the RMS difference between ``x`` and ``x`` filtered at
``f`` (the zero-lag Butterworth filter the dynamics use). Above the signal's band the residual is noise
alone and falls linearly with ``f``; the straight line fitted there, extended to ``f = 0``, meets the
residual axis at the noise's RMS ``a``. The cutoff is the lowest ``f`` whose residual is ``a``: there the
signal let through equals the noise let through.

Signals (chosen by the caller, ``derivatives.motion_derivatives``): the trajectories of the reconstructed
segments' origins (joint centres) and tips, the points whose accelerations inverse dynamics needs, each
coordinate a signal; the trial's cutoff is the median of theirs.
Frequencies are tried from ``LOWEST_HZ`` to ``HIGHEST`` of the sampling rate; the noise line is fitted over
the upper half of that range (Winter fits "the region where the residual is mostly noise").
"""

from __future__ import annotations

import numpy as np

from ..errors import SolverError, option
from ..lowpass import PAD, butter2, filtfilt, pad_length

#: Lowest cutoff tried [Hz] and the step between cutoffs tried [Hz].
LOWEST_HZ, STEP_HZ = 1.0, 0.5
#: Highest cutoff tried, as a fraction of the sampling rate (0.5 would be Nyquist).
HIGHEST = 0.4
#: The noise line is fitted over cutoffs above this fraction of the highest cutoff tried.
NOISE_REGION = 0.5


def residuals(signals: np.ndarray, rate: float, cutoffs: np.ndarray) -> np.ndarray:
    """RMS residual (F, N) of each signal (columns of ``signals`` (T, N)) filtered at each cutoff [Hz]."""
    out = np.empty((len(cutoffs), signals.shape[1]))
    for i, cutoff in enumerate(cutoffs):
        smooth = filtfilt(*butter2(cutoff, rate), signals, pad_length(cutoff, rate, len(signals)))
        out[i] = np.sqrt(np.mean((signals - smooth) ** 2, axis=0))
    return out


def residual_cutoff(signals: np.ndarray, rate: float) -> float:
    """Winter's cutoff [Hz] for signals (T, N) sampled at ``rate`` [Hz]: the median of each complete
    signal's own (see the module docstring)."""
    signals = np.asarray(signals, dtype=float).reshape(len(signals), -1)
    signals = signals[:, np.isfinite(signals).all(axis=0) & (np.ptp(signals, axis=0) > 0)]
    cutoffs = np.arange(LOWEST_HZ, HIGHEST * rate + 1e-9, STEP_HZ)
    if signals.shape[1] == 0 or len(signals) <= 12 or len(cutoffs) < 4:
        too_short = len(signals) <= PAD  # no filter can run on it either
        raise SolverError(f"Winter's residual analysis needs complete signals longer than 12 frames sampled "
                          f"above {LOWEST_HZ * 4 / HIGHEST:g} Hz to find a cutoff",
                          f"compute derivatives without a filter ({option('cutoff', 'none')}): {len(signals)} "
                          "frames are too few to filter" if too_short else
                          f"give the cutoff yourself, e.g. {option('cutoff', 8)}")
    r = residuals(signals, rate, cutoffs)
    noise = cutoffs >= NOISE_REGION * cutoffs[-1]
    x = cutoffs[noise] - cutoffs[noise].mean()
    slope = (x @ (r[noise] - r[noise].mean(0))) / (x @ x)
    intercept = r[noise].mean(0) - slope * cutoffs[noise].mean()
    below = r <= intercept
    first = np.where(below.any(axis=0), cutoffs[np.argmax(below, axis=0)], cutoffs[-1])
    return float(np.median(first))
