"""Issue 16, the command line: ``python -m solver`` and ``scripts/batch.py`` as a hostile but realistic user
runs them. Each case asserts the exit code, the one line on stderr, and what is on disk."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from mocap_dynamics.solver import batch
from mocap_dynamics.solver.io import load_trial, write_trc
from mocap_dynamics.solver.sample import MASS, write_sample
from tests.unit.test_robustness_input import grf_in_ms

ROOT = Path(__file__).resolve().parents[2]


def solver(*args, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def one_line(done: subprocess.CompletedProcess) -> str:
    """The single stderr line of a failed run (and no traceback anywhere)."""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    return lines[0]


def files(folder: Path) -> set[str]:
    """Every file under ``folder`` (relative names), temporary ones included."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()} if folder.exists() else set()


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    return write_sample(tmp_path_factory.mktemp("sample"))


def test_out_under_a_regular_file_is_refused_before_any_work(sample, tmp_path):
    (tmp_path / "results").write_text("a file, not a folder")
    done = solver(sample["c3d"], "--out", tmp_path / "results" / "walk")
    assert done.returncode == 2
    assert one_line(done) == (f"error: --out {tmp_path}/results/walk is under {tmp_path}/results, which is a file, "
                              "not a folder. Give --out a folder.")
    assert "[mocap_dynamics]" not in done.stdout, "refused before reading the trial"
    assert files(tmp_path) == {"results"}


def read_only_folder(tmp_path: Path) -> Path:
    """A folder this process cannot write into (as root, chmod does not stop writes: /sys does)."""
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        (folder / "probe").touch()
    except OSError:
        return folder
    (folder / "probe").unlink()
    if Path("/sys").is_dir() and not os.access("/sys", os.W_OK):
        return Path("/sys")
    try:
        (Path("/sys") / "probe").touch()
    except OSError:
        return Path("/sys")
    pytest.skip("no read-only folder available to this user")


def test_out_in_a_read_only_place_is_refused_before_any_work(sample, tmp_path):
    locked = read_only_folder(tmp_path)
    done = solver(sample["c3d"], "--out", locked / "walk")
    assert done.returncode == 2
    line = one_line(done)
    assert line.startswith(f"error: Cannot write into --out {locked}/walk: {locked} is not writable (")
    assert line.endswith("Give --out a folder you can write to.")
    assert "[mocap_dynamics]" not in done.stdout and not (locked / "walk").exists()


