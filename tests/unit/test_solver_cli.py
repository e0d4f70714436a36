"""``python -m solver`` as a researcher runs it (a new process from the repository root), and the option
flags it shares with scripts/process_trial.py and scripts/batch.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from mocap_dynamics.solver import cli
from mocap_dynamics.solver.io import ImportOptions
from mocap_dynamics.solver.kinematics.gap_fill import GapFillOptions
from mocap_dynamics.solver.pipeline import PipelineOptions
from mocap_dynamics.solver.sample import MASS, write_sample
from mocap_dynamics.solver.zerog import ZeroGravityOptions

ROOT = Path(__file__).resolve().parents[2]


def solver(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    return write_sample(tmp_path_factory.mktemp("sample"))


def test_sample_to_report_tables_and_plots(sample, tmp_path):
    out = tmp_path / "out"
    done = solver(sample["c3d"], "--out", out, "--mass", MASS, "--plots")
    assert done.returncode == 0, done.stderr
    assert "[mocap_dynamics] reconstructing" in done.stdout and "Mocap Dynamics report for" in done.stdout
    report = json.loads((out / "report.json").read_text())
    assert report["trial"]["frames"] == 300 and report["trial"]["force_plates"] == 2
    assert report["model"]["mass_kg"] == pytest.approx(MASS) and not report["model"]["mass_assumed"]
    assert report["reconstruction"]["converged_percent"] == 100.0
    assert {"dynamics", "contact"} <= set(report) and "plates" in report["contact"]
    files = {p.name for p in out.iterdir()}
    assert files == {"report.json", "report.txt", "sample_walk_angles.mot", "sample_walk_angles.csv",
                     "sample_walk_torques.sto", "sample_walk_torques.csv", "sample_walk_torques_motion_alone.sto",
                     "sample_walk_torques_motion_alone.csv", "sample_walk_marker_errors.png",
                     "sample_walk_convergence.png", "sample_walk_torques.png", "sample_walk_grf.png",
                     "sample_walk_grf_estimated.mot", "sample_walk_grf_estimated.csv",
                     "sample_walk_markers_filled.trc", "manifest.json"}
    assert sorted(report["tables"]["files"]) == sorted(str(p) for p in out.iterdir()
                                                       if p.name[:6] != "report" and p.name != "manifest.json")
    assert report["tables"]["notes"] == []
    assert (out / "report.txt").read_text() in done.stdout


def test_without_out_the_results_go_to_out_and_the_recordings_name(sample, tmp_path):
    """The solver as a new user runs it from a folder of their own (the repository's ``solver/`` given as a path,
    as the README says; ``-m solver`` needs the repository root): no --out needed."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run([sys.executable, str(ROOT / "solver"), str(sample["c3d"]), "--until", "calibrate"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "sample_walk" / "report.json").is_file()
    assert f"to {Path('out') / 'sample_walk'}" in done.stdout


@pytest.mark.parametrize("case", ["corrupt file", "missing file", "bad option", "bad nested option", "unknown flag",
                                  "plates as trial", "a folder", "a folder as static", "misspelt flag",
                                  "cutoff above Nyquist", "two recordings"])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(sample, tmp_path, case):
    corrupt = tmp_path / "corrupt.c3d"
    corrupt.write_bytes(b"\x00" * 600)
    (tmp_path / "walk_grf.mot").write_text("endheader\ntime\tground_force_vx\n0\t0\n")
    args = {"corrupt file": [corrupt], "missing file": [tmp_path / "nope.trc"],
            "bad option": [sample["c3d"], "--mass", "-70"], "unknown flag": [sample["c3d"], "--frobnicate"],
            "bad nested option": [sample["c3d"], "--zero-g-duration", "0"],
            "plates as trial": [tmp_path / "walk_grf.mot"], "a folder": [sample["c3d"].parent],
            "a folder as static": [sample["c3d"], "--static", sample["c3d"].parent],
            "misspelt flag": [sample["c3d"], "--stattic", "static.trc"],
            "cutoff above Nyquist": [sample["c3d"], "--cutoff", "500"],
            "two recordings": [sample["c3d"], sample["trc"]]}[case]
    done = solver(*args, "--out", tmp_path / "out")
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    if case in ("plates as trial", "bad nested option", "a folder", "a folder as static", "misspelt flag",
                "cutoff above Nyquist", "two recordings"):
        assert lines[0].endswith({"plates as trial": "(a GRF .mot goes in --grf FILE.mot).",
                                  "bad nested option": "Give --zero-g-duration S above 0.",
                                  "a folder": "is a folder, not a recording. Give one .c3d or .trc file of it, "
                                              "or process the folder with scripts/batch.py.",
                                  "a folder as static": "is a folder, not a recording. Give one .c3d or .trc "
                                                        "file of it.",
                                  "misspelt flag": "unrecognized arguments: --stattic static.trc (--stattic: did you "
                                                   "mean --static?). Run python -m solver --help for the options.",
                                  "cutoff above Nyquist": "(6-12 Hz is usual for human movement).",
                                  "two recordings": "(python -m solver takes one recording: process several with "
                                                    "scripts/batch.py). Run python -m solver --help for the "
                                                    "options."}[case]), lines[0]
    if case == "cutoff above Nyquist":
        assert "error: --cutoff 500.0 Hz is not between 0 and this trial's Nyquist frequency" in lines[0]
    if case == "a folder as static":
        assert lines[0].startswith("error: The static trial (--static FILE): "), lines[0]
    assert "Traceback" not in done.stdout + done.stderr
    assert not (tmp_path / "out").exists()


