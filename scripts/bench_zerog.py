"""Benchmark: zero-gravity simulation (prints figures, never asserts them).

    .venv/bin/python scripts/bench_zerog.py

Model: ``full15`` calibrated from the project's sample walk. Prints the numba compile time of the first
calls (a fresh cache directory: what a user feels on the very first click) and of the first calls in a
new process once the cache exists, then, warm: captured motion in zero gravity (5,000 frames of smooth
random joint motion at 100 Hz, time per frame, best of 5), self-orientation (the full manoeuvre, 3 s at
100 Hz), ladder traversal (4 periods at 100 Hz) and the minimum-torque optimisation (hip lift, 1 s at
50 Hz, 4 free control points per moving joint).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if "NUMBA_CACHE_DIR" not in os.environ:  # measure a cold compile, and keep the repository's caches out of it
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench_zerog_numba_")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import load_package  # noqa: E402

N_FRAMES = 5_000
RATE = 100.0

#: One small call of every zero-gravity kernel (compiles or loads them all); prints its wall time.
FIRST_CALLS = """
import sys, time; sys.path.insert(0, {scripts!r}); from bootstrap import load_package; load_package()
import numpy as np
from tests.unit.test_dynamics_models import humanoid
from mocap_dynamics.solver.zerog import minimum_torque, self_orientation
from mocap_dynamics.solver.zerog.manoeuvres import limb_posture
m = humanoid()
t0 = time.perf_counter()
self_orientation(m, "leg_lifting", angle_deg=30, duration_s=0.05, rate_hz=100)
t1 = time.perf_counter()
minimum_torque(m, m.neutral_q(), limb_posture(m, 20, 0), 0.1, n_knots=1, rate_hz=50, max_iterations=1)
print(t1 - t0, time.perf_counter() - t1)
"""


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def first_calls() -> tuple[float, float]:
    """Seconds of the first free-floating simulation and the first minimum-torque call in a new process."""
    root = Path(__file__).resolve().parent
    out = subprocess.run([sys.executable, "-c", FIRST_CALLS.format(scripts=str(root))], capture_output=True,
                         text=True, check=True, env=os.environ, cwd=root.parent)
    a, b = out.stdout.split()[-2:]
    return float(a), float(b)


def captured_motion(model, rng):
    """Smooth random joint motion (T, nq) of ``model``: rotation-vector sinusoids for quaternions."""
    from mocap_dynamics.solver.kinematics.motion import Motion
    from mocap_dynamics.solver.rotations import quat_from_axis_angle

    t = np.arange(N_FRAMES)[:, None] / RATE
    q = np.tile(model.neutral_q(), (N_FRAMES, 1))
    for s, start in zip(model.segments, model.q_starts):
        wave = 0.5 * np.sin(2 * np.pi * rng.uniform(0.2, 1.0, 3) * t + rng.uniform(0, 6, 3))
        if s.joint in ("free", "ball"):
            angle = np.linalg.norm(wave, axis=1)
            q[:, start + s.nq - 4:start + s.nq] = quat_from_axis_angle(wave / angle[:, None], angle)
        elif s.nq:
            q[:, start:start + s.nq] = wave[:, :s.nq]
    return Motion.from_q(model, t[:, 0], q, method="benchmark")


def main() -> None:
    load_package()
    import numba

    from mocap_dynamics.solver.model import calibrate
    from mocap_dynamics.solver.sample import make_sample
    from mocap_dynamics.solver.zerog import ladder_traversal, minimum_torque, self_orientation, simulate_zero_gravity
    from mocap_dynamics.solver.zerog.manoeuvres import limb_posture

    model = calibrate(make_sample().trial, template="full15")
    print(f"== Zero gravity, full15 from the sample walk: {len(model.segments)} segments, nv {model.nv}; "
          f"numba {numba.__version__}, {numba.get_num_threads()} threads, {os.cpu_count()} cores")
    cold = first_calls()
    print(f"   numba compile, first calls (cold cache): free-floating simulation {cold[0]:6.2f} s, "
          f"minimum torque {cold[1]:6.2f} s")
    warm = first_calls()
    print(f"   first calls of a new process (code cached on disk): {warm[0]:6.3f} s, {warm[1]:6.3f} s")

    motion = captured_motion(model, np.random.default_rng(0))
    simulate_zero_gravity(motion)
    result = simulate_zero_gravity(motion)
    seconds = best(lambda: simulate_zero_gravity(motion), 5)
    timings = result.timings
    print(f"   captured motion in zero gravity, {N_FRAMES} frames: {1e6 * seconds / N_FRAMES:7.2f} µs/frame "
          f"(integration {1e6 * timings['integrate_s'] / N_FRAMES:.2f}, "
          f"torques {1e6 * timings['torques_s'] / N_FRAMES:.2f};"
          f" the rest: splines and momentum); momentum drift {result.momentum_drift:.1e}")

    seconds = best(lambda: self_orientation(model, "sequence", angle_deg=60, duration_s=1.0), 5)
    turn = self_orientation(model, "sequence", angle_deg=60, duration_s=1.0).torso_reorientation[0]
    print(f"   self-orientation, full manoeuvre 3 s at 100 Hz: {1e3 * seconds:7.2f} ms (net turn {turn:.2f}°)")

    seconds = best(lambda: ladder_traversal(model, rungs=4), 3)
    print(f"   ladder traversal, 4 periods (4 s) at 100 Hz: {1e3 * seconds:7.2f} ms")

    t0 = time.perf_counter()
    lift, quintic_cost, optimal_cost = minimum_torque(model, model.neutral_q(), limb_posture(model, 60, 20), 1.0,
                                                      n_knots=4, rate_hz=50)
    print(f"   minimum torque, hips 60° lift 20° twist in 1 s at 50 Hz: {time.perf_counter() - t0:6.2f} s "
          f"(optimiser {lift.info['optimiser_s']:.2f} s, {lift.info['evaluations']} evaluations); "
          f"Σ∫τ² quintic {quintic_cost:.2f} -> optimum {optimal_cost:.2f} N²m²s "
          f"({lift.info['torque_reduction_percent']:.1f} % less)")


if __name__ == "__main__":
    main()
