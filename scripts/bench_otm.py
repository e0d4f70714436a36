"""Benchmark of the Optimal Tracking Method: prints figures, never asserts them.

    .venv/bin/python scripts/bench_otm.py [--paper-frames 150] [--out out/bench_otm]

On subject4_walking1.trc with full15 calibrated on subject4_static1.trc (body mass from its force
plates): numba compile time on an empty cache (in a separate process) and the load time from the
on-disk cache; the paper mode (merit = QRf, maxmin = QRx) and the fast mode side by side at the
tolerances of the paper's Tables 1-4 (frames converged, steps, time per frame after warm-up, marker
RMS, largest ||Φ||₂); the marker distance errors per marker as in the paper's Fig. 2 (numbers, and a
boxplot PNG per trial and mode). Then the CMU and squat recordings at the tolerance 1e-7, the paper mode
on their first ``--paper-frames`` frames (it needs 0.1-0.2 s per frame). Takes about five minutes.

"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import ROOT, load_package  # noqa: E402

import numpy as np  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
TOLERANCES = (1e-4, 1e-5, 1e-6, 1e-7)
TARGETS = ("targets: 100 % of frames converged at 1e-7 (paper: 97.3-99.8 %), marker RMS <= 15 mm, fast mode "
           "<= 1 ms/frame on 2 cores (paper: 1.25 s/frame in Matlab; OpenSim 4.6 IK about 23 ms/frame)")

COMPILE_PROBE = """
import sys, time
from dataclasses import replace
sys.path.insert(0, {scripts!r})
from bootstrap import load_package
load_package()
from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.model import calibrate
from mocap_dynamics.solver.kinematics import reconstruct
trial = load_trial({trial!r})
model = calibrate(trial)
short = replace(trial, markers=trial.markers[:3])
for mode in ("fast", "paper"):
    first = time.perf_counter(); reconstruct(short, model, mode=mode); first = time.perf_counter() - first
    again = time.perf_counter(); reconstruct(short, model, mode=mode); again = time.perf_counter() - again
    print(mode, first - again)
