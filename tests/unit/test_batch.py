"""scripts/batch.py over a folder with good and corrupt recordings: on this machine and on a Dask cluster."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mocap_dynamics.solver.batch import find_trials, trial_names
from mocap_dynamics.solver.errors import InputError
from mocap_dynamics.solver.sample import MASS, write_sample

ROOT = Path(__file__).resolve().parents[2]
CORRUPT = b"C3D?" + bytes(range(256)) * 8


def batch(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "batch.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=900, cwd=cwd)


def summary(out: Path) -> dict:
    with open(out / "summary.csv", newline="") as f:
        return {row["trial"]: row for row in csv.DictReader(f)}


@pytest.fixture(scope="module")
def trials(tmp_path_factory):
    """Two good trials (the sample walk as C3D with plates and as TRC without) and a corrupt C3D."""
    folder = tmp_path_factory.mktemp("trials")
    write_sample(folder)
    (folder / "corrupt.c3d").write_bytes(CORRUPT)
    (folder / "notes.txt").write_text("not a recording")
    return folder


@pytest.fixture(scope="module")
def local_run(trials, tmp_path_factory):
    out = tmp_path_factory.mktemp("batch") / "out"
    return batch(trials, "--out", out, "--jobs", "2", "--mass", MASS, "--plots"), out


def test_a_corrupt_file_is_reported_and_does_not_stop_the_batch(local_run):
    done, out = local_run
    assert done.returncode == 3, done.stdout + done.stderr
    rows = summary(out)
    assert set(rows) == {"sample_walk_c3d", "sample_walk_trc", "corrupt"}
    assert rows["corrupt"]["status"] == "failed"
    assert "corrupt.c3d" in rows["corrupt"]["message"] and "\n" not in rows["corrupt"]["message"]
    assert "corrupt: failed: corrupt.c3d" in done.stdout
    assert (out / "corrupt" / "log.txt").is_file() and not (out / "corrupt" / "report.json").exists()


def test_good_trials_have_their_outputs_and_figures(local_run):
    _, out = local_run
    rows = summary(out)
    for name in ("sample_walk_c3d", "sample_walk_trc"):
        row = rows[name]
        assert row["status"] == "ok" and row["message"] == ""
        report = json.loads((out / name / "report.json").read_text())
        assert int(row["frames"]) == report["trial"]["frames"] == 300
        warned = report["trial"]["warnings"] + report["model"]["warnings"] + report["contact"].get("warnings", []) \
            + report["contact"].get("plates", {}).get("warnings", [])
        assert row["warnings"] == " | ".join(warned)
        assert float(row["converged_percent"]) == 100.0 and 0 < float(row["marker_rms_mm"]) < 10
        without = float(row["root_force_no_contact_percent_bw"])
        explained = float(row["explained_force_percent"])
        assert without > 80, "without contact forces the root holds the body up"
        assert float(row["root_force_with_contact_percent_bw"]) == pytest.approx(without * (1 - explained / 100),
                                                                                  rel=1e-4)
        assert float(row["pipeline_s"]) > 0
        assert row["mass_source"] == report["model"]["mass_source"].split(" (")[0]
        assert float(row["cutoff_hz"]) == report["dynamics"]["derivatives"]["cutoff_hz"] > 0
        assert row["surfaces"] == "floor" and float(row["floor_tilt_deg"]) <= 1.0, "the sample walks on level ground"
        assert {"report.txt", "sample_walk_torques.sto", "sample_walk_grf.png"} <= {p.name for p in
                                                                                   (out / name).iterdir()}
    # Only the C3D carries force plates: figures with plates exist for it alone.
    assert float(rows["sample_walk_c3d"]["root_force_with_plates_percent_bw"]) < \
        float(rows["sample_walk_c3d"]["root_force_no_contact_percent_bw"])
    assert rows["sample_walk_trc"]["root_force_with_plates_percent_bw"] == ""
    assert rows["sample_walk_trc"]["plate_rmse_vertical_percent_bw"] == ""
    assert float(rows["sample_walk_c3d"]["plate_cop_error_single_support_cm"]) >= 0.0
    assert rows["sample_walk_trc"]["plate_cop_error_single_support_cm"] == ""
    assert (out / "root_force_distribution.png").read_bytes()[:4] == b"\x89PNG"
    assert not list(out.glob(".*partial*"))


def test_on_a_dask_cluster(trials, tmp_path):
    distributed = pytest.importorskip("distributed")
    out = tmp_path / "out"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
                                  dashboard_address=None) as cluster:
        done = batch(trials, "--out", out, "--scheduler", cluster.scheduler_address, "--until", "calibrate",
                     "--mass", MASS)
        assert "run_process" in cluster.scheduler.task_prefixes, "the trials went through the scheduler"
    assert done.returncode == 3, done.stdout + done.stderr
    rows = summary(out)
    assert {name: row["status"] for name, row in rows.items()} == {"sample_walk_c3d": "ok", "sample_walk_trc": "ok",
                                                                   "corrupt": "failed"}
    assert "not plotted" in done.stdout, "no trial reached the dynamics stage"


def test_without_out_the_batch_writes_under_out(trials, tmp_path):
    done = batch(trials / "sample_walk.trc", "--until", "import", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert summary(tmp_path / "out")["sample_walk"]["status"] == "ok"
    assert (tmp_path / "out" / "sample_walk" / "report.json").is_file()


def test_a_list_of_trials(trials, tmp_path):
    listing = tmp_path / "trials.txt"
    listing.write_text(f"# two trials, the second relative to the list\n{trials / 'sample_walk.trc'}\n\nmissing.trc\n")
    assert [t.path for t in find_trials([listing])] == [trials / "sample_walk.trc", tmp_path / "missing.trc"]
    done = batch(listing, "--out", tmp_path / "out", "--until", "import")
    assert done.returncode == 3
    rows = summary(tmp_path / "out")
    assert rows["sample_walk"]["status"] == "ok" and rows["missing"]["status"] == "failed"
    assert "missing.trc" in rows["missing"]["message"]


def test_a_list_gives_each_trial_its_own_flags(trials, tmp_path):
    """A subject's mass (or static trial, plates) on its trials' lines: they override the batch's flags for that
    trial; paths in them are taken from the list's folder; a path with spaces needs no quotes before the flags."""
    (tmp_path / "my walk.trc").write_bytes((trials / "sample_walk.trc").read_bytes())
    listing = tmp_path / "trials.txt"
    listing.write_text(f"{trials / 'sample_walk.trc'} --mass 61  # subject 1\n"
                       f"{trials / 'sample_walk.c3d'}\n"
                       f"my walk.trc --mass 75 --static 's2/quiet standing.trc'\n")
    listed = find_trials([listing])
    assert [(t.path.name, t.where) for t in listed] == [
        ("sample_walk.trc", "trials.txt line 1"), ("sample_walk.c3d", "trials.txt line 2"),
        ("my walk.trc", "trials.txt line 3")]
    assert listed[0].flags == ("--mass", "61.0") and listed[1].flags == ()
    assert listed[2].flags == ("--mass", "75.0", "--static", str(tmp_path / "s2" / "quiet standing.trc"))
    listing.write_text(f"{trials / 'sample_walk.trc'} --mass 61  # subject 1\n{trials / 'sample_walk.c3d'}\n"
                       f"my walk.trc --mass 75\n")
    done = batch(listing, "--out", tmp_path / "out", "--until", "calibrate", "--mass", 70, "--jobs", 2)
    assert done.returncode == 0, done.stdout + done.stderr
    masses = {Path(row["input"]).name: float(row["mass_kg"]) for row in summary(tmp_path / "out").values()}
    assert masses == {"sample_walk.trc": 61.0, "sample_walk.c3d": 70.0, "my walk.trc": 75.0}


