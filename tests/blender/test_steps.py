"""The sidebar workflow after import: Reconstruct, Dynamics, Export, on a real walking trial."""

from __future__ import annotations

import importlib
import re
import shutil

import bpy
import numpy as np
import pytest


def test_reconstruct_keys_the_rig_exactly(walking, package, shared_data):
    assert bpy.ops.mocap_dynamics.reconstruct() == {"FINISHED"}
    meta = walking["mocap_dynamics"].to_dict()["reconstruction"]
    assert meta["frames_converged"] == meta["frames"] == 131
    assert meta["marker_rms_m"] < 0.015
    pipeline = importlib.import_module(f"{package.__name__}.solver.pipeline")
    motion = pipeline.run(shared_data / "subject4_walking1.trc", pipeline.PipelineOptions(
        static=str(shared_data / "subject4_static1.trc"), until="reconstruct")).motion
    rig = next(ob for ob in walking.all_objects if ob.type == "ARMATURE")
    for t in (0, 65, 130):
        bpy.context.scene.frame_set(1 + t)
        for k, seg in enumerate(motion.model.segments):
            np.testing.assert_allclose(rig.pose.bones[seg.name].matrix.translation[:], motion.positions[t, k],
                                       atol=2e-5)
    markers = next(c for c in walking.children if c.name.endswith(" markers"))
    lasis = next(ob for ob in markers.objects if ob["mocap_label"] == "L.ASIS")
    bpy.context.scene.frame_set(66)
    assert lasis["error_mm"] == pytest.approx(1000 * motion.marker_errors[65, motion.marker_labels.index("L.ASIS")],
                                              rel=1e-4)
    model_markers = next(c for c in walking.children if c.name.endswith("model markers"))
    assert len(model_markers.objects) == len(motion.model.marker_labels)
    sphere = next(ob for ob in model_markers.objects if ob.name.startswith("L.ASIS"))
    np.testing.assert_allclose(sphere.matrix_world.translation[:],
                               motion.model.marker_positions(motion.q[65])[motion.model.marker_labels.index("L.ASIS")],
                               atol=2e-5)


def test_dynamics_and_export(walking, tmp_path):
    assert bpy.ops.mocap_dynamics.reconstruct() == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.inverse_dynamics(cutoff=6.0) == {"FINISHED"}
    meta = walking["mocap_dynamics"].to_dict()["dynamics"]
    assert meta["torques_with"] == "measured force plates"
    ratio = meta["root_force_ratio_with_to_without_plates"]
    assert ratio < 0.3, "the measured ground reaction explains most of the root residual force"
    dynamics = next(c for c in walking.children if c.name.endswith(" dynamics"))
    assert any(ob.name == "shank_l torque" for ob in dynamics.objects)
    assert any(ob.name.endswith("residual force") for ob in dynamics.objects)
    assert bpy.ops.mocap_dynamics.export_results(directory=str(tmp_path)) == {"FINISHED"}
    names = sorted(p.name for p in tmp_path.iterdir())
    for expected in ("subject4_walking1_angles.mot", "subject4_walking1_angles.csv", "subject4_walking1_torques.sto",
                     "subject4_walking1_torques.csv"):
        assert expected in names
    assert "opensim" not in names
    assert bpy.ops.mocap_dynamics.export_results(directory=str(tmp_path), opensim=True) == {"FINISHED"}
    opensim = {p.name for p in (tmp_path / "opensim").iterdir()}
    assert {"subject4_walking1.osim", "subject4_walking1_coordinates.mot", "subject4_walking1_moments.sto",
            "subject4_walking1_external_loads.xml"} <= opensim


