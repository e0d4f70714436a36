"""Slide-ready renders of a real drop jump (subject4_DJ3): the subject fills the frame, arrows read, the legend
lists only what the picture shows, and the plot panel's cursor follows the frame."""

from __future__ import annotations

import importlib
import subprocess
import sys

import bpy
import numpy as np
import pytest
from conftest import ROOT
from mathutils import Vector
from test_render import HUED_KINDS, camera_xy, colours, has_hue, mesh_points, png_linear, render  # noqa: F401

#: Drop-jump frames: on the box, in flight, landing (deepest crouch near 160), pushing off.
STILLS = (40, 120, 160, 200)
SMALL = (640, 360)


@pytest.fixture(scope="module")
def dj3_blend(package, shared_data, tmp_path_factory):
    """subject4_DJ3 (calibrated on its static trial) processed by the pipeline CLI up to contact."""
    out = tmp_path_factory.mktemp("dj3") / "dj3.blend"
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "process_trial.py"),
                          str(shared_data / "subject4_DJ3.trc"), "--static", str(shared_data / "subject4_static1.trc"),
                          "--until", "contact", "--out", str(out)], capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stderr
    return out


@pytest.fixture
def trial(dj3_blend):
    bpy.ops.wm.open_mainfile(filepath=str(dj3_blend))
    return next(c for c in bpy.data.collections if "mocap_dynamics" in c)


def body_points(scene) -> np.ndarray:
    """World positions of the subject's evaluated body mesh vertices at the current frame."""
    return mesh_points(next(ob for ob in scene.objects if ob.get("mocap_dynamics_body")
                            and ob.parent.get("mocap_dynamics_rig")))


def arrow_tips(scene) -> list[np.ndarray]:
    """Tips of the force arrows that render with a force, at the current frame."""
    tips = []
    for head in (ob for ob in scene.objects if ob.name.endswith(" head") and ob.parent and "force_N" in ob.parent):
        if not head.hide_render and head.parent["force_N"] > 1.0 and not head.users_collection[0].hide_render:
            top = max(c[2] for c in head.bound_box)
            tips.append(np.array(head.matrix_world @ Vector((0.0, 0.0, top))))
    return tips


@pytest.mark.parametrize("plots", [False, True])
@pytest.mark.parametrize("frame", STILLS)
def test_still_frames_the_subject_at_its_frame(render, trial, frame, plots):
    scene = bpy.context.scene
    render.setup_overlay(scene, trial, render.RenderOptions(still=frame, plots=plots))
    scene.frame_set(frame)
    xy = camera_xy(scene, body_points(scene)[::3])
    share = np.ptp(xy[:, 1])
    assert 0.55 <= share <= 0.75, f"frame {frame}: the subject spans {100 * share:.0f} % of the image height"
    right = 0.6 if plots else 1.0  # the plot panel takes the right 40 %
    assert (xy > 0).all() and (xy[:, 0] < right).all() and (xy[:, 1] < 1).all(), "the whole body in the 3D view"
    tips = camera_xy(scene, arrow_tips(scene))
    assert ((tips > 0) & (tips < [right, 1.0])).all(), f"frame {frame}: an arrow leaves the frame"


def test_arrows_are_at_least_6_px_wide_at_720p(render, trial):
    scene = bpy.context.scene
    render.setup_overlay(scene, trial, render.RenderOptions(still=160, resolution=(1280, 720)))
    scene.frame_set(160)
    widths = []
    for shaft in (ob for ob in scene.objects if ob.name.endswith(" shaft") and "force_N" in ob.parent):
        if shaft.hide_render or shaft.parent["force_N"] < 1.0:
            continue
        matrix = shaft.matrix_world
        middle = matrix @ Vector((0.0, 0.0, 0.5))
        across = scene.camera.matrix_world.to_3x3().col[0].normalized()  # the image's x direction
        radius = max(abs(c[0]) for c in shaft.bound_box) * (matrix.to_3x3() @ Vector((1, 0, 0))).length
        ends = camera_xy(scene, [middle - radius * across, middle + radius * across]) * 1280
        widths.append(np.linalg.norm(ends[1] - ends[0]))
    assert widths and min(widths) >= 6.0, widths


