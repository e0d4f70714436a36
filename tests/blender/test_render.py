"""Presentation renders: each force and torque shows in its colour where it acts; the CLI writes stills and movies."""

from __future__ import annotations

import importlib
import math
import subprocess
import sys

import bpy
import numpy as np
import pytest
from bpy_extras.object_utils import world_to_camera_view
from conftest import ROOT
from mathutils import Vector

SIZE = (960, 540)
#: Frames of the sample walk where the measured and estimated GRF, the residual and both disk colours show.
FRAMES = (60, 110)
CHECKED_KINDS = {"force_measured", "force_estimated", "force_residual", "torque_generating", "torque_absorbing"}


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "render_overlay.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def trial_blend(package, tmp_path_factory):
    """The project's own sample walk (3 s, two force plates) processed by the pipeline CLI into a .blend."""
    folder = tmp_path_factory.mktemp("render")
    sample = importlib.import_module(f"{package.__name__}.solver.sample")
    c3d = sample.write_sample(folder)["c3d"]
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "process_trial.py"), str(c3d), "--mass",
                          str(sample.MASS), "--out", str(folder / "walk.blend")], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    return folder / "walk.blend"


@pytest.fixture
def render(package):
    return importlib.import_module(f"{package.__name__}.addon.render")


@pytest.fixture
def trial(trial_blend):
    bpy.ops.wm.open_mainfile(filepath=str(trial_blend))
    return next(c for c in bpy.data.collections if "mocap_dynamics" in c)


def png_linear(path) -> np.ndarray:
    """The PNG's pixels ``(H, W, 3)``, bottom row first, sRGB decoded to linear."""
    image = bpy.data.images.load(str(path))
    pixels = np.empty(len(image.pixels), dtype=np.float32)
    image.pixels.foreach_get(pixels)
    srgb = pixels.reshape(image.size[1], image.size[0], 4)[:, :, :3]
    bpy.data.images.remove(image)
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def chromaticity(rgb: np.ndarray) -> np.ndarray:
    return rgb / np.maximum(rgb.sum(axis=-1, keepdims=True), 1e-6)


def has_hue(pixels: np.ndarray, kind: str, colours: dict) -> np.ndarray:
    """Mask of the pixels with the hue of ``kind``: of the colours that render (and grey), their chromaticity is
    nearest to that kind's material colour, at any brightness."""
    palette = [k for k in (*CHECKED_KINDS, "contact_plane", "body", "plate") if k != kind]
    reference = chromaticity(np.array([colours[kind][:3]] + [colours[k][:3] for k in palette] + [[1.0, 1.0, 1.0]]))
    distance = np.abs(chromaticity(pixels)[..., None, :] - reference).sum(axis=-1)
    return (distance.argmin(axis=-1) == 0) & (distance[..., 0] < 0.2)


def shows(pixels: np.ndarray, xy: np.ndarray, kind: str, colours: dict, radius: int = 1) -> bool:
    """Whether a pixel within ``radius`` of ``xy`` has the hue of ``kind``."""
    x, y = np.round(xy).astype(int)
    return bool(has_hue(pixels[max(y - radius, 0):y + radius + 1, max(x - radius, 0):x + radius + 1], kind,
                        colours).any())


def kind_of(ob) -> str | None:
    materials = [m for m in getattr(ob.data, "materials", []) if m is not None]
    return materials[0].name.removeprefix("MocapDynamics ") if materials else None


def probe_points(ob) -> list[Vector]:
    """Points on an arrow head (a quarter up from its base, where it is wide) or on a torque disk (around it)."""
    low, high = Vector(ob.bound_box[0]), Vector(ob.bound_box[6])
    if not kind_of(ob).startswith("torque"):
        return [ob.matrix_world @ Vector((0.0, 0.0, low.z + 0.25 * (high.z - low.z)))]
    x, y = ob.matrix_world.to_3x3().col[0], ob.matrix_world.to_3x3().col[1]
    centre = ob.matrix_world.translation
    return [centre + 0.7 * (math.cos(a) * x + math.sin(a) * y) for a in np.linspace(0, 2 * math.pi, 8, endpoint=False)]


def pixels_across(scene, ob) -> float:
    """The smaller side [px] of the object's bounding box as the camera sees it."""
    corners = np.array([world_to_camera_view(scene, scene.camera, ob.matrix_world @ Vector(c))[:2]
                        for c in ob.bound_box]) * SIZE
    return float(np.ptp(corners, axis=0).min())