def test_contact_step_draws_plane_arrows_and_curves(walking, package, shared_data):
    assert bpy.ops.mocap_dynamics.reconstruct() == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.estimate_contact() == {"FINISHED"}
    meta = walking["mocap_dynamics"].to_dict()["contact"]
    assert abs(meta["plane_angle_deg"]) < 1 and abs(meta["plane_height_m"]) < 0.02, "the lab floor"
    assert [s["kind"] for s in meta["surfaces"]] == ["floor"] and meta["forces"] == "per_frame"
    assert 0.9 < meta["explained_force"] <= 1.0
    assert meta["plates"]["frames_compared"] > 50 and meta["plates"]["correlation_vertical"] > 0.95
    contact_collection = next(c for c in walking.children if c.name.endswith(" contact"))
    names = {ob.name for ob in contact_collection.objects}
    assert "estimated ground" in names and {"foot_l estimated GRF", "foot_r estimated GRF"} <= names
    pipeline = importlib.import_module(f"{package.__name__}.solver.pipeline")
    contact = pipeline.run(shared_data / "subject4_walking1.trc", pipeline.PipelineOptions(
        static=str(shared_data / "subject4_static1.trc"))).contact
    rig = next(ob for ob in walking.all_objects if ob.type == "ARMATURE")
    foot = bpy.data.objects["foot_l estimated GRF"]
    for t in (10, 60, 100):
        bpy.context.scene.frame_set(1 + round(contact.times[t] * 100))  # 100 Hz, the trial starting at frame 1
        assert rig["GRF vertical total estimated"] == pytest.approx(contact.total_force[t, 2], abs=1e-2)
        assert foot["force_N"] == pytest.approx(np.linalg.norm(contact.foot_force[t, 0]), abs=1e-2)


def test_a_static_trial_that_cannot_be_read_is_named_by_its_field(scene, shared_data):
    """A folder or a GRF file given as the static trial: one line naming the "Static Trial" field (the solver's
    message named only the file), and no armature."""
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(shared_data / "subject4_walking1.trc")) == {"FINISHED"}
    with pytest.raises(RuntimeError, match=r'The static trial \("Static Trial"\): .*data is a folder, not a '
                                           r"recording. Give one .c3d or .trc file of it.$"):
        bpy.ops.mocap_dynamics.build_armature(static_filepath=str(shared_data))
    with pytest.raises(RuntimeError, match=r'The static trial \("Static Trial"\): Cannot read '
                                           r'subject4_walking1_grf.mot: unknown file type'):
        bpy.ops.mocap_dynamics.build_armature(static_filepath=str(shared_data / "subject4_walking1_grf.mot"))
    assert not [o for o in bpy.data.objects if o.type == "ARMATURE"]


def test_the_papers_springs_from_the_sidebar(walking):
    """The Contact step's "Springs (paper)" on the Dynamics step's unfiltered forward differences, as the paper
    has them; springs on surfaces found from resting points are refused with one line."""
    assert bpy.ops.mocap_dynamics.reconstruct() == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.inverse_dynamics(filter="none", derivatives="forward") == {"FINISHED"}
    with pytest.raises(RuntimeError, match="Conflicting contact options"):
        bpy.ops.mocap_dynamics.estimate_contact(forces="spring", surfaces="detected")
    assert bpy.ops.mocap_dynamics.estimate_contact(forces="spring") == {"FINISHED"}
    meta = walking["mocap_dynamics"].to_dict()
    assert meta["options"]["cutoff"] == "none" and meta["options"]["derivatives"] == "forward"
    assert meta["contact"]["forces"] == "spring" and meta["contact"]["surfaces_from"] == "eq. 10 plane"
    assert 0.5 < meta["contact"]["explained_force"] < 0.9  # the paper's springs: about 76 % on this walk
    rig = next(ob for ob in walking.all_objects if ob.type == "ARMATURE")
    weight = meta["model"]["mass_kg"] * 9.81
    vertical = []
    for frame in range(20, 120, 5):
        bpy.context.scene.frame_set(frame)
        vertical.append(rig["GRF vertical total estimated"])
    assert 0.8 * weight < np.mean(vertical) < 1.2 * weight  # walking carries the body weight


