"""Benchmark: inverse dynamics per frame over a long trial (prints figures, never asserts them).

    .venv/bin/python scripts/bench_dynamics.py            # ours
    .venv-peers/bin/python scripts/bench_dynamics.py      # ours next to Pinocchio's rnea

Model: ``full15`` calibrated from the project's sample walk. Trial: 10,000 frames of random smooth
coordinates with random velocities and accelerations (the work per frame does not depend on them).
Prints the numba compile time of the first call (a fresh cache directory, so it is what a user feels
on the very first click), the first call of a new process once the cache exists, and the time per
frame after warm-up (best of 20) of ``rnea`` (all outputs) and of ``inverse_dynamics`` (with forward
differences), on all threads and on one. With Pinocchio installed, its ``rnea`` called per frame
from Python on the same model (from ``write_mjcf``) and the ratio. Goal: at most 2 µs per frame.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if "NUMBA_CACHE_DIR" not in os.environ:  # measure a cold compile, and keep the repository's caches out of it
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench_dynamics_numba_")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import load_package  # noqa: E402

N_FRAMES = 10_000
RATE = 100.0
REPEAT = 20
GOAL_US = 2.0


def best_and_median(fn, frames: int, repeat: int = REPEAT) -> tuple[float, float]:
    """Best and median wall time per frame [µs] of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e6 * min(times) / frames, 1e6 * float(np.median(times)) / frames


def trial(model, rng):
    """Smooth random coordinates (quaternions from rotation vectors), random v and a."""
    from mocap_dynamics.solver.rotations import quat_from_axis_angle

    t = np.arange(N_FRAMES + 2)[:, None] / RATE
    q = np.empty((len(t), model.nq))
    for s, start in zip(model.segments, model.q_starts):
        wave = 0.5 * np.sin(2 * np.pi * rng.uniform(0.2, 1.0, 3) * t + rng.uniform(0, 6, 3))
        if s.joint == "free":
            q[:, start:start + 3] = wave + [0, 0, 1.0]
        if s.joint in ("free", "ball"):
            angle = np.linalg.norm(wave, axis=1)
            q[:, start + s.nq - 4:start + s.nq] = quat_from_axis_angle(wave / angle[:, None], angle)
        elif s.nq:
            q[:, start:start + s.nq] = wave[:, :s.nq]
    return t[:, 0], q, rng.normal(size=(len(t), model.nv)), rng.normal(size=(len(t), model.nv))


def first_call_in_new_process() -> float:
    """Seconds of the first ``rnea`` call in a fresh process that finds the compiled code in the cache."""
    code = ("import sys, time; sys.path.insert(0, {scripts!r}); from bootstrap import load_package; load_package(); "
            "import numpy as np; from mocap_dynamics.solver.dynamics import rnea; "
            "from mocap_dynamics.solver.model.body import BodyModel, Segment; "
            "m = BodyModel((Segment('root', -1, 'free', (0, 0, 0), (), (0, 0, 1), 1.0, (0, 0, 0), np.eye(3)),)); "
            "q = np.tile(m.neutral_q(), (2, 1)); z = np.zeros((2, 6)); "
            "t0 = time.perf_counter(); rnea(m, np.arange(2.0), q, z, z); print(time.perf_counter() - t0)")
    out = subprocess.run([sys.executable, "-c", code.format(scripts=str(Path(__file__).resolve().parent))],
                         capture_output=True, text=True, check=True, env=os.environ)
    return float(out.stdout.split()[-1])


def main() -> None:
    load_package()
    import numba

    from mocap_dynamics.solver.dynamics import inverse_dynamics, rnea
    from mocap_dynamics.solver.kinematics.motion import Motion
    from mocap_dynamics.solver.model import calibrate, write_mjcf
    from mocap_dynamics.solver.sample import make_sample

    model = calibrate(make_sample().trial, template="full15")
    times, q, v, a = trial(model, np.random.default_rng(0))
    frames = slice(0, N_FRAMES)
    args = (model, times[frames], q[frames], v[frames], a[frames])
    motion = Motion.from_q(model, times, q, method="benchmark")
    threads = numba.get_num_threads()
    print(f"== Inverse dynamics, full15 from the sample walk: {len(model.segments)} segments, nq {model.nq}, "
          f"nv {model.nv}; {N_FRAMES} frames; numba {numba.__version__}, {threads} threads, "
          f"{os.cpu_count()} cores; goal <= {GOAL_US} µs/frame")

    t0 = time.perf_counter()
    rnea(model, times[:2], q[:2], v[:2], a[:2])
    print(f"   numba compile, first call of rnea (cold cache): {time.perf_counter() - t0:6.2f} s "
          "(forward differences are numpy: nothing to compile)")
    print(f"   first call of a new process (code cached on disk): {first_call_in_new_process():6.3f} s")

    ours = {}
    for label, n_threads in (("all threads", threads), ("1 thread", 1)):
        numba.set_num_threads(n_threads)
        rnea(*args)
        ours[label], median = best_and_median(lambda: rnea(*args), N_FRAMES)
        print(f"   rnea, {label:11s}: {ours[label]:6.3f} µs/frame (median {median:.3f})   goal {GOAL_US} µs")
        best, median = best_and_median(lambda: inverse_dynamics(motion), N_FRAMES, repeat=REPEAT // 2)
        print(f"   inverse_dynamics incl. forward differences, {label}: {best:6.3f} µs/frame (median {median:.3f})")
    numba.set_num_threads(threads)

    try:
        import pinocchio as pin
    except ImportError:
        print("   Pinocchio: not installed here (run with .venv-peers/bin/python for the comparison)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        pm = pin.buildModelFromMJCF(str(write_mjcf(model, Path(tmp) / "full15.xml")))
    data = pm.createData()
    rng = np.random.default_rng(1)
    pq = np.array([pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq)) for _ in range(N_FRAMES)])
    pv, pa = rng.normal(size=(2, N_FRAMES, pm.nv))

    def per_frame():
        for k in range(N_FRAMES):
            pin.rnea(pm, data, pq[k], pv[k], pa[k])

    per_frame()
    theirs, median = best_and_median(per_frame, N_FRAMES, repeat=5)
    print(f"   Pinocchio {pin.__version__} rnea per frame from Python: {theirs:6.3f} µs/frame (median {median:.3f})")
    print("   ratio Pinocchio / ours: " + ", ".join(f"{theirs / t:5.2f} ({label})" for label, t in ours.items()))


if __name__ == "__main__":
    main()
