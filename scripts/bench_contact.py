"""Benchmark of contact estimation (Brubaker, Sigal & Fleet 2009): prints figures, never asserts them.

    .venv/bin/python scripts/bench_contact.py [--template full15] [--out out/bench_contact]

1. Numba compile time of the contact kernels in a fresh process with an empty cache (the first click a
   user feels), and their load time from the on-disk cache; the kinematics and dynamics kernels are
   warmed first, so only contact's own kernels are counted.
2. subject4_walking1 (calibrated on subject4_static1, body mass from its plates, reconstructed by OTM):
   whole-trial estimation time after warm-up (``estimate_contact(motion)``: inverse dynamics, contact
   point motion, every start of L-BFGS-B, all outputs; best of 5), the root force explained (Fig. 6),
   the plane, resting height and springs, and the agreement with the force plates (RMSE in % body
   weight, correlations, contact timing). For context, the same agreement for the root force without
   contact (the "kinematic GRF": the best any contact model could do with this motion), and the
   horizontal share of what is left unexplained. A plot like the paper's Fig. 9 in ``--out``. The same
   agreement for the per-frame forces (``forces="per_frame"``, an extension), unfiltered and filtered, and,
   as the ceiling of "root force explained", the fraction the measured plates themselves explain.
3. The same for the project's sample recording (``solver.sample``, written to C3D and read back).
4. The bouncing ball of §3 (table and mouse pad): recovered parameters.

Targets (issue): estimation under 1 s per trial after warm-up; at least 95 % of the root force explained
(paper: about 90 %); total vertical GRF within 10 % body weight RMSE of the plates, correlation >= 0.95.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import ROOT, load_package  # noqa: E402

import numpy as np  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
#: A second figure with the coordinates low-pass filtered (Hz) before the forward differences.
FILTERED_HZ = 8.0
TARGETS = ("targets: < 1 s per trial after warm-up; >= 95 % of the root force explained (paper ~90 %); "
           "vertical GRF RMSE <= 10 % BW and r >= 0.95 against the plates")

COMPILE_PROBE = """
import sys, time
sys.path.insert(0, {scripts!r})
from bootstrap import load_package
load_package()
import numpy as np
from mocap_dynamics.solver.contact import Material, Surface, estimate_contact, simulate_contact
from mocap_dynamics.solver.dynamics import inverse_dynamics
from mocap_dynamics.solver.kinematics import Motion
from mocap_dynamics.solver.model.body import BodyModel, Segment
corners = np.array([[x, y, -0.5] for x in (-0.1, 0.1) for y in (-0.1, 0.1)])
block = BodyModel((Segment("block", -1, "free", (0, 0, 0), (), (0, 0, -0.5), 10.0, (0, 0, 0), np.eye(3),
                           contact_points=corners),))
q = np.tile(block.neutral_q(), (20, 1))
q[:, 2] = 0.5 + 0.01 * np.cos(np.arange(20) / 3)
motion = Motion.from_q(block, np.arange(20) / 100, q, method="probe")
dynamics = inverse_dynamics(motion)
surface = Surface.floor(0.0, material=Material(20, 5, 5))

def once():
    if {what!r} in ("estimate", "per_frame"):
        estimate_contact(dynamics=dynamics, starts=1, forces="per_frame" if {what!r} == "per_frame" else "spring")
    else:
        simulate_contact(block, q[0], np.zeros(6), surface, duration=0.01)

