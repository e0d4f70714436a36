"""A lower-body set's HAT following the pelvis's slow motion (``kinematics.following_trunk``): closed-form pelvis
motions whose slow and fast parts are known, and the edge cases (no time base, a still pelvis, gaps)."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.kinematics.following_trunk import FOLLOW_HZ, following_joint
from mocap_dynamics.solver.rotations import quat_from_axis_angle, quat_to_matrix

RATE = 100.0


def pitched(degrees: np.ndarray, heading: float = 40.0) -> np.ndarray:
    """World rotations (T, 3, 3) of a pelvis facing ``heading`` degrees left and tilted forward by ``degrees``."""
    yaw = quat_to_matrix(quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), np.radians(heading)))
    tilt = quat_to_matrix(quat_from_axis_angle(np.tile([0.0, 1.0, 0.0], (len(degrees), 1)), np.radians(degrees)))
    return yaw @ tilt


def hat_tilt(pelvis: np.ndarray, times: np.ndarray) -> np.ndarray:
    """The HAT's forward tilt [deg] (T,) under ``pelvis``: its long axis's angle from the vertical, signed."""
    hat = pelvis @ quat_to_matrix(following_joint(pelvis, times))
    return tilt_of(hat)


def tilt_of(hat: np.ndarray) -> np.ndarray:
    """The forward tilt [deg] (T,) of rotations ``hat`` (T, 3, 3) facing 40° left."""
    return np.degrees(np.arctan2(np.hypot(hat[:, 0, 2], hat[:, 1, 2]), hat[:, 2, 2])) * np.sign(
        hat[:, 0, 2] * np.cos(np.radians(40.0)) + hat[:, 1, 2] * np.sin(np.radians(40.0)))


def test_gait_oscillations_are_left_out_and_a_slow_lean_is_followed():
    """A pelvis tilting ±8° at a walk's step frequency (2 Hz) about a 20° lean that itself swings by 30° at
    0.2 Hz, as in repeated squats: the HAT keeps the slow lean to 0.5° and less than a tenth of the fast part."""
    times = np.arange(0.0, 10.0, 1.0 / RATE)
    slow = 20.0 + 30.0 * np.sin(2 * np.pi * 0.2 * times)
    tilt = hat_tilt(pitched(slow + 8.0 * np.sin(2 * np.pi * 2.0 * times)), times)
    middle = slice(200, -200)
    assert np.abs(tilt[middle] - slow[middle]).max() < 0.1 * 8.0 + 0.5
    assert np.abs(tilt[middle] - slow[middle]).max() > 0.0
    np.testing.assert_allclose(tilt[middle].mean(), slow[middle].mean(), atol=0.5)


def test_the_hat_faces_where_the_pelvis_faces_and_a_still_pelvis_carries_it_welded():
    times = np.arange(0.0, 2.0, 1.0 / RATE)
    pelvis = pitched(np.full(len(times), 15.0))
    np.testing.assert_allclose(np.abs(following_joint(pelvis, times)[:, 0]), 1.0, atol=1e-12)
    assert FOLLOW_HZ == pytest.approx(1.0)


def test_without_a_time_base_or_with_too_few_frames_the_hat_is_welded():
    pelvis = pitched(np.array([0.0, 10.0, 20.0, 30.0]))
    np.testing.assert_array_equal(following_joint(pelvis, None), np.tile([1.0, 0.0, 0.0, 0.0], (4, 1)))
    np.testing.assert_array_equal(following_joint(pelvis[:2], np.array([0.0, 0.01])),
                                  np.tile([1.0, 0.0, 0.0, 0.0], (2, 1)))


def test_frames_without_a_pelvis_have_no_hat_and_the_rest_bridge_them():
    """Reconstruction leaves NaN where a frame did not converge: those frames stay NaN, the others are as
    without the gap to within the filter's reach."""
    times = np.arange(0.0, 4.0, 1.0 / RATE)
    pelvis = pitched(20.0 + 8.0 * np.sin(2 * np.pi * 2.0 * times))
    gapped = pelvis.copy()
    gapped[150:155] = np.nan
    joint = following_joint(gapped, times)
    assert np.isnan(joint[150:155]).all() and np.isfinite(joint[:150]).all() and np.isfinite(joint[155:]).all()
    seen = np.r_[0:150, 155:len(times)]
    bridged = tilt_of(gapped[seen] @ quat_to_matrix(joint[seen]))
    np.testing.assert_allclose(bridged, hat_tilt(pelvis, times)[seen], atol=0.5)
