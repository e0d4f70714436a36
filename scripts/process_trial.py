"""Process one motion-capture trial headless and save the scene (and a JSON report).

    .venv/bin/python scripts/process_trial.py INPUT [--out FILE.blend] [--report FILE.json] [options]
    blender --background --python scripts/process_trial.py -- INPUT [--out FILE.blend] [options]

Runs the same pipeline function as the add-on's sidebar. Prints progress
lines. Exit codes: 0 done; 2 bad input or options (one line on stderr says
what is wrong and what to do); 1 an unexpected error (a bug: please report it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import load_package  # noqa: E402

EXIT_OK, EXIT_BUG, EXIT_BAD_INPUT = 0, 1, 2


def parse_args(argv: list[str]) -> argparse.Namespace:
    from mocap_dynamics.solver.pipeline import STAGES

    parser = argparse.ArgumentParser(prog="process_trial.py", description=__doc__.splitlines()[0])
    parser.add_argument("input", help="a .c3d or .trc recording")
    parser.add_argument("--out", help="save the scene to this .blend file")
    parser.add_argument("--report", help="write a JSON report to this file")
    parser.add_argument("--grf", help="OpenSim .mot with ground reaction forces for the trial")
    parser.add_argument("--units", choices=["m", "cm", "mm"], help="override the file's length unit")
    parser.add_argument("--up-axis", choices=["Y", "Z"], help="override the file's up axis")
    parser.add_argument("--keep-prefix", action="store_true", help="keep subject prefixes in marker labels")
    parser.add_argument("--until", choices=STAGES, default=STAGES[-1], help="last stage to run (default: all)")
    model = parser.add_argument_group("body model")
    model.add_argument("--model", choices=["full15", "brubaker12"], default="full15", help="body model template")
    model.add_argument("--mass", type=float, help="subject mass in kg (default: from quiet standing on force "
                                                  "plates, else an assumed 70 kg that the report flags)")
    model.add_argument("--static", help="static trial of the same subject for calibration (.c3d or .trc)")
    model.add_argument("--markerset", help="TOML mapping of markers to segments, for unknown marker sets")
    model.add_argument("--sex", choices=["male", "female"], default="male", help="de Leva inertia table")
    motion = parser.add_argument_group("reconstruction and dynamics")
    motion.add_argument("--reconstruct", choices=["otm", "lee"], default="otm",
                        help="OTM (default) or Lee's constraint-consistent estimation")
    motion.add_argument("--otm-mode", choices=["fast", "paper"], default="fast",
                        help="OTM solver: fast (default) or the paper's QR mode (slow)")
    motion.add_argument("--tolerance", type=float, default=1e-7, help="OTM tolerance on ||Phi(q)|| (default 1e-7)")
    motion.add_argument("--cutoff", type=float, help="zero-lag Butterworth cutoff [Hz] before differentiating "
                                                   "(default: the paper's plain forward differences)")
    motion.add_argument("--per-kg", action="store_true", help="torque and force curves per kg body mass")
    parser.add_argument("--tables", help="write angles (.mot/.csv), torques (.sto/.csv) and plots to this folder")
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> dict:
    """Process the trial into a fresh empty scene; save the outputs; return the report."""
    import bpy

    from mocap_dynamics.addon.process import process_trial
    from mocap_dynamics.addon.trial_scene import SceneOptions
    from mocap_dynamics.solver.errors import InputError
    from mocap_dynamics.solver.io import ImportOptions
    from mocap_dynamics.solver.io.atomic import atomic_path, write_text
    from mocap_dynamics.solver.pipeline import PipelineOptions
    from mocap_dynamics.solver.report import summary
    from mocap_dynamics.solver.results import write_results

    if args.out and not args.out.endswith(".blend"):
        raise InputError(f"--out {args.out} is not a .blend file", "give a path ending in .blend")
    bpy.ops.wm.read_homefile(use_empty=True)
    options = PipelineOptions(import_options=ImportOptions(units=args.units, up_axis=args.up_axis,
                                                           strip_prefix=not args.keep_prefix),
                              grf=args.grf or "auto", until=args.until, template=args.model, mass=args.mass,
                              static=args.static, markerset=args.markerset, sex=args.sex, method=args.reconstruct,
                              otm_mode=args.otm_mode,
                              tolerance=args.tolerance, cutoff=args.cutoff)
    result, _ = process_trial(bpy.context, args.input, options, SceneOptions(per_kg=args.per_kg), progress=log)
    report = result.report()
    for path in (args.out, args.report):
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
    if args.out:
        with atomic_path(args.out) as tmp:
            bpy.ops.wm.save_as_mainfile(filepath=str(tmp), copy=True)
        log(1.0, f"saved {args.out}")
    if args.tables:
        written, notes = write_results(result, args.tables)
        report["tables"] = {"files": [str(p) for p in written], "notes": notes}
        log(1.0, f"wrote {len(written)} tables and plots to {args.tables}" + "".join(f"; {n}" for n in notes))
    if args.report:
        write_text(args.report, json.dumps(report, indent=2))
        log(1.0, f"wrote {args.report}")
    print(summary(report), end="", flush=True)
    return report


def log(fraction: float, message: str) -> None:
    print(f"[mocap_dynamics] {message}", flush=True)


def cli_argv() -> list[str]:
    """Arguments after ``--`` when run inside Blender, else the usual ones."""
    return sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    import bpy  # noqa: F401  (Blender first: it puts an installed extension's bundled wheels on sys.path)

    load_package()
    from mocap_dynamics.solver.errors import MocapError

    args = parse_args(cli_argv() if argv is None else argv)

    try:
        run(args)
    except MocapError as error:
        print(f"error: {error.one_line()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