def test_a_rerun_into_the_same_folder_leaves_only_its_own_files(sample, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "my_notes.txt").write_text("the user's own file")
    first = solver(sample["c3d"], "--out", out, "--until", "reconstruct", "--mass", MASS, "--plots")
    assert first.returncode == 0, first.stderr
    assert {"sample_walk_angles.mot", "sample_walk_convergence.png", "manifest.json"} <= files(out)
    second = solver(sample["c3d"], "--out", out, "--until", "import")
    assert second.returncode == 0, second.stderr
    assert files(out) == {"report.json", "report.txt", "manifest.json", "my_notes.txt"}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["files"] == ["manifest.json", "report.json", "report.txt"]
    assert manifest["written_by"] == "Mocap Dynamics" and manifest["source"].endswith("sample_walk.c3d")


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_an_interrupt_while_writing_leaves_no_file_and_one_line(sample, tmp_path, sig, code):
    """SIGTERM (or Ctrl-C) once the last stage is done, while the tables and plots are written. The run starts
    with Ctrl-C's default action: a shell starts background jobs with SIGINT ignored, and a Python started so
    never sees it (the test then failed whenever the suite itself ran in the background)."""
    outcomes = []
    for delay in (0.0, 0.3, 0.8):
        out = tmp_path / f"out{delay}"
        process = subprocess.Popen([sys.executable, "-m", "solver", str(sample["c3d"]), "--out", str(out),
                                    "--until", "contact", "--mass", str(MASS), "--plots"], cwd=ROOT,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        for line in process.stdout:
            if "explains" in line and "of the root force" in line:
                break
        time.sleep(delay)
        process.send_signal(sig)
        stdout, stderr = process.communicate(timeout=120)
        outcomes.append(process.returncode)
        if process.returncode == 0:  # it had finished: then everything is there
            assert "manifest.json" in files(out)
            continue
        assert process.returncode == code, stderr
        assert stderr.strip().splitlines() == ["interrupted: nothing written"]
        assert files(out) == set(), "no table, no plot, no temporary file"
    assert code in outcomes, f"no run was interrupted before it finished: {outcomes}"


def test_messages_name_the_flags(sample, tmp_path, shared_data):
    done = solver(shared_data / "cmu_dribble_shoot_basketball.c3d", "--out", tmp_path / "cm", "--units", "cm",
                  "--until", "calibrate")
    assert done.returncode == 2 and one_line(done).endswith("The length unit is probably wrong: import with "
                                                            "--units mm.")
    four = tmp_path / "four.trc"  # four markers on one object: neither their labels nor their motion make a body
    walk = load_trial(sample["trc"])
    write_trc(replace(walk, labels=walk.labels[:4], markers=walk.markers[:, :4]), four)
    done = solver(four, "--out", tmp_path / "four", "--until", "calibrate")
    four.unlink()
    assert done.returncode == 2 and "pass it as --markerset FILE.toml)" in one_line(done)
    done = solver(sample["trc"], "--out", tmp_path / "mass", "--mass", "1e6")
    assert done.returncode == 2
    assert one_line(done) == ("error: --mass 1000000.0 kg is no human body mass (2 to 500 kg). Give the subject's "
                              "mass in kg, or leave out --mass KG to take it from the force plates.")
    assert files(tmp_path) == set()


def test_a_plate_delay_out_of_reach_is_one_line(sample, tmp_path):
    done = solver(sample["c3d"], "--out", tmp_path / "out", "--plate-delay", "3")
    assert done.returncode == 2
    assert one_line(done) == ("error: Plate delay --plate-delay 3.0 is not a time within ±0.5 s. Give how late the "
                              "plates run behind the markers in seconds, e.g. 0.01 (negative: ahead).")
    assert files(tmp_path) == set()


def test_absurd_masses_are_one_line_each(sample, tmp_path):
    done = solver(sample["trc"], "--out", tmp_path / "out", "--mass", "1e-9")
    assert done.returncode == 2 and one_line(done).startswith("error: --mass 1e-09 kg is no human body mass")
    assert files(tmp_path) == set()


def test_absurd_shoes_are_one_line_each(sample, tmp_path):
    done = solver(sample["trc"], "--out", tmp_path / "out", "--shoe-mass", "-0.3")
    assert done.returncode == 2 and one_line(done) == ("error: --shoe-mass -0.3 is not a shoe's mass. Give one "
                                                       "shoe's mass in kg (0.2-0.5 for most; 0: barefoot).")
    done = solver(sample["trc"], "--out", tmp_path / "out", "--shoe-mass", "9", "--mass", "70")
    assert done.returncode == 2 and one_line(done).startswith("error: --shoe-mass 9.0 is not a shoe's mass for a "
                                                              "body of 70.0 kg.")
    assert files(tmp_path) == set()


def test_a_grf_in_milliseconds_is_one_line_naming_the_flag(shared_data, tmp_path):
    done = solver(shared_data / "subject4_walking1.trc", "--grf", grf_in_ms(shared_data, tmp_path), "--out",
                  tmp_path / "out", "--until", "import")
    assert done.returncode == 2
    assert one_line(done).endswith("its time column looks like milliseconds. Give --grf FILE.mot with its time in "
                                   "seconds.")
    assert files(tmp_path / "out") == set()


def test_a_batch_timeout_stops_the_trial_with_sigterm_and_it_cleans_up(sample, tmp_path):
    """OTM's paper mode (about 150 ms a frame, 45 s for the sample) keeps the trial running when the 20 s are up;
    20 s, so that a loaded machine has imported the solver and set its SIGTERM handler by then (10 s failed once
    with a second test suite running beside this one)."""
    out = tmp_path / "batch"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "batch.py"), str(sample["c3d"]), "--out",
                           str(out), "--timeout", "20", "--mass", str(MASS),
                           "--otm-mode", "paper"], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 3, done.stdout + done.stderr
    log = (out / "sample_walk" / "log.txt").read_text()
    assert "interrupted: nothing written" in log, "the trial got SIGTERM, cleaned up and said so"
    assert log.endswith("--- timed out after 20 s ---\n")
    assert files(out / "sample_walk") == {"log.txt"}


def test_an_interrupted_batch_stops_its_trials_and_says_which_did_not_finish(sample, tmp_path):
    """OTM's paper mode (about 150 ms a frame, 45 s for the sample) keeps the first trial running past the 10 s,
    however warm the caches (with the fast mode a warm trial can finish first); 10 s, so that a loaded machine
    has started the batch and its first trial by then."""
    out = tmp_path / "batch"
    process = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "batch.py"), str(sample["c3d"]),
                                str(sample["trc"]), "--out", str(out), "--jobs", "1", "--mass", str(MASS),
                                "--otm-mode", "paper"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(10.0)  # the first trial is running
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 143, stdout + stderr
    assert stderr.strip().splitlines() == ["interrupted: kept the 1 file already complete (summary.csv)"]
    rows = (out / "summary.csv").read_text().splitlines()
    assert len(rows) == 3 and all(",interrupted,the batch was interrupted," in row for row in rows[1:])
    assert not [name for name in files(out) if ".partial" in name or name.endswith((".png", ".sto", ".mot"))]


def test_a_trial_that_ignores_sigterm_is_killed_after_the_grace_period(monkeypatch):
    monkeypatch.setattr(batch, "GRACE_S", 1.0)
    stubborn = [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                                      "print('started', flush=True); time.sleep(60)"]
    started = time.monotonic()
    finished = batch.run_process(stubborn, str(ROOT), None, timeout=2.0)
    assert finished.timed_out == 2.0 and finished.returncode == -signal.SIGKILL
    assert finished.stdout == "started\n" and 3.0 <= time.monotonic() - started < 30
