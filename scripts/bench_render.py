"""Benchmark the presentation render on the project's own sample: prints seconds per still and per frame.

    .venv/bin/python scripts/bench_render.py [--frames N] [--resolution 1280x720]

Processes the sample walk into a temporary .blend, then times the overlay
setup, a still (first render, with shader compilation, and a second one), a
PNG sequence and an MP4 of N frames, in Workbench and EEVEE (16 samples).
Headless and without a GPU both engines render on the CPU (Mesa llvmpipe).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import process_trial  # noqa: E402
from bootstrap import load_package  # noqa: E402


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
        c3d = write_sample(folder)["c3d"]
        if process_trial.main([str(c3d), "--mass", str(MASS), "--out", str(folder / "walk.blend")]):
            return 1
        bpy.ops.wm.open_mainfile(filepath=str(folder / "walk.blend"))
        scene = bpy.context.scene
        trial = next(c for c in bpy.data.collections if "mocap_dynamics" in c)
        frames = (100, 100 + args.frames - 1)
        print(f"\nbench_render: Blender {bpy.app.version_string}, {resolution[0]}x{resolution[1]}, "
              f"trial of {scene.frame_end - scene.frame_start + 1} frames")
        seconds = timed(lambda: setup_overlay(scene, trial, RenderOptions(resolution=resolution)))
        print(f"  overlay setup (camera, legend, CM trail over the whole trial): {seconds:.2f} s")
        for engine in ("WORKBENCH", "EEVEE"):
            still = RenderOptions(engine=engine, resolution=resolution, still=150)
            first = timed(lambda: render_overlay(scene, trial, folder, still))
            second = timed(lambda: render_overlay(scene, trial, folder, still))
            print(f"  {engine.lower()} still: {first:.1f} s first (shaders compiled), {second:.1f} s again "
                  f"(each with the overlay setup)")
            for kind in ("sequence", "movie"):
                options = RenderOptions(engine=engine, resolution=resolution, frames=frames, **{kind: True})
                seconds = timed(lambda: render_overlay(scene, trial, folder, options))
                print(f"  {engine.lower()} {kind} of {args.frames} frames: {seconds:.1f} s, "
                      f"{seconds / args.frames:.2f} s per frame")
    return 0


if __name__ == "__main__":
    sys.exit(main())
