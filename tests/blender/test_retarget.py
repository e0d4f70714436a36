"""Retarget in real Blender: a real walk onto Rigify's metarig and a generated Rigify rig, a Mixamo-named
character and an Unreal-mannequin-named one; measured on the characters' own evaluated bones."""

from __future__ import annotations

import importlib

import bpy
import numpy as np
import pytest

from tests.blender.characters import mixamo_character, rigify_metarig, rigify_rig, unreal_mannequin

CHARACTERS = {"metarig": (rigify_metarig, "Rigify metarig", ("spine", "thigh.L", "thigh.R"),
                          ("hand.L", "hand.R"), ("foot.L", "foot.R")),
              "generated": (rigify_rig, "Rigify (generated rig)", ("DEF-spine", "DEF-thigh.L", "DEF-thigh.R"),
                            ("DEF-hand.L", "DEF-hand.R"), ("DEF-foot.L", "DEF-foot.R")),
              "mixamo": (mixamo_character, "Mixamo", ("mixamorig:Hips", "mixamorig:LeftUpLeg", "mixamorig:RightUpLeg"),
                         ("mixamorig:LeftHand", "mixamorig:RightHand"), ("mixamorig:LeftFoot", "mixamorig:RightFoot")),
              "unreal": (unreal_mannequin, "Unreal mannequin", ("pelvis", "thigh_l", "thigh_r"), ("hand_l", "hand_r"),
                         ("foot_l", "foot_r"))}
SEGMENTS = ("thigh_l", "thigh_r", "hand_l", "hand_r", "foot_l", "foot_r")


@pytest.fixture(scope="module")
def walk_blend(package, shared_data, tmp_path_factory):
    """The characters (Rigify generates its rig in seconds in an empty scene, a minute beside a trial), then
    subject4_walking1 calibrated on its static trial, up to the contact estimate; saved once."""
    bpy.ops.wm.read_homefile(use_empty=True)
    for kind, (build, *_) in CHARACTERS.items():
        build().name = kind
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(shared_data / "subject4_walking1.trc")) == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.build_armature(static_filepath=str(shared_data / "subject4_static1.trc")) \
        == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.estimate_contact() == {"FINISHED"}
    path = tmp_path_factory.mktemp("retarget") / "walk.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    return path


@pytest.fixture
def walk(walk_blend):
    bpy.ops.wm.open_mainfile(filepath=str(walk_blend))
    return bpy.context.scene.mocap_dynamics.active_trial


def _rig(trial):
    return next(ob for ob in trial.all_objects if ob.get("mocap_dynamics_rig"))


def evaluate(ob, bones, frames) -> tuple[np.ndarray, np.ndarray]:
    """World heads and tails ``(T, N, 3)`` of ``bones`` as Blender evaluates them at ``frames``."""
    heads, tails = [], []
    for frame in frames:
        bpy.context.scene.frame_set(int(frame))
        world = ob.matrix_world
        heads.append([world @ ob.pose.bones[b].head for b in bones])
        tails.append([world @ ob.pose.bones[b].tail for b in bones])
    return np.array(heads), np.array(tails)


def _stances(ob, frames) -> np.ndarray:
    """The character's keyed contact booleans (left, right) at ``frames``."""
    out = []
    for frame in frames:
        bpy.context.scene.frame_set(int(frame))
        out.append([ob["left foot contact"], ob["right foot contact"]])
    return np.array(out, dtype=bool)


def _runs(flags):
    edges = np.diff(np.r_[0, flags.astype(int), 0])
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)))


