"""Bone names to body segments: known rigs exactly, any other by words; presets round-trip through TOML."""

from __future__ import annotations

import pytest

from mocap_dynamics.solver.errors import InputError, SolverError
from mocap_dynamics.solver.retarget import Mapping, classify, detect_mapping, read_preset, write_preset
from mocap_dynamics.solver.retarget.bone_names import words


@pytest.mark.parametrize("name, role", [
    ("mixamorig:LeftUpLeg", "thigh_l"), ("mixamorig:LeftLeg", "shank_l"), ("mixamorig:RightForeArm", "forearm_r"),
    ("mixamorig:LeftArm", "upper_arm_l"), ("mixamorig:Hips", "pelvis"), ("mixamorig:Spine2", "torso"),
    ("mixamorig:Neck", "head"), ("mixamorig:HeadTop_End", None), ("mixamorig:LeftToeBase", "toe_l"),
    ("mixamorig:LeftHandThumb1", "thumb_l"), ("mixamorig:LeftShoulder", "clavicle_l"),
    ("thigh_l", "thigh_l"), ("calf_r", "shank_r"), ("upperarm_l", "upper_arm_l"), ("lowerarm_r", "forearm_r"),
    ("pelvis", "pelvis"), ("spine_03", "torso"), ("neck_01", "head"), ("ball_l", "toe_l"),
    ("thigh_twist_01_l", None), ("ik_foot_l", None), ("root", None), ("clavicle_r", "clavicle_r"),
    ("Bip01 L Thigh", "thigh_l"), ("Bip01 R Calf", "shank_r"), ("Bip01 Pelvis", "pelvis"),
    ("upper_arm.L", "upper_arm_l"), ("shin.R", "shank_r"), ("DEF-forearm.L.001", "forearm_l"),
    ("lShin", "shank_l"), ("rShldrBend", "upper_arm_r"), ("LeftHip", "thigh_l"), ("Hip", "pelvis"),
    ("pelvis.L", None), ("MCH-thigh_parent.L", None), ("thigh_ik.L", None), ("Armature", None),
])
def test_words_name_the_segment(name, role):
    assert classify(name) == role


def test_words_split_camel_case_separators_and_digits():
    assert words("mixamorig:LeftForeArm") == ["mixamorig", "left", "fore", "arm"]
    assert words("Bip01 L UpperArm") == ["bip", "01", "l", "upper", "arm"]
    assert words("DEF-upper_arm.L.001") == ["def", "upper", "arm", "l", "001"]


def _unreal():
    bones = [("root", None), ("pelvis", "root"), ("spine_01", "pelvis"), ("spine_02", "spine_01"),
             ("spine_03", "spine_02"), ("neck_01", "spine_03"), ("head", "neck_01")]
    for s in "lr":
        bones += [(f"clavicle_{s}", "spine_03"), (f"upperarm_{s}", f"clavicle_{s}"),
                  (f"upperarm_twist_01_{s}", f"upperarm_{s}"), (f"lowerarm_{s}", f"upperarm_{s}"),
                  (f"hand_{s}", f"lowerarm_{s}"), (f"thumb_01_{s}", f"hand_{s}"), (f"thigh_{s}", "pelvis"),
                  (f"thigh_twist_01_{s}", f"thigh_{s}"), (f"calf_{s}", f"thigh_{s}"), (f"foot_{s}", f"calf_{s}"),
                  (f"ball_{s}", f"foot_{s}"), (f"ik_foot_{s}", "root")]
    names = tuple(n for n, _ in bones)
    return names, [-1 if p is None else names.index(p) for _, p in bones]


def test_unreal_mannequin_is_mapped_by_words():
    names, parents = _unreal()
    mapping = detect_mapping(names, parents)
    assert mapping.family == "Unreal mannequin" and not mapping.missing()
    groups = mapping.groups()
    assert groups["torso"] == ["spine_01", "spine_02", "spine_03"] and groups["head"] == ["neck_01", "head"]
    assert groups["shank_r"] == ["calf_r"] and "thigh_twist_01_l" not in mapping.bones and "root" not in mapping.bones


def test_bones_driven_by_constraints_are_never_keyed_and_a_pelvis_is_found_from_the_hips():
    names, parents = _unreal()
    names = tuple("hip_bone" if n == "pelvis" else n for n in names)
    mapping = detect_mapping(names, parents, keyable=set(names) - {"thigh_l"})
    assert "thigh_l" not in mapping.bones and mapping.missing() == ("thigh_l",)
    mapping = detect_mapping(names, parents)
    assert mapping.groups()["pelvis"] == ["hip_bone"], "the thighs' parent"
    with pytest.raises(SolverError, match="thigh_l"):
        detect_mapping(names, parents, keyable=set(names) - {"thigh_l"}).check()


def test_rigify_families_are_recognised_by_their_bones():
    metarig = ("spine", "spine.001", "spine.002", "spine.003", "spine.004", "spine.005", "spine.006",
               *(f"{b}.{s}" for s in "LR" for b in ("shoulder", "upper_arm", "forearm", "hand", "thigh", "shin",
                                                   "foot", "toe")))
    mapping = detect_mapping(metarig, list(range(-1, len(metarig) - 1)))
    assert mapping.family == "Rigify metarig" and mapping.bones["spine"] == "pelvis"
    assert mapping.groups()["head"] == ["spine.004", "spine.005", "spine.006"]
    generated = ("root", "torso", "hips", "chest", "neck", "head", "thigh_parent.L", "upper_arm_parent.R",
                 *(f"{b}_fk.{s}" for s in "LR" for b in ("upper_arm", "forearm", "hand", "thigh", "shin", "foot")))
    mapping = detect_mapping(generated, list(range(-1, len(generated) - 1)))
    assert mapping.family == "Rigify (generated rig)" and mapping.bones["torso"] == "pelvis"
    assert mapping.bones["shin_fk.R"] == "shank_r" and mapping.switches["thigh_parent.L"] == {"IK_FK": 1.0}
    assert "upper_arm_parent.L" not in mapping.switches, "only switches of bones the rig has"


def test_presets_round_trip_and_bad_ones_say_what_is_wrong(tmp_path):
    mapping = Mapping({"mixamorig:Hips": "pelvis", 'odd "name"': "thigh_l"}, "Mixamo",
                      {"thigh_parent.L": {"IK_FK": 1.0}})
    path = write_preset(tmp_path / "character.toml", mapping)
    assert read_preset(path) == mapping
    (tmp_path / "bad.toml").write_text('[bones]\n"Hips" = "hips"\n')
    with pytest.raises(InputError, match="unknown segments: Hips = 'hips'"):
        read_preset(tmp_path / "bad.toml")
    (tmp_path / "broken.toml").write_text('[bones\n')
    with pytest.raises(InputError, match="not valid TOML"):
        read_preset(tmp_path / "broken.toml")