first = time.perf_counter(); once(); first = time.perf_counter() - first
again = time.perf_counter(); once(); again = time.perf_counter() - again
print(first - again)
"""
WARM_DYNAMICS = """
import sys
sys.path.insert(0, {scripts!r})
from bootstrap import load_package
load_package()
import numpy as np
from mocap_dynamics.solver.dynamics import forward_dynamics, inverse_dynamics, mass_matrix, rnea
from mocap_dynamics.solver.dynamics.forward import simulate
from mocap_dynamics.solver.model.body import BodyModel, Segment
m = BodyModel((Segment("b", -1, "free", (0, 0, 0), (), (0, 0, 1), 1.0, (0, 0, 0), np.eye(3)),))
q = np.tile(m.neutral_q(), (3, 1)); z = np.zeros((3, 6))
rnea(m, np.arange(3.0), q, z, z); mass_matrix(m, q); forward_dynamics(m, q, z, z); simulate(m, q[0], z[0], z, 0.01)
"""


def machine() -> str:
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def compile_times() -> dict[str, float]:
    """Seconds the first estimate (and the first simulation) spends on contact's numba kernels in a fresh
    process: compiling them into an empty cache (dynamics kernels compiled beforehand), then loading them."""
    scripts = str(ROOT / "scripts")
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        subprocess.run([sys.executable, "-c", WARM_DYNAMICS.format(scripts=scripts)], check=True, env=env)
        for what in ("estimate", "per_frame", "simulate"):
            for label in ("compile, empty cache", "load from the on-disk cache"):
                result = subprocess.run([sys.executable, "-c", COMPILE_PROBE.format(scripts=scripts, what=what)],
                                        capture_output=True, text=True, check=True, env=env)
                out[f"{what}_contact, {label}"] = float(result.stdout.split()[-1])
    return out


def best_of(fn, repeat: int = 5) -> tuple[float, object]:
    best, value = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t0)
    return best, value


def report(name: str, trial, motion, out: Path) -> None:
    from mocap_dynamics.solver.contact import compare_with_plates, estimate_contact
    from mocap_dynamics.solver.dynamics import inverse_dynamics
    from mocap_dynamics.solver.dynamics.plates import plate_forces
    from mocap_dynamics.solver.plots import plot_grf

    estimate_contact(motion)  # warm-up
    seconds, contact = best_of(lambda: estimate_contact(motion))
    weight = contact.model.total_mass * 9.81
    record = contact.optimisation
    calibration = contact.model.metadata.get("calibration")
    per_bw = lambda force: np.linalg.norm(force, axis=1).mean() / weight  # noqa: E731
    print(f"   {name}: {len(contact.times)} frames, {len(contact.point_segments)} contact points, "
          f"{calibration.template if calibration else ''} {contact.model.total_mass:.1f} kg "
          f"({contact.model.mass_source})")
    print(f"      whole-trial estimation {seconds:.3f} s after warm-up (optimiser {record.seconds:.3f} s: "
          f"{len(record.starts)} starts, {record.iterations} iterations, {record.evaluations} evaluations)")
    print(f"      root force explained {100 * contact.explained_force:.1f} % (torque "
          f"{100 * contact.explained_torque:.1f} %); mean |root force| {per_bw(contact.root_wrench_without[:, :3]):.3f}"
          f" BW without contact, {per_bw(contact.root_wrench[:, :3]):.3f} BW with, of which horizontal "
          f"{per_bw(contact.root_wrench[:, :2]):.3f} BW")
    print(f"      plane: angle {contact.plane_angle:.2f} deg to the lab floor, height "
          f"{100 * contact.plane_height:.2f} cm, resting height {100 * contact.resting_height:.2f} cm; kappa_N "
          f"{contact.stiffness:.2f} /s^2, delta_N {contact.normal_damping:.2f} /s, delta_T "
          f"{contact.tangential_damping:.2f} /s (per kg)")
    if trial.plate_samples is None:
        return
    comparison = compare_with_plates(contact, trial)
    s = comparison.summary()
    on, off = s["onset_error_mean_abs_s"], s["offset_error_mean_abs_s"]
    milliseconds = lambda e: "-" if e is None else f"{1000 * e:.0f} ms"  # noqa: E731
    print(f"      plates ({s['frames_compared']}/{s['frames']} frames with every loaded foot on a plate): "
          f"vertical RMSE {s['rmse_vertical_bw_percent']:.1f} % BW, r = {s['correlation_vertical']:.3f}; "
          f"horizontal RMSE {s['rmse_horizontal_bw_percent']:.1f} % BW, r AP = "
          f"{s['correlation_anteroposterior']:.2f}, r ML = {s['correlation_mediolateral']:.2f}; {s['contacts']} "
          f"contacts, mean |onset error| {milliseconds(on)}, mean |offset error| {milliseconds(off)}")
    kinematic = contact.root_wrench_without[comparison.covered, :3]
    measured = comparison.measured[comparison.covered]
    print(f"      for context, the root force without contact vs the plates: vertical RMSE "
          f"{100 * np.sqrt(np.mean((kinematic[:, 2] - measured[:, 2]) ** 2)) / weight:.1f} % BW, "
          f"r = {np.corrcoef(kinematic[:, 2], measured[:, 2])[0, 1]:.3f}")
    path = plot_grf(contact, comparison, out / f"{name}_grf.png", title=f"{name}: estimated from motion vs plates")
    print(f"      plot: {path}")
    filtered = inverse_dynamics(motion, cutoff=FILTERED_HZ)
    measured = plate_forces(trial, motion)
    for cutoff, dynamics in ((None, inverse_dynamics(motion)), (FILTERED_HZ, filtered)):
        plates = inverse_dynamics(motion, cutoff=cutoff, external=measured).root_wrench[comparison.covered, :3]
        without = dynamics.root_wrench[comparison.covered, :3]
        ceiling = 1 - np.linalg.norm(plates, axis=1).mean() / np.linalg.norm(without, axis=1).mean()
        label = "unfiltered" if cutoff is None else f"filtered at {cutoff:g} Hz (zero-lag Butterworth)"
        print(f"      {label}: the measured plates themselves explain {100 * ceiling:.1f} % of the root force on the "
              f"frames compared (the ceiling of 'explained' for a contact model that is right)")
        for forces in ("spring", "per_frame"):
            if forces == "spring" and cutoff is None:
                continue  # printed above
            seconds, found = best_of(lambda: estimate_contact(dynamics=dynamics, forces=forces))
            s = compare_with_plates(found, trial).summary()
            print(f"         {forces}: {100 * found.explained_force:.1f} % explained; vertical RMSE "
                  f"{s['rmse_vertical_bw_percent']:.1f} % BW, r = {s['correlation_vertical']:.3f}; horizontal RMSE "
                  f"{s['rmse_horizontal_bw_percent']:.1f} % BW, r AP = {s['correlation_anteroposterior']:.2f}; "
                  f"mean |onset error| {milliseconds(s['onset_error_mean_abs_s'])} ({seconds:.3f} s, dynamics given)")


def bench_walk(template: str, out: Path) -> None:
    from mocap_dynamics.solver.io import attach_plates, load_trial, read_grf_mot
    from mocap_dynamics.solver.kinematics import reconstruct
    from mocap_dynamics.solver.model import calibrate

    def with_plates(stem):
        return attach_plates(load_trial(SHARED / f"{stem}.trc"), read_grf_mot(SHARED / f"{stem}_grf.mot"))

    if not (SHARED / "subject4_walking1.trc").exists():
        print("   subject4_walking1: skipped (../shared/data is absent)")
        return
    trial = with_plates("subject4_walking1")
    model = calibrate(trial, template, static=with_plates("subject4_static1"))
    report("subject4_walking1", trial, reconstruct(trial, model), out)


def bench_sample(template: str, out: Path) -> None:
    from mocap_dynamics.solver.io import load_trial
    from mocap_dynamics.solver.kinematics import reconstruct
    from mocap_dynamics.solver.model import calibrate
    from mocap_dynamics.solver.sample import MASS, write_sample

    with tempfile.TemporaryDirectory() as folder:
        trial = load_trial(write_sample(folder)["c3d"])
    model = calibrate(trial, template, mass=MASS)
    report("sample_walk", trial, reconstruct(trial, model), out)


def bench_ball() -> None:
    from mocap_dynamics.solver.contact import Material, Surface, estimate_ball, simulate_ball

    for name, material in (("table", Material(24.0, 4.0, 2.0)), ("mouse pad", Material(15.0, 5.0, 3.0))):
        surface = Surface.floor(0.72, material=material)
        ball = simulate_ball(surface, start=(0.0, 0.0, 1.0), velocity=(0.5, 0.1, 0.0), rate=240.0, duration=2.0)
        seconds, found = best_of(lambda: estimate_ball(ball.times, ball.positions), repeat=3)
        m = found.surface.material
        print(f"   ball on the {name}: true kappa {material.stiffness:g}, delta_N {material.normal_damping:g}, "
              f"delta_T {material.tangential_damping:g}, height 72 cm -> found {m.stiffness:.3f}, "
              f"{m.normal_damping:.3f}, {m.tangential_damping:.3f}, {100 * found.surface.top.height_at(0, 0):.3f} cm "
              f"({seconds:.3f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--template", default="full15", help="body template (full15, brubaker12)")
    parser.add_argument("--out", default=str(ROOT / "out" / "bench_contact"), help="folder for the plots")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    load_package()
    print(f"== Contact estimation ({machine()}, load average {os.getloadavg()[0]:.1f}, template {args.template})")
    print(f"   {TARGETS}")
    for label, seconds in compile_times().items():
        print(f"   numba kernels of {label}: {seconds:.2f} s")
    bench_walk(args.template, out)
    bench_sample(args.template, out)
    bench_ball()


if __name__ == "__main__":
    main()
