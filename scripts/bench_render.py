"""Benchmark the presentation render: prints seconds per still and per frame, with and without the plot panel.

    .venv/bin/python scripts/bench_render.py [--blend TRIAL.blend --still FRAME] [--frames N] [--resolution 1280x720]

Without --blend it processes the project's own sample walk into a temporary
.blend (still at frame 150). It times the overlay set-up, a still with the
plot panel (the first render compiles shaders; the target is the second, set-up
included, <= 3 s in Workbench at 1280x720), a still without it, a PNG sequence
and an MP4 of N frames (follow camera, plot panel), in Workbench and EEVEE (16
samples). Headless and without a GPU both engines render on the CPU (Mesa
llvmpipe); the machine's load average is printed with the figures, and the
CPU seconds of all the process's threads beside the wall-clock ones (on a
busy machine they tell the work apart from the waiting).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import process_trial  # noqa: E402
from bootstrap import load_package  # noqa: E402


def timed(action) -> tuple[float, float]:
    """Wall-clock and CPU seconds (all the process's threads) of ``action``."""
    start, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - start, time.process_time() - cpu


def shown(seconds: tuple[float, float]) -> str:
    return f"{seconds[0]:.1f} s ({seconds[1]:.1f} s CPU)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blend", help="a processed trial (default: the sample walk, processed now)")
    parser.add_argument("--still", type=int, default=150, help="the still's frame (default 150)")
    parser.add_argument("--frames", type=int, default=5, help="frames of the sequence and the movie (default 5)")
    parser.add_argument("--resolution", default="1280x720", help="WIDTHxHEIGHT (default 1280x720)")
    args = parser.parse_args()
    resolution = tuple(int(v) for v in args.resolution.split("x"))
    import bpy

    load_package()
    from mocap_dynamics.addon.render import RenderOptions, render_overlay, setup_overlay
    from mocap_dynamics.solver.sample import MASS, write_sample

    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        blend = args.blend
        if blend is None:
            c3d = write_sample(folder)["c3d"]
            blend = folder / "walk.blend"
            if process_trial.main([str(c3d), "--mass", str(MASS), "--out", str(blend)]):
                return 1
        bpy.ops.wm.open_mainfile(filepath=str(blend))
        scene = bpy.context.scene
        trial = next(c for c in bpy.data.collections if "mocap_dynamics" in c)
        frames = (args.still, args.still + args.frames - 1)
        print(f"\nbench_render: Blender {bpy.app.version_string}, {resolution[0]}x{resolution[1]}, {trial.name} "
              f"({scene.frame_end - scene.frame_start + 1} frames), still at {args.still}, "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        plots = RenderOptions(resolution=resolution, still=args.still, plots=True)
        setup = timed(lambda: setup_overlay(scene, trial, plots))
        print(f"  overlay set-up of a still with the plot panel: {shown(setup)}")
        for engine in ("WORKBENCH", "EEVEE"):
            for panel in (True, False):
                still = RenderOptions(engine=engine, resolution=resolution, still=args.still, plots=panel)
                first = timed(lambda: render_overlay(scene, trial, folder, still))
                second = timed(lambda: render_overlay(scene, trial, folder, still))
                print(f"  {engine.lower()} still {'with' if panel else 'without'} the plot panel: {shown(first)} "
                      f"first (shaders compiled), {shown(second)} again (each with the set-up; "
                      f"load {os.getloadavg()[0]:.1f})")
            for kind in ("sequence", "movie"):
                options = RenderOptions(engine=engine, resolution=resolution, frames=frames, plots=True,
                                        **{kind: True})
                wall, cpu = timed(lambda: render_overlay(scene, trial, folder, options))
                print(f"  {engine.lower()} {kind} of {args.frames} frames with the plot panel: {shown((wall, cpu))}, "
                      f"{wall / args.frames:.2f} s per frame")
    return 0


if __name__ == "__main__":
    sys.exit(main())