def test_a_fall_without_support_is_told_and_draws_no_ground(scene, package, shared_data, tmp_path):
    """DJ3 cut to its fall (1.05-1.28 s, after the box, before the floor): the contact step finishes (its report
    and warning: no support found), records no surface, draws no ground, and its feet's force arrows stay at
    zero."""
    io = importlib.import_module(f"{package.__name__}.solver.io")
    trc = importlib.import_module(f"{package.__name__}.solver.io.trc")
    trial = io.load_trial(shared_data / "subject4_DJ3.trc")
    keep = (trial.times >= 1.05 - 1e-9) & (trial.times <= 1.28 + 1e-9)
    path = tmp_path / "fall.trc"
    trc.write_trc(type(trial)(source=str(path), labels=trial.labels, markers=trial.markers[keep], rate=trial.rate,
                              start_time=float(trial.times[keep][0])), path)
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(path)) == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.build_armature() == {"FINISHED"}
    trial_collection = bpy.context.scene.mocap_dynamics.active_trial
    assert bpy.ops.mocap_dynamics.reconstruct() == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.estimate_contact() == {"FINISHED"}
    meta = trial_collection["mocap_dynamics"].to_dict()["contact"]
    assert meta["surfaces"] == [] and meta["explained_force"] == 0.0
    drawn = next(c for c in trial_collection.children if c.name.endswith(" contact")).objects
    assert not any(ob.name.startswith(("estimated ground", "estimated surface")) for ob in drawn)
    for frame in (1, 12, 23):
        bpy.context.scene.frame_set(frame)
        assert all(drawn[f"{foot} estimated GRF"]["force_N"] == 0.0 for foot in ("foot_l", "foot_r"))


def test_a_step_run_again_leaves_nothing_of_the_run_before(scene, package, shared_data):
    """The drop jump's contact finds its box, so the rig carries the estimate's floor and raised shares; Estimate
    Contact again on one plane (the paper's) has no raised surface: those curves go. Compute Dynamics again
    with another cutoff stops before the contact and zero gravity: the contact's arrows, curves, stances and
    events and the zero-gravity twin go with them, as its report does, and the torques stay."""
    fcurve = importlib.import_module(f"{package.__name__}.addon.keying").fcurve
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(shared_data / "subject4_DJ3.trc")) == {"FINISHED"}
    trial = scene.mocap_dynamics.active_trial
    assert bpy.ops.mocap_dynamics.build_armature() == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.estimate_contact() == {"FINISHED"}
    rig = next(ob for ob in trial.all_objects if ob.type == "ARMATURE")
    raised = ("GRF vertical floor estimated", "GRF vertical raised estimated")
    assert all(name in rig and fcurve(rig, f'["{name}"]') is not None for name in raised)
    assert [m for m in scene.timeline_markers if m.name.endswith(("heel strike", "toe off"))]

    assert bpy.ops.mocap_dynamics.estimate_contact(surfaces="plane") == {"FINISHED"}
    assert [s["kind"] for s in trial["mocap_dynamics"].to_dict()["contact"]["surfaces"]] == ["floor"]
    assert not any(name in rig or fcurve(rig, f'["{name}"]') is not None for name in raised)
    assert fcurve(rig, '["GRF vertical total estimated"]') is not None
    assert fcurve(rig, '["knee_r_flexion_moment motion alone"]') is not None, "beside the plates' moments"

    assert bpy.ops.mocap_dynamics.zero_gravity() == {"FINISHED"}
    assert [c for c in trial.children if c.name.endswith(" zero gravity")], "the twin beside the subject"

    assert bpy.ops.mocap_dynamics.inverse_dynamics(filter="fixed", cutoff=10.0) == {"FINISHED"}
    assert not {"contact", "zero_gravity"} & set(trial["mocap_dynamics"].to_dict())
    assert not [c for c in trial.children if c.name.endswith((" contact", " zero gravity"))]
    assert not [name for name in rig.keys() if name.startswith("GRF") or name.endswith(("foot contact", "alone"))]
    assert not [m for m in scene.timeline_markers if m.name.endswith(("heel strike", "toe off"))]
    assert fcurve(rig, '["knee_r_flexion_moment"]') is not None


def test_curves_per_kg_stay_per_kg_when_the_contact_is_estimated(walking):
    """Compute Dynamics "Per kg Body Mass", then Estimate Contact (whose dialog has no such choice): the torques
    shown change to the plates' and the estimate's, their curves stay per kg, and so do the moments from the
    motion alone beside them."""
    scene, rig = bpy.context.scene, next(ob for ob in walking.all_objects if ob.type == "ARMATURE")
    assert bpy.ops.mocap_dynamics.inverse_dynamics(per_kg=True) == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.estimate_contact() == {"FINISHED"}
    assert rig["dynamics units"].startswith("N/kg")
    largest = {name: 0.0 for name in ("knee_l_flexion_moment", "knee_l_flexion_moment motion alone")}
    for frame in range(2, 131, 4):
        scene.frame_set(frame)
        largest = {name: max(value, abs(rig[name])) for name, value in largest.items()}
    assert all(0.3 < value < 3.0 for value in largest.values()), largest  # N·m/kg; in N·m they pass 20


