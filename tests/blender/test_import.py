"""File > Import > Motion capture in real Blender, on real recordings: what an animator sees."""

from __future__ import annotations

import bpy
import numpy as np
import pytest

FILES = ["cmu_dribble_shoot_basketball.c3d", "squat_gaps.c3d", "sprint_forceplates_JA1Gait35.c3d",
         "subject4_walking1.trc"]


def import_file(path, **options) -> bpy.types.Collection:
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(path), **options) == {"FINISHED"}
    return bpy.context.scene.mocap_dynamics.active_trial


def marker_objects(collection) -> dict[str, bpy.types.Object]:
    return {ob["mocap_label"]: ob for ob in collection.all_objects if "mocap_label" in ob}


def fcurves(ob):
    """The F-curves of an object's action (its slot's on Blender 4.4 and later)."""
    anim = ob.animation_data
    if not hasattr(anim.action, "layers"):  # Blender 4.2's legacy actions
        return anim.action.fcurves
    return anim.action.layers[0].strips[0].channelbag(anim.action_slot).fcurves


def world_positions(objects, frame) -> np.ndarray:
    bpy.context.scene.frame_set(frame)
    return np.array([ob.matrix_world.translation[:] for ob in objects])


@pytest.mark.parametrize("name", FILES)
def test_keyed_markers_equal_the_reader(scene, solver, shared_data, name):
    trial = solver.io.load_trial(shared_data / name)
    collection = import_file(shared_data / name)
    objects = marker_objects(collection)
    assert list(objects) == list(trial.labels)
    assert scene.render.fps / scene.render.fps_base == pytest.approx(trial.rate)
    assert (scene.frame_start, scene.frame_end) == (1, trial.n_frames)
    obs = [objects[label] for label in trial.labels]
    for i in np.linspace(0, trial.n_frames - 1, 7).astype(int):
        keyed = world_positions(obs, 1 + i)
        present = trial.present()[i]
        np.testing.assert_allclose(keyed[present], trial.markers[i, present], atol=2e-6)  # keys are float32


