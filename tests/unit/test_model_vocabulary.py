"""The marker vocabulary: label sets of the usual marker-set families, spelled as their documentation
spells them, read by meaning (landmark, side, segment); ignored labels say why."""

from __future__ import annotations

from dataclasses import replace

import ezc3d
import numpy as np
import pytest

from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.io.c3d import write_c3d
from mocap_dynamics.solver.model import calibrate
from mocap_dynamics.solver.model.markersets import LANDMARKS, recognize
from mocap_dynamics.solver.model.templates import ANATOMY_BY_NAME
from mocap_dynamics.solver.model.vocabulary import CONCEPTS, DERIVATIONS, UNSIDED_LANDMARKS, interpret, meaning


def sides(pairs: str) -> list[str]:
    """"L{x} ..." -> the left and right labels (a {} in each word is replaced by the side)."""
    return [word.format(side) for side in "LR" for word in pairs.split()]


#: Lower-body landmarks and segments every family must give (full-body families also the trunk's).
LOWER = {"asis_l", "asis_r", "psis", "knee_lat_l", "knee_lat_r", "ankle_lat_l", "ankle_lat_r", "heel_l", "heel_r",
         "toe_l", "toe_r"}
UPPER = {"c7", "supr", "acromion_l", "acromion_r", "elbow_lat_l", "elbow_lat_r", "wrist_lat_l", "wrist_lat_r"}
LEGS = {"pelvis", "thigh_l", "thigh_r", "shank_l", "shank_r", "foot_l", "foot_r"}

#: OpenPose's body keypoints as OpenCap writes them beside its markers: joint centres, not landmarks.
OPENPOSE = ["Neck", "midHip"] + sides("{}Shoulder {}Elbow {}Wrist {}Hip {}Knee {}Ankle {}Heel {}BigToe {}SmallToe")