def legend_kinds(trial) -> tuple[list[str], float]:
    """The legend's kinds (from its swatches) and the lowest y [px] of the legend's objects."""
    canvas = bpy.data.scenes[f"{trial.name} overlay"]
    swatches = [ob for ob in canvas.objects if ob.name.startswith("legend ")]
    kinds = [ob.name.split()[1] for ob in swatches if ob.name.endswith(" swatch")]
    return kinds, min(ob.location.y for ob in swatches)


@pytest.mark.parametrize("engine", ["WORKBENCH", "EEVEE"])
@pytest.mark.parametrize("frame", (120, 160))
def test_legend_lists_only_what_the_picture_shows(render, trial, tmp_path, colours, engine, frame):
    scene = bpy.context.scene
    options = render.RenderOptions(engine=engine, still=frame, resolution=SMALL, samples=1)
    [still] = render.render_overlay(scene, trial, tmp_path, options)
    pixels = png_linear(still)
    kinds, legend_bottom = legend_kinds(trial)
    view = pixels.copy()
    view[int(legend_bottom) - 12:, :int(0.2 * SMALL[0])] = 0.0  # the legend itself
    for kind in kinds:
        if kind in HUED_KINDS:
            count = int(has_hue(view, kind, colours).sum())
            assert count >= 8, f"frame {frame}: the legend lists {kind} but only {count} pixels show it"
        else:  # the centre-of-mass path: its drawn part is in the view
            scene.frame_set(frame)
            trail = next(ob for ob in trial.all_objects if ob.name.startswith("centre of mass trail"))
            co = np.empty(4 * len(trail.data.splines[0].points))
            trail.data.splines[0].points.foreach_get("co", co)
            xy = camera_xy(scene, co.reshape(-1, 4)[:, :3])
            assert ((xy > 0) & (xy < 1)).all(axis=1).sum() >= 2, f"frame {frame}: no centre-of-mass path in view"
    for kind in ("force_measured", "force_estimated", "torque_generating", "torque_absorbing"):
        if int(has_hue(view, kind, colours).sum()) > 300:
            assert kind in kinds, f"frame {frame}: {kind} shows plainly but the legend leaves it out"


def cursor_column(pixels: np.ndarray, left: int, bottom: int, top: int, axis: int) -> int:
    """The image column of the plot cursor: the longest dark vertical run in the plot box, away from the axis."""
    box = pixels[bottom:top, left:]
    dark = box.max(axis=-1) < 0.25  # ink; the curves are coloured, the grid light
    counts = dark.sum(axis=0)
    counts[max(axis - left - 3, 0):axis - left + 4] = 0
    return left + int(counts.argmax())


def test_plot_cursor_moves_with_the_frame(render, trial, tmp_path, package):
    plots = importlib.import_module(f"{package.__name__}.addon.render_plots")
    scene = bpy.context.scene
    canvas_name = f"{trial.name} overlay"
    found, expected = {}, {}
    for frame in (130, 200):
        [still] = render.render_overlay(scene, trial, tmp_path, render.RenderOptions(
            still=frame, resolution=SMALL, plots=True))
        canvas = bpy.data.scenes[canvas_name]
        axis = canvas.objects["grf x axis"]
        expected[frame] = plots.fcurve(canvas.objects["canvas grf cursor"], "location", 0).evaluate(frame)
        bottom, top = int(axis.location.y) + 3, int(canvas.objects["grf y axis"].location.y
                                                      + canvas.objects["grf y axis"].scale.y) - 3
        found[frame] = cursor_column(png_linear(still), int(0.6 * SMALL[0]), bottom, top,
                                     int(canvas.objects["grf y axis"].location.x))
        assert abs(found[frame] - expected[frame]) <= 2, (frame, found[frame], expected[frame])
    first, last = scene.frame_start, scene.frame_end
    axis = bpy.data.scenes[canvas_name].objects["grf x axis"]
    per_frame = axis.scale.x / (last - first)  # the time axis spans the trial
    assert abs((found[200] - found[130]) - 70 * per_frame) <= 3, (found, per_frame)


