"""A long recording: ``python -m solver`` on a generated walk of several minutes, with its kernels compiled.

    .venv/bin/python scripts/bench_long_trial.py [--minutes 1 5]

The project's sample walk (``solver.sample``: its stick figure, 41 markers at 100 Hz with 0.5 mm of noise) walked
on for each length asked, written as a TRC and run through every default step in a child process, tables
written, the sample's 70 kg given. Printed per length: wall time and time per minute of recording, the steps'
timings from the report, and the child's peak memory (resident set). The short sample walk runs first in the
same way so that numba's kernels come from the cache (first use: ``bench_first_use.py``). Every step is linear
in the frames; no target names a figure.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import ROOT, load_package  # noqa: E402


def walk(minutes: float, folder: Path) -> Path:
    """The sample walk, ``minutes`` long, as a TRC in ``folder``."""
    import numpy as np

    from mocap_dynamics.solver import sample
    from mocap_dynamics.solver.io.trc import write_trc
    from mocap_dynamics.solver.io.trial import Trial
    times = np.arange(round(60.0 * minutes * sample.RATE)) / sample.RATE
    trial = Trial(source=f"sample walk, {minutes:g} min", labels=sample.LABELS,
                  markers=sample.recorded_markers(times), rate=sample.RATE)
    return write_trc(trial, folder / f"walk_{minutes:g}min.trc", up_axis="Z")


def solve(trial: Path, out: Path) -> tuple[float, dict, float]:
    """Wall seconds, the report's step timings and the peak resident memory [MB] of ``python -m solver`` (the
    sample's mass given)."""
    from mocap_dynamics.solver.sample import MASS
    command = [sys.executable, "-m", "solver", str(trial), "--mass", str(MASS), "--out", str(out)]
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=os.environ, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    timings = json.loads((out / "report.json").read_text())["timings_s"]
    return wall, timings, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, nargs="+", default=[1.0, 5.0])
    args = parser.parse_args()
    load_package()
    print(f"\n== A long recording ({platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}): python -m solver on the sample walk walked on")
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        solve(walk(0.05, folder), folder / "warm-up")  # the kernels from numba's cache
        for minutes in sorted(args.minutes):  # the longest last: the children's peak memory is the largest so far
            wall, timings, peak = solve(walk(minutes, folder), folder / f"{minutes:g}")
            steps = ", ".join(f"{name} {seconds:.1f}" for name, seconds in timings.items())
            print(f"   {minutes:g} min ({round(60 * minutes * 100)} frames): {wall:.1f} s wall, "
                  f"{wall / minutes:.1f} s per minute recorded; steps (s): {steps}; peak memory {peak:.0f} MB")


if __name__ == "__main__":
    main()