def test_reconstruct_unchanged_after_run_all_reuses_the_motion_and_keeps_what_follows(scene, shared_data):
    """Run All Steps takes the stored options, the Reconstruct dialog its properties, which Blender keeps as
    32-bit floats (the 1e-7 tolerance reads back 1.0000000116860974e-07): clicked unchanged, Reconstruct
    reuses the motion, so the torques, the contact and the zero-gravity twin stay."""
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(shared_data / "subject4_walking1.trc")) == {"FINISHED"}
    trial = scene.mocap_dynamics.active_trial
    assert bpy.ops.mocap_dynamics.run_all() == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.reconstruct() == {"FINISHED"}
    assert "reconstruct" in trial["mocap_dynamics"].to_dict()["reused"]
    kinds = {c.name.removeprefix(f"{trial.name} ") for c in trial.children}
    assert {"dynamics", "contact", "zero gravity"} <= kinds, kinds


def test_a_renamed_trial_keeps_working_and_its_steps_leave_no_orphans(scene, shared_data):
    """The trial's collection renamed in the Outliner: every step still finds its markers, rig and visuals (they
    keep the name the trial was imported with), and a step run again with other options leaves no orphan
    actions or meshes behind (each run's arrows had left theirs)."""
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(shared_data / "subject4_walking1.trc")) == {"FINISHED"}
    trial = scene.mocap_dynamics.active_trial
    trial.name = "My walk"
    assert bpy.ops.mocap_dynamics.estimate_contact() == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.zero_gravity() == {"FINISHED"}
    kinds = sorted(c.name.removeprefix("subject4_walking1 ") for c in trial.children)
    assert kinds == ["contact", "dynamics", "force plates", "gap fills", "markers", "model markers", "zero gravity"]
    counts = (len(bpy.data.actions), len(bpy.data.meshes))
    trial.name = "Walk, renamed again"
    assert bpy.ops.mocap_dynamics.estimate_contact(surfaces="plane") == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.zero_gravity() == {"FINISHED"}
    assert not [a.name for a in bpy.data.actions if a.users == 0]
    assert not [m.name for m in bpy.data.meshes if m.users == 0]
    assert (len(bpy.data.actions), len(bpy.data.meshes)) == counts
    assert sorted(c.name.removeprefix("subject4_walking1 ") for c in trial.children) == kinds


def test_steps_go_on_when_the_user_deleted_the_markers_or_the_rig(walking):
    """The marker empties' collection deleted (the rig is what the user wants to see): the steps finish without
    them. The rig deleted: the next step builds a new one, and the old rig's body, left unparented, goes."""
    markers = next(c for c in walking.children if c.name.endswith(" markers") and "model" not in c.name)
    for ob in list(markers.objects):
        bpy.data.objects.remove(ob)
    bpy.data.collections.remove(markers)
    assert bpy.ops.mocap_dynamics.reconstruct() == {"FINISHED"}
    bpy.data.objects.remove(next(ob for ob in walking.all_objects if ob.type == "ARMATURE"))
    assert bpy.ops.mocap_dynamics.inverse_dynamics() == {"FINISHED"}
    bodies = [ob for ob in walking.all_objects if ob.type == "MESH" and ob.name.endswith(("body", ".001"))
              and "rig body" in ob.name]
    assert [(ob.parent.type if ob.parent else None) for ob in bodies] == ["ARMATURE"], [ob.name for ob in bodies]


