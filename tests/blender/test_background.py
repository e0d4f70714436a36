"""Background work as the sidebar does it: a job is started, its operator's timer ticks it until it is over
(the scene then holds the results), Esc cancels it (the scene is exactly as before), and a finished step is
undone by one undo step. The tests drive the jobs the operators build, tick by tick, as the modal operator's
timer does (``addon.jobs``); operators called from scripts run the same jobs synchronously."""

from __future__ import annotations

import importlib
import time

import bpy
import pytest

POOLS = ("objects", "meshes", "materials", "actions", "collections", "armatures")


@pytest.fixture
def addon(package):
    return {name: importlib.import_module(f"{package.__name__}.{name}")
            for name in ("addon.jobs", "addon.steps", "addon.importer", "addon.session", "addon.trial_scene",
                         "solver.pipeline")}


def snapshot() -> dict:
    """What a step may change: the data-blocks by name, every action's keys, the trials' metadata, the scene's
    timing and the objects' transforms and visibility."""
    scene = bpy.context.scene
    return {"blocks": {pool: sorted(block.name for block in getattr(bpy.data, pool)) for pool in POOLS},
            "keys": {action.name: sum(len(curve.keyframe_points) for curve in action_curves(action))
                     for action in bpy.data.actions},
            "meta": {c.name: c["mocap_dynamics"].to_dict() for c in bpy.data.collections if "mocap_dynamics" in c},
            "scene": (scene.frame_start, scene.frame_end, scene.render.fps, scene.frame_current),
            "objects": {ob.name: (tuple(ob.matrix_world.col[3]), ob.hide_viewport, ob.parent and ob.parent.name)
                        for ob in bpy.data.objects}}


def action_curves(action):
    """The F-curves of a legacy (4.2) or slotted (4.4+) action."""
    if hasattr(action, "layers") and action.layers:
        return [curve for layer in action.layers for strip in layer.strips for bag in strip.channelbags
                for curve in bag.fcurves]
    return list(action.fcurves)


def until_over(job, timeout: float = 600.0) -> None:
    """Tick ``job`` as the operator's timer does until it is over."""
    started = time.monotonic()
    while not job.tick():
        assert time.monotonic() - started < timeout, f"{job.label} still running: {job.message}"
        time.sleep(0.02)


def test_a_step_runs_in_the_background_and_then_builds_the_scene(walking, addon):
    before = snapshot()
    job = addon["addon.steps"].step_job(bpy.context, "reconstruct", "Reconstruct Motion").start()
    assert snapshot() == before, "nothing changes while the worker computes"
    until_over(job)
    assert job.error is None and not job.cancelled
    result, collection = job.result
    assert collection == walking and result.reused == ("import", "calibrate")
    meta = walking["mocap_dynamics"].to_dict()
    assert meta["reconstruction"]["frames_converged"] == 131 and meta["reused"] == ["import", "calibrate"]
    rig = next(ob for ob in walking.all_objects if ob.type == "ARMATURE")
    assert rig.animation_data.action is not None
    assert addon["addon.session"].last_result(walking) is result, "the next step resumes from it"


def test_cancelling_half_way_leaves_the_scene_as_it_was(walking, addon):
    before = snapshot()
    job = addon["addon.steps"].step_job(bpy.context, "zero_gravity", "Run All Steps").start()
    while "ground contact" not in job.message:  # the worker is past reconstruction and dynamics
        assert not job.tick(), f"the job ended before its contact step: {job.message}"
    job.cancel()  # Esc
    until_over(job)
    assert job.cancelled and job.result is None and job.error is None
    assert snapshot() == before


def test_cancelling_an_import_imports_nothing(scene, addon, shared_data):
    before = snapshot()
    job = addon["addon.importer"].import_job([shared_data / "subject4_walking1.trc"], *import_options(addon)).start()
    job.cancel()
    until_over(job)
    assert job.cancelled and snapshot() == before


def import_options(addon):
    return addon["solver.pipeline"].PipelineOptions(until="import"), addon["addon.trial_scene"].SceneOptions()


def test_an_import_in_the_background(scene, addon, shared_data):
    job = addon["addon.importer"].import_job([shared_data / "subject4_walking1.trc", shared_data / "missing.trc"],
                                       *import_options(addon)).start()
    until_over(job)
    imported, problems = job.result
    assert [path.name for path, _ in imported] == ["subject4_walking1.trc"]
    assert len(problems) == 1 and problems[0].startswith("missing.trc: ")
    trial = bpy.context.scene.mocap_dynamics.active_trial
    assert trial.name == "subject4_walking1" and len(trial.all_objects) > 40


def test_a_failing_step_reports_one_line_and_changes_nothing(walking, addon, tmp_path):
    job = addon["addon.steps"].step_job(bpy.context, "calibrate", "Build Armature",
                                  markerset=str(tmp_path / "missing.toml"))
    before = snapshot()
    until_over(job.start())
    assert job.result is None and "missing.toml" in job.error.one_line()
    assert snapshot() == before


def test_a_background_step_names_the_sidebar_fields(walking, addon, package):
    """An error made in the worker thread speaks the sidebar's language, as the operator's job gets it."""
    messages = importlib.import_module(f"{package.__name__}.addon.messages")
    with messages.sidebar_messages():  # as ``JobOperator.execute`` makes its job
        job = addon["addon.steps"].step_job(bpy.context, "calibrate", "Build Armature", mass=150.0)
    until_over(job.start())
    assert job.error is not None and job.error.one_line().startswith('Body mass "Body Mass" set to 150 kg, but ')
    assert "leave out \"Body Mass\"" in job.error.one_line()


def test_undo_after_a_finished_step(walking, addon):
    name = walking.name  # ``walking`` itself is not valid after an undo
    bpy.ops.ed.undo_push(message="Build Armature")
    before = snapshot()
    job = addon["addon.steps"].step_job(bpy.context, "dynamics", "Compute Dynamics").start()
    until_over(job)
    bpy.ops.ed.undo_push(message="Compute Dynamics")  # as the window manager does when an UNDO operator finishes
    after = snapshot()
    assert after != before and "dynamics" in after["meta"][name]
    bpy.ops.ed.undo()
    assert snapshot() == before
    bpy.ops.ed.redo()
    assert snapshot() == after
    bpy.ops.ed.undo()
    job = addon["addon.steps"].step_job(bpy.context, "dynamics", "Compute Dynamics").start()
    until_over(job)
    result, _ = job.result
    assert result.reused == ("import", "calibrate", "gap_fill", "reconstruct", "dynamics"), \
        "the session's last result (same collection session_uid) still serves after an undo"
    assert snapshot()["meta"][name]["dynamics"] == after["meta"][name]["dynamics"]


def test_operators_from_scripts_run_synchronously(walking, addon):
    assert bpy.ops.mocap_dynamics.reconstruct() == {"FINISHED"}
    assert not addon["addon.jobs"].busy()
    assert "reconstruction" in walking["mocap_dynamics"]
