"""Presentation renders of the sample walk: each force and torque in its colour where it acts, the overlay's
scene bookkeeping, the CLI and the sidebar operator. (Framing, legend and plot panel on a real trial:
test_render_slides.py.)"""

from __future__ import annotations

import colorsys
import importlib
import math
import subprocess
import sys
from pathlib import Path

import bpy
import numpy as np
import pytest
from bpy_extras.object_utils import world_to_camera_view
from conftest import ROOT
from mathutils import Vector

SIZE = (960, 540)
#: Frames of the sample walk where the measured and estimated GRF and both disk colours show.
FRAMES = (60, 170)
#: A frame of the sample walk, processed up to its torques with the plates alone, where the root residual's
#: arrow shows (a step beside the plates; once the contact is estimated it fills the step in and the residual
#: shrinks to a few % of body weight: ``contact.unmeasured``).
RESIDUAL_FRAME = 60
CHECKED_KINDS = {"force_measured", "force_estimated", "force_residual", "torque_generating", "torque_absorbing"}
HUED_KINDS = (*CHECKED_KINDS, "contact_plane", "contact_raised", "angular_momentum", "body")


def cli(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "render_overlay.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=900, cwd=cwd)


def processed_sample(package, folder, *flags) -> Path:
    """The project's own sample walk (3 s, two force plates) processed by the pipeline CLI into a .blend."""
    sample = importlib.import_module(f"{package.__name__}.solver.sample")
    c3d = sample.write_sample(folder)["c3d"]
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "process_trial.py"), str(c3d), "--mass",
                          str(sample.MASS), *flags, "--out", str(folder / "walk.blend")], capture_output=True,
                         text=True, timeout=900)
    assert run.returncode == 0, run.stderr
    return folder / "walk.blend"


@pytest.fixture(scope="module")
def trial_blend(package, tmp_path_factory):
    return processed_sample(package, tmp_path_factory.mktemp("render"))


@pytest.fixture(scope="module")
def plates_only_blend(package, tmp_path_factory):
    """Up to the dynamics: the torques with the plates alone."""
    return processed_sample(package, tmp_path_factory.mktemp("render_plates_only"), "--until", "dynamics")


@pytest.fixture
def render(package):
    return importlib.import_module(f"{package.__name__}.addon.render")


@pytest.fixture
def colours(package):
    return importlib.import_module(f"{package.__name__}.addon.materials").COLOURS


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