"""


def machine() -> str:
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def compile_times(trial_path: Path) -> dict[str, float]:
    """Seconds the first call of each mode spends on its numba kernels in a fresh process: compiling
    them into an empty cache, then loading them from that cache."""
    out = {}
    code = COMPILE_PROBE.format(scripts=str(ROOT / "scripts"), trial=str(trial_path))
    with tempfile.TemporaryDirectory() as cache:
        for label in ("compile, empty cache", "load from the on-disk cache"):
            result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                    env={**os.environ, "NUMBA_CACHE_DIR": cache})
            for line in result.stdout.split("\n"):
                if line.strip():
                    mode, seconds = line.split()
                    out[f"{mode} mode, {label}"] = float(seconds)
    return out


def timed_reconstruct(kinematics, trial, model, repeat: int, **options):
    """The reconstruction and its best wall time per frame [s] over ``repeat`` runs, after a warm-up
    on two frames (numba kernels loaded, BLAS threads started)."""
    kinematics.reconstruct(replace(trial, markers=trial.markers[:2]), model, **options)
    best = np.inf
    for _ in range(repeat):
        started = time.perf_counter()
        motion = kinematics.reconstruct(trial, model, **options)
        best = min(best, (time.perf_counter() - started) / trial.n_frames)
    return motion, best


def column(kinematics, motion, seconds_per_frame: float) -> list[str]:
    s = kinematics.convergence_summary(motion)
    return [f"{s.converged}/{s.frames} ({s.rate_percent:.1f} %)", f"{s.iterations_mean:.2f} / {s.iterations_max}",
            f"{1000 * seconds_per_frame:.3f} ({1000 * s.seconds_per_frame:.3f})", f"{1000 * s.marker_rms:.2f}",
            f"{s.constraint_norm_max:.1e}"]


def print_table(header: list[str], rows: list[str], columns: list[list[str]]) -> None:
    widths = [max(len(h), *(len(c) for c in col)) for h, col in zip(header, columns)]
    print("   " + f"{'':30s}" + "  ".join(f"{h:>{w}s}" for h, w in zip(header, widths)))
    for i, name in enumerate(rows):
        print("   " + f"{name:30s}" + "  ".join(f"{col[i]:>{w}s}" for col, w in zip(columns, widths)))


ROWS = ["frames converged", "steps per frame (mean / max)", "ms per frame (solve only)", "marker RMS [mm]",
        "largest ||Φ||₂"]


def side_by_side(kinematics, trial, model, paper_frames: int | None, out: Path, name: str,
                 tolerances=TOLERANCES) -> None:
    """Paper (merit, maxmin) and fast mode at each tolerance; Fig. 2 numbers and plots at the last."""
    paper_trial = trial if paper_frames is None else replace(trial, markers=trial.markers[:paper_frames])
    if paper_frames is not None and paper_frames < trial.n_frames:
        print(f"   paper mode on the first {paper_frames} of {trial.n_frames} frames; fast mode on all frames")
    motions = {}
    for tolerance in tolerances:
        header, columns = [], []
        for mode, strategy in (("paper", "merit"), ("paper", "maxmin"), ("fast", "merit")):
            source = paper_trial if mode == "paper" else trial
            motion, seconds = timed_reconstruct(kinematics, source, model, 1 if mode == "paper" else 3, mode=mode,
                                                strategy=strategy, tolerance=tolerance)
            header.append(f"{mode}/{strategy}" if mode == "paper" else "fast")
            columns.append(column(kinematics, motion, seconds))
            motions[header[-1]] = motion
        print(f"   tolerance {tolerance:g} (ms per frame: whole reconstruct call, in brackets the solver alone)")
        print_table(header, ROWS, columns)
    fast = motions["fast"]
    n = motions["paper/merit"].n_frames
    for key in ("paper/merit", "paper/maxmin"):
        paper = motions[key]
        print(f"   {key} vs fast on the same {n} frames: largest difference in segment rotations "
              f"{np.abs(paper.rotations - fast.rotations[:n]).max():.1e}, positions "
              f"{np.abs(paper.positions - fast.positions[:n]).max():.1e} m")
    stats = kinematics.marker_error_stats(fast)
    print(f"   marker distance errors, fast mode at {tolerances[-1]:g} (Fig. 2): median [Q1, Q3], whiskers, max [mm]")
    for label, samples, median, q1, q3, low, high, top in stats.rows():
        print(f"     {label:16s} n={samples:5d}  {median:6.2f} [{q1:6.2f}, {q3:6.2f}]  {low:6.2f}-{high:6.2f}  "
              f"max {top:6.2f}")
    out.mkdir(parents=True, exist_ok=True)
    for key in ("fast", "paper/merit"):
        path = out / f"{name}_{key.replace('/', '_')}.png"
        kinematics.plot_marker_errors(motions[key], path, title=f"{name}: marker distance errors ({key})")
        print(f"   boxplot: {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paper-frames", type=int, default=150,
                        help="frames of the CMU and squat trials given to the paper mode (default 150)")
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "bench_otm", help="folder for the boxplots")
    args = parser.parse_args()
    load_package()
    from mocap_dynamics.solver import kinematics
    from mocap_dynamics.solver.io import attach_plates, load_trial, read_grf_mot
    from mocap_dynamics.solver.model import calibrate

    walking_path = SHARED / "subject4_walking1.trc"
    if not walking_path.exists():
        print(f"OTM benchmark skipped: {SHARED} not found")
        return
    print(f"\n== OTM reconstruction ({machine()})")
    print(f"   {TARGETS}")
    for label, seconds in compile_times(walking_path).items():
        print(f"   numba kernels of the {label}: {seconds:.2f} s")

    walking = load_trial(walking_path)
    static = attach_plates(load_trial(SHARED / "subject4_static1.trc"),
                           read_grf_mot(SHARED / "subject4_static1_grf.mot"))
    model = calibrate(walking, static=static)
    nat = kinematics.natural_model(model)
    present = sum(label in model.marker_labels for label in walking.labels)
    print(f"\n== subject4_walking1.trc, full15 calibrated on subject4_static1.trc ({model.total_mass:.1f} kg, "
          f"{model.mass_source}); welded: {', '.join(model.metadata['calibration'].welded) or 'none'}")
    print(f"   {len(model.segments)} segments, nq {model.nq}, nv {model.nv}; natural coordinates n {nat.n}, "
          f"m {nat.m} ({nat.redundant} redundant); {present} of the trial's {walking.n_markers} markers in the model")
    side_by_side(kinematics, walking, model, None, args.out, "subject4_walking1")

    for file in ("cmu_dribble_shoot_basketball.c3d", "squat_gaps.c3d"):
        trial = load_trial(SHARED / file)
        model = calibrate(trial)
        missing = 100 * np.isnan(trial.markers).any(axis=2).mean()
        print(f"\n== {file}, full15 calibrated on the trial itself: {trial.n_frames} frames, {trial.n_markers} "
              f"markers ({missing:.1f} % of samples missing), nv {model.nv}")
        side_by_side(kinematics, trial, model, args.paper_frames, args.out, Path(file).stem, TOLERANCES[-1:])


if __name__ == "__main__":
    main()
