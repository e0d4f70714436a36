"""Issue 16 in Blender: messages name the sidebar's fields, and process_trial.py checks its outputs before any
work (one line, exit 2, nothing written)."""

from __future__ import annotations

import subprocess
import sys

import bpy
import numpy as np
import pytest
from conftest import ROOT


def test_every_option_the_sidebar_sets_is_named_by_its_field(package):
    messages, errors = package.addon.messages, package.solver.errors
    for name, (owner, prop) in messages.FIELDS.items():
        assert messages.field(name) is not None, f"{name}: {owner} has no property {prop}"
    with messages.sidebar_messages():
        assert errors.option("import.units", "mm") == '"Units" set to Millimetres'
        assert errors.option("mass", hint="kg") == '"Body Mass"'
        assert errors.option("zero_gravity.angle_deg", 30.0) == '"Angle" set to 30'
        assert errors.option("zero_gravity.lift_deg") == '"Leg Lift"'
        assert errors.option("cutoff", 8.0) == '"Cutoff (Hz)" set to 8'
        assert errors.option("import.plate_delay", 0.01).startswith('"Plate Delay" set to ')
        assert errors.option("cutoff", "none") == '"Filter" set to None (paper)'
        assert errors.option("zero_gravity.kind", "none") == "steps 1-5 run one by one, without Run All Steps"
    for name, value in messages.UNOFFERED:  # values their fields do not offer: no '"Simulation" set to none'
        assert value not in {item.identifier for item in messages.field(name).enum_items}
    assert errors.option("import.units", "mm") == "ImportOptions(units='mm')"


def test_an_import_error_names_the_import_field(scene, tmp_path):
    import ezc3d  # here, not above: under Blender 4.5 it comes with the installed extension's wheels

    c3d = ezc3d.c3d()
    c3d["parameters"]["POINT"]["RATE"]["value"] = [100.0]
    c3d["parameters"]["POINT"]["LABELS"]["value"] = ["A", "B"]
    c3d["parameters"]["POINT"]["UNITS"]["value"] = ["furlong"]
    points = np.random.default_rng(0).uniform(100, 1000, (3, 2, 5))
    c3d["data"]["points"] = np.concatenate((points, np.ones((1, 2, 5))))
    c3d.write(str(tmp_path / "furlong.c3d"))
    with pytest.raises(RuntimeError, match='Import with "Units" set to Millimetres \\(or cm, m\\)'):
        bpy.ops.mocap_dynamics.import_markers(filepath=str(tmp_path / "furlong.c3d"))


def process_trial(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "process_trial.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("flag", ["--out", "--report", "--tables"])
def test_an_output_under_a_regular_file_is_refused_before_any_work(shared_data, tmp_path, flag):
    (tmp_path / "taken").write_text("a file")
    name = {"--out": "walk.blend", "--report": "walk.json", "--tables": "tables"}[flag]
    done = process_trial(shared_data / "subject4_walking1.trc", flag, tmp_path / "taken" / name)
    assert done.returncode == 2, done.stdout + done.stderr
    fix = "a folder" if flag == "--tables" else "a path in a folder"
    assert done.stderr.strip().splitlines() == [
        f"error: {flag} {tmp_path / 'taken' / name} is under {tmp_path / 'taken'}, which is a file, not a folder. "
        f"Give {flag} {fix}."], done.stderr
    assert "[mocap_dynamics]" not in done.stdout, "refused before reading the trial"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_a_c3d_that_would_crash_ezc3d_is_one_error_and_blender_lives_on(scene, shared_data, tmp_path):
    """A dimension count of 0x80 segfaulted ezc3d, taking the whole Blender session down."""
    from tests.unit.test_io_fuzz import records

    data = bytearray((shared_data / "cmu_dribble_shoot_basketball.c3d").read_bytes())
    used = next(r for r in records(bytes(data)) if r["name"] == "USED")
    data[used["fields"]["dimension count"]] = 0x80
    (tmp_path / "crash.c3d").write_bytes(data)
    before = (len(bpy.data.objects), len(bpy.data.collections), len(bpy.data.actions))
    with pytest.raises(RuntimeError, match="crash.c3d: the file's parameter section is corrupt"):
        bpy.ops.mocap_dynamics.import_markers(filepath=str(tmp_path / "crash.c3d"))
    assert (len(bpy.data.objects), len(bpy.data.collections), len(bpy.data.actions)) == before