def check_character(trial, character, family, hips_bones, hands, feet):
    """The retarget's promises, measured on the character's evaluated bones against the solved rig's."""
    scene = bpy.context.scene
    frames = np.arange(scene.frame_start, scene.frame_end + 1)
    rig = _rig(trial)
    heads_s, _ = evaluate(rig, SEGMENTS, frames)
    heads_t, tails_t = evaluate(character, (*hips_bones[1:], *hands, *feet), frames)
    summary = character["mocap_dynamics_retarget"].to_dict()
    assert summary["family"] == family
    scale = summary["leg_length_ratio"]
    rest = {b.name: character.matrix_world @ b.head_local for b in character.data.bones}
    leg = np.mean([(rest[thigh] - rest[foot]).length for thigh, foot in zip(hips_bones[1:], feet)])
    hips_s, hips_t = heads_s[:, :2].mean(1), heads_t[:, :2].mean(1)
    assert np.corrcoef(hips_s[:, 2], hips_t[:, 2])[0, 1] >= 0.9, "the hip height follows the subject"
    origin_s = np.r_[hips_s[0, :2], 0.0]
    origin_t = np.r_[hips_t[0, :2], 0.0]
    for k, limb in ((2, "hand"), (3, "hand"), (4, "foot"), (5, "foot")):
        scaled = origin_t + scale * (heads_s[:, k] - origin_s)
        path = heads_t[:, k]
        gap = np.linalg.norm((path - path.mean(0)) - (scaled - scaled.mean(0)), axis=1).max()
        print(limb, k, gap, gap / leg)
        assert gap < (0.15 if limb == "hand" else 0.08) * leg, f"{limb} path matches the scaled source ({gap:.3f} m)"
    stance = _stances(character, frames)
    assert stance.any(0).all(), "both feet have stances"
    for f in (0, 1):
        foot_tail = tails_t[:, 4 + f]
        floor = foot_tail[:, 2].min()
        for start, end in _runs(stance[:, f]):
            ball = foot_tail[start:end]
            grounded = ball[:, 2] < floor + 0.02
            slide = np.linalg.norm(ball[grounded, :2] - ball[grounded][0, :2], axis=1).max()
            assert slide <= 0.01, f"foot {f} slides {1000 * slide:.1f} mm in frames {frames[start]}-{frames[end - 1]}"
    assert summary["max_contact_slide_m"] < 1e-3 and summary["max_hip_drop_m"] < 0.05
    return summary


@pytest.mark.parametrize("kind", list(CHARACTERS))
def test_retarget_a_real_walk_onto_a_character(walk, kind):
    _, family, hips_bones, hands, feet = CHARACTERS[kind]
    character = bpy.data.objects[kind]
    idle = bpy.data.actions.new("idle")
    character.animation_data_create().action = idle
    assert bpy.ops.mocap_dynamics.retarget(target=character.name) == {"FINISHED"}
    action = character.animation_data.action
    assert action.name == f"{character.name} {walk.name} captured" and action.use_fake_user
    assert bpy.data.actions.get("idle") is idle and idle.use_fake_user, "the character's own action stays"
    assert character["mocap_previous_action"] == "idle"
    check_character(walk, character, family, hips_bones, hands, feet)
    markers = {m.name for m in bpy.context.scene.timeline_markers}
    assert {"left heel strike", "left toe off", "right heel strike", "right toe off"} <= markers
    if kind == "generated":
        assert character.pose.bones["thigh_parent.L"]["IK_FK"] == 1.0, "the legs are keyed in FK"
        assert not any(c.name.startswith("MocapDynamics") for pb in character.pose.bones for c in pb.constraints)
    visuals = next(c for c in walk.children if c.name.startswith(f"{walk.name} {character.name} visuals"))
    disk = next(ob for ob in visuals.objects if ob.name.startswith("shank_l torque"))
    bpy.context.scene.frame_set(60)
    knee = character.pose.bones[disk.constraints[0].subtarget]
    np.testing.assert_allclose(disk.matrix_world.translation, character.matrix_world @ knee.head, atol=1e-4,
                               err_msg="the torque disk sits at the character's knee")


def test_contact_step_marks_heel_strikes_and_toe_offs(walk):
    """The stances are keyed on the solved rig and their ends are timeline markers (their timing against the
    force plates is checked in tests/unit/test_retarget_real.py: within 35 ms)."""
    rig = _rig(walk)
    markers = sorted((m.frame, m.name) for m in bpy.context.scene.timeline_markers)
    assert [name for _, name in markers] == ["left toe off", "left heel strike", "right toe off", "right heel strike",
                                             "left toe off"]
    strike = next(frame for frame, name in markers if name == "left heel strike")
    scene = bpy.context.scene
    scene.frame_set(strike - 1)
    assert not rig["left foot contact"]
    scene.frame_set(strike)
    assert rig["left foot contact"], "the keyed boolean turns on at heel strike"


