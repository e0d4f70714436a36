"""The sidebar's Render Overlay as a background job, driven the way the interface drives it (``addon.jobs``):
started, then ticked by the operator's timer, one frame a tick; Esc half-way leaves the scene and the output
folder as they were."""

from __future__ import annotations

import importlib

import bpy
import pytest

from test_render import trial_blend  # noqa: F401  (the sample walk's .blend, built once for the module)

FRAMES = (118, 123)


@pytest.fixture
def modules(package):
    return {name: importlib.import_module(f"{package.__name__}.addon.{name}")
            for name in ("render", "render_operator", "jobs")}


@pytest.fixture
def trial(trial_blend):  # noqa: F811
    bpy.ops.wm.open_mainfile(filepath=str(trial_blend))
    collection = next(c for c in bpy.data.collections if "mocap_dynamics" in c)
    bpy.context.scene.mocap_dynamics.active_trial = collection
    return collection


def snapshot() -> dict:
    """What a render set-up changes: the data-blocks by name, the scene's camera, custom properties, frames and
    render settings, and which objects render."""
    scene = bpy.context.scene
    render = scene.render
    return {"blocks": {pool: sorted(b.name for b in getattr(bpy.data, pool))
                       for pool in ("scenes", "objects", "collections", "cameras", "lights", "worlds", "materials",
                                    "node_groups", "curves")},
            "scene": (scene.camera and scene.camera.name, scene.world and scene.world.name, scene.frame_start,
                      scene.frame_end, scene.frame_current, {k: scene[k] for k in scene.keys()
                                                              if isinstance(scene[k], (int, float, str))}),
            "render": (render.engine, render.resolution_x, render.resolution_y, render.filepath,
                       scene.view_settings.view_transform, render.image_settings.file_format),
            "hidden": sorted(ob.name for ob in bpy.data.objects if ob.hide_render)}


def test_a_render_runs_a_frame_a_tick_and_then_writes_every_file(modules, trial, tmp_path):
    options = modules["render"].RenderOptions(resolution=(160, 90), frames=FRAMES, sequence=True, movie=True)
    job = modules["render_operator"].render_job(bpy.context, str(tmp_path), options).start()
    frames, ticks = range(FRAMES[0], FRAMES[1] + 1), 0
    while not job.tick():
        ticks += 1
        if "rendered frame" in job.message:
            assert not any(tmp_path.iterdir()) or all(p.name.startswith(".") for p in tmp_path.iterdir()), \
                "nothing in the folder before the job is over"
    assert job.error is None and not job.cancelled
    assert ticks >= len(frames), "one frame a tick: the interface runs between frames"
    names = [f"{trial.name}_{frame:04d}.png" for frame in frames] + [f"{trial.name}.mp4"]
    assert [p.name for p in job.result] == names
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names), "the files and nothing else"
    movie = (tmp_path / f"{trial.name}.mp4").read_bytes()
    assert len(movie) > 1000 and movie[4:8] == b"ftyp", "an MP4 container"
    assert not [s.name for s in bpy.data.scenes if s.name.endswith(" movie")], "the encoding scene is gone"


def test_cancelling_half_way_leaves_the_scene_and_the_folder_as_they_were(modules, trial, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    before = snapshot()
    options = modules["render"].RenderOptions(resolution=(160, 90), frames=FRAMES, sequence=True)
    job = modules["render_operator"].render_job(bpy.context, str(tmp_path), options).start()
    rendered = 0
    while rendered < 2:  # Esc after the set-up and two frames
        assert not job.tick(), f"the job ended early: {job.message}"
        rendered += "rendered frame" in job.message
    assert snapshot() != before, "the set-up changed the scene"
    job.cancel()
    assert job.tick() and job.cancelled and job.result is None and job.error is None
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"], "no frame, no hidden folder"
    assert snapshot() == before


def test_a_failing_render_reports_one_line_and_changes_nothing(modules, trial, tmp_path):
    before = snapshot()
    options = modules["render"].RenderOptions(resolution=(160, 90), frames=FRAMES, sequence=True)
    job = modules["render_operator"].render_job(bpy.context, str(tmp_path / "missing"), options).start()
    while not job.tick():
        pass
    assert job.result is None and "does not exist" in job.error.one_line()
    assert snapshot() == before


def test_the_operator_from_a_script_renders_synchronously(modules, trial, tmp_path):
    assert bpy.ops.mocap_dynamics.render_overlay(directory=str(tmp_path), output="STILL", width=160,
                                                 height=90) == {"FINISHED"}
    assert not modules["jobs"].busy() and len(list(tmp_path.iterdir())) == 1
