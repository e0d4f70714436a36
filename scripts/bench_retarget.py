"""Benchmark: retargeting onto a character (prints figures, never asserts them).

    .venv/bin/python scripts/bench_retarget.py

Real Blender (the bpy module). A real trial of more than 1000 frames, ``squat_gaps.c3d`` (2539 frames at
120 Hz, both feet planted throughout), is processed up to the contact estimate, then retargeted with
``bpy.ops.mocap_dynamics.retarget`` onto a Mixamo-named character (43 bones, object scaled 0.01), Rigify's
human metarig (159 bones) and a rig generated from it (706 bones, keyed through Blender's own evaluation
of its constraints). Printed per 1000 frames (target: <= 1 s): the whole operator without and with the
visuals that follow the character (reading the solved rig's action, the solver, keying a new action, the
contact booleans and markers), best of 3; and the solver's share (``solver.retarget.retarget``, best of 5).
No numba kernel is involved in retargeting: nothing compiles.
"""

from __future__ import annotations

import sys
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]
from bootstrap import load_package  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
TRIAL = DATA / "squat_gaps.c3d"


def best(fn, repeat: int) -> float:
    return min(timeit.repeat(fn, number=1, repeat=repeat))


def main() -> int:
    if not TRIAL.is_file():
        print(f"skipped: {TRIAL} not found (the shared recordings)")
        return 0
    package = load_package()
    import bpy

    from tests.blender.characters import mixamo_character, rigify_metarig, rigify_rig

    package.register()
    bpy.ops.wm.read_homefile(use_empty=True)
    characters = {"Mixamo-named": mixamo_character(), "Rigify metarig": rigify_metarig(), "Rigify rig": rigify_rig()}
    t0 = time.perf_counter()
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(TRIAL)) == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.estimate_contact() == {"FINISHED"}
    print(f"{TRIAL.name}: processed up to the contact estimate in {time.perf_counter() - t0:.1f} s")
    retarget = __import__(f"{package.__name__}.addon.retarget", fromlist=["x"])
    source = __import__(f"{package.__name__}.addon.retarget_source", fromlist=["x"])
    solver = __import__(f"{package.__name__}.solver.retarget", fromlist=["x"])
    trial = bpy.context.scene.mocap_dynamics.active_trial
    rig, action = source.source_rig(trial, source.CAPTURED)
    motion, frames = source.read_source(rig, action, 120.0)
    per = 1000.0 / len(frames)
    runs = __import__(f"{package.__name__}.solver.contact.compare", fromlist=["x"]).runs
    stances = 0 if motion.stance is None else sum(len(runs(motion.stance[:, f])) for f in range(2))
    print(f"{len(frames)} frames, {stances} stances")
    for label, ob in characters.items():
        keyed = best(lambda: bpy.ops.mocap_dynamics.retarget(target=ob.name, visuals=False), 3)
        with_visuals = best(lambda: bpy.ops.mocap_dynamics.retarget(target=ob.name), 1)
        skeleton = source.skeleton_of(ob)
        mapping = retarget.character_mapping(ob)
        alone = best(lambda: solver.retarget(motion, skeleton, mapping), 5)
        summary = ob["mocap_dynamics_retarget"]
        path = "through Blender's evaluation" if summary["keyed_through_constraints"] else "keyed directly"
        print(f"{label} ({len(ob.data.bones)} bones, {path}): {keyed * per:.3f} s per 1000 frames "
              f"({with_visuals * per:.3f} s with the visuals), solver {alone * per:.3f} s; "
              f"contact slide {1000 * summary['max_contact_slide_m']:.2f} mm, "
              f"hips lowered up to {1000 * summary['max_hip_drop_m']:.0f} mm")
    return 0


if __name__ == "__main__":
    sys.exit(main())
