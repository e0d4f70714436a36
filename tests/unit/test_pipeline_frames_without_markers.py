"""Frames in which no markers place the body (the subject not yet in the capture volume): the reconstruction
holds a pose there for display, and the dynamics leave them out, so the frames after them get the forces a
trial starting there would get, not a standstill turned into a jolt."""

from __future__ import annotations

import shutil
from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.io.trc import write_trc
from mocap_dynamics.solver.kinematics.gap_fill import GapFillOptions
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.report import summary

TRIAL = "subject4_walking1"
BLANK = 13  # frames without any marker at the start (0.13 s: the first heel strike's loading)


@pytest.fixture(scope="module")
def late_start(shared_data, tmp_path_factory):
    """walking1 with every marker missing in its first frames, its plates as recorded."""
    folder = tmp_path_factory.mktemp("late_start")
    trial = load_trial(shared_data / f"{TRIAL}.trc")
    markers = trial.markers.copy()
    markers[:BLANK] = np.nan
    write_trc(replace(trial, markers=markers), folder / f"{TRIAL}.trc")
    shutil.copy(shared_data / f"{TRIAL}_grf.mot", folder)
    return run(folder / f"{TRIAL}.trc", PipelineOptions(until="contact"))


def test_frames_without_markers_get_no_forces(late_start):
    assert np.flatnonzero(~late_start.motion.posed).tolist() == list(range(BLANK))
    wrench = late_start.dynamics.root_wrench
    assert np.isnan(wrench[:BLANK]).all() and np.isfinite(wrench[BLANK + 2:-2]).all()
    assert np.isnan(late_start.contact.surface_force[:BLANK]).all()
    text = summary(late_start.report())
    assert f"warning: {BLANK} frames without the markers to place the pelvis" in text


def test_the_frames_after_them_match_the_plates(late_start):
    """Against the plates over the frames with a pose: 3.1 / 2.9 % BW vertical / horizontal (the whole trial
    7.2 / 2.3, its first frames, a heel strike's loading, the worst); with the held pose differentiated into
    them, 7.8 / 21.5 (a 2.4 BW fore-aft jolt)."""
    plates = late_start.plate_comparison
    assert not plates.covered[:BLANK].any()
    assert plates.rmse_vertical < 5.0 and plates.rmse_horizontal < 5.0


def test_a_stance_without_a_pose_goes_to_no_foot(shared_data, tmp_path):
    """DJ3's markers gone in its last 0.1 s, within the last landing: that plate's stance has no foot to go to
    (once a crash: every distance to the feet NaN); the frames before are compared as usual."""
    trial = load_trial(shared_data / "subject4_DJ3.trc")
    markers = trial.markers.copy()
    markers[-10:] = np.nan
    write_trc(replace(trial, markers=markers), tmp_path / "subject4_DJ3.trc")
    shutil.copy(shared_data / "subject4_DJ3_grf.mot", tmp_path)
    result = run(tmp_path / "subject4_DJ3.trc", PipelineOptions(until="contact"))
    plates = result.plate_comparison
    assert not plates.covered[-10:].any() and plates.covered.sum() > 200
    assert plates.rmse_vertical < 15.0


def test_a_segment_without_markers_is_held_and_said(shared_data, tmp_path):
    """The right foot's markers gone in walking1's last 0.2 s (the foot leaving the volume) and not filled: the
    foot is held at its posture on the shank there, and the report says so (its motion is assumed)."""
    trial = load_trial(shared_data / f"{TRIAL}.trc")
    markers = trial.markers.copy()
    foot = [i for i, label in enumerate(trial.labels) if label in ("r_toe", "r_5meta", "r_calc", "r_ankle")]
    markers[-20:, foot] = np.nan
    write_trc(replace(trial, markers=markers), tmp_path / f"{TRIAL}.trc")
    unfilled = GapFillOptions(method="none")  # the default fills these from the other markers (PCA)
    report = run(tmp_path / f"{TRIAL}.trc", PipelineOptions(until="reconstruct", gap_fill=unfilled)).report()
    assert report["reconstruction"]["frames_held"] == {"foot_r": 20}
    assert "held at their posture relative to their parents (their motion assumed, not measured): foot_r in 20 " \
           "frames" in summary(report)