@pytest.mark.parametrize("line, message", [
    ("{walk} --bogus 3", "trials.txt line 2: unrecognized arguments: --bogus 3. Use the flags of python -m solver "
                         "--help."),
    ("{walk} --mass heavy", "trials.txt line 2: argument --mass: invalid float value: 'heavy'. Use the flags of "
                            "python -m solver --help."),
    ("{walk} --static 'my static.trc", "trials.txt line 2: No closing quotation. Close the quotes around a path, as "
                                       "in --static \"my static.trc\"."),
    ("  --mass 61", "trials.txt line 2: no recording before its flags. Start the line with the recording's path."),
    ("walks of subject 1", "trials.txt line 2: 'walks of subject 1' is not a .c3d or .trc recording. A list of "
                           "trials holds one recording's path per line, then its flags if any."),
    ("{walk} --surfaces detected", "trials.txt line 2: Conflicting contact options: --contact-forces spring needs "
                                   "the paper's plane (eq. 10), not surfaces detected from resting points. Use "
                                   "--surfaces plane with spring forces, or per_frame forces on detected surfaces.")])
def test_a_bad_line_stops_the_batch_before_any_trial_with_its_line_number(trials, tmp_path, line, message):
    listing = tmp_path / "trials.txt"
    listing.write_text(f"# subject 1\n{line.format(walk=trials / 'sample_walk.trc')}\n")
    done = batch(listing, "--out", tmp_path / "out", "--contact-forces", "spring")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [f"error: {message}"]
    assert not (tmp_path / "out").exists()


def test_trials_are_found_in_folders_and_named_uniquely(tmp_path):
    for sub in ("s1", "s2"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "walk.c3d").write_bytes(b"")
    (tmp_path / "s1" / "run.TRC").write_bytes(b"")
    with pytest.raises(InputError, match="--recursive"):
        find_trials([tmp_path])
    paths = [t.path for t in find_trials([tmp_path], recursive=True)]
    assert [p.relative_to(tmp_path).as_posix() for p in paths] == ["s1/run.TRC", "s1/walk.c3d", "s2/walk.c3d"]
    assert trial_names(paths) == ["run", "s1_walk_c3d", "s2_walk_c3d"]


@pytest.mark.parametrize("args", [["nowhere"], ["{trials}", "--jobs", "0"], ["{trials}", "--until", "never"],
                                  ["{trials}", "--grf", "x.mot"]])
def test_bad_arguments_exit_2_with_one_line(trials, tmp_path, args):
    done = batch(*[a.format(trials=trials) for a in args], "--out", tmp_path / "out")
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert not (tmp_path / "out").exists()


def test_a_trial_that_times_out_is_reported_with_its_log(trials, tmp_path):
    out = tmp_path / "out"
    done = batch(trials / "sample_walk.c3d", "--out", out, "--timeout", "0.3", "--mass", MASS)
    assert done.returncode == 3, done.stdout + done.stderr
    row = summary(out)["sample_walk"]
    assert row["status"] == "error" and row["message"] == "timed out after 0.3 s"
    assert "timed out after 0.3 s" in (out / "sample_walk" / "log.txt").read_text()
