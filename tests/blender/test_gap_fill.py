"""Filled marker samples in Blender: keyed on the marker's empty and shown by a violet sphere that is visible
(viewport and render) only while the sample is filled; gone again when the user turns filling off."""

from __future__ import annotations

import importlib

import bpy
import numpy as np
import pytest


def test_filled_samples_look_different_and_render(scene, package, shared_data):
    path = shared_data / "subject4_walking1.trc"
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(path)) == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.build_armature() == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.reconstruct() == {"FINISHED"}  # gap filling on by default
    trial = bpy.context.scene.mocap_dynamics.active_trial
    # 125 missing samples and two dropped as jumps off the thigh where its markers drop out (frames 8 and 11)
    assert trial["mocap_dynamics"].to_dict()["gap_fill"]["samples_filled"] == 127
    pipeline = importlib.import_module(f"{package.__name__}.solver.pipeline")
    gap_fill = pipeline.run(path, pipeline.PipelineOptions(until="reconstruct")).gap_fill
    m = gap_fill.trial.labels.index("r_thigh5")
    filled_frame, measured_frame = 60, 3  # 0-based samples: r_thigh5 is missing from sample 14 on
    assert gap_fill.filled[filled_frame, m] and not gap_fill.filled[measured_frame, m]

    empty = bpy.data.objects["r_thigh5"]
    spheres = next(c for c in trial.children if c.name.endswith(" gap fills"))
    sphere = bpy.data.objects["r_thigh5 (filled)"]
    assert sphere.name in spheres.objects and sphere.parent == empty
    assert {ob.name for ob in spheres.objects} == {"r_thigh3 (filled)", "r_thigh5 (filled)", "L_HJC (filled)"}
    assert sphere.data.materials[0].name == "MocapDynamics marker_filled"
    assert sphere.matrix_world.to_scale()[0] == pytest.approx(empty.empty_display_size)

    scene.frame_set(1 + filled_frame)
    assert not empty.hide_viewport and not empty.hide_render, "a filled marker is shown, not hidden as a gap"
    assert empty["filled"] == 1
    assert not sphere.hide_viewport and not sphere.hide_render, "the sphere shows (and renders) while filled"
    np.testing.assert_allclose(empty.matrix_world.translation[:], gap_fill.trial.markers[filled_frame, m], atol=2e-6)
    np.testing.assert_allclose(sphere.matrix_world.translation[:], empty.matrix_world.translation[:], atol=1e-9)
    scene.frame_set(1 + measured_frame)
    assert empty["filled"] == 0 and sphere.hide_viewport and sphere.hide_render

    assert bpy.ops.mocap_dynamics.reconstruct(gap_fill="none") == {"FINISHED"}
    assert "r_thigh5 (filled)" not in bpy.data.objects and not spheres.objects
    scene.frame_set(1 + filled_frame)
    assert empty.hide_viewport and empty.hide_render and empty["filled"] == 0, "a gap again"
    assert trial["mocap_dynamics"].to_dict()["options"]["gap_fill"]["method"] == "none"
