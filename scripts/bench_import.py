"""Benchmark of import into Blender: prints figures, never asserts them (part of `make bench`).

    .venv/bin/python scripts/bench_import.py

Reading, empties with gap visibility and force plates, best of 3, for the two
reference files and a generated 100,000-frame x 50-marker C3D, next to the
issue's targets.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import ROOT, load_package  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"


def machine() -> str:
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def timed(fn, repeat: int = 3, setup=lambda: None) -> float:
    """Best wall time of ``repeat`` calls (seconds); ``setup`` runs before each call, untimed."""
    best = np.inf
    for _ in range(repeat):
        setup()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bench_import() -> None:
    """Issue 2: import into Blender (read + empties + gap visibility + plates), best of 3."""
    import bpy

    load_package()
    from mocap_dynamics.addon.process import process_trial
    from mocap_dynamics.solver.pipeline import PipelineOptions
    from mocap_dynamics.solver.io import write_c3d
    from mocap_dynamics.solver.io.trial import Trial

    def empty_scene():
        bpy.ops.wm.read_homefile(use_empty=True)

    def import_into_blender(path):
        process_trial(bpy.context, path, PipelineOptions(until="import"))

    print(f"\n== Import into Blender {bpy.app.version_string} ({machine()})")
    print("   target: no slower than io_anim_c3d (~0.02 s and ~0.17 s on 2 cores, armature bones only); "
          "100,000 x 50 under 10 s")
    cases = [(SHARED / "cmu_dribble_shoot_basketball.c3d", 0.02), (SHARED / "squat_gaps.c3d", 0.17)]
    with tempfile.TemporaryDirectory() as tmp:
        rng = np.random.default_rng(0)
        t = np.arange(100_000) / 100.0
        markers = (rng.normal(size=(1, 50, 3)) + 0.1 * np.sin(t)[:, None, None]).astype(float)
        big = Path(tmp) / "generated_100000x50.c3d"
        write_c3d(Trial(source=str(big), labels=tuple(f"M{i:02d}" for i in range(50)), markers=markers, rate=100.0),
                  big)
        cases.append((big, 10.0))
        for path, target in cases:
            if not path.exists():
                print(f"   {path.name}: skipped (not found; ../shared/data is absent)")
                continue
            seconds = timed(lambda: import_into_blender(path), repeat=3 if target < 5 else 1, setup=empty_scene)
            print(f"   {path.name:42s} {seconds:8.3f} s   target {target:g} s   ratio {seconds / target:5.2f}")


if __name__ == "__main__":
    bench_import()
