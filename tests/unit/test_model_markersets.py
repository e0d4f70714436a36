"""Marker sets: the labels of the real files are read by meaning (exactly as the built-in sets map them);
user TOML files override that reading, with weighted landmarks and alternatives."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.errors import ModelError
from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.model import MARKERSETS, calibrate, load_markerset, recognize
from mocap_dynamics.solver.model.markersets import Point, get_markerset, markerset_toml, normalize

FILES = {"cmu_dribble_shoot_basketball.c3d": "cmu41", "squat_gaps.c3d": "vicon53",
         "subject4_static1.trc": "opencap", "subject4_walking1.trc": "opencap"}

#: A mapping for the sprint file's 53-marker running set, which no built-in set covers.
SPRINT = """
name = "sprint_lab"
[segments]
pelvis = ["RASI", "LASI", "SACR", "P1", "P2", "P3"]
torso = ["C7", "T7", "MAN", "LSH", "RSH"]
upper_arm_l = ["LARM", "LELB"]
forearm_l = ["LFOREARM", "LWR"]
upper_arm_r = ["RARM", "RELB"]
forearm_r = ["RFOREARM", "RWR"]
thigh_l = ["LTHLP", "LTHLD", "LTHAP", "LTHAD", "LLEPI"]
shank_l = ["LTIAP", "LTIAD", "LTILAT", "LLMAL"]
foot_l = ["LHEEL", "LMFS", "LMFL", "LP1MT", "LTOE", "LP5MT"]
thigh_r = ["RTHLP", "RTHLD", "RTHAP", "RTHAD", "RLEPI"]
shank_r = ["RTIAP", "RTIAD", "RTILAT", "RLMAL"]
foot_r = ["RHEEL", "RMFS", "RMFL", "RP1MT", "RTOE", "RP5MT"]
[landmarks]
asis_l = "LASI"
asis_r = "RASI"
psis = "SACR"
c7 = "C7"
supr = "MAN"
acromion_l = "LSH"
acromion_r = "RSH"
elbow_lat_l = "LELB"
elbow_lat_r = "RELB"
wrist_lat_l = "LWR"
wrist_lat_r = "RWR"
knee_lat_l = "LLEPI"
knee_lat_r = "RLEPI"
ankle_lat_l = "LLMAL"
ankle_lat_r = "RLMAL"
heel_l = "LHEEL"
heel_r = "RHEEL"
toe_l = "LTOE"
toe_r = "RTOE"
"""


def test_builtin_sets_load():
    assert set(MARKERSETS) == {"cmu41", "vicon53", "opencap"}
    assert len(MARKERSETS["cmu41"].labels) == 41
    assert len(MARKERSETS["vicon53"].labels) == 53


@pytest.mark.parametrize("name,expected", sorted(FILES.items()))
def test_real_files_read_by_meaning_as_the_builtin_sets_map_them(shared_data, name, expected):
    """Reading the labels by meaning gives exactly the built-in set's segments and preferred landmarks."""
    trial = load_trial(shared_data / name)
    auto, builtin = recognize(trial.labels), MARKERSETS[expected]
    assert auto.name == f"auto (like {expected})"
    present = {normalize(x) for x in trial.labels}
    assert {k: set(v) for k, v in auto.segments.items()} == {
        k: {m for m in v if normalize(m) in present} for k, v in builtin.segments.items()}
    for name_, points in builtin.landmarks.items():
        if all(normalize(m) in present for m in points[0].labels):
            assert auto.landmarks[name_][0] == points[0], name_


def test_labels_match_without_prefix_and_case():
    assert normalize("Justin:lfhd ") == "LFHD"
    assert recognize([f"Subject:{x.lower()}" for x in MARKERSETS["cmu41"].labels]).name == "auto (like cmu41)"


def test_sprint_set_is_read_and_its_odd_markers_are_reported(shared_data):
    sprint = load_trial(shared_data / "sprint_forceplates_JA1Gait35.c3d")
    mset = recognize(sprint.labels)
    assert mset.segments["thigh_l"] == ("LTHLP", "LTHLD", "LTHAP", "LTHAD", "LLEPI")
    assert mset.segments["foot_r"] == ("RHEEL", "RMFS", "RMFL", "RP1MT", "RTOE", "RP5MT")
    assert mset.landmarks["supr"][0] == Point.mean(["MAN"]) and mset.landmarks["knee_lat_l"][0] == Point.mean(["LLEPI"])
    assert "patella" in mset.ignored["LPAT"] and "generic" in mset.ignored["*52"] and "P1" in mset.ignored


