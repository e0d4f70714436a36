"""Zero gravity in the scene: the sidebar's simulation keyed as a new action, beside the original or on it."""

from __future__ import annotations

import bpy
import numpy as np
import pytest


@pytest.fixture
def walking(scene, shared_data):
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(shared_data / "subject4_walking1.trc")) == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.reconstruct() == {"FINISHED"}
    return bpy.context.scene.mocap_dynamics.active_trial


def _rigs(collection):
    return {ob.name: ob for ob in collection.all_objects if ob.type == "ARMATURE"}


def _turn_deg(a, b) -> float:
    """Angle of the rotation between two 3x3 rotation matrices [deg]."""
    cos = (np.trace(np.asarray(b) @ np.asarray(a).T) - 1) / 2
    return float(np.degrees(np.arccos(np.clip(cos, -1, 1))))


def test_self_orientation_beside_the_original_turns_as_reported(walking):
    settings = bpy.context.scene.mocap_dynamics
    settings.zero_gravity, settings.zero_gravity_angle, settings.zero_gravity_duration = "sequence", 60.0, 0.5
    captured = _rigs(walking)[f"{walking.name} rig"].animation_data.action
    assert captured.name == f"{walking.name} captured", "named for what it holds, not the step that made it"
    assert bpy.ops.mocap_dynamics.zero_gravity() == {"FINISHED"}
    report = walking["mocap_dynamics"].to_dict()["zero_gravity"]
    assert report["momentum_drift_relative"] < 1e-9 and report["torso_reorientation_deg"] > 5
    rigs = _rigs(walking)
    original, twin = rigs[f"{walking.name} rig"], rigs[f"{walking.name} zero gravity sequence rig"]
    assert original.animation_data.action == captured, "the captured motion stays on the original rig"
    assert twin.animation_data.action.name == f"{walking.name} zero gravity sequence"
    assert twin.animation_data.action.use_fake_user, "kept when the file is saved"
    assert np.linalg.norm(twin.location) == pytest.approx(1.2), "placed beside the original"
    scene = bpy.context.scene
    scene.frame_set(scene.frame_start)
    pelvis = np.array(original.pose.bones[0].matrix.translation)
    np.testing.assert_allclose(np.array(twin.pose.bones[0].matrix.translation), pelvis, atol=1e-5,
                               err_msg="the manoeuvre starts where the subject stood")
    scene = bpy.context.scene
    rotations = []
    for frame in (scene.frame_start, scene.frame_start + report["frames"] - 1):
        scene.frame_set(frame)
        rotations.append(np.array((twin.matrix_world @ twin.pose.bones[0].matrix).to_3x3()))
    assert scene.frame_end >= scene.frame_start + report["frames"] - 1, "the scene covers the manoeuvre"
    assert _turn_deg(*rotations) == pytest.approx(report["torso_reorientation_deg"], abs=0.1)
    torques = next(c for c in bpy.data.collections
                   if c.name.startswith(f"{walking.name} zero gravity sequence torques"))
    assert {"thigh_l torque", "thigh_r torque"} <= {ob.name.split(".")[0] for ob in torques.objects}


def test_captured_motion_on_the_rig_then_back(walking):
    settings = bpy.context.scene.mocap_dynamics
    settings.zero_gravity, settings.zero_gravity_beside = "captured", False
    rig = _rigs(walking)[f"{walking.name} rig"]
    captured = rig.animation_data.action
    assert bpy.ops.mocap_dynamics.zero_gravity() == {"FINISHED"}
    assert set(_rigs(walking)) == {rig.name}, "no second rig"
    assert rig.animation_data.action.name == f"{walking.name} zero gravity captured"
    assert captured.use_fake_user, "the captured motion is kept"
    dynamics = next(c for c in walking.children if c.name.startswith(f"{walking.name} dynamics"))
    assert dynamics.hide_viewport and dynamics.hide_render, "captured torque disks hidden while they do not apply"
    scene = bpy.context.scene
    scene.frame_set(scene.frame_start)
    start = np.array(rig.pose.bones[0].matrix.translation)
    scene.frame_set(scene.frame_end)
    assert np.linalg.norm(np.array(rig.pose.bones[0].matrix.translation) - start) < 0.2, \
        "with zero momentum the walker no longer walks away"
    assert bpy.ops.mocap_dynamics.reconstruct() == {"FINISHED"}
    assert rig.animation_data.action == captured, "the captured motion is back"
    assert not dynamics.hide_viewport


def test_run_all_steps_from_an_imported_trial(scene, shared_data):
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(shared_data / "subject4_walking1.trc")) == {"FINISHED"}
    trial = bpy.context.scene.mocap_dynamics.active_trial
    assert bpy.ops.mocap_dynamics.run_all() == {"FINISHED"}
    meta = trial["mocap_dynamics"].to_dict()
    assert {"model", "reconstruction", "dynamics", "contact", "zero_gravity"} <= set(meta)
    assert meta["contact"]["plates"], "the trial's plates (found next to the TRC) judge the estimate"
    assert set(_rigs(trial)) == {f"{trial.name} rig", f"{trial.name} zero gravity captured rig"}


def test_the_captured_twin_keeps_the_scene_to_the_trials_frames(scene, shared_data):
    """The sprint at 250 Hz: its last sample's frame computes as 324.00000000000006, which lengthened the scene
    by a frame past the trial when the zero-gravity twin was keyed."""
    assert bpy.ops.mocap_dynamics.import_markers(
        filepath=str(shared_data / "sprint_forceplates_JA1Gait35.c3d")) == {"FINISHED"}
    assert (scene.frame_start, scene.frame_end) == (1, 324)
    assert bpy.ops.mocap_dynamics.zero_gravity() == {"FINISHED"}
    assert (scene.frame_start, scene.frame_end) == (1, 324)