def test_plot_panel_spans_the_trial_in_a_longer_scene(render, trial, tmp_path, package):
    """An animator's scene runs on past the trial (its frame range widened): the panel's time axis spans the
    trial's frames, not the scene's, so its curves are not squeezed into a corner."""
    plots = importlib.import_module(f"{package.__name__}.addon.render_plots")
    scene = bpy.context.scene
    trial_first, trial_last = scene.frame_start, scene.frame_end
    scene.frame_end = trial_last + 300
    render.render_overlay(scene, trial, tmp_path, render.RenderOptions(still=160, resolution=SMALL, plots=True))
    canvas = bpy.data.scenes[f"{trial.name} overlay"]
    axis, cursor = canvas.objects["grf x axis"], canvas.objects["canvas grf cursor"]
    ends = [plots.fcurve(cursor, "location", 0).evaluate(frame) for frame in (trial_first, trial_last)]
    assert ends == pytest.approx([axis.location.x, axis.location.x + axis.scale.x], abs=0.5)


def test_plot_panel_parts_the_estimate_between_the_floor_and_the_box(render, trial, tmp_path, package, colours):
    """The drop jump's estimate has a box: the panel plots its share on the floor (green, what the plates
    measure: nothing while the subject stands on the box) and on the box (violet, the body weight there), each
    key inside the image and clear of the next; the two shares add up to the rig's total."""
    plots = importlib.import_module(f"{package.__name__}.addon.render_plots")
    scene = bpy.context.scene
    rig = next(ob for ob in trial.all_objects if ob.get("mocap_dynamics_rig"))
    weight = trial["mocap_dynamics"]["model"]["mass_kg"] * 9.81
    for frame in (40, 160, 200):
        scene.frame_set(frame)
        floor, raised = rig[plots.GRF_FLOOR], rig[plots.GRF_RAISED]
        assert floor + raised == pytest.approx(rig[plots.GRF_ESTIMATED], abs=0.5)
        if frame == 40:  # on the box
            assert floor < 0.05 * weight and raised > 0.8 * weight, (floor, raised, weight)
        else:  # landed on the floor, pushing off
            assert raised < 0.05 * weight < floor, (floor, raised, weight)
    width = 1280
    [still] = render.render_overlay(scene, trial, tmp_path, render.RenderOptions(
        still=40, resolution=(width, 720), plots=True))
    canvas = bpy.data.scenes[f"{trial.name} overlay"]
    labels = ["measured", "estimated, floor", "estimated, raised", "body weight"]
    swatches = [canvas.objects[f"grf key {label}"] for label in labels]
    texts = [next(ob for ob in canvas.objects if ob.type == "FONT" and ob.data.body == label
                  and abs(ob.location.y - swatch.location.y) < 10) for label, swatch in zip(labels, swatches)]
    canvas.view_layers[0].update()
    ends = [text.location.x + text.dimensions.x for text in texts]
    assert max(ends) <= width, f"a key runs out of the image: {ends}"
    for i in range(len(labels) - 1):
        if abs(swatches[i + 1].location.y - swatches[i].location.y) < 1:  # the same row
            assert ends[i] < swatches[i + 1].location.x, f"{labels[i]!r} runs into {labels[i + 1]!r}"
    panel = png_linear(still)[:, int(0.6 * width):]
    assert has_hue(panel, "contact_raised", colours).sum() > 200, "the box's share is drawn"
    assert has_hue(panel, "force_estimated", colours).sum() > 200, "the floor's share is drawn"