def visible_probes(scene, kinds):
    """(point, kind) for probe points of arrow heads and disks of ``kinds`` (at least 6 px across; shafts are
    thinner; not the legend) that nothing hides from the camera (a ray cast)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    origin = scene.camera.matrix_world.translation
    for ob in scene.objects:
        kind = kind_of(ob) if ob.type == "MESH" else None
        if (kind not in kinds or ob.name.endswith(" shaft") or ob.parent == scene.camera or ob.hide_render
                or pixels_across(scene, ob) < 6):
            continue
        for point in probe_points(ob):
            direction = point - origin
            hit, location, _, _, hit_ob, _ = scene.ray_cast(depsgraph, origin, direction.normalized())
            if hit and hit_ob.original == ob and (location - point).length < 0.02:
                yield point, kind


@pytest.mark.parametrize("engine", ["WORKBENCH", "EEVEE"])
def test_still_shows_each_force_and_torque_in_its_colour_where_it_acts(render, trial, tmp_path, engine):
    scene = bpy.context.scene
    colours = importlib.import_module(render.__name__.replace(".render", ".materials")).COLOURS
    checked = {}
    for frame in FRAMES:
        options = render.RenderOptions(engine=engine, resolution=SIZE, frames=(frame - 15, frame + 15), still=frame,
                                       samples=1)
        [still] = render.render_overlay(scene, trial, tmp_path, options)
        assert still.name == f"{trial.name}_still_{frame:04d}.png"
        pixels = png_linear(still)
        scene.frame_set(frame)
        for point, kind in visible_probes(scene, CHECKED_KINDS):
            xy = np.array(world_to_camera_view(scene, scene.camera, point)[:2]) * SIZE
            assert shows(pixels, xy, kind, colours), f"frame {frame}: no {kind} colour at pixel {xy.round()}"
            checked[kind] = checked.get(kind, 0) + 1
        overlay = next(c for c in trial.children if c.name.endswith(" render"))
        for swatch in (ob for ob in overlay.objects if ob.name.endswith(" swatch")):
            xy = np.array(world_to_camera_view(scene, scene.camera, swatch.matrix_world @ Vector((0.5, 0, 0)))[:2])
            assert (0 < xy).all() and (xy < 1).all(), f"{swatch.name} outside the frame"
            assert shows(pixels, xy * SIZE, kind_of(swatch), colours), f"{swatch.name} not in its colour"
    assert set(checked) == CHECKED_KINDS, f"only {checked} were unoccluded: pick other frames"


def test_centre_of_mass_trail_follows_the_walker(render, trial, package):
    scene = bpy.context.scene
    render.setup_overlay(scene, trial, render.RenderOptions(frames=(50, 250)))
    trail = next(ob for ob in trial.all_objects if ob.name.startswith("centre of mass trail"))
    points = trail.data.splines[0].points
    co = np.empty(4 * len(points), dtype=np.float32)
    points.foreach_get("co", co)
    sample = importlib.import_module(f"{package.__name__}.solver.sample")
    exact = sample.centre_of_mass((np.arange(50, 251) - scene.frame_start) / sample.RATE)  # the generator's own CM
    assert np.linalg.norm(co.reshape(-1, 4)[:, :3] - exact, axis=1).max() < 0.03


def test_setup_twice_replaces_its_own_objects(render, trial):
    scene = bpy.context.scene
    render.setup_overlay(scene, trial, render.RenderOptions())
    before = {name: len(getattr(bpy.data, name)) for name in ("objects", "cameras", "curves", "lights", "meshes")}
    camera = render.setup_overlay(scene, trial, render.RenderOptions(view="three_quarter"))
    assert {name: len(getattr(bpy.data, name)) for name in before} == before
    assert scene.camera == camera and len([c for c in trial.children if c.name.endswith(" render")]) == 1


def test_no_plates_hides_every_measured_arrow(render, trial, tmp_path):
    scene = bpy.context.scene
    colours = importlib.import_module(render.__name__.replace(".render", ".materials")).COLOURS
    orange = []
    for plates in (True, False):
        options = render.RenderOptions(resolution=SIZE, frames=(95, 125), still=110, plates=plates)
        [still] = render.render_overlay(scene, trial, tmp_path, options)
        orange.append(int(has_hue(png_linear(still), "force_measured", colours).sum()))
    assert orange[0] > 50 and orange[1] == 0, orange


def test_sequence_writes_one_png_per_frame_and_nothing_else(render, trial, tmp_path):
    options = render.RenderOptions(resolution=(160, 90), frames=(120, 122), sequence=True)
    written = render.render_overlay(bpy.context.scene, trial, tmp_path, options)
    names = [f"{trial.name}_{frame:04d}.png" for frame in (120, 121, 122)]
    assert [p.name for p in written] == names and sorted(p.name for p in tmp_path.iterdir()) == names


def test_operator_renders_the_active_trial(trial, tmp_path):
    bpy.context.scene.mocap_dynamics.active_trial = trial
    assert bpy.ops.mocap_dynamics.render_overlay(directory=str(tmp_path), width=160, height=90) == {"FINISHED"}
    assert [p.name for p in tmp_path.iterdir()] == [f"{trial.name}_still_{bpy.context.scene.frame_current:04d}.png"]


def test_cli_still_and_short_movie(trial_blend, tmp_path):
    run = cli(trial_blend, "--out", tmp_path, "--still", 120, "--movie", "--frames", "118:123", "--resolution",
              "320x180")
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sample_walk.mp4", "sample_walk_still_0120.png"]
    image = bpy.data.images.load(str(tmp_path / "sample_walk_still_0120.png"))
    assert tuple(image.size) == (320, 180)
    movie = (tmp_path / "sample_walk.mp4").read_bytes()
    assert len(movie) > 1000 and movie[4:8] == b"ftyp", "an MP4 container"


@pytest.mark.parametrize("case", ["missing file", "no trial", "frames outside the trial", "bad resolution",
                                  "odd movie size", "unknown engine"])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(trial_blend, tmp_path, case):
    empty = tmp_path / "empty.blend"
    if case == "no trial":
        bpy.ops.wm.read_homefile(use_empty=True)
        bpy.ops.wm.save_as_mainfile(filepath=str(empty), copy=True)
    out = tmp_path / "out"
    args = {"missing file": [tmp_path / "nope.blend"],
            "no trial": [empty],
            "frames outside the trial": [trial_blend, "--sequence", "--frames", "250:400"],
            "bad resolution": [trial_blend, "--resolution", "wide"],
            "odd movie size": [trial_blend, "--movie", "--resolution", "321x180"],
            "unknown engine": [trial_blend, "--engine", "cycles"]}[case]
    run = cli(*args, "--out", out)
    assert run.returncode == 2, run.stdout + run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), run.stderr
    assert not out.exists(), "nothing written"