def test_user_mapping_file_calibrates_an_unknown_set(shared_data, tmp_path):
    path = tmp_path / "sprint.toml"
    path.write_text(SPRINT)
    sprint = load_trial(shared_data / "sprint_forceplates_JA1Gait35.c3d")
    model = calibrate(sprint, markerset=path, mass=75.0)
    cal = model.metadata["calibration"]
    assert cal.markerset == "sprint_lab" and cal.welded == ("hand_l", "hand_r") and cal.held == {"head": "level"}
    assert set(model.marker_labels) == {m for ms in load_markerset(path).segments.values() for m in ms}
    assert any("LPAT" in note for note in cal.notes)  # markers the file does not map are listed
    assert np.median(list(cal.segment_residuals.values())) < 0.01
    assert calibrate(sprint, markerset=path, mass=75.0, template="brubaker12").nv == 29


def test_extends_a_builtin_set(tmp_path):
    path = tmp_path / "lab.toml"
    path.write_text('extends = "cmu41"\n[segments]\nthigh_l = ["LTHI", "LKNE", "LTHI2"]\n')
    mset = load_markerset(path)
    assert mset.segments["thigh_l"] == ("LTHI", "LKNE", "LTHI2")
    assert mset.segments["thigh_r"] == MARKERSETS["cmu41"].segments["thigh_r"]
    assert mset.landmarks == MARKERSETS["cmu41"].landmarks


@pytest.mark.parametrize("text,message", [
    ('[segments]\nknee = ["LKNE"]\n', "unknown segments knee"),
    ('[segments]\npelvis = ["A", "B", "C"]\n[landmarks]\nasis = "A"\n', "unknown landmarks asis"),
    ('[segments]\npelvis = 3\n', "expected a marker label or a list"),
    ('[segments\n', "not valid TOML"),
    ('extends = "plug_in_gait"\n', "extends unknown set"),
    ('name = "empty"\n', "maps no markers"),
])
def test_bad_mapping_files(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ModelError, match=message):
        load_markerset(path)


def test_weighted_landmarks_and_alternatives(tmp_path):
    path = tmp_path / "lab.toml"
    path.write_text('extends = "cmu41"\n[landmarks]\n'
                    'supr = [["CLAV"], {markers = ["STRN", "C7"], weights = [0.8, 0.2]}]\n')
    mset = load_markerset(path)
    assert mset.landmarks["supr"] == (Point.mean(["CLAV"]), Point((("STRN", 0.8), ("C7", 0.2))))
    assert str(mset.landmarks["supr"][1]) == "0.80 STRN + 0.20 C7"
    path.write_text('extends = "cmu41"\n[landmarks]\nsupr = {markers = ["STRN", "C7"], weights = [0.8, 0.3]}\n')
    with pytest.raises(ModelError, match="adding up to 1"):
        load_markerset(path)


def test_written_mapping_reads_back(shared_data, tmp_path):
    """The TOML the sidebar saves is the file the CLI takes: same segments and landmarks."""
    sprint = load_trial(shared_data / "sprint_forceplates_JA1Gait35.c3d")
    mset = recognize(sprint.labels)
    path = tmp_path / "sprint.toml"
    path.write_text(markerset_toml(mset))
    back = load_markerset(path)
    assert back.segments == mset.segments and back.landmarks == mset.landmarks


def test_given_set_falls_back_to_stand_ins_for_an_empty_marker(shared_data):
    """cmu41 names CLAV as the jugular notch; a trial without it gets the vocabulary's stand-in."""
    cmu = load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d")
    labels = [x for x in cmu.labels if x != "CLAV"]
    mset = get_markerset("cmu41", labels)
    assert mset.landmarks["supr"][0] == Point.mean(["CLAV"])
    assert mset.landmarks["supr"][1] == Point((("STRN", 0.83), ("C7", 0.64), ("T10", -0.47)))


def test_missing_mapping_file_and_unknown_name(tmp_path):
    with pytest.raises(ModelError, match="does not exist"):
        load_markerset(tmp_path / "none.toml")
    with pytest.raises(ModelError, match="Unknown marker set 'plug_in_gait'.*cmu41"):
        get_markerset("plug_in_gait", [])