#: family -> (labels as the documentation writes them, landmarks it must give, labels to be ignored).
FAMILIES = {
    # Vicon Plug-in Gait full body (Plug-in Gait Reference Guide marker list)
    "plug_in_gait_full_body": (
        "LFHD RFHD LBHD RBHD C7 T10 CLAV STRN RBAK".split()
        + sides("{}SHO {}UPA {}ELB {}FRM {}WRA {}WRB {}FIN {}ASI {}PSI {}THI {}KNE {}TIB {}ANK {}HEE {}TOE"),
        LOWER | UPPER | {"head_l", "head_r", "head_front", "head_back", "wrist_med_l", "hand_tip_r"}, set()),
    # Plug-in Gait lower body with a sacral marker instead of the PSIS
    "plug_in_gait_lower_body": (
        ["SACR"] + sides("{}ASI {}THI {}KNE {}TIB {}ANK {}HEE {}TOE"), LOWER, set()),
    # Helen Hayes as Motion Analysis Cortex names it (with medial knee and ankle markers)
    "helen_hayes_cortex": (
        ["V.Sacral", "Top.Head", "Front.Head", "Rear.Head"]
        + sides("{}.ASIS {}.Thigh {}.Knee {}.Knee.Medial {}.Shank {}.Ankle {}.Ankle.Medial {}.Heel {}.Toe "
                "{}.Shoulder {}.Elbow {}.Wrist {}.Offset"),
        LOWER | {"knee_med_l", "ankle_med_r", "vertex", "head_front", "head_back", "acromion_l"}, set()),
    # CAST (Cappozzo et al. 1995): anatomical landmarks and four-marker thigh and shank clusters
    "cast": (
        sides("{}ASIS {}PSIS {}GT {}TH1 {}TH2 {}TH3 {}TH4 {}LE {}ME {}HF {}TT {}SK1 {}SK2 {}SK3 {}SK4 {}LM {}MM "
              "{}CA {}FM {}SM {}VM"),
        LOWER | {"knee_med_l", "ankle_med_r"}, set()),
    # Van Sint Jan's ISB codes: OptiTrack Biomech (57), Qualisys IOR sets (LSK and LHGT are not read)
    "optitrack_biomech_57": (
        "SJN SXS CV7 TV2 TV7".split()
        + sides("{}AH {}PH {}CAJ {}HLE {}HME {}UA {}HM2 {}USP {}RSP {}IAS {}IPS {}FTC {}FLE {}FME {}TH {}TTC "
                "{}FAX {}FAL {}TAM {}FM5 {}FM1 {}FM2 {}FCC {}SK {}HGT"),
        LOWER | UPPER | {"elbow_med_l", "wrist_med_r", "knee_med_l", "ankle_med_l", "hand_tip_l"},
        set(sides("{}SK {}HGT"))),
    # OpenCap's files: its marker augmenter's anatomical and cluster markers ("_study" as OpenCap writes them,
    # the jugular notch a stand-in from C7 and the acromions) beside OpenPose's video keypoints (not read)
    "opencap_study": (
        ["C7_study", "RHJC_study", "LHJC_study"] + OPENPOSE
        + [f"{s}{name}_study" for s in ("r", "L") for name in (
            ".ASIS", ".PSIS", "_knee", "_mknee", "_ankle", "_mankle", "_toe", "_5meta", "_calc", "_shoulder",
            "_lelbow", "_melbow", "_lwrist", "_mwrist", "_thigh1", "_thigh2", "_thigh3", "_sh1", "_sh2", "_sh3")],
        LOWER | UPPER | {"hjc_l", "hjc_r", "knee_med_l", "ankle_med_r", "elbow_med_l", "wrist_med_r"},
        set(OPENPOSE)),
    # Qualisys Animation marker set (fingers are not read: the hand is one rigid segment)
    "qualisys_animation": (
        "HeadTop HeadFront HeadL HeadR SpineTop Chest BackL BackR WaistLFront WaistRFront WaistLBack "
        "WaistRBack".split()
        + sides("{}ShoulderTop {}ShoulderBack {}Arm {}ElbowOut {}WristOut {}WristIn {}HandOut {}HandIn {}Thigh "
                "{}KneeOut {}Shin {}AnkleOut {}HeelBack {}ForefootIn {}ForefootOut {}ToeTip {}ThumbTip {}Index2"),
        LOWER | UPPER | {"head_l", "head_front", "vertex", "wrist_med_l", "hand_tip_r"},
        set(sides("{}ThumbTip {}Index2"))),
    # OptiTrack Motive's baseline skeleton markers
    "optitrack_motive_baseline": (
        "WaistLFront WaistRFront WaistLBack WaistRBack BackTop Chest BackLeft BackRight HeadTop HeadFront "
        "HeadSide".split()
        + sides("{}ShoulderBack {}ShoulderTop {}ElbowOut {}UArmHigh {}FArm {}HandOut {}WristOut {}WristIn "
                "{}KneeOut {}Thigh {}AnkleOut {}Shin {}ToeOut {}ToeIn {}Heel"),
        LOWER | UPPER | {"vertex", "head_front"}, set()),
    # Descriptive names, sides as prefix or suffix, any separator, any case
    "descriptive": (
        ["L.Knee", "R.Knee", "LeftAnkle", "Right Ankle", "left_heel", "heel_r", "Toe.L", "RIGHT.toe",
         "l_toe", "Left ASIS", "Right ASIS", "Sacrum", "LeftThigh", "thigh_R", "L_shin", "Shin.R",
         "Left lateral malleolus", "Right medial malleolus", "R.Shoulder", "LeftShoulder", "C7", "Clav",
         "Elbow_L", "r_elbow", "Left Wrist", "RightWrist"],
        {"knee_lat_l", "knee_lat_r", "ankle_lat_l", "ankle_med_r", "heel_l", "heel_r", "toe_l", "asis_l",
         "asis_r", "psis", "acromion_l", "acromion_r", "c7", "supr", "elbow_lat_l", "elbow_lat_r",
         "wrist_lat_l", "wrist_lat_r"}, set()),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_is_read_by_meaning(family):
    labels, expected, not_read = FAMILIES[family]
    meanings, ignored = interpret(labels)
    assert set(ignored) == not_read, ignored
    for label, m in meanings.items():
        text = label.upper()
        if m.side:  # the side comes from the label, wherever it stands
            assert any(token in text for token in (("L", "LEFT") if m.side == "l" else ("R", "RIGHT")))
    mset = recognize(labels)
    assert expected <= set(mset.landmarks), sorted(expected - set(mset.landmarks))
    assert LEGS <= set(mset.segments), sorted(LEGS - set(mset.segments))


@pytest.mark.parametrize("label,concept,side,segment", [
    ("LLEPI", "knee_lat", "l", "thigh_l"),
    ("LLMAL", "ankle_lat", "l", "shank_l"),
    ("LP1MT", "mt1", "l", "foot_l"),
    ("RP5MT", "mt5", "r", "foot_r"),
    ("LTHAP", "thigh_cluster", "l", "thigh_l"),
    ("RTILAT", "shank_cluster", "r", "shank_r"),
    ("LTH1", "thigh_cluster", "l", "thigh_l"),
    ("L_thigh1", "thigh_cluster", "l", "thigh_l"),
    ("r_shank_antsup", "shank_cluster", "r", "shank_r"),
    ("L_sh2", "shank_cluster", "l", "shank_l"),  # "sh" + number: a shank cluster marker ...
    ("LSH", "acromion", "l", "torso"),  # ... "SH" alone: the shoulder
    ("RBAK", "torso_cluster", "r", "torso"),
    ("MAN", "jugular", "", "torso"),
    ("WaistLFront", "waist_front", "l", "pelvis"),
    ("HeadR", "head_side", "r", "head"),
    ("LUArmHigh", "upper_arm_cluster", "l", "upper_arm_l"),
    ("RGT", "thigh_cluster", "r", "thigh_r"),  # "RGT" is also a right-side token: read as R + GT
    ("Subject01:LKNE", "knee_lat", "l", "thigh_l"),
    ("lknee", "knee_lat", "l", "thigh_l"),
    ("LEFTKNEE", "knee_lat", "l", "thigh_l"),
    ("KneeLeft", "knee_lat", "l", "thigh_l"),
    ("knee.L", "knee_lat", "l", "thigh_l"),
    ("V_R.Hip_JC", "hjc", "r", None),  # Cortex's virtual hip centre: a landmark, on no segment
    ("Right_KneeExt", "knee_lat", "r", "thigh_r"),  # external / internal for lateral / medial (biomdp's CMJ)
    ("Right_AnkleInt", "ankle_med", "r", "shank_r"),
])
def test_label_meanings(label, concept, side, segment):
    m = meaning(label)
    assert (m.concept, m.side, m.segment) == (concept, side, segment)


@pytest.mark.parametrize("label", ["LPAT", "*52", "M001", "12", "P1", "THUMB", "foo", "LSK"])
def test_unread_labels_say_why(label):
    meanings, ignored = interpret([label])
    assert not meanings and ignored[label]


def test_generic_labels_read_through_their_descriptions():
    """C3D files whose labels are numbers keep the names in POINT:DESCRIPTIONS."""
    labels = ["M001", "M002", "M003", "*4"]
    descriptions = {"M001": "Left ASIS", "M002": "Right lateral femoral epicondyle", "M003": "Unknown thing"}
    meanings, ignored = interpret(labels, descriptions)
    assert (meanings["M001"].concept, meanings["M001"].side) == ("asis", "l")
    assert meanings["M002"].concept == "knee_lat" and meanings["M002"].from_description
    assert "from the file's description" in meanings["M002"].what
    assert set(ignored) == {"M003", "*4"} and "generic" in ignored["*4"]


def test_vocabulary_data_is_consistent():
    """Segments are the template's, landmark keys are the marker sets', every reference names a concept."""
    for c in CONCEPTS.values():
        if c.segment is not None:
            assert c.segment in ANATOMY_BY_NAME or f"{c.segment}_l" in ANATOMY_BY_NAME, c.name
        assert all(name == name.upper() and name.isalnum() for name in c.names + c.stems), c.name
    for key, alternatives in DERIVATIONS.items():
        names = {key} if key in UNSIDED_LANDMARKS else {f"{key}_l", f"{key}_r"}
        assert names <= LANDMARKS, key
        for alternative in alternatives:
            assert abs(sum(alternative.values()) - 1) < 1e-9, key
            assert all(ref.partition(":")[0] in CONCEPTS for ref in alternative), key


#: CMU's labels as a lab with descriptive names would write them.
DESCRIPTIVE_CMU = {
    "LFHD": "L.Head.Front", "RFHD": "R.Head.Front", "LBHD": "L.Head.Back", "RBHD": "R.Head.Back", "C7": "C7",
    "T10": "T10", "CLAV": "Clavicle", "STRN": "Sternum", "RBAC": "R.Back", "LSHO": "LeftShoulder",
    "RSHO": "RightShoulder", "LUPA": "LeftUpperArm", "RUPA": "RightUpperArm", "LELB": "LeftElbow",
    "RELB": "RightElbow", "LFRM": "LeftForearm", "RFRM": "RightForearm", "LWRA": "LeftWristRadius",
    "RWRA": "RightWristRadius", "LWRB": "LeftWristUlna", "RWRB": "RightWristUlna", "LFIN": "LeftFinger",
    "RFIN": "RightFinger", "LFWT": "WaistLFront", "RFWT": "WaistRFront", "LBWT": "WaistLBack",
    "RBWT": "WaistRBack", "LTHI": "LeftThigh", "RTHI": "RightThigh", "LKNE": "LeftKnee", "RKNE": "RightKnee",
    "LSHN": "LeftShin", "RSHN": "RightShin", "LANK": "LeftAnkle", "RANK": "RightAnkle", "LHEE": "LeftHeel",
    "RHEE": "RightHeel", "LTOE": "LeftToe", "RTOE": "RightToe", "LMT5": "LeftFifthMetatarsal",
    "RMT5": "RightFifthMetatarsal",
}


def same_model(a, b, rename: dict, atol: float = 1e-12):
    assert a.names == b.names
    for sa, sb in zip(a.segments, b.segments):
        assert [rename.get(m, m) for m in sa.markers] == list(sb.markers)
        np.testing.assert_allclose(sa.marker_offsets, sb.marker_offsets, rtol=0, atol=atol)
        np.testing.assert_allclose(sa.joint_offset, sb.joint_offset, rtol=0, atol=atol)
        assert sa.mass == pytest.approx(sb.mass)


def test_descriptive_names_give_the_same_model(shared_data):
    """CMU's trial with its labels renamed descriptively calibrates to the very model of its own labels."""
    cmu = load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d")
    renamed = replace(cmu, labels=tuple(DESCRIPTIVE_CMU[x] for x in cmu.labels))
    same_model(calibrate(cmu), calibrate(renamed), DESCRIPTIVE_CMU)


def test_generic_labels_with_descriptions_in_a_c3d_file(shared_data, tmp_path):
    """Labels M001... with the names in POINT:DESCRIPTIONS: read from the file, the same model."""
    cmu = load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d")
    generic = {x: f"M{i + 1:03d}" for i, x in enumerate(cmu.labels)}
    path = write_c3d(replace(cmu, labels=tuple(generic.values())), tmp_path / "generic.c3d")
    c3d = ezc3d.c3d(str(path))
    c3d.add_parameter("POINT", "DESCRIPTIONS", [DESCRIPTIVE_CMU[x] for x in cmu.labels])
    c3d.write(str(path))
    trial = load_trial(path)
    assert trial.metadata["point_descriptions"]["M001"] == "L.Head.Front"
    model = calibrate(trial)
    same_model(calibrate(cmu), model, generic, atol=1e-6)  # C3D keeps 32-bit floats
    markers = model.metadata["calibration"].markers
    assert markers["M001"]["meaning"] == "left front head (temple) (from the file's description)"