@pytest.mark.parametrize("torque_plot", ["moment", "magnitude"])
def test_plot_panel_shows_the_knees_flexion_moment_signed_or_its_torques_magnitude(render, trial, package,
                                                                                   torque_plot):
    """In the landing's crouch the knee extends against the body's fall: the torques table's
    ``knee_r_flexion_moment`` is negative, and the panel's dot sits below its zero line, at that value on its
    grid; the magnitude (the disk's radius) sits above it. The moment from the motion alone is drawn beside the
    plates', and near them there."""
    plots = importlib.import_module(f"{package.__name__}.addon.render_plots")
    scene, frame = bpy.context.scene, 160
    rig = next(ob for ob in trial.all_objects if ob.get("mocap_dynamics_rig"))
    render.setup_overlay(scene, trial, render.RenderOptions(still=frame, resolution=SMALL, plots=True,
                                                            torque_plot=torque_plot))
    canvas = bpy.data.scenes[f"{trial.name} overlay"]
    scene.frame_set(frame)
    moment, disk = rig["knee_r_flexion_moment"], bpy.data.objects["shank_r torque"]["torque_Nm"]
    assert moment < -0.5 * trial["mocap_dynamics"]["model"]["mass_kg"], moment  # N·m: extending
    title, value = {"moment": ("Right knee flexion moment (N·m)", moment),
                    "magnitude": ("Right knee torque (N·m)", disk)}[torque_plot]
    assert any(ob.type == "FONT" and ob.data.body == title for ob in canvas.objects), title
    half = 0.5 * plots.THIN * SMALL[1] / 720.0  # a grid line's rectangle starts half its width below its value
    grid = sorted((float(ob.name.split()[-1]), ob.location.y + half) for ob in canvas.objects
                  if ob.name.startswith("torque grid "))
    slope, offset = np.polyfit(*np.array(grid).T, 1)
    dot = plots.fcurve(canvas.objects["torque cursor dot 0"], "location", 1).evaluate(frame)
    assert dot == pytest.approx(slope * value + offset, abs=1.0), (dot, value, grid)
    assert (dot < offset) == (torque_plot == "moment"), (dot, offset)
    alone = rig["knee_r_flexion_moment motion alone"]  # beside the plates' torques: the contact from the motion
    assert abs(alone - moment) < 0.25 * trial["mocap_dynamics"]["model"]["mass_kg"], (alone, moment)
    drawn = {"canvas joint torque motion alone", "torque key motion alone"} & set(canvas.objects.keys())
    assert len(drawn) == (2 if torque_plot == "moment" else 0), drawn


def test_on_the_box_the_disks_show_the_ankles_holding_the_body(trial):
    """The box has no plate: the torques shown are the plates' and, on the box, the estimate's (with the plates
    alone the ankles would show nothing while the subject stands on the box)."""
    meta = trial["mocap_dynamics"].to_dict()
    assert meta["dynamics"]["torques_with"] == "measured force plates and the estimated contact on raised surface 1"
    for side in "lr":
        disk, torques = bpy.data.objects[f"foot_{side} torque"], []
        for frame in range(5, 86, 5):  # standing on the box
            bpy.context.scene.frame_set(frame)
            torques.append(disk["torque_Nm"] / meta["model"]["mass_kg"])
        assert 0.2 < np.mean(torques) < 1.5, (side, torques)  # 0.45 N·m/kg; the plates alone: 0.004


def test_follow_camera_keeps_the_subject_in_frame_and_moves_smoothly(render, trial):
    scene = bpy.context.scene
    overlay = render.setup_overlay(scene, trial, render.RenderOptions(frames=(60, 220), sequence=True))
    rig = next(ob for ob in trial.all_objects if ob.get("mocap_dynamics_rig"))
    shares, camera, pelvis = [], [], []
    for frame in range(60, 221, 2):
        scene.frame_set(frame)
        xy = camera_xy(scene, body_points(scene)[::5])
        assert ((xy > 0) & (xy < 1)).all(), f"frame {frame}: the subject leaves the frame"
        shares.append(np.ptp(xy[:, 1]))
        camera.append(np.array(overlay.camera.matrix_world.translation))
        pelvis.append(np.array(rig.matrix_world @ rig.pose.bones[0].head))
    assert 0.6 <= max(shares) <= 0.75, max(shares)
    jerk = [np.linalg.norm(np.diff(path, n=2, axis=0), axis=1).max() for path in (camera, pelvis)]
    assert jerk[0] < 0.2 * jerk[1], f"the camera accelerates {jerk[0] / jerk[1]:.2f} times as hard as the pelvis"


def test_fixed_camera_holds_every_frame(render, trial):
    scene = bpy.context.scene
    overlay = render.setup_overlay(scene, trial, render.RenderOptions(camera="fixed", sequence=True))
    assert overlay.camera.animation_data is None, "a fixed camera"
    for frame in range(scene.frame_start, scene.frame_end + 1, 15):
        scene.frame_set(frame)
        xy = camera_xy(scene, body_points(scene)[::5])
        assert ((xy > 0) & (xy < 1)).all(), f"frame {frame}: the subject leaves the frame"
