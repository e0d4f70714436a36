"""The segment a left-out marker moves with (``model.unplaced_markers``): markers added to a real walk whose answer
is known, and the sprint's unnamed markers through the pipeline's calibration and report."""

from __future__ import annotations

import numpy as np

from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.model import recognize
from mocap_dynamics.solver.model.unplaced_markers import moving_with
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.report import summary


def with_extra_markers(trial):
    """subject4's trial with three markers more: the centroid of its pelvis markers (rides on the pelvis), the
    midpoint of a thigh and a shank marker at the knee (moves with both sides), and a point fixed in the lab (a
    stray reflection)."""
    index = {label: i for i, label in enumerate(trial.labels)}
    pelvis = trial.markers[:, [index[x] for x in ("L.ASIS", "L.PSIS", "r.ASIS", "r.PSIS")]].mean(axis=1)
    knee = 0.5 * (trial.markers[:, index["r_thigh4"]] + trial.markers[:, index["r_sh2"]])
    still = np.tile([0.5, 0.2, 0.1], (trial.n_frames, 1))
    return np.concatenate([trial.markers, np.stack([pelvis, knee, still], axis=1)], axis=1), \
        tuple(trial.labels) + ("X1", "X2", "X3")


def hints(path):
    trial = load_trial(path)
    markers, labels = with_extra_markers(trial)
    return moving_with(markers, labels, recognize(trial.labels).segments, ["X1", "X2", "X3"])


def test_a_marker_riding_on_a_segment_is_found_and_one_at_a_joint_or_in_the_lab_is_not(shared_data):
    """The drop jump bends the trunk over the pelvis: the pelvis's centroid keeps its distances to the pelvis's
    markers (2.9 mm spread) four times better than to the trunk's (12.4)."""
    found = hints(shared_data / "subject4_DJ3.trc")
    assert set(found) == {"X1"} and found["X1"][0] == "pelvis"
    assert found["X1"][1] < 0.005  # m


def test_segments_that_move_together_leave_the_marker_unplaced(shared_data):
    """In a walk the trunk hardly moves over the pelvis (the centroid's spread 1.5 mm to the pelvis's markers, 1.9
    to the trunk's), and standing still every marker keeps its distances to every segment: no segment stands out,
    so no hint."""
    assert hints(shared_data / "subject4_walking1.trc") == {}
    assert hints(shared_data / "subject4_static1.trc") == {}


def test_the_sprints_unnamed_markers_are_said_to_move_with_the_pelvis_and_the_forearms(shared_data):
    """P1-P3 ride on the pelvis, the unlabelled *52 and *53 on the forearms (hand or wrist markers, 4 mm); the
    patellae, left out on purpose, are not looked at. The report says so; nothing is placed."""
    result = run(shared_data / "sprint_forceplates_JA1Gait35.c3d", PipelineOptions(until="calibrate"))
    report = result.report()
    moving = report["model"]["markers_moving_with"]
    assert {label: found["segment"] for label, found in moving.items()} == {
        "P1": "pelvis", "P2": "pelvis", "P3": "pelvis", "*52": "forearm_r", "*53": "forearm_l"}
    assert all(found["spread_m"] < 0.006 for found in moving.values())
    assert {"P1", "*52", "LPAT"} <= set(report["model"]["ignored_markers"])
    assert "P1" not in {m for s in result.model.segments for m in s.markers}
    assert "P1, P2, P3 with the pelvis (3-4 mm); *52 with the forearm_r (4 mm)" in summary(report)