def test_a_project_folder_moved_finds_its_recording_beside_the_blend_file(scene, shared_data, tmp_path):
    """The .blend and its recordings moved together (another folder, another machine): a step finds the trial's
    recording and plates beside the .blend file. Gone from both places: one line saying what to do."""
    first, moved = tmp_path / "project", tmp_path / "moved project"
    first.mkdir()
    for name in ("subject4_walking1.trc", "subject4_walking1_grf.mot"):
        shutil.copy(shared_data / name, first / name)
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(first / "subject4_walking1.trc")) == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.build_armature() == {"FINISHED"}
    bpy.ops.wm.save_as_mainfile(filepath=str(first / "walk.blend"))
    shutil.move(first, moved)
    bpy.ops.wm.open_mainfile(filepath=str(moved / "walk.blend"))
    assert bpy.ops.mocap_dynamics.inverse_dynamics() == {"FINISHED"}
    meta = bpy.context.scene.mocap_dynamics.active_trial["mocap_dynamics"].to_dict()
    assert meta["source"] == str(moved / "subject4_walking1.trc")
    assert meta["dynamics"]["torques_with"] == "measured force plates"
    (moved / "subject4_walking1.trc").unlink()
    with pytest.raises(RuntimeError, match="recording .*subject4_walking1.trc is not there any more. Put it back, "
                                           "or beside this .blend file"):
        bpy.ops.mocap_dynamics.inverse_dynamics(cutoff=7.0)


def test_no_folder_chosen_writes_beside_the_saved_blend_file_or_is_refused(walking, tmp_path):
    """Export Results or Render without a folder: beside the saved .blend file; with the .blend not saved yet,
    one line asking for a folder (they wrote into whatever folder Blender was started from)."""
    assert bpy.ops.mocap_dynamics.reconstruct() == {"FINISHED"}
    for operator in (bpy.ops.mocap_dynamics.export_results, bpy.ops.mocap_dynamics.render_overlay):
        with pytest.raises(RuntimeError, match='No "Folder" chosen. Choose a "Folder", or save the .blend file'):
            operator()
    with pytest.raises(RuntimeError, match='"Folder" //renders is relative to the .blend file, which is not saved'):
        bpy.ops.mocap_dynamics.render_overlay(directory="//renders")
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "walk.blend"))
    assert bpy.ops.mocap_dynamics.export_results() == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.render_overlay() == {"FINISHED"}
    written = {p.name for p in tmp_path.iterdir()}
    assert {"subject4_walking1_angles.mot", "subject4_walking1_still_0001.png"} <= written, written


def test_plates_out_of_time_are_told_in_the_contact_step(scene, package, shared_data, tmp_path):
    """DJ3 with its GRF file's time column 50 ms late: the contact step's stored figures, which the sidebar's
    Contact panel lists, carry the warning with the offset (51 ms: as recorded its plates come 2 ms late)."""
    mot = importlib.import_module(f"{package.__name__}.solver.io.mot")
    shutil.copy(shared_data / "subject4_DJ3.trc", tmp_path)
    table = mot.read_table(shared_data / "subject4_DJ3_grf.mot")
    data = table.data.copy()
    data[:, 0] += 0.05
    mot.write_table(type(table)(table.columns, data, table.header, table.in_degrees, table.name),
                    tmp_path / "subject4_DJ3_grf.mot")
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(tmp_path / "subject4_DJ3.trc")) == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.build_armature() == {"FINISHED"}
    trial_collection = bpy.context.scene.mocap_dynamics.active_trial
    assert bpy.ops.mocap_dynamics.reconstruct() == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.estimate_contact() == {"FINISHED"}
    warnings = trial_collection["mocap_dynamics"].to_dict()["contact"]["plates"]["warnings"]
    assert any(re.match(r"The force plates run 5[0-2] ms behind the markers", w) for w in warnings), warnings


def test_markers_that_left_their_segment_are_named_in_the_reconstruction_figures(scene, shared_data):
    """The video walk's wandering keypoint markers weigh less by default, and the stored figures the sidebar's
    Reconstruct box lists name them; the operator's "Equal" marker weights, the paper's, name none."""
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(shared_data / "opencap_video_walking3.trc")) == {
        "FINISHED"}
    assert bpy.ops.mocap_dynamics.build_armature() == {"FINISHED"}
    trial_collection = bpy.context.scene.mocap_dynamics.active_trial
    assert bpy.ops.mocap_dynamics.reconstruct() == {"FINISHED"}
    lighter = trial_collection["mocap_dynamics"].to_dict()["reconstruction"]["samples_down_weighted"]
    assert set(lighter) == {"L_thigh2", "L_shank_antsup"}
    assert bpy.ops.mocap_dynamics.reconstruct(marker_weights="equal") == {"FINISHED"}
    assert trial_collection["mocap_dynamics"].to_dict()["reconstruction"]["samples_down_weighted"] == {}
