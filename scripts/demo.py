"""The demo: generate the project's own sample recording, run the whole pipeline headless, render a still.

    .venv/bin/python scripts/demo.py --out out      (what `make demo` runs)

Writes out/sample/ (the generated C3D and TRC with two force plates),
out/demo.blend (markers, plates, armature, OTM motion, joint torques,
estimated contact, the motion in zero gravity beside it), out/report.json,
out/report.txt, out/tables/ (angles, torques, plots) and
out/sample_walk_still_0150.png (the force overlay, Workbench).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import process_trial  # noqa: E402
import render_overlay  # noqa: E402
from bootstrap import load_package  # noqa: E402

STILL_FRAME = 150  # mid-walk: both feet's forces, torques and the zero-gravity twin in view


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="out", help="output folder (default: out)")
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    import bpy  # noqa: F401  (Blender first: it puts an installed extension's bundled wheels on sys.path)

    load_package()
    from mocap_dynamics.solver.io.atomic import write_text
    from mocap_dynamics.solver.report import summary
    from mocap_dynamics.solver.sample import MASS, write_sample

    t0 = time.perf_counter()
    sample = write_sample(out / "sample")
    print(f"[demo] wrote the sample recording: {sample['c3d']} and {sample['trc']}", flush=True)
    # The sample's subject is known (it was generated), so its mass is given rather than assumed.
    code = process_trial.main([str(sample["c3d"]), "--mass", str(MASS), "--out", str(out / "demo.blend"),
                               "--report", str(out / "report.json"), "--tables", str(out / "tables"), "--plots"])
    if code:
        return code
    code = render_overlay.main([str(out / "demo.blend"), "--out", str(out), "--still", str(STILL_FRAME)])
    if code:
        return code
    text = summary(json.loads((out / "report.json").read_text()))
    write_text(out / "report.txt", text)
    print(f"[demo] done in {time.perf_counter() - t0:.1f} s: {out / 'demo.blend'}, {out / 'report.txt'}, "
          f"{out / 'tables'}, {out / f'sample_walk_still_{STILL_FRAME:04d}.png'}")
    print("[demo] the sample's plates hold the figure's exact total force but a centre of pressure rolled from heel "
          "to toe, not the one its rotation needs: the report's plate comparison (moments, centre of pressure) "
          "checks the plumbing, not the physics. The real recordings' figures: README, Benchmarks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
