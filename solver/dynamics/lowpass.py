"""The zero-lag low-pass Butterworth filter of biomechanics (Winter, *Biomechanics and Motor Control of Human
Movement*, 4th ed., §3.4.4.4): a second-order Butterworth filter run forwards and backwards.

The same numbers as ``scipy.signal.butter(2, cutoff, fs=rate)`` and ``scipy.signal.filtfilt(b, a, x,
axis=0)`` (odd extension of ``3 * 3`` samples at each end, steady-state initial conditions), without
importing ``scipy.signal`` (a third of a second: it loads ``scipy.stats``). Each pass solves the filter's
difference equation for all samples at once as a banded lower-triangular system (LAPACK ``dtbtrs``).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg.lapack import dtbtrs

#: Samples of odd extension at each end (``scipy.signal.filtfilt``'s default for a second-order filter).
PAD = 9


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


def _lfilter(b: np.ndarray, a: np.ndarray, x: np.ndarray, initial: np.ndarray) -> np.ndarray:
    """One causal pass over the columns of ``x`` (T, N) from the states ``initial`` (2, N): the difference
    equation y[n] + a1 y[n-1] + a2 y[n-2] = b0 x[n] + b1 x[n-1] + b2 x[n-2], the states entering its first two
    rows, solved by forward substitution."""
    rhs = b[0] * x
    rhs[1:] += b[1] * x[:-1]
    rhs[2:] += b[2] * x[:-2]
    rhs[:2] += initial
    bands = np.empty((3, len(x)))
    bands[0], bands[1], bands[2] = 1.0, a[1], a[2]
    y, info = dtbtrs(bands, rhs, uplo="L", overwrite_b=1)
    if info != 0:  # a zero pivot: impossible with a[0] = 1
        raise np.linalg.LinAlgError(f"dtbtrs failed ({info})")
    return y


def filtfilt(b: np.ndarray, a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Zero-lag filtering of the columns of ``x`` (T, N), T > ``PAD``, as ``scipy.signal.filtfilt(b, a, x, axis=0)``:
    odd extension by ``PAD`` samples, a forward pass and a backward pass, each from its steady state."""
    x = np.asarray(x, dtype=float)
    flat = x.reshape(len(x), -1)
    extended = np.concatenate([2 * flat[:1] - flat[PAD:0:-1], flat, 2 * flat[-1:] - flat[-2:-PAD - 2:-1]])
    state = _steady_state(b, a)[:, None]
    forward = _lfilter(b, a, extended, state * extended[0])
    backward = _lfilter(b, a, forward[::-1].copy(), state * forward[-1])[::-1]
    return backward[PAD:-PAD].reshape(x.shape)
