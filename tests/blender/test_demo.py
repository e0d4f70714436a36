"""`make demo` as a new user runs it: the whole story on the project's own sample, every promised output."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import bpy
from conftest import ROOT


def test_demo_writes_the_whole_story(package, tmp_path):
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "demo.py"), "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    report = json.loads((tmp_path / "report.json").read_text())
    assert abs(report["model"]["mass_kg"] - 70.0) < 1e-9 and not report["model"]["mass_assumed"]
    assert report["reconstruction"]["converged_percent"] == 100.0
    assert report["dynamics"]["root_force_ratio_with_to_without_plates"] < 1.0
    assert report["contact"]["plates"], "estimated contact compared with the sample's plates"
    assert report["zero_gravity"]["momentum_drift_relative"] < 1e-9
    assert "sample_walk.c3d" in (tmp_path / "report.txt").read_text()
    tables = {p.name for p in (tmp_path / "tables").iterdir()}
    assert {"sample_walk_angles.mot", "sample_walk_torques.sto"} <= tables
    if importlib.util.find_spec("matplotlib"):  # plots where matplotlib is installed (not in Blender alone)
        assert {"sample_walk_grf.png", "sample_walk_torques.png", "sample_walk_convergence.png"} <= tables
    still = tmp_path / "sample_walk_still_0150.png"
    image = bpy.data.images.load(str(still))
    assert tuple(image.size) == (1280, 720)
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "demo.blend"))
    rigs = sorted(ob.name for ob in bpy.data.objects if ob.type == "ARMATURE")
    assert rigs == ["sample_walk rig", "sample_walk zero gravity captured rig"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == [], "no temporary files left"