def test_a_trial_too_short_for_winters_cutoff_names_the_flag_that_runs_it(sample, tmp_path):
    """Twelve frames of the sample walk: too few for Winter's residual analysis; the one line says which flag to
    give, and with it the trial runs."""
    from mocap_dynamics.solver.io import load_trial
    from mocap_dynamics.solver.io.trc import write_trc
    trial = load_trial(sample["c3d"])
    short = tmp_path / "short.trc"
    write_trc(replace(trial, markers=trial.markers[:12], plates=(), plate_samples=None), short)
    done = solver(short, "--mass", MASS, "--until", "dynamics", "--out", tmp_path / "out")
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        "error: Winter's residual analysis needs complete signals longer than 12 frames sampled above 10 Hz to "
        "find a cutoff. Give the cutoff yourself, e.g. --cutoff 8."], done.stderr
    assert not (tmp_path / "out").exists()
    done = solver(short, "--mass", MASS, "--until", "dynamics", "--cutoff", "8", "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr


def test_a_bug_exits_1_with_the_traceback_and_one_last_line(monkeypatch, capsys, tmp_path):
    def broken(*args, **kwargs):
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(cli, "run", broken)
    assert cli.main(["x.c3d", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and err.strip().splitlines()[-1].startswith("error: unexpected ZeroDivisionError: oops")


def _parse(argv: list[str]):
    parser = cli.OneLineParser(prog="test")
    cli.add_pipeline_arguments(parser)
    return parser.parse_args(argv)


def test_flags_override_the_options_file_which_overrides_the_defaults(tmp_path):
    toml = tmp_path / "options.toml"
    toml.write_text('until = "dynamics"\nmass = 61.5\nstatic = "static.trc"\n[import]\nunits = "cm"\n')
    options = cli.pipeline_options(_parse(["--options", str(toml), "--mass", "80", "--keep-prefix"]))
    assert options == PipelineOptions(until="dynamics", mass=80.0, static=str(tmp_path / "static.trc"),
                                      import_options=ImportOptions(units="cm", strip_prefix=False))
    assert cli.pipeline_options(_parse([])) == PipelineOptions()


def test_zero_gravity_flags_fill_their_table_over_the_options_file(tmp_path):
    toml = tmp_path / "options.toml"
    toml.write_text('[zero_gravity]\nkind = "ladder"\nrungs = 6\n')
    options = cli.pipeline_options(_parse(["--options", str(toml), "--zero-gravity", "sequence", "--zero-g-angle",
                                           "30", "--zero-g-vmax", "120"]))
    assert options.zero_gravity == ZeroGravityOptions(kind="sequence", angle_deg=30.0, v_max_deg_s=120.0, rungs=6)


def test_gap_fill_flags_fill_their_table_over_the_options_file(tmp_path):
    toml = tmp_path / "options.toml"
    toml.write_text('[gap_fill]\nmethod = "pca"\nspline = "quintic"\n')
    options = cli.pipeline_options(_parse(["--options", str(toml), "--fill", "rigid", "--fill-max-gap", "0.5"]))
    assert options.gap_fill == GapFillOptions(method="rigid", max_gap_s=0.5, spline="quintic")
    assert cli.pipeline_options(_parse(["--fill", "none"])).gap_fill.method == "none"


def test_flags_pass_on_to_a_child_process_unchanged(tmp_path, monkeypatch):
    argv = ["--until", "dynamics", "--model", "brubaker12", "--mass", "61.5", "--keep-prefix", "--up-axis", "Y",
            "--reconstruct", "lee", "--cutoff", "8", "--contact-forces", "per_frame", "--static", "static.trc",
            "--zero-gravity", "leg_lifting",
            "--fill", "pca", "--fill-max-gap", "1.5",
            "--zero-g-duration", "2"]
    monkeypatch.chdir(tmp_path)
    again = cli.pipeline_argv(_parse(argv))
    assert again[again.index("--static") + 1] == str(tmp_path / "static.trc"), "paths made absolute"
    monkeypatch.chdir(ROOT)  # the child's folder
    assert cli.pipeline_options(_parse(again)) == replace(cli.pipeline_options(_parse(argv)),
                                                          static=str(tmp_path / "static.trc"))
    assert cli.pipeline_argv(_parse([])) == []
