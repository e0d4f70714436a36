"""The zero-lag Butterworth filter (``solver.lowpass``) against ``scipy.signal``, which it replaces
on the pipeline's path (a closed form for the coefficients; the reference implementation for the passes)."""

import numpy as np
import pytest
from scipy.signal import butter, filtfilt as scipy_filtfilt

from mocap_dynamics.solver.lowpass import PAD, butter2, filtfilt, pad_length


@pytest.mark.parametrize("cutoff, rate, frames", [(6.0, 100.0, 131), (1.0, 100.0, 40), (40.0, 100.0, 500),
                                                  (0.5, 250.0, 2000), (12.0, 120.0, PAD + 1)])
def test_coefficients_and_passes_match_scipy(cutoff, rate, frames):
    b, a = butter2(cutoff, rate)
    expected_b, expected_a = butter(2, cutoff, fs=rate)
    np.testing.assert_allclose(b, expected_b, rtol=1e-12, atol=1e-18)
    np.testing.assert_allclose(a, expected_a, rtol=1e-12, atol=1e-15)
    x = np.cumsum(np.random.default_rng(frames).normal(size=(frames, 4, 3)), axis=0)
    for pad in (PAD, pad_length(cutoff, rate, frames)):
        filtered = filtfilt(b, a, x, pad)
        assert filtered.shape == x.shape
        np.testing.assert_allclose(filtered, scipy_filtfilt(expected_b, expected_a, x, axis=0, padlen=pad), rtol=0,
                                   atol=1e-11 * np.abs(x).max())


@pytest.mark.parametrize("rate", [100.0, 200.0, 500.0])
def test_ends_keep_a_slow_signal_at_any_rate(rate):
    """A walking root's path (1.3 m/s and a 2 cm sway at 1 Hz) filtered at 10 Hz: its acceleration near the ends
    stays within the sway's own (the odd extension's zero acceleration at the last frame) at every sampling
    rate. scipy's default 9 samples are 45 ms at 200 Hz and 18 ms at 500 Hz, shorter than the filter's memory:
    their start-up transient reaches 5.9 and 34 m/s² there."""
    t = np.arange(0.0, 1.3, 1.0 / rate)
    x = 1.3 * t + 0.02 * np.sin(2 * np.pi * t + 0.3)
    truth = -0.02 * (2 * np.pi) ** 2 * np.sin(2 * np.pi * t + 0.3)
    b, a = butter2(10.0, rate)
    errors = {}
    for pad in (PAD, pad_length(10.0, rate, len(t))):
        acceleration = np.gradient(np.gradient(filtfilt(b, a, x, pad), t), t)
        errors[pad] = np.abs(acceleration - truth)[-len(t) // 20:].max()
    assert errors[pad_length(10.0, rate, len(t))] <= np.abs(truth).max()
    if rate >= 200.0:
        assert errors[PAD] > 5 * np.abs(truth).max()


def test_passes_a_constant_unchanged():
    """Unit gain at 0 Hz, and the passes start from their steady state: a constant comes through exactly."""
    constant = np.full((30, 2), [1.5, -4.0])
    np.testing.assert_allclose(filtfilt(*butter2(5.0, 100.0), constant), constant, rtol=1e-12)