def test_zero_gravity_variant_on_a_character(walk):
    settings = bpy.context.scene.mocap_dynamics
    settings.zero_gravity, settings.zero_gravity_beside = "captured", True
    assert bpy.ops.mocap_dynamics.zero_gravity() == {"FINISHED"}
    source = f"{walk.name} zero gravity captured"
    character = bpy.data.objects["mixamo"]
    assert bpy.ops.mocap_dynamics.retarget(target="mixamo", source=source) == {"FINISHED"}
    assert character.animation_data.action.name == f"mixamo {walk.name} zero gravity captured"
    summary = character["mocap_dynamics_retarget"].to_dict()
    assert summary["stances"] == 0 and summary["max_hip_drop_m"] == 0.0, "no ground in orbit: nothing planted"
    twin = next(ob for ob in walk.all_objects if ob.type == "ARMATURE" and ob.animation_data
                and ob.animation_data.action and ob.animation_data.action.name == source)
    scene = bpy.context.scene
    lows = []
    for frame in (scene.frame_start, scene.frame_end):
        scene.frame_set(frame)
        lows.append((np.array(twin.matrix_world @ twin.pose.bones["pelvis"].head),
                     np.array(character.matrix_world @ character.pose.bones["mixamorig:Hips"].head)))
    travel_s, travel_t = lows[1][0] - lows[0][0], lows[1][1] - lows[0][1]
    np.testing.assert_allclose(travel_t[:2], summary["leg_length_ratio"] * travel_s[:2], atol=0.02,
                               err_msg="the floating body drifts as the variant's does, scaled")
    visuals = next(c for c in walk.children if c.name.startswith(f"{walk.name} mixamo visuals"))
    assert any(ob.name.startswith("thigh_l torque") for ob in visuals.objects), "the variant's torque disks follow"


def test_bone_table_presets_and_clear_errors(walk, package, tmp_path):
    settings = bpy.context.scene.mocap_dynamics_retarget
    character = bpy.data.objects["unreal"]
    settings.target = character
    assert bpy.ops.mocap_dynamics.detect_mapping() == {"FINISHED"}
    table = {row.bone: row.segment for row in settings.mapping}
    assert table["calf_l"] == "shank_l" and "thigh_twist_01_l" not in table
    next(r for r in settings.mapping if r.bone == "neck_01").segment = "torso"  # an edit: the neck turns with the torso
    assert bpy.ops.mocap_dynamics.save_mapping_preset(name="UE test") == {"FINISHED"}
    preset = importlib.import_module(f"{package.__name__}.addon.retarget_mapping").presets_dir() / "UE test.toml"
    try:
        settings.mapping.clear()
        settings.preset = str(preset)
        assert bpy.ops.mocap_dynamics.load_mapping_preset() == {"FINISHED"}
    finally:
        preset.unlink()
    assert {row.bone: row.segment for row in settings.mapping}["neck_01"] == "torso"
    assert bpy.ops.mocap_dynamics.retarget(target="unreal", use_table=True) == {"FINISHED"}
    assert character["mocap_dynamics_retarget"]["family"] == "sidebar table"
    with pytest.raises(RuntimeError, match="No object named 'nobody'"):
        bpy.ops.mocap_dynamics.retarget(target="nobody")
    with pytest.raises(RuntimeError, match="is a solved rig, not a character"):
        bpy.ops.mocap_dynamics.retarget(target=_rig(walk).name)
    bad = tmp_path / "bad.toml"
    bad.write_text('[bones]\n"pelvis" = "hips"\n')
    actions = len(bpy.data.actions)
    with pytest.raises(RuntimeError, match="unknown segments"):
        bpy.ops.mocap_dynamics.retarget(target="unreal", preset=str(bad))
    assert len(bpy.data.actions) == actions, "a failed retarget leaves nothing behind"


