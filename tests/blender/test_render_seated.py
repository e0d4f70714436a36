"""A seated subject's renders (subject4_STS1, its chair has no plate): the seat's estimated force shows with
the body drawn opaque, as an arrow coming up from the seat whose head touches the buttocks; so does its twin
on a retargeted character."""

from __future__ import annotations

import subprocess
import sys

import bpy
import numpy as np
import pytest
from conftest import ROOT
from mathutils import Vector
from test_render import camera_xy, colours, png_linear, render, shows  # noqa: F401

from tests.blender.characters import mixamo_character

SEATED = 300  # frame: sitting back on the chair, feet on the plates
SIZE = np.array([960, 540])


def comes_from_below(arrow) -> tuple[np.ndarray, float]:
    """The arrow's root (world) and its shaft's lowest point's height, once checked that its head's tip
    touches the root and the arrow comes from below it."""
    cop = np.array(arrow.matrix_world.translation)
    head, shaft = (bpy.data.objects[f"{arrow.name} {part}"] for part in ("head", "shaft"))
    head_top = max((head.matrix_world @ Vector(c)).z for c in head.bound_box)
    shaft_low = min((shaft.matrix_world @ Vector(c)).z for c in shaft.bound_box)
    assert head_top == pytest.approx(cop[2], abs=0.005), f"{arrow.name}: the head's tip touches the body at the COP"
    assert shaft_low < cop[2] - 0.1, f"{arrow.name}: the arrow comes from below"
    return cop, shaft_low


@pytest.fixture(scope="module")
def sts_blend(package, shared_data, tmp_path_factory):
    """subject4_STS1 processed by the pipeline CLI up to contact (its default settings)."""
    out = tmp_path_factory.mktemp("sts1") / "sts1.blend"
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "process_trial.py"),
                          str(shared_data / "subject4_STS1.trc"), "--until", "contact", "--out", str(out)],
                         capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stderr
    return out


def test_the_seats_force_comes_up_from_the_seat_and_shows_through_an_opaque_body(render, sts_blend, tmp_path,
                                                                                 colours):
    bpy.ops.wm.open_mainfile(filepath=str(sts_blend))
    trial = next(c for c in bpy.data.collections if "mocap_dynamics" in c)
    scene = bpy.context.scene
    weight = trial["mocap_dynamics"]["model"]["mass_kg"] * 9.81
    [still] = render.render_overlay(scene, trial, tmp_path, render.RenderOptions(
        still=SEATED, resolution=tuple(SIZE), samples=1))
    scene.frame_set(SEATED)
    arrow = bpy.data.objects["pelvis estimated contact force"]
    assert arrow["force_N"] > 0.3 * weight, "sitting, the seat carries the pelvis"
    cop, shaft_low = comes_from_below(arrow)
    below = cop - [0.0, 0.0, 0.1]  # on the shaft, between the seat and the buttocks
    x, y = camera_xy(scene, [below, [*cop[:2], shaft_low]]).T
    assert ((0 < x) & (x < 1) & (0 < y) & (y < 1)).all(), "the still frames the whole arrow"
    assert shows(png_linear(still), np.array([x[0], y[0]]) * SIZE, "force_estimated", colours, radius=3), \
        "the seat's force shows under the seated body"
    legend = {ob.data.body for ob in bpy.data.scenes[f"{trial.name} overlay"].objects if ob.type == "FONT"}
    assert "estimated contact force" in legend and "estimated GRF" not in legend, \
        "the seat is not the ground: one row names both the feet's and the seat's estimated force"


def test_a_retargeted_characters_seat_arrow_comes_from_below_too(sts_blend):
    bpy.ops.wm.open_mainfile(filepath=str(sts_blend))
    assert bpy.context.scene.mocap_dynamics.active_trial.name.startswith("subject4_STS1"), \
        "a file saved by the script opens with its trial active in the sidebar"
    character = mixamo_character()
    assert bpy.ops.mocap_dynamics.retarget(target=character.name) == {"FINISHED"}
    bpy.context.scene.frame_set(SEATED)
    twin = bpy.data.objects[f"pelvis estimated contact force ({character.name})"]
    assert twin["force_N"] > 0.0
    comes_from_below(twin)