def _hue(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hue [deg] and saturation of linear colours ``(..., 3)``."""
    high, low = rgb.max(axis=-1), rgb.min(axis=-1)
    span = np.maximum(high - low, 1e-9)
    r, g, b = np.moveaxis(rgb, -1, 0)
    hue = np.where(high == r, (g - b) / span % 6, np.where(high == g, (b - r) / span + 2, (r - g) / span + 4))
    return 60.0 * hue, (high - low) / np.maximum(high, 1e-9)


def has_hue(pixels: np.ndarray, kind: str, colours: dict) -> np.ndarray:
    """Mask of the pixels of the hue of ``kind``: saturated, and nearer (within 15°) to that kind's material
    hue than to any other visual's. Hue survives shading and blending with grey (see-through disks)."""
    references = {k: colorsys.rgb_to_hsv(*colours[k][:3])[0] * 360.0 for k in HUED_KINDS}
    hue, saturation = _hue(pixels)
    distance = {k: np.abs((hue - h + 180.0) % 360.0 - 180.0) for k, h in references.items()}
    nearest = np.min([d for k, d in distance.items() if k != kind], axis=0)
    return (saturation > 0.2) & (pixels.max(axis=-1) > 0.03) & (distance[kind] < 15.0) & (distance[kind] < nearest)


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


def pixels_across(scene, ob, size) -> float:
    """The smaller side [px] of the object's bounding box as the camera sees it."""
    corners = np.array([world_to_camera_view(scene, scene.camera, ob.matrix_world @ Vector(c))[:2]
                        for c in ob.bound_box]) * size
    return float(np.ptp(corners, axis=0).min())


def renders(ob) -> bool:
    """Whether ``ob`` renders: not hidden, in a collection whose ancestors are not hidden either."""
    def shown(collection):
        return set() if collection.hide_render else {collection}.union(*map(shown, collection.children))
    return not ob.hide_render and bool(shown(bpy.context.scene.collection) & set(ob.users_collection))


def visible_probes(scene, kinds, size):
    """(point, kind) for probe points of arrow heads and disks of ``kinds`` (at least 6 px across; shafts are
    thinner) that the camera sees first (a ray cast, through what does not render)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    origin = scene.camera.matrix_world.translation
    for ob in scene.objects:
        kind = kind_of(ob) if ob.type == "MESH" else None
        if kind not in kinds or ob.name.endswith(" shaft") or not renders(ob) or pixels_across(scene, ob, size) < 6:
            continue
        for point in probe_points(ob):
            start, direction = origin, (point - origin).normalized()
            for _ in range(5):
                hit, location, _, _, hit_ob, _ = scene.ray_cast(depsgraph, start, direction)
                if not hit or renders(hit_ob.original):
                    break
                start = location + 1e-4 * direction
            if hit and hit_ob.original == ob:
                yield point, kind


def mesh_points(ob) -> np.ndarray:
    """World positions of a mesh object's evaluated vertices at the current frame."""
    evaluated = ob.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    co = np.empty(3 * len(mesh.vertices))
    mesh.vertices.foreach_get("co", co)
    evaluated.to_mesh_clear()
    matrix = np.array(ob.matrix_world)
    return co.reshape(-1, 3) @ matrix[:3, :3].T + matrix[:3, 3]


def camera_xy(scene, points) -> np.ndarray:
    """Image fractions (x right, y up) of world ``points`` as the scene camera sees them."""
    return np.array([world_to_camera_view(scene, scene.camera, Vector(p))[:2] for p in points])


@pytest.mark.parametrize("engine", ["WORKBENCH", "EEVEE"])
@pytest.mark.parametrize("blend, frames, kinds", [
    ("trial_blend", FRAMES, CHECKED_KINDS - {"force_residual"}), ("plates_only_blend", (RESIDUAL_FRAME,),
                                                                 {"force_residual"})])
def test_still_shows_each_force_and_torque_in_its_colour_where_it_acts(render, tmp_path, engine, colours, blend,
                                                                       frames, kinds, request):
    bpy.ops.wm.open_mainfile(filepath=str(request.getfixturevalue(blend)))
    trial = next(c for c in bpy.data.collections if "mocap_dynamics" in c)
    scene = bpy.context.scene
    checked = {}
    for frame in frames:
        options = render.RenderOptions(engine=engine, resolution=SIZE, frames=(frame - 15, frame + 15), still=frame,
                                       samples=1)
        [still] = render.render_overlay(scene, trial, tmp_path, options)
        assert still.name == f"{trial.name}_still_{frame:04d}.png"
        pixels = png_linear(still)
        scene.frame_set(frame)
        for point, kind in visible_probes(scene, CHECKED_KINDS, SIZE):
            xy = np.array(world_to_camera_view(scene, scene.camera, point)[:2]) * SIZE
            assert shows(pixels, xy, kind, colours), f"frame {frame}: no {kind} colour at pixel {xy.round()}"
            checked[kind] = checked.get(kind, 0) + 1
        canvas = bpy.data.scenes[f"{trial.name} overlay"]
        for swatch in (ob for ob in canvas.objects if ob.name.endswith(" swatch")):
            kind = swatch.name.split()[1]
            if kind in HUED_KINDS:
                centre = np.array(swatch.location[:2]) + 0.5 * np.array(swatch.scale[:2])  # canvas units are pixels
                assert shows(pixels, centre, kind, colours), f"{swatch.name} not in its colour"
    assert set(checked) >= kinds, f"only {checked} were unoccluded: pick other frames"


def test_twin_renders_only_when_asked_and_then_beside_the_subject(render, trial):
    scene = bpy.context.scene
    rigs = sorted((ob for ob in trial.all_objects if ob.type == "ARMATURE"), key=lambda ob: not ob.get(
        "mocap_dynamics_rig"))
    bodies = [next(ob for ob in rig.children if ob.get("mocap_dynamics_body")) for rig in rigs]
    render.setup_overlay(scene, trial, render.RenderOptions(still=150))
    assert rigs[1].users_collection[0].hide_render, "no twin unless asked"
    render.setup_overlay(scene, trial, render.RenderOptions(still=150, twin=True))
    assert not rigs[1].users_collection[0].hide_render
    scene.frame_set(150)
    subject, twin = (camera_xy(scene, mesh_points(body)[::5]) for body in bodies)
    for xy in (subject, twin):
        assert ((xy > 0) & (xy < 1)).all(), "both in the frame"
    assert twin[:, 0].min() > subject[:, 0].max(), "the twin beside the subject, not on it"
    assert twin[:, 1].min() < subject[:, 1].max() and twin[:, 1].max() > subject[:, 1].min(), "side by side"


def test_see_through_body_shows_the_arrows_behind_it(render, trial, tmp_path, colours):
    scene = bpy.context.scene
    counts = []
    for transparent in (False, True):
        options = render.RenderOptions(resolution=SIZE, still=110, transparent_body=transparent)
        [still] = render.render_overlay(scene, trial, tmp_path, options)
        pixels = png_linear(still)
        counts.append(sum(int(has_hue(pixels, kind, colours).sum()) for kind in ("force_measured", "force_estimated")))
    assert counts[1] > 1.05 * counts[0], counts


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
    options = render.RenderOptions(view="three_quarter", plots=True, engine="EEVEE")
    render.setup_overlay(scene, trial, options)
    pools = ("objects", "cameras", "curves", "lights", "meshes", "scenes", "materials", "node_groups", "actions")
    before = {name: len(getattr(bpy.data, name)) for name in pools}
    overlay = render.setup_overlay(scene, trial, options)
    assert {name: len(getattr(bpy.data, name)) for name in before} == before
    assert scene.camera == overlay.camera and len([c for c in trial.children if c.name.endswith(" render")]) == 1


def test_no_plates_hides_every_measured_arrow(render, trial, tmp_path, colours):
    scene = bpy.context.scene
    orange = []
    for plates in (True, False):
        options = render.RenderOptions(resolution=SIZE, frames=(95, 125), still=110, plates=plates)
        [still] = render.render_overlay(scene, trial, tmp_path, options)
        orange.append(int(has_hue(png_linear(still), "force_measured", colours).sum()))
    assert orange[0] > 50 and orange[1] == 0, orange


def test_sequence_writes_one_png_per_frame_and_nothing_else(render, trial, tmp_path):
    options = render.RenderOptions(resolution=(160, 90), frames=(120, 122), sequence=True, plots=True)
    written = render.render_overlay(bpy.context.scene, trial, tmp_path, options)
    names = [f"{trial.name}_{frame:04d}.png" for frame in (120, 121, 122)]
    assert [p.name for p in written] == names and sorted(p.name for p in tmp_path.iterdir()) == names


@pytest.mark.parametrize("output", ["STILL", "SEQUENCE"])
def test_operator_renders_the_active_trial(trial, tmp_path, output):
    scene = bpy.context.scene
    scene.mocap_dynamics.active_trial = trial
    scene.frame_start, scene.frame_end = 120, 121
    scene.frame_set(121)
    assert bpy.ops.mocap_dynamics.render_overlay(directory=str(tmp_path), output=output, width=160, height=90,
                                                 plots=True) == {"FINISHED"}
    names = ([f"{trial.name}_still_{scene.frame_current:04d}.png"] if output == "STILL"
             else [f"{trial.name}_{frame:04d}.png" for frame in (120, 121)])
    assert sorted(p.name for p in tmp_path.iterdir()) == names


def test_cli_still_and_short_movie(trial_blend, tmp_path):
    run = cli(trial_blend, "--out", tmp_path, "--still", 120, "--movie", "--frames", "118:123", "--resolution",
              "320x180", "--plots", "--background", "dark", "--camera", "fixed")
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sample_walk.mp4", "sample_walk_still_0120.png"]
    image = bpy.data.images.load(str(tmp_path / "sample_walk_still_0120.png"))
    assert tuple(image.size) == (320, 180)
    movie = (tmp_path / "sample_walk.mp4").read_bytes()
    assert len(movie) > 1000 and movie[4:8] == b"ftyp", "an MP4 container"


def test_cli_without_out_renders_under_out(trial_blend, tmp_path):
    run = cli(trial_blend, "--still", 120, "--resolution", "320x180", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert [p.name for p in (tmp_path / "out" / "walk").iterdir()] == ["sample_walk_still_0120.png"]


@pytest.mark.parametrize("case", ["missing file", "no trial", "markers only", "frames outside the trial",
                                  "bad resolution", "odd movie size", "unknown engine", "unknown joint",
                                  "unknown torque plot", "unknown camera"])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(trial_blend, tmp_path, case):
    empty, markers = tmp_path / "empty.blend", tmp_path / "markers.blend"
    if case == "no trial":
        bpy.ops.wm.read_homefile(use_empty=True)
        bpy.ops.wm.save_as_mainfile(filepath=str(empty), copy=True)
    if case == "markers only":
        run = subprocess.run([sys.executable, str(ROOT / "scripts" / "process_trial.py"),
                              str(trial_blend.parent / "sample_walk.c3d"), "--until", "import", "--out", str(markers)],
                             capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, run.stderr
    out = tmp_path / "out"
    args = {"missing file": [tmp_path / "nope.blend"],
            "no trial": [empty],
            "markers only": [markers],
            "frames outside the trial": [trial_blend, "--sequence", "--frames", "250:400"],
            "bad resolution": [trial_blend, "--resolution", "wide"],
            "odd movie size": [trial_blend, "--movie", "--resolution", "321x180"],
            "unknown engine": [trial_blend, "--engine", "cycles"],
            "unknown joint": [trial_blend, "--plots", "--joint", "tail"],
            "unknown torque plot": [trial_blend, "--plots", "--torque-plot", "power"],
            "unknown camera": [trial_blend, "--camera", "orbit"]}[case]
    run = cli(*args, "--out", out)
    assert run.returncode == 2, run.stdout + run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), run.stderr
    assert not out.exists(), "nothing written"
