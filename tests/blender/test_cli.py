"""scripts/process_trial.py as a researcher runs it: a new process, real files, exit codes, outputs."""

from __future__ import annotations

import dataclasses
import importlib
import json
import subprocess
import sys
from dataclasses import replace

import bpy
import pytest
from conftest import ROOT


def cli(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "process_trial.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=600, cwd=cwd)


def test_trial_to_blend_and_report(scene, shared_data, tmp_path):
    blend, report = tmp_path / "walk.blend", tmp_path / "walk.json"
    run = cli(shared_data / "subject4_walking1.trc", "--static", shared_data / "subject4_static1.trc",
              "--out", blend, "--report", report, "--tables", tmp_path / "tables")
    assert run.returncode == 0, run.stderr
    assert "[mocap_dynamics] calibrating" in run.stdout, "progress lines"
    data = json.loads(report.read_text())
    assert data["trial"]["markers"] == 51 and data["trial"]["force_plates"] == 2
    model = data["model"]
    # the static trial's 60.0 kg replaced by the walk's own plates' (solver/contact/plate_mass.py)
    assert model["mass_source"].startswith("force plates (m(a_CM + g) = F") and model["mass_kg"] == pytest.approx(
        63.7, abs=0.2)
    assert set(model["segment_lengths_m"]) >= {"thigh_l", "shank_r", "upper_arm_l"}
    assert model["cluster_residuals_m"] and max(model["cluster_residuals_m"].values()) < 0.02
    rec = data["reconstruction"]
    assert rec["frames_converged"] == rec["frames"] == 131 and rec["marker_rms_m"] < 0.015
    dyn = data["dynamics"]
    assert dyn["without_external_forces"]["root_force_mean_percent_bw"] > 50, "gravity unexplained without contact"
    assert dyn["root_force_ratio_with_to_without_plates"] < 0.3
    assert {p.name for p in (tmp_path / "tables").iterdir()} >= {"subject4_walking1_angles.mot",
                                                                "subject4_walking1_torques.sto",
                                                                "subject4_walking1_grf_estimated.mot"}
    bpy.ops.wm.open_mainfile(filepath=str(blend))
    rigs = {ob.name: ob for ob in bpy.data.objects if ob.type == "ARMATURE"}
    assert set(rigs) == {"subject4_walking1 rig", "subject4_walking1 zero gravity captured rig"}
    assert len(rigs["subject4_walking1 rig"].data.bones) == len(model["segment_lengths_m"])
    assert data["zero_gravity"]["frames"] == 131 and data["versions"]["blender"] == bpy.app.version_string
    assert len([ob for ob in bpy.data.objects if "mocap_label" in ob]) == 51


def test_asked_for_no_output_the_scene_is_saved_under_out(package, shared_data, tmp_path):  # installed first
    run = cli(shared_data / "subject4_walking1.trc", "--until", "import", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "out" / "subject4_walking1.blend").is_file()
    assert "saved out/subject4_walking1.blend" in run.stdout


@pytest.mark.parametrize("case", ["missing file", "not a c3d", "output not a .blend", "a folder"])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(shared_data, tmp_path, case):
    bad = tmp_path / "broken.c3d"
    bad.write_bytes(b"\x00" * 600)
    args = {"missing file": [tmp_path / "nope.trc", "--out", tmp_path / "x.blend"],
            "not a c3d": [bad, "--out", tmp_path / "x.blend", "--report", tmp_path / "x.json"],
            "output not a .blend": [shared_data / "subject4_walking1.trc", "--out", tmp_path / "out.txt"],
            "a folder": [shared_data, "--out", tmp_path / "x.blend"]}[case]
    run = cli(*args)
    assert run.returncode == 2, run.stdout + run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    if case == "a folder":
        assert lines[0].endswith("is a folder, not a recording. Give one .c3d or .trc file of it, or process the "
                                 "folder with scripts/batch.py --blend."), lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.c3d"], "no output written"


def test_markers_that_cannot_form_a_body_say_what_to_do(solver, shared_data, tmp_path):
    cmu = solver.io.load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d")
    keep = [i for i, label in enumerate(cmu.labels) if label.endswith("WT")]
    four = dataclasses.replace(cmu, labels=tuple(cmu.labels[i] for i in keep), markers=cmu.markers[:, keep])
    path = importlib.import_module(f"{solver.__name__}.io.trc").write_trc(four, tmp_path / "four.trc")
    run = cli(path, "--out", tmp_path / "x.blend")
    assert run.returncode == 2
    assert "cannot form a body" in run.stderr and "toml" in run.stderr.lower(), run.stderr


def test_unknown_marker_set_says_what_to_do(solver, shared_data, tmp_path):
    """A static trial with numbers for labels: no known set, and no motion to find the segments from."""
    static = solver.io.load_trial(shared_data / "subject4_static1.trc")
    numbered = tmp_path / "numbered_static.trc"
    solver.io.write_trc(replace(static, labels=tuple(str(k + 1) for k in range(static.n_markers))), numbered)
    run = cli(numbered, "--out", tmp_path / "x.blend")
    assert run.returncode == 2
    assert "cannot form a body" in run.stderr and "toml" in run.stderr.lower(), run.stderr
    assert "rigid cluster" in run.stderr and run.stderr.count("\n") == 1, run.stderr
    assert not (tmp_path / "x.blend").exists()
