"""Plates on the marker time base, the unloaded-COP rule, quiet-standing weight, and the up-axis rotation."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.io import attach_plates, quiet_standing_weight
from mocap_dynamics.solver.io.conventions import from_z_up, guess_up_axis, to_z_up
from mocap_dynamics.solver.io.trial import ForcePlate, Trial

CORNERS = np.array([[0.3, 0.2, 0.0], [-0.3, 0.2, 0.0], [-0.3, -0.2, 0.0], [0.3, -0.2, 0.0]])


def plate(force, cop=None, rate=1000.0, start_time=0.0):
    n = len(force)
    cop = np.zeros((n, 3)) if cop is None else cop
    return ForcePlate("p", CORNERS, rate, start_time, np.asarray(force, float), np.asarray(cop, float),
                      np.zeros((n, 3)))


def trial(n_frames=10, rate=100.0):
    return Trial("t", ("A",), np.ones((n_frames, 1, 3)), rate)


def test_each_frame_averages_the_samples_within_half_a_frame():
    t = np.arange(1000) / 1000.0
    force = np.column_stack((t, np.zeros_like(t), np.full_like(t, 500.0)))
    samples = attach_plates(trial(10), [plate(force)]).plate_samples
    # Frame k at k/100 s owns samples k*10-5 .. k*10+4, so their mean time is k/100 - 0.5 ms.
    np.testing.assert_allclose(samples.force[1:, 0, 0], np.arange(1, 10) / 100.0 - 0.0005)
    np.testing.assert_allclose(samples.force[0, 0, 0], 0.002)  # the first frame only has samples 0..4


def test_cop_is_weighted_by_vertical_force_and_missing_while_unloaded():
    force = np.zeros((40, 3))
    force[5:10, 2] = 100.0  # frame 1 (samples 5..14): five samples at 100 N ...
    force[10:15, 2] = 300.0  # ... and five at 300 N
    force[15:25, 2] = 10.0  # frame 2: a touch below 20 N
    cop = np.zeros((40, 3))
    cop[5:10, 0], cop[10:15, 0] = 0.1, 0.2
    samples = attach_plates(trial(4), [plate(force, cop)]).plate_samples
    assert samples.cop[1, 0, 0] == pytest.approx((5 * 100 * 0.1 + 5 * 300 * 0.2) / (5 * 100 + 5 * 300))
    assert np.isnan(samples.cop[[0, 2, 3], 0]).all()
    assert (samples.free_moment[[0, 2, 3]] == 0.0).all()


def test_slow_plates_are_interpolated_and_frames_outside_are_missing():
    force = np.column_stack((np.arange(5.0), np.zeros(5), np.full(5, 600.0)))
    samples = attach_plates(trial(10, rate=100.0), [plate(force, rate=50.0, start_time=0.02)]).plate_samples
    np.testing.assert_allclose(samples.force[2:, 0, 0], np.arange(8) / 2.0)  # 0, 0.5, 1, ... at 100 Hz
    assert np.isnan(samples.force[:2]).all()


def test_quiet_standing_needs_a_steady_second_above_100_newtons():
    n = 300
    vertical = np.full(n, 700.0)
    vertical[:80] = np.linspace(0, 700, 80)  # stepping on
    vertical[200:] = 700.0 + 150.0 * np.sin(np.arange(100) / 3.0)  # then moving
    force = np.column_stack((np.zeros(n), np.zeros(n), vertical))
    standing = attach_plates(trial(n), [plate(force, rate=100.0)])
    assert quiet_standing_weight(standing) == pytest.approx(700.0, rel=1e-6)
    moving = attach_plates(trial(n), [plate(force * [1, 1, 0] + [0, 0, 50.0], rate=100.0)])
    assert quiet_standing_weight(moving) is None  # steady, but too light to be a person


def test_y_up_to_z_up_is_a_proper_rotation_and_inverts():
    rotation = to_z_up(np.eye(3), "Y").T  # columns: where the file's x, y, z axes go
    np.testing.assert_allclose(rotation, [[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    assert np.linalg.det(rotation) == pytest.approx(1.0)
    np.testing.assert_allclose(to_z_up([0.0, 1.0, 0.0], "Y"), [0, 0, 1])  # file up becomes world up
    v = np.random.default_rng(0).normal(size=(7, 3))
    np.testing.assert_allclose(from_z_up(to_z_up(v, "Y"), "Y"), v)


def test_up_axis_guess_follows_the_tallest_spread():
    rng = np.random.default_rng(0)
    standing = rng.uniform([-0.2, -0.2, 0.0], [0.2, 0.2, 1.7], (30, 20, 3))  # Z up
    assert guess_up_axis(standing)[0] == "Z" and guess_up_axis(standing)[1] > 3.0
    assert guess_up_axis(from_z_up(standing, "Y"))[0] == "Y"