def _import(path, ob):
    """Import ``path`` with Blender's own importer, set to read what ``export_animation`` wrote."""
    if path.suffix == ".bvh":
        z_up = abs(ob.matrix_world.to_euler()[0]) < 0.1  # the file is in the armature's own axes
        return bpy.ops.import_anim.bvh(filepath=str(path), axis_up="Z" if z_up else "Y",
                                       axis_forward="Y" if z_up else "-Z", update_scene_fps=False,
                                       update_scene_duration=False)
    if path.suffix == ".fbx":
        return bpy.ops.import_scene.fbx(filepath=str(path), anim_offset=0.0)
    return bpy.ops.import_scene.gltf(filepath=str(path))


@pytest.mark.parametrize("suffix", [".bvh", ".fbx", ".glb"])
def test_exports_round_trip_through_blenders_importers(walk, tmp_path, suffix):
    """The solved rig and a retargeted character, exported and imported again: every joint within 1 mm."""
    assert bpy.ops.mocap_dynamics.retarget(target="mixamo") == {"FINISHED"}
    scene = bpy.context.scene
    frames = np.linspace(scene.frame_start, scene.frame_end, 5).round()
    for ob in (_rig(walk), bpy.data.objects["mixamo"]):
        path = tmp_path / f"{ob.name}{suffix}"
        assert bpy.ops.mocap_dynamics.export_animation(target=ob.name, filepath=str(path)) == {"FINISHED"}
        assert path.is_file() and not list(tmp_path.glob("*.partial*")), "written whole, no temporary left"
        before = set(bpy.data.objects)
        assert _import(path, ob) == {"FINISHED"}
        copy = next(o for o in set(bpy.data.objects) - before if o.type == "ARMATURE")
        names = [b.name for b in ob.data.bones]
        assert {b.name for b in copy.data.bones} >= set(names), "the same bone hierarchy"
        assert all((copy.data.bones[n].parent.name if copy.data.bones[n].parent else None)
                   == (ob.data.bones[n].parent.name if ob.data.bones[n].parent else None) for n in names)
        original, imported = evaluate(ob, names, frames)[0], evaluate(copy, names, frames)[0]
        error = np.linalg.norm(imported - original, axis=-1).max()
        assert error < 1e-3, f"{ob.name} through {suffix}: joints {1000 * error:.2f} mm off"


def test_export_refuses_what_it_cannot_write(walk, tmp_path):
    with pytest.raises(RuntimeError, match="unknown format"):
        bpy.ops.mocap_dynamics.export_animation(target="mixamo", filepath=str(tmp_path / "walk.obj"))
    with pytest.raises(RuntimeError, match="Only an armature"):
        bpy.ops.mocap_dynamics.export_animation(target=next(o.name for o in walk.all_objects if o.type == "EMPTY"),
                                                filepath=str(tmp_path / "walk.fbx"))
    assert not list(tmp_path.iterdir())


