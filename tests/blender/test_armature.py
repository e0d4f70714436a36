"""Body model step: an imported trial becomes a calibrated armature in one click, and poses key exactly."""

from __future__ import annotations

import dataclasses
import importlib

import bpy
import numpy as np
import pytest

FAMILIES = [("subject4_walking1.trc", {"static_filepath": "subject4_static1.trc"}),
            ("cmu_dribble_shoot_basketball.c3d", {}), ("squat_gaps.c3d", {"template": "brubaker12"})]


def build(shared_data, name, **options):
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(shared_data / name)) == {"FINISHED"}
    options = {k: str(shared_data / v) if k.endswith("filepath") else v for k, v in options.items()}
    assert bpy.ops.mocap_dynamics.build_armature(**options) == {"FINISHED"}
    collection = bpy.context.scene.mocap_dynamics.active_trial
    rigs = [ob for ob in collection.all_objects if ob.type == "ARMATURE"]
    assert len(rigs) == 1
    return collection, rigs[0]


def model_of(package, shared_data, name, **options):
    """The same model the operator built, from the one pipeline function."""
    pipeline = importlib.import_module(f"{package.__name__}.solver.pipeline")
    static = options.get("static_filepath")
    return pipeline.run(shared_data / name, pipeline.PipelineOptions(
        template=options.get("template", "full15"), static=str(shared_data / static) if static else None,
        until="calibrate")).model


@pytest.mark.parametrize("name,options", FAMILIES)
def test_one_click_armature_for_each_marker_set_family(scene, package, shared_data, name, options):
    collection, rig = build(shared_data, name, **options)
    model = model_of(package, shared_data, name, **options)
    bones = rig.data.bones
    assert [b.name for b in bones] == list(model.names)
    for seg in model.segments:
        bone = bones[seg.name]
        assert bone.length == pytest.approx(max(seg.length, 0.01), abs=1e-5)
        assert bone["mass_kg"] == pytest.approx(seg.mass)
        parent = model.segments[seg.parent].name if seg.parent >= 0 else None
        assert (bone.parent.name if bone.parent else None) == parent
    body = [ob for ob in collection.all_objects if ob.get("mocap_dynamics_body") and ob.parent == rig]
    assert len(body) == 1 and body[0].modifiers[0].object == rig, "a body mesh that follows the rig"
    meta = collection["mocap_dynamics"].to_dict()["model"]
    assert meta["mass_kg"] == pytest.approx(model.total_mass)
    if name.startswith("subject4"):
        assert meta["mass_source"].startswith("force plates (quiet standing in the static trial")
        assert 59 < meta["mass_kg"] < 61
    else:
        assert meta["mass_assumed"], "no plates and no mass: the report says the mass was assumed"


def test_keyed_pose_equals_forward_kinematics(scene, package, shared_data):
    name, options = FAMILIES[0]
    _, rig = build(shared_data, name, **options)
    model = model_of(package, shared_data, name, **options)
    armature = importlib.import_module(f"{package.__name__}.addon.armature")
    motion_type = importlib.import_module(f"{package.__name__}.solver.kinematics.motion").Motion
    rng = np.random.default_rng(7)
    q = np.tile(model.neutral_q(), (4, 1))
    q[:, :3] += rng.normal(scale=0.3, size=(4, 3))
    for seg, start in zip(model.segments, model.q_starts):
        if seg.joint in ("free", "ball"):
            i = start + (3 if seg.joint == "free" else 0)
            quat = rng.normal(size=(4, 4))
            q[:, i:i + 4] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
        else:
            q[:, start:start + seg.nq] = rng.uniform(-1.5, 1.5, size=(4, seg.nq))
    motion = motion_type.from_q(model, np.arange(4) / 100, q, method="test")
    armature.key_motion(rig, motion, np.arange(4) + 10.0, "walk")
    axes = armature.bone_axes(rig, model)
    for t in range(4):
        bpy.context.scene.frame_set(10 + t)
        for k, seg in enumerate(model.segments):
            matrix = np.array(rig.pose.bones[seg.name].matrix)
            np.testing.assert_allclose(matrix[:3, :3], motion.rotations[t, k] @ axes[k], atol=2e-5)
            np.testing.assert_allclose(matrix[:3, 3], motion.positions[t, k], atol=2e-5)


def test_rebuild_updates_in_place(scene, shared_data):
    name, options = FAMILIES[0]
    collection, rig = build(shared_data, name, **options)
    counts = (len(bpy.data.objects), len(bpy.data.armatures), len(bpy.data.meshes))
    assert bpy.ops.mocap_dynamics.build_armature(template="brubaker12") == {"FINISHED"}
    assert (len(bpy.data.objects), len(bpy.data.armatures), len(bpy.data.meshes)) == counts
    assert len(rig.data.bones) == 12


def test_markers_that_cannot_form_a_body_are_a_clear_error(scene, solver, shared_data, tmp_path):
    """Four pelvis markers: the error says what was found and what is missing; nothing is built."""
    cmu = solver.io.load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d")
    keep = [i for i, label in enumerate(cmu.labels) if label.endswith("WT")]
    four = dataclasses.replace(cmu, labels=tuple(cmu.labels[i] for i in keep), markers=cmu.markers[:, keep])
    path = importlib.import_module(f"{solver.__name__}.io.trc").write_trc(four, tmp_path / "four.trc")
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(path)) == {"FINISHED"}
    objects = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match="cannot form a body.*Found: pelvis"):
        bpy.ops.mocap_dynamics.build_armature()
    assert len(bpy.data.objects) == objects and not bpy.data.armatures


def test_unknown_marker_set_is_a_clear_error(scene, solver, tmp_path):
    """Labels no set knows, on markers whose motion makes no body (four markers on one turning wand): the
    segments cannot be found from the motion either, and the message says both."""
    from scipy.spatial.transform import Rotation

    t = np.linspace(0.0, 2.0, 200)
    turn = Rotation.from_rotvec(np.stack([np.sin(3 * t), np.cos(2 * t), t], axis=1)).as_matrix()
    local = np.array([[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.15, 0.0], [0.0, 0.0, 0.2]])
    wand = np.array([1.0, 0.0, 1.0]) + np.einsum("tij,mj->tmi", turn, local)
    path = solver.io.write_trc(solver.io.trial.Trial(source="wand", labels=("1", "2", "3", "4"), markers=wand,
                                                     rate=100.0), tmp_path / "wand.trc")
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(path))
    objects = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match="cannot form a body.*rigid cluster"):
        bpy.ops.mocap_dynamics.build_armature()
    assert len(bpy.data.objects) == objects and not bpy.data.armatures


def test_a_head_without_markers_is_held_level_unless_welded_is_chosen(scene, shared_data):
    """Subject 4 has no head markers: Build Armature holds the head level by default and says so in the
    sidebar's words; "Head and Trunk Without Markers" set to Welded rides it on the torso."""
    collection, _ = build(shared_data, *FAMILIES[0][:1], **FAMILIES[0][1])
    meta = collection["mocap_dynamics"].to_dict()["model"]
    assert meta["held"] == {"head": "level"} and "head" not in meta["welded"]
    assert any('"Head and Trunk Without Markers" set to Welded' in note for note in meta["notes"])
    options = {k: str(shared_data / v) for k, v in FAMILIES[0][1].items()}
    assert bpy.ops.mocap_dynamics.build_armature(head="welded", **options) == {"FINISHED"}
    meta = collection["mocap_dynamics"].to_dict()["model"]
    assert meta["held"] == {} and "head" in meta["welded"]
