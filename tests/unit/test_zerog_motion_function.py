"""Badler et al. §3: the kinematic motion function (eq. 1) and its three-phase variant under a speed limit."""

import numpy as np
import pytest

from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.zerog import motion_function, quintic


def test_quintic_meets_its_boundary_conditions_and_peaks_mid_way():
    X, T = 1.3, 0.8
    x, v, a = quintic(np.array([0.0, T / 2, T]), X, T)
    np.testing.assert_allclose(x, [0, X / 2, X], atol=1e-15)
    np.testing.assert_allclose(v, [0, 15 * X / (8 * T), 0], atol=1e-14)
    np.testing.assert_allclose(a[[0, 2]], 0, atol=1e-14)
    t = np.linspace(0, T, 2001)
    x, v, a = quintic(t, X, T)
    assert v.max() == pytest.approx(15 * X / (8 * T))
    np.testing.assert_allclose(np.gradient(x, t, edge_order=2), v, atol=1e-5)
    np.testing.assert_allclose(np.gradient(v, t, edge_order=2), a, atol=1e-4)


def test_the_speed_limit_gives_three_smooth_phases():
    X, T, v_max = -2.0, 1.0, 2.2  # the quintic would peak at 3.75
    t = np.linspace(0, T, 100_001)
    x, v, a = motion_function(t, X, T, v_max)
    assert np.abs(v).max() == pytest.approx(v_max, rel=1e-12)
    np.testing.assert_allclose([x[0], x[-1], v[0], v[-1], a[0], a[-1]], [0, X, 0, 0, 0, 0], atol=1e-12)
    dt = t[1] - t[0]
    for values in (x, v, a):  # continuous at the phase boundaries: no jump between samples 10 µs apart
        assert np.abs(np.diff(values)).max() < 1e-3 * np.abs(values).max()
    np.testing.assert_allclose(np.gradient(x, dt), v, atol=1e-6)
    np.testing.assert_allclose(np.gradient(v, dt)[1:-1], a[1:-1], atol=1e-2)  # jerk jumps at the joins
    t2 = T - abs(X) / v_max
    assert np.all(np.abs(v[(t > t2 + 1e-9) & (t < T - t2 - 1e-9)]) == v_max)  # the cruise phase
    x_quintic, _, _ = motion_function(t, X, T, v_max=10.0)  # a loose limit changes nothing
    np.testing.assert_array_equal(x_quintic, quintic(t, X, T)[0])


def test_an_unreachable_distance_is_refused():
    with pytest.raises(SolverError, match="cannot cover"):
        motion_function(np.linspace(0, 1, 5), 2.0, 1.0, v_max=1.5)
