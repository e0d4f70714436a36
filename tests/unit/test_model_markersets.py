"""Marker sets: the built-in mappings recognize the real files; user TOML files map anything else."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.errors import ModelError
from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.model import MARKERSETS, calibrate, load_markerset, recognize
from mocap_dynamics.solver.model.markersets import get_markerset, normalize

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
def test_recognized_from_labels(shared_data, name, expected):
    trial = load_trial(shared_data / name)
    assert recognize(trial.labels).name == expected


def test_labels_match_without_prefix_and_case():
    assert normalize("Justin:lfhd ") == "LFHD"
    assert recognize([f"Subject:{x.lower()}" for x in MARKERSETS["cmu41"].labels]).name == "cmu41"


def test_unknown_set_says_how_to_map_it(shared_data):
    sprint = load_trial(shared_data / "sprint_forceplates_JA1Gait35.c3d")
    with pytest.raises(ModelError, match=r"Unknown marker set.*cmu41 12 %.*TOML file.*markerset=<path>"):
        calibrate(sprint)


def test_user_mapping_file_calibrates_an_unknown_set(shared_data, tmp_path):
    path = tmp_path / "sprint.toml"
    path.write_text(SPRINT)
    sprint = load_trial(shared_data / "sprint_forceplates_JA1Gait35.c3d")
    model = calibrate(sprint, markerset=path, mass=75.0)
    cal = model.metadata["calibration"]
    assert cal.markerset == "sprint_lab" and cal.welded == ("head", "hand_l", "hand_r")
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


def test_missing_mapping_file_and_unknown_name(tmp_path):
    with pytest.raises(ModelError, match="does not exist"):
        load_markerset(tmp_path / "none.toml")
    with pytest.raises(ModelError, match="Unknown marker set 'plug_in_gait'.*cmu41"):
        get_markerset("plug_in_gait", [])