def test_generated_rig_keys_give_the_retargeted_pose_under_the_whole_rig(walk, package):
    """The generated rig is keyed against a copy of it cut down to the bones its controls' parents depend on;
    evaluated in the whole rig, every keyed control turns as retargeted and the root sits where retargeted
    (0.1 mm; the other controls' heads are where the rig puts them: only rotations are keyed there)."""
    character = bpy.data.objects["generated"]
    constraints = sum(len(pb.constraints) for pb in character.pose.bones)
    objects, armatures = set(bpy.data.objects), set(bpy.data.armatures)
    retarget, source = (importlib.import_module(f"{package.__name__}.addon.{name}")
                        for name in ("retarget", "retarget_source"))
    result = retarget.retarget_character(bpy.context, walk, character, visuals=False)
    assert sum(len(pb.constraints) for pb in character.pose.bones) == constraints, "the character is not touched"
    assert set(bpy.data.objects) == objects and set(bpy.data.armatures) == armatures, "no copy or helper is left"
    assert character["mocap_dynamics_retarget"]["keyed_through_constraints"]
    _, frames = source.read_source(*source.source_rig(walk, source.CAPTURED), 1.0)
    world = np.array(character.matrix_world)
    names = [result.skeleton.names[b] for b in result.turned]
    for t in np.linspace(0, len(frames) - 1, 15).astype(int):
        bpy.context.scene.frame_set(int(frames[t]))
        pose = np.array([character.pose.bones[name].matrix for name in names])
        want = result.pose[t, list(result.turned)]
        turn = np.abs(pose[:, :3, :3] / np.linalg.norm(pose[:, :3, :3], axis=1, keepdims=True) - want[:, :3, :3])
        assert turn.max() < 1e-4, f"frame {frames[t]}: {names[np.argmax(turn.max(axis=(1, 2)))]} turned off"
        root = names.index(result.skeleton.names[result.root])
        np.testing.assert_allclose(world[:3, :3] @ pose[root, :3, 3], world[:3, :3] @ want[root, :3, 3], atol=1e-4)


def test_a_treadmill_walk_keeps_its_feet_on_the_belt(scene, shared_data, tmp_path):
    """subject4_walking1 moved as on a 1.3 m/s treadmill: the contact step stores the belt's velocity on the
    solved rig, and the retarget plants the character's feet on the belt (they travel with it, scaled, instead
    of being pinned in the lab while the subject walks in place). "Walk On" turns the belt's travel into root
    motion: the feet stay put on still ground and the character walks forward."""
    from tests.unit.test_contact_ground import on_a_treadmill
    moved, belt = on_a_treadmill(shared_data / "subject4_walking1.trc", tmp_path, 1.3)
    character = mixamo_character()
    character.name = "mixamo"
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(moved)) == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.build_armature() == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.estimate_contact() == {"FINISHED"}
    trial = bpy.context.scene.mocap_dynamics.active_trial
    rig = _rig(trial)
    np.testing.assert_allclose(rig["floor velocity"], belt, atol=0.05)
    assert bpy.ops.mocap_dynamics.retarget(target=character.name) == {"FINISHED"}
    summary = character["mocap_dynamics_retarget"].to_dict()
    assert summary["max_contact_slide_m"] < 1e-3, "planted on the belt"
    frames = np.arange(scene.frame_start, scene.frame_end + 1)
    _, tails = evaluate(character, ("mixamorig:LeftFoot", "mixamorig:RightFoot"), frames)
    stance = _stances(character, frames)
    step = summary["leg_length_ratio"] * belt / (scene.render.fps / scene.render.fps_base)
    for f in (0, 1):
        for start, end in _runs(stance[:, f]):
            ball = tails[start:end, f]
            grounded = ball[:, 2] < tails[:, f, 2].min() + 0.02
            on_belt = ball[grounded, :2] - np.arange(end - start)[grounded, None] * step[:2]
            assert np.linalg.norm(on_belt - on_belt[0], axis=1).max() <= 0.01, "the ball travels with the belt"
    assert bpy.ops.mocap_dynamics.retarget(target=character.name, belt_travel=True) == {"FINISHED"}
    _, tails = evaluate(character, ("mixamorig:LeftFoot", "mixamorig:RightFoot"), frames)
    for f in (0, 1):
        for start, end in _runs(stance[:, f]):
            ball = tails[start:end, f]
            grounded = ball[:, 2] < tails[:, f, 2].min() + 0.02
            still = ball[grounded, :2]
            assert np.linalg.norm(still - still[0], axis=1).max() <= 0.01, "walking on: the ball stays put"
    hips, _ = evaluate(character, ("mixamorig:Hips",), frames[[0, -1]])
    travelled = (hips[-1, 0] - hips[0, 0])[:2] @ (-belt[:2] / np.linalg.norm(belt[:2]))
    assert travelled > 0.8 * summary["leg_length_ratio"] * np.linalg.norm(belt) * len(frames) / scene.render.fps
