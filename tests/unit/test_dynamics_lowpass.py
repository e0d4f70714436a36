"""The zero-lag Butterworth filter (``solver.dynamics.lowpass``) against ``scipy.signal``, which it replaces
on the pipeline's path (a closed form for the coefficients; the reference implementation for the passes)."""

import numpy as np
import pytest
from scipy.signal import butter, filtfilt as scipy_filtfilt

from mocap_dynamics.solver.dynamics.lowpass import PAD, butter2, filtfilt


@pytest.mark.parametrize("cutoff, rate, frames", [(6.0, 100.0, 131), (1.0, 100.0, 40), (40.0, 100.0, 500),
                                                  (0.5, 250.0, 2000), (12.0, 120.0, PAD + 1)])
def test_coefficients_and_passes_match_scipy(cutoff, rate, frames):
    b, a = butter2(cutoff, rate)
    expected_b, expected_a = butter(2, cutoff, fs=rate)
    np.testing.assert_allclose(b, expected_b, rtol=1e-12, atol=1e-18)
    np.testing.assert_allclose(a, expected_a, rtol=1e-12, atol=1e-15)
    x = np.cumsum(np.random.default_rng(frames).normal(size=(frames, 4, 3)), axis=0)
    filtered = filtfilt(b, a, x)
    assert filtered.shape == x.shape
    np.testing.assert_allclose(filtered, scipy_filtfilt(expected_b, expected_a, x, axis=0), rtol=0,
                               atol=1e-11 * np.abs(x).max())


def test_passes_a_constant_unchanged():
    """Unit gain at 0 Hz, and the passes start from their steady state: a constant comes through exactly."""
    constant = np.full((30, 2), [1.5, -4.0])
    np.testing.assert_allclose(filtfilt(*butter2(5.0, 100.0), constant), constant, rtol=1e-12)
