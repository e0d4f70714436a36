"""Marker Mapping in the sidebar: which marker is which landmark on which segment, fixed by hand and saved
as the marker-set TOML the command line takes; a lower-body trial builds a rig with one HAT bone."""

from __future__ import annotations

import dataclasses
import importlib

import bpy
import pytest


@pytest.fixture
def sprint(scene, shared_data):
    assert bpy.ops.mocap_dynamics.import_markers(
        filepath=str(shared_data / "sprint_forceplates_JA1Gait35.c3d")) == {"FINISHED"}
    return bpy.context.scene.mocap_dynamics.active_trial


def rows_of(collection) -> dict:
    return {row.label: row for row in collection.mocap_dynamics_markers}


def test_labels_read_by_meaning_and_shown(sprint):
    assert bpy.types.MOCAP_DYNAMICS_PT_marker_mapping.bl_parent_id == "MOCAP_DYNAMICS_PT_body_model"
    assert bpy.ops.mocap_dynamics.read_marker_labels() == {"FINISHED"}
    rows = rows_of(sprint)
    assert len(rows) == 53
    knee = rows["LLEPI"]
    assert (knee.meaning, knee.side, knee.segment, knee.landmarks) == ("knee_lat", "l", "thigh_l", "knee_lat_l")
    assert (rows["RP5MT"].meaning, rows["RP5MT"].segment) == ("mt5", "foot_r")
    assert rows["MAN"].landmarks == "supr" and rows["MAN"].side == "NONE"
    assert rows["LPAT"].meaning == "ignore" and "patella" in rows["LPAT"].note
    assert rows["*52"].meaning == "ignore" and "generic" in rows["*52"].note


def test_fixed_by_hand_saved_and_used(sprint, solver, tmp_path):
    """P1-P3 (a sacral cluster the vocabulary cannot know) put on the pelvis by hand, the file saved: the
    next Build Armature and the command line's --markerset both use it."""
    assert bpy.ops.mocap_dynamics.read_marker_labels() == {"FINISHED"}
    rows = rows_of(sprint)
    assert rows["P1"].segment == ""
    for label in ("P1", "P2", "P3"):
        rows[label].meaning = "pelvis_cluster"
    assert rows["P1"].segment == "pelvis", "the row updates as it is edited"
    rows["RLEPI"].side = "l"  # a mistake the user then fixes back
    assert rows["RLEPI"].segment == "thigh_l" and not any("knee_lat_r" in r.landmarks for r in rows.values())
    rows["RLEPI"].side = "r"
    assert rows["RLEPI"].landmarks == "knee_lat_r"
    path = tmp_path / "sprint_lab.toml"
    assert bpy.ops.mocap_dynamics.save_marker_set(filepath=str(path)) == {"FINISHED"}
    mset = solver.model.load_markerset(path)
    assert {"P1", "P2", "P3"} <= set(mset.segments["pelvis"]) and mset.name == "sprint_lab"
    assert "LPAT" not in {m for labels in mset.segments.values() for m in labels}
    assert sprint["mocap_dynamics"]["options"]["markerset"] == str(path)
    assert bpy.ops.mocap_dynamics.build_armature(markerset_filepath=str(path), mass=75.0) == {"FINISHED"}
    model = sprint["mocap_dynamics"].to_dict()["model"]
    assert model["markerset"] == "sprint_lab" and model["markers"]["P1"]["segment"] == "pelvis"
    assert "LPAT" in model["ignored_markers"]
    pipeline = importlib.import_module(f"{solver.__name__}.pipeline")  # what --markerset runs
    result = pipeline.run(sprint["mocap_dynamics"]["source"],
                          pipeline.PipelineOptions(markerset=str(path), until="calibrate", mass=75.0))
    assert "P2" in result.model.segments[0].markers


def test_build_armature_fills_the_rows_once(sprint):
    assert not sprint.mocap_dynamics_markers
    assert bpy.ops.mocap_dynamics.build_armature(mass=75.0) == {"FINISHED"}
    rows = rows_of(sprint)
    assert rows["LTHAP"].segment == "thigh_l"
    rows["LTHAP"].meaning = "ignore"
    assert bpy.ops.mocap_dynamics.build_armature(mass=75.0) == {"FINISHED"}
    assert rows_of(sprint)["LTHAP"].meaning == "ignore", "a rebuild keeps the user's edits"


def test_lower_body_trial_gets_a_hat_bone(scene, solver, shared_data, tmp_path):
    trial = solver.io.load_trial(shared_data / "subject4_walking1.trc")
    upper = ("C7", "Shoulder", "Sternum", "elbow", "wrist", "humerus", "forearm")
    keep = [i for i, label in enumerate(trial.labels) if not any(part in label for part in upper)]
    lower = dataclasses.replace(trial, labels=tuple(trial.labels[i] for i in keep), markers=trial.markers[:, keep])
    path = importlib.import_module(f"{solver.__name__}.io.trc").write_trc(lower, tmp_path / "walk_lower.trc")
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(path)) == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.build_armature(mass=60.0) == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.inverse_dynamics() == {"FINISHED"}
    collection = bpy.context.scene.mocap_dynamics.active_trial
    rig = next(ob for ob in collection.all_objects if ob.type == "ARMATURE")
    assert [b.name for b in rig.data.bones] == ["pelvis", "hat", "thigh_l", "shank_l", "foot_l", "thigh_r",
                                                "shank_r", "foot_r"]
    hat = (6.7 + 33.3 + 2 * 4.7) / 100.2  # Dumas et al.'s shares: head, torso and arms of the body (Table 2)
    assert rig.data.bones["hat"]["mass_kg"] == pytest.approx(hat * 59.4, abs=0.1)
    meta = collection["mocap_dynamics"].to_dict()  # without its shoes, 0.3 kg on each foot (Shoe Mass)
    assert meta["model"]["shoes_kg"] == {"foot_l": 0.3, "foot_r": 0.3}
    assert meta["reconstruction"]["frames_converged"] == 131
    assert meta["model"]["held"] == {"hat": "follow"}  # it follows the pelvis's slow motion
    assert meta["dynamics"]["peak_joint_torque_nm"]["hat"] > 0  # held, not welded: its joint carries a torque
    assert bpy.ops.mocap_dynamics.build_armature(mass=60.0, shoe_mass=0.0) == {"FINISHED"}  # barefoot
    rig = next(ob for ob in collection.all_objects if ob.type == "ARMATURE")
    assert collection["mocap_dynamics"].to_dict()["model"]["shoes_kg"] == {}
    assert rig.data.bones["hat"]["mass_kg"] == pytest.approx(hat * 60.0, abs=0.1)
