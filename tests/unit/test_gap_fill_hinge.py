"""The hinge fill (two donors, the spin about their axis from a third point or interpolated) on synthetic
motions with known answers, its test on the trial, and where ``auto`` uses it."""

from __future__ import annotations

import numpy as np
from test_gap_fill_synthetic import RATE, T, rigid_cluster, rotations_about, trial_of, with_gap

from mocap_dynamics.solver.kinematics.gap_fill import GapFillOptions, fill_gaps
from mocap_dynamics.solver.kinematics.gap_fill.hinge import expected_error, hinge_fill

CANDIDATES = np.array([1, 2, 3]), np.array([0.0, 0.001, 0.002])  # markers 1, 2, 3; the most rigid first


def swinging_pair_and_marker(spin: float = 0.0) -> np.ndarray:
    """Donors 1 and 2 on a line, marker 0 off it, turning about an axis at right angles to that line (no spin
    about it) and, with ``spin``, also about the line itself by ``spin`` rad over the trial; marker 3 drifts
    2 cm in the world (no use as a spin point)."""
    t = np.arange(T) / RATE
    local = np.array([[0.03, 0.06, 0.0], [0.0, 0.0, 0.0], [0.2, 0.0, 0.0]])
    swing = rotations_about(np.array([0.0, 0.0, 1.0]), 0.8 * np.sin(2 * t))
    spun = rotations_about(np.array([1.0, 0.0, 0.0]), spin * t / t[-1])
    path = np.column_stack([t, 0.05 * np.sin(3 * t), np.full(T, 1.0)])
    markers = np.einsum("tij,tjk,nk->tni", swing, spun, local) + path[:, None]
    drifting = path + [0.1, 0.1, 0.1] + 0.02 * np.column_stack([np.sin(t), np.zeros(T), np.zeros(T)])
    return np.concatenate([markers, drifting[:, None]], axis=1)


def test_two_donors_and_a_spin_point_carry_a_rigid_marker_exactly():
    markers = rigid_cluster(4)
    cut = with_gap(markers, 0, 40, 140)
    filled, error = hinge_fill(cut, ~np.isnan(cut).any(axis=2), 0, 40, 140, *CANDIDATES)
    np.testing.assert_allclose(filled, markers[40:140, 0], atol=1e-10)
    assert error < 1e-10


def test_without_a_spin_point_a_swing_is_carried_exactly_and_a_spin_is_interpolated():
    """Marker 3 does not move with the donors (no spin point): a rotation at right angles to the donor axis is
    the smallest that turns it, so it is carried exactly; a spin about the axis, uniform over the trial, is
    spread evenly across the gap from the angles at its ends, and the test sees it."""
    markers = swinging_pair_and_marker()
    cut = with_gap(markers, 0, 60, 150)
    present = ~np.isnan(cut).any(axis=2)
    filled, error = hinge_fill(cut, present, 0, 60, 150, *CANDIDATES)
    np.testing.assert_allclose(filled, markers[60:150, 0], atol=1e-10)
    assert error < 1e-10
    spun = swinging_pair_and_marker(spin=1.0)
    cut = with_gap(spun, 0, 60, 150)
    filled, error = hinge_fill(cut, present, 0, 60, 150, *CANDIDATES)
    np.testing.assert_allclose(filled, spun[60:150, 0], atol=1e-10)  # uniform spin: linear in the angle
    assert error > 0.005  # but carrying one end's angle 90 frames misses by centimetres: the test says so
    assert expected_error(cut, present, 0, [59, 150], 90, (1, 2, None)) == error


def test_hinge_fill_needs_two_donors_measured_through_the_gap():
    markers = rigid_cluster(4)
    cut = with_gap(with_gap(markers, 1, 50, 60), 0, 40, 140)
    cut[50:60, 2] = np.nan
    assert hinge_fill(cut, ~np.isnan(cut).any(axis=2), 0, 40, 140, *CANDIDATES) is None


def test_auto_fills_by_hinge_only_what_rigid_and_pca_cannot_and_when_the_test_passes():
    """A segment of three markers (two donors for each) and a gap longer than pca_max_s in a trial too short
    to test PCA on: today's methods leave it; the hinge fill is exact; a marker that slides 3 cm on the segment
    is left, with the test's miss in the reason."""
    markers = swinging_pair_and_marker()
    segments = {"forearm": ("m0", "m1", "m2")}
    cut = with_gap(markers, 0, 60, 150)
    result = fill_gaps(trial_of(cut), GapFillOptions(), segments)
    assert [g.method for g in result.gaps] == ["hinge"] and result.summary()["samples_by_method"]["hinge"] == 90
    np.testing.assert_allclose(result.trial.markers[60:150, 0], markers[60:150, 0], atol=1e-10)
    assert result.method[100, 0] == 4  # METHODS index + 1
    sliding = markers.copy()
    sliding[:, 0, 1] += 0.03 * np.sin(2 * np.pi * 1.3 * np.arange(T) / RATE)
    left = fill_gaps(trial_of(with_gap(sliding, 0, 60, 150)), GapFillOptions(), segments).gaps[0]
    assert left.method is None and "hinge fill from two donors misses by" in left.reason
    assert "fewer than 3 markers" in left.reason and "pca_max_s" in left.reason
    never = fill_gaps(trial_of(cut), GapFillOptions(hinge_trusted_error_m=0.0), segments).gaps[0]
    assert never.method is None and "hinge_trusted_error_m = 0" in never.reason
    forced = fill_gaps(trial_of(with_gap(sliding, 0, 60, 150)), GapFillOptions(method="hinge"), segments)
    assert forced.gaps[0].method == "hinge"  # asked for by name: not tested
