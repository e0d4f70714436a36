"""The zero-lag low-pass Butterworth filter of biomechanics (Winter, *Biomechanics and Motor Control of Human
Movement*, 4th ed., §3.4.4.4): a second-order Butterworth filter run forwards and backwards.

The same numbers as ``scipy.signal.butter(2, cutoff, fs=rate)`` and ``scipy.signal.filtfilt(b, a, x,
axis=0, padlen=pad)`` (odd extension of ``pad`` samples at each end, steady-state initial conditions), without
importing ``scipy.signal`` (a third of a second: it loads ``scipy.stats``). Each pass is the filter's difference
equation run over the samples, all signals at once (numba): the forward substitution of the banded
lower-triangular system it is, with LAPACK ``dtbtrs``'s operations in their order, so the same numbers as
``dtbtrs``, which this module called before (bit for bit on this project's x86-64 host, where both fuse
multiply-adds), and Winter's residual analysis (90 signals of 6000 frames at 79 cutoffs) in 0.30-0.38 s, not 1.2.

How far to extend (``pad_length``): scipy's default, ``3 * 3`` samples, is a fixed number of samples, but the
filter's memory is a fixed time, about a period of the cutoff. Where the extension is shorter, what is left of
the start-up transient reaches into the first and last frames, and the more so the higher the sampling rate:
a walk (subject4_walking1) resampled to 200 Hz and filtered at 10 Hz gets a root force of -714 N fore-aft in its
last frame (-33 N unfiltered, +44 N at 100 Hz), and its fore-aft GRF from motion alone misses the plates by
5.4 % BW instead of 2.8. Extending by ``PAD_PERIODS`` periods of the cutoff removes it (2.6 % BW at 200 Hz; at
100 Hz the walks' 2.8-2.9 become 2.4-2.5, the sprint at 250 Hz explains 71 % of its root force instead of 68).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Fewest samples of odd extension at each end (``scipy.signal.filtfilt``'s default for a second-order filter) ...
PAD = 9
#: ... and at least this many periods of the cutoff (module docstring).
PAD_PERIODS = 2.0


def pad_length(cutoff: float, rate: float, frames: int) -> int:
    """Samples of odd extension at each end for ``cutoff`` [Hz] at ``rate`` [Hz]: ``PAD_PERIODS`` periods of the
    cutoff, at least ``PAD``, at most ``frames - 1`` (an odd extension reflects the signal's own samples)."""
    return int(min(frames - 1, max(PAD, np.ceil(PAD_PERIODS * rate / cutoff))))


def butter2(cutoff: float, rate: float) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients ``(b, a)`` of the second-order low-pass Butterworth filter at ``cutoff`` [Hz] for samples at
    ``rate`` [Hz], by the bilinear transform with pre-warping (Winter §3.4.4.4: ``ωc = tan(π fc / fs)``,
    ``K1 = √2 ωc``, ``K2 = ωc²``, ``a0 = K2 / (1 + K1 + K2)``; ``a`` here is Winter's ``1, -b1, -b2``)."""
    omega = np.tan(np.pi * cutoff / rate)
    k1, k2 = np.sqrt(2.0) * omega, omega ** 2
    norm = 1.0 + k1 + k2
    b = np.array([k2, 2.0 * k2, k2]) / norm
    a = np.array([1.0, 2.0 * (k2 - 1.0) / norm, (1.0 - k1 + k2) / norm])
    return b, a


def _steady_state(b: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The filter's state for a constant input of 1 (``scipy.signal.lfilter_zi``): (I - Aᵀ) z = b[1:] - a[1:] b0."""
    companion = np.array([[-a[1], 1.0], [-a[2], 0.0]])
    return np.linalg.solve(np.eye(2) - companion, b[1:] - a[1:] * b[0])


@njit(cache=True, nogil=True, no_cfunc_wrapper=True, fastmath={"contract"})  # from Python only: no C callback
def _recursion(y, a1, a2):
    """In place, ``y`` (T, N) holding the right-hand sides: y[n] = (y[n] - a2 y[n-2]) - a1 y[n-1], row after row
    (the columns vectorise); as ``dtbtrs``'s forward substitution computes it, fused multiply-adds included."""
    n_samples, n_columns = y.shape
    for n in range(1, n_samples):
        for k in range(n_columns):
            v = y[n, k]
            if n >= 2:
                v = v - y[n - 2, k] * a2
            y[n, k] = v - y[n - 1, k] * a1


def _lfilter(b: np.ndarray, a: np.ndarray, x: np.ndarray, initial: np.ndarray) -> np.ndarray:
    """One causal pass over the columns of ``x`` (T, N) from the states ``initial`` (2, N): the difference
    equation y[n] + a1 y[n-1] + a2 y[n-2] = b0 x[n] + b1 x[n-1] + b2 x[n-2], the states entering its first two
    rows, solved by forward substitution."""
    y = b[0] * x
    y[1:] += b[1] * x[:-1]
    y[2:] += b[2] * x[:-2]
    y[:2] += initial
    _recursion(y, float(a[1]), float(a[2]))
    return y


def filtfilt(b: np.ndarray, a: np.ndarray, x: np.ndarray, pad: int = PAD) -> np.ndarray:
    """Zero-lag filtering of the columns of ``x`` (T, N), T > ``pad``, as ``scipy.signal.filtfilt(b, a, x, axis=0,
    padlen=pad)``: odd extension by ``pad`` samples, a forward pass and a backward pass, each from its steady
    state."""
    x = np.asarray(x, dtype=float)
    flat = x.reshape(len(x), -1)
    extended = np.concatenate([2 * flat[:1] - flat[pad:0:-1], flat, 2 * flat[-1:] - flat[-2:-pad - 2:-1]])
    state = _steady_state(b, a)[:, None]
    forward = _lfilter(b, a, extended, state * extended[0])
    backward = _lfilter(b, a, forward[::-1].copy(), state * forward[-1])[::-1]
    return backward[pad:-pad].reshape(x.shape)
