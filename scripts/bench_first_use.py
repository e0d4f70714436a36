"""First use: ``python -m solver`` on a real walk with numba's cache empty (cold) and filled (warm), and numba's
compile time per pipeline step.

    .venv/bin/python scripts/bench_first_use.py [--trial FILE] [--static FILE]

1. ``python -m solver TRIAL --static STATIC --out DIR`` in a child process with ``NUMBA_CACHE_DIR`` an empty
   temporary folder (cold: every kernel is compiled; the CLI compiles inverse dynamics' and zero gravity's
   kernels in a forked helper meanwhile, ``solver.first_use.CompileAhead``), then again with the same folder
   (warm). Printed: wall time and the CPU time of the child and its helper (user + system,
   ``resource.getrusage``), and the warm run's step timings from its report (the rest is start-up and writing
   the tables). Targets (issue 18, wall on a quiet 2-core machine): cold <= 15 s, warm <= 1.5 s. On a loaded
   machine the CPU time is the steadier figure.
2. A child process with another empty cache runs the pipeline's steps one by one (``stages.STEPS``) and sums
   numba's compile events (``numba:compile``, outermost only, CPU seconds) per step; the kernels that took
   longest are listed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def solve(trial: Path, static: Path, cache: Path, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one ``python -m solver`` run with numba's cache in ``cache``."""
    command = [sys.executable, "-m", "solver", str(trial), "--static", str(static), "--out", str(out)]
    cpu, started = child_cpu(), time.perf_counter()
    subprocess.run(command, cwd=ROOT, env={**os.environ, "NUMBA_CACHE_DIR": str(cache)}, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - started, child_cpu() - cpu


def compile_times(trial: Path, static: Path) -> dict:
    """In this process (a child with an empty cache): each step computed in turn, numba's compile CPU time per
    step and per kernel."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from bootstrap import load_package

    load_package()
    import numba.core.event as event

    from mocap_dynamics.solver import stages
    from mocap_dynamics.solver.pipeline import PipelineOptions

    depth, kernels, started = [0], {}, {}

    class Compiles(event.Listener):
        def on_start(self, e):
            depth[0] += 1
            if depth[0] == 1:
                started["at"] = time.process_time()

        def on_end(self, e):
            depth[0] -= 1
            if depth[0] == 0:
                function = e.data["dispatcher"].py_func
                name = f"{function.__module__.removeprefix('mocap_dynamics.solver.')}.{function.__qualname__}"
                kernels[name] = kernels.get(name, 0.0) + time.process_time() - started["at"]

    event.register("numba:compile", Compiles())
    options, state, steps = PipelineOptions(static=str(static)), {}, {}
    for step in stages.STEPS:
        before, cpu, wall = dict(kernels), time.process_time(), time.perf_counter()
        state.update(step.compute(trial, state, options, lambda fraction, message: None))
        steps[step.name] = {"cpu_s": time.process_time() - cpu, "wall_s": time.perf_counter() - wall,
                            "compile_cpu_s": sum(kernels.values()) - sum(before.values()),
                            "kernels": sorted(set(kernels) - set(before))}
    return {"steps": steps, "kernels": kernels}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trial", type=Path, default=DATA / "subject4_walking1.trc")
    parser.add_argument("--static", type=Path, default=DATA / "subject4_static1.trc")
    parser.add_argument("--compile-times", action="store_true", help=argparse.SUPPRESS)  # the child of part 2
    args = parser.parse_args()
    if args.compile_times:
        print(json.dumps(compile_times(args.trial, args.static)))
        return
    if not args.trial.is_file():
        sys.exit(f"{args.trial} not found: the benchmark needs the shared recordings (../shared/data)")
    print(f"First use of python -m solver {args.trial.name} --static {args.static.name} (wall and CPU seconds; "
          f"the CPU time is the child's user + system time)")
    with tempfile.TemporaryDirectory() as folder:
        cache, out = Path(folder) / "numba", Path(folder) / "out"
        for label, target in (("cold", 15.0), ("warm", 1.5)):
            wall, cpu = solve(args.trial, args.static, cache, out)
            print(f"  {label}: {wall:6.2f} s wall, {cpu:6.2f} s CPU   (target <= {target:g} s wall)", flush=True)
        timings = json.loads((out / "report.json").read_text())["timings_s"]
        print(f"  warm steps: {', '.join(f'{k} {v:.3f}' for k, v in timings.items())} s wall; "
              f"{sum(timings.values()):.2f} s of the warm run's wall time")
    with tempfile.TemporaryDirectory() as cache:
        found = subprocess.run([sys.executable, __file__, "--compile-times", "--trial", str(args.trial),
                                "--static", str(args.static)], env={**os.environ, "NUMBA_CACHE_DIR": cache},
                               check=True, capture_output=True, text=True)
    measured = json.loads(found.stdout.splitlines()[-1])
    print("\nnumba compile time per step, empty cache (CPU seconds; the step's own CPU and wall time beside)")
    for name, step in measured["steps"].items():
        print(f"  {name:13s} compile {step['compile_cpu_s']:6.2f}  step {step['cpu_s']:6.2f} CPU "
              f"{step['wall_s']:6.2f} wall  ({len(step['kernels'])} kernels)")
    total = sum(step["compile_cpu_s"] for step in measured["steps"].values())
    print(f"  {'all':13s} compile {total:6.2f}")
    print("  longest kernels (CPU s, with the kernels they call): " + ", ".join(
        f"{name} {seconds:.2f}" for name, seconds in sorted(measured["kernels"].items(), key=lambda kv: -kv[1])[:8]))


if __name__ == "__main__":
    main()
