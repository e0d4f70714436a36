"""OpenCap's own marker files: its marker augmenter's markers (``r_knee_study``; the trunk only C7 and the
acromions) beside OpenPose's video keypoints (``RKnee``: joint centres). The video walk's markers renamed and
cut to that set must still make a trunk and arms, and give the plates' forces from the motion alone."""

from __future__ import annotations

import shutil
from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.errors import ModelError
from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.io.trc import write_trc
from mocap_dynamics.solver.model import calibrate
from mocap_dynamics.solver.model.vocabulary import KEYPOINT, video_keypoints
from mocap_dynamics.solver.pipeline import PipelineOptions, run

TRIAL = "opencap_video_walking3"


def opencap_names() -> dict:
    """The shared video trials' labels -> OpenCap's for the markers OpenCap writes (no sternum, humerus,
    forearm or extra shank markers)."""
    names = {"C7": "C7_study", "R_HJC": "RHJC_study", "L_HJC": "LHJC_study", "R_Shoulder": "r_shoulder_study",
             "L_Shoulder": "L_shoulder_study"}
    for side, low in (("R", "r"), ("L", "L")):
        names |= {f"{low}.{n}": f"{low}.{n}_study" for n in ("ASIS", "PSIS")}
        names |= {f"{low}_{n}": f"{low}_{n}_study" for n in ("knee", "ankle", "toe", "5meta", "calc", "thigh1",
                                                             "thigh2", "thigh3", "sh2", "sh3")}
        names |= {f"{side}_elbow_lat": f"{low}_lelbow_study", f"{side}_elbow_med": f"{low}_melbow_study",
                  f"{side}_wrist_radius": f"{low}_lwrist_study", f"{side}_wrist_ulna": f"{low}_mwrist_study"}
    return names


def as_opencap_writes_it(trial):
    """``trial`` with OpenCap's labels, and OpenPose's keypoints beside them (joint centres, here from the
    markers: the hip centres, the knee, ankle and foot markers, the elbow's and wrist's midpoints)."""
    names = opencap_names()
    index = {label: i for i, label in enumerate(trial.labels)}
    keep = [label for label in trial.labels if label in names]
    tracks = [trial.markers[:, index[label]] for label in keep]
    labels = [names[label] for label in keep]
    for side, low in (("R", "r"), ("L", "L")):
        for keypoint, parts in (("Hip", [f"{side}_HJC"]), ("Knee", [f"{low}_knee"]), ("Ankle", [f"{low}_ankle"]),
                                ("Heel", [f"{low}_calc"]), ("BigToe", [f"{low}_toe"]), ("SmallToe", [f"{low}_5meta"]),
                                ("Elbow", [f"{side}_elbow_lat", f"{side}_elbow_med"]),
                                ("Wrist", [f"{side}_wrist_radius", f"{side}_wrist_ulna"])):
            labels.append(side + keypoint)
            tracks.append(np.mean([trial.markers[:, index[p]] for p in parts], axis=0))
    labels.append("midHip")
    tracks.append(np.mean([trial.markers[:, index[f"{side}_HJC"]] for side in "LR"], axis=0))
    return replace(trial, labels=tuple(labels), markers=np.stack(tracks, axis=1))


@pytest.fixture(scope="module")
def opencap_trial(shared_data):
    return as_opencap_writes_it(load_trial(shared_data / f"{TRIAL}.trc"))


def test_opencap_markers_make_a_trunk_and_arms(shared_data, opencap_trial):
    """C7 and the acromions give the jugular notch (a stand-in), so the trunk and arms are their own segments;
    the keypoints are left out with the reason, and the neck stays near the one the sternum markers give."""
    model = calibrate(opencap_trial)
    names = {s.name for s in model.segments}
    assert {"torso", "upper_arm_l", "forearm_r"} <= names and "hat" not in names
    ignored = model.metadata["calibration"].ignored
    assert {label for label, why in ignored.items() if why == KEYPOINT} == {"midHip"} | {
        side + k for side in "RL" for k in ("Hip", "Knee", "Ankle", "Heel", "BigToe", "SmallToe", "Elbow", "Wrist")}
    with_sternum = calibrate(load_trial(shared_data / f"{TRIAL}.trc"))
    notches = [m.metadata["calibration"].joint_centres["supr"] for m in (model, with_sternum)]
    assert notches[0].startswith("stand-in -0.80 C7_study + 0.90 L_shoulder_study + 0.90 r_shoulder_study (no "
                                 "jugular notch"), notches[0]
    assert notches[1].startswith("stand-in mean of L_Sternum, R_Sternum"), notches[1]
    torso = [next(s for s in m.segments if s.name == "torso") for m in (model, with_sternum)]
    assert np.linalg.norm(torso[0].joint_offset - torso[1].joint_offset) < 0.03  # the lumbar joint
    assert torso[0].mass == pytest.approx(torso[1].mass, rel=0.05)


def test_opencap_markers_give_the_plates_forces(shared_data, opencap_trial, tmp_path):
    """From the motion alone, against the plates: vertical RMSE within the walks' 8 % BW target (4.5 here;
    7.9 with the trunk and arms one segment on the pelvis, as before the stand-in)."""
    write_trc(opencap_trial, tmp_path / f"{TRIAL}.trc")
    shutil.copy(shared_data / f"{TRIAL}_grf.mot", tmp_path)
    result = run(tmp_path / f"{TRIAL}.trc", PipelineOptions(until="contact"))
    assert result.plate_comparison.rmse_vertical < 6.0
    assert result.contact.explained_force > 0.97


def test_video_keypoints_alone_are_refused_in_one_line(opencap_trial, tmp_path):
    """OpenPose's keypoints without the augmenter's markers (as Pose2Sim writes them) are joint centres, two to a
    segment: the run stops with what they are and what to give instead, before trying to find segments."""
    keypoints = [i for i, label in enumerate(opencap_trial.labels) if not label.endswith("_study")]
    only = replace(opencap_trial, labels=tuple(opencap_trial.labels[i] for i in keypoints),
                   markers=opencap_trial.markers[:, keypoints])
    write_trc(only, tmp_path / "keypoints.trc")
    with pytest.raises(ModelError, match=r"keypoints.trc holds video keypoints \(17 of its 17 markers, such as "
                                         r"RHip, RKnee, RAnkle.*marker augmenter") as error:
        run(tmp_path / "keypoints.trc", PipelineOptions(until="calibrate"))
    assert "\n" not in str(error.value)
    assert video_keypoints(["LKNE", "RANK", "L.Knee", "R.Ankle"]) == []  # marker sets name knees and ankles too