def test_gaps_are_hidden_not_interpolated(scene, solver, shared_data):
    trial = solver.io.load_trial(shared_data / "squat_gaps.c3d")
    objects = marker_objects(import_file(shared_data / "squat_gaps.c3d"))
    present = trial.present()
    m = int(np.argmax((~present).sum(axis=0)))  # the marker with most missing samples
    ob = objects[trial.labels[m]]
    missing_frames = np.flatnonzero(~present[:, m])
    seen_frames = np.flatnonzero(present[:, m])
    assert len(missing_frames) > 0
    for i in missing_frames[:: max(1, len(missing_frames) // 5)]:
        bpy.context.scene.frame_set(1 + int(i))
        assert ob.hide_viewport and ob.hide_render, f"{ob.name} visible in its gap at sample {i}"
    for i in seen_frames[:: max(1, len(seen_frames) // 5)]:
        bpy.context.scene.frame_set(1 + int(i))
        assert not ob.hide_viewport and not ob.hide_render
    location_keys = [len(fc.keyframe_points) for fc in fcurves(ob) if fc.data_path == "location"]
    assert location_keys == [len(seen_frames)] * 3, "keys written inside a gap"
    interpolations = {(fc.data_path, key.interpolation) for fc in fcurves(ob) for key in fc.keyframe_points}
    assert interpolations == {("location", "LINEAR"), ("hide_viewport", "CONSTANT"), ("hide_render", "CONSTANT")}


def test_force_plate_arrows_match_ezc3d(scene, solver, shared_data):
    import ezc3d

    path = shared_data / "sprint_forceplates_JA1Gait35.c3d"
    raw = ezc3d.c3d(str(path), extract_forceplat_data=True)
    point_rate = raw["parameters"]["POINT"]["RATE"]["value"][0]
    analog_rate = raw["parameters"]["ANALOG"]["RATE"]["value"][0]
    per_frame = int(round(analog_rate / point_rate))
    collection = import_file(path)
    arrows = sorted((ob for ob in collection.all_objects if ob.name.endswith(" GRF")), key=lambda ob: ob.name)
    assert len(arrows) == len(raw["data"]["platform"]) == 8
    checked = 0
    for arrow, platform in zip(arrows, raw["data"]["platform"]):
        force = platform["force"].T  # (Tf, 3) N, ezc3d's own numbers
        # marker frame k owns the analog samples within half a frame of it: [k n - n/2, k n + n/2)
        owner = np.floor(np.arange(len(force)) / per_frame + 0.5).astype(int)
        frames = np.stack([np.bincount(owner, force[:, c]) for c in range(3)], 1) / np.bincount(owner)[:, None]
        magnitude = np.linalg.norm(frames, axis=1)
        for i in np.flatnonzero(magnitude > 200)[::5]:
            bpy.context.scene.frame_set(1 + int(i))
            assert arrow["force_N"] == pytest.approx(magnitude[i], rel=1e-4)
            direction = np.array(arrow.matrix_world.to_3x3().col[2][:])
            assert abs(direction @ frames[i] / magnitude[i]) == pytest.approx(1.0, abs=1e-4)
            assert direction[2] > 0, "a ground reaction force points up"
            shaft = next(ob for ob in arrow.children if ob.name.endswith("shaft"))
            assert shaft.scale[2] == pytest.approx(magnitude[i] * scene["mocap_force_scale"], rel=1e-4)
            checked += 1
    assert checked > 10


def test_units_and_axes(scene, solver, shared_data):
    # CMU file: millimetres, Z up -> metres, Z up.
    import ezc3d

    raw = ezc3d.c3d(str(shared_data / "cmu_dribble_shoot_basketball.c3d"))["data"]["points"]
    objects = marker_objects(import_file(shared_data / "cmu_dribble_shoot_basketball.c3d"))
    head = world_positions([objects["LFHD"]], 10)[0]
    assert 1.2 < head[2] < 2.2, "head height in metres, Z up"
    np.testing.assert_allclose(head, raw[:3, 0, 9] / 1000.0, atol=2e-6)
    # OpenSim TRC: metres, Y up -> Z up by (x, y, z) -> (x, -z, y).
    text = (shared_data / "subject4_walking1.trc").read_text().splitlines()
    first = np.array(text[6].split("\t")[2:5], dtype=float)  # C7 on the first data row
    objects = marker_objects(import_file(shared_data / "subject4_walking1.trc"))
    np.testing.assert_allclose(world_positions([objects["C7"]], 1)[0], [first[0], -first[2], first[1]], atol=2e-6)


def test_keep_scene_rate_resamples(scene, solver, shared_data):
    scene.render.fps, scene.render.fps_base = 24, 1.0
    trial = solver.io.load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d")
    collection = import_file(shared_data / "cmu_dribble_shoot_basketball.c3d", timing="KEEP", start_frame=10)
    assert scene.render.fps == 24
    meta = collection["mocap_dynamics"]["scene"]
    assert meta["keyed_frames"] == int(trial.duration * 24) + 1
    ob = marker_objects(collection)["LFHD"]
    # one second in: scene frame 10 + 24 holds the trial's sample at t = 1 s (120 Hz sample 120)
    np.testing.assert_allclose(world_positions([ob], 34)[0], trial.marker("LFHD")[120], atol=2e-6)


def test_metadata_on_the_collection(scene, shared_data):
    collection = import_file(shared_data / "squat_gaps.c3d")
    meta = collection["mocap_dynamics"].to_dict()
    trial = meta["trial"]
    assert trial["markers"] == 53 and trial["frames"] == 2539 and trial["rate_hz"] == 120
    assert 1.0 < trial["missing_samples_percent"] < 2.5
    assert trial["markers_with_gaps"], "gap statistics per marker"
    assert any("mm" in c for c in trial["conversions"]), "the unit conversion is recorded"


def test_one_subject_of_a_file_with_two(scene, solver, shared_data, tmp_path):
    """Two people captured together (A:LFHD ... and B:LFHD ...): the Subject field picks one; a name the file
    does not hold is one error naming the field, and nothing is built."""
    from dataclasses import replace

    one = solver.io.load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d")
    labels = tuple(f"A:{x}" for x in one.labels) + tuple(f"B:{x}" for x in one.labels)
    both = replace(one, markers=np.concatenate([one.markers, one.markers + (0.0, 2.0, 0.0)], axis=1), labels=labels)
    solver.io.write_c3d(both, tmp_path / "two.c3d")
    objects = marker_objects(import_file(tmp_path / "two.c3d", subject="B"))
    assert list(objects) == list(one.labels)
    np.testing.assert_allclose(world_positions([objects[x] for x in one.labels], 1), one.markers[0] + (0, 2, 0),
                               atol=2e-6)
    before = (len(bpy.data.objects), len(bpy.data.collections), len(bpy.data.actions))
    with pytest.raises(RuntimeError, match='"Subject" set to C names no subject of two.c3d, whose labels\' '
                                           'prefixes are A, B. Give one of A, B'):
        bpy.ops.mocap_dynamics.import_markers(filepath=str(tmp_path / "two.c3d"), subject="C")
    assert (len(bpy.data.objects), len(bpy.data.collections), len(bpy.data.actions)) == before


def test_bad_file_reports_and_leaves_no_trace(scene, tmp_path):
    bad = tmp_path / "broken.c3d"
    bad.write_bytes(b"this is not a c3d file at all" * 10)
    before = (len(bpy.data.objects), len(bpy.data.collections), len(bpy.data.actions))
    with pytest.raises(RuntimeError, match="broken.c3d"):
        bpy.ops.mocap_dynamics.import_markers(filepath=str(bad))
    assert (len(bpy.data.objects), len(bpy.data.collections), len(bpy.data.actions)) == before


def test_drag_and_drop_handler_is_registered(scene):
    """Blender routes .c3d/.trc files dropped on the 3D View to the import operator (the drop itself needs a window)."""
    handler = bpy.types.FileHandler.bl_rna_get_subclass_py("MOCAP_DYNAMICS_FH_import")
    assert handler is not None
    assert set(handler.bl_file_extensions.split(";")) == {".c3d", ".trc"}
    assert handler.bl_import_operator == "mocap_dynamics.import_markers"
