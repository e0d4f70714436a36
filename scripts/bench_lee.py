"""Benchmark: Lee's estimation (Algo_p, Algo_v, Algo_a) per frame on a real walk (prints figures, never asserts).

    .venv/bin/python scripts/bench_lee.py

Trial ``subject4_walking1.trc`` (131 frames, 51 markers) from ../shared/data, model ``full15`` calibrated
from ``subject4_static1.trc``. Prints the numba compile time of the first call (a fresh cache directory:
what a user feels on the very first click), the first call of a new process once the cache exists, and
per stage the best and median wall time per frame of ``REPEAT`` calls of ``estimate_lee`` after warm-up
(its own stage timings: each stage includes its spline and projection steps), on all threads and on one.
Goal: the three stages together under 2 ms per frame.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if "NUMBA_CACHE_DIR" not in os.environ:  # measure a cold compile, and keep the repository's caches out of it
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench_lee_numba_")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import ROOT, load_package  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
REPEAT = 10
GOAL_MS = 2.0
STAGES = ("algo_p", "algo_v", "algo_a")


def first_call_in_new_process() -> float:
    """Seconds of the first ``estimate_lee`` call (20 frames) in a fresh process that finds the code cached."""
    code = ("import sys, time; sys.path.insert(0, {scripts!r}); from bootstrap import load_package; load_package(); "
            "from dataclasses import replace; from mocap_dynamics.solver.io import load_trial; "
            "from mocap_dynamics.solver.model import calibrate; "
            "from mocap_dynamics.solver.kinematics.lee import estimate_lee; "
            "trial = load_trial({walk!r}); trial = replace(trial, markers=trial.markers[:20]); "
            "model = calibrate(trial); t0 = time.perf_counter(); estimate_lee(trial, model); "
            "print(time.perf_counter() - t0)")
    out = subprocess.run([sys.executable, "-c", code.format(scripts=str(Path(__file__).resolve().parent),
                                                            walk=str(DATA / "subject4_walking1.trc"))],
                         capture_output=True, text=True, check=True, env=os.environ)
    return float(out.stdout.split()[-1])


def main() -> None:
    if not DATA.is_dir():
        sys.exit(f"the shared recordings are not at {DATA}")
    load_package()
    import numba

    from mocap_dynamics.solver.io import load_trial
    from mocap_dynamics.solver.kinematics.lee import bodies_of, estimate_lee
    from mocap_dynamics.solver.model import calibrate

    trial = load_trial(DATA / "subject4_walking1.trc")
    model = calibrate(trial, static=load_trial(DATA / "subject4_static1.trc"))
    bodies = bodies_of(model)
    threads = numba.get_num_threads()
    print(f"== Lee's estimation, subject4_walking1: {trial.n_frames} frames at {trial.rate:g} Hz; full15 "
          f"({len(model.segments)} segments -> {bodies.n} bodies, {len(bodies.joint_bodies)} joint points); "
          f"numba {numba.__version__}, {threads} threads, {os.cpu_count()} cores; goal < {GOAL_MS} ms/frame")

    t0 = time.perf_counter()
    estimate_lee(trial, model)
    print(f"   numba compile, first call (cold cache): {time.perf_counter() - t0:6.1f} s")
    print(f"   first call of a new process (code cached on disk, 20 frames): {first_call_in_new_process():6.2f} s")

    for label, n_threads in (("all threads", threads), ("1 thread", 1)):
        numba.set_num_threads(n_threads)
        estimate_lee(trial, model)
        runs = [estimate_lee(trial, model).info["seconds"] for _ in range(REPEAT)]
        per_frame = {key: 1e3 * np.array([r[key] for r in runs]) / trial.n_frames for key in STAGES + ("total",)}
        stages = "   ".join(f"{key} {per_frame[key].min():5.2f} (median {np.median(per_frame[key]):5.2f})"
                           for key in STAGES)
        together = np.sum([per_frame[key] for key in STAGES], axis=0)
        print(f"   {label:11s} ms/frame: {stages}")
        print(f"   {label:11s} ms/frame: p+v+a {together.min():5.2f} (median {np.median(together):5.2f}), "
              f"whole estimate_lee {per_frame['total'].min():5.2f}   goal {GOAL_MS}")
    numba.set_num_threads(threads)


if __name__ == "__main__":
    main()
