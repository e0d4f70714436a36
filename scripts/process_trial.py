"""Process one motion-capture trial headless and save the scene (and a JSON report).

    .venv/bin/python scripts/process_trial.py INPUT [--out FILE.blend] [--report FILE.json] [options]
    (without --out, --report or --tables: the scene is saved to out/NAME.blend)
    blender --background --python scripts/process_trial.py -- INPUT [--out FILE.blend] [options]

Runs the same pipeline function as the add-on's sidebar. Prints progress
lines. Output paths are checked (their folders created) before any work; the
outputs appear together at the end. Exit codes: 0 done; 2 bad input or options
(one line on stderr says what is wrong and what to do); 130 / 143 interrupted
by Ctrl-C / SIGTERM (one line; no output written); 1 an unexpected error (a
bug: please report it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import load_package  # noqa: E402


def parse_args(argv: list[str]) -> argparse.Namespace:
    from mocap_dynamics.solver.cli import OneLineParser, add_pipeline_arguments

    parser = OneLineParser(prog="process_trial.py", description=__doc__.splitlines()[0])
    parser.add_argument("input", help="a .c3d or .trc recording")
    parser.add_argument("--out", help="save the scene to this .blend file (default, when no other output is "
                                      "asked for: out/NAME.blend, NAME the recording's)")
    parser.add_argument("--report", help="write a JSON report to this file")
    parser.add_argument("--tables", help="write angles (.mot/.csv), torques (.sto/.csv) and (with --plots) plots "
                                         "to this folder")
    parser.add_argument("--per-kg", action="store_true", help="torque and force curves per kg body mass")
    add_pipeline_arguments(parser)
    args = parser.parse_args(argv)
    if not (args.out or args.report or args.tables):  # asked for nothing: the scene, where python -m solver writes
        from mocap_dynamics.solver.cli import default_out

        args.out = f"{default_out(args.input)}.blend"  # not with_suffix: a name may hold dots (walk.v2.trc)
    return args


def run(args: argparse.Namespace) -> dict:
    """Check the output paths, process the trial into a fresh empty scene, save the outputs (together, at the
    end: an error or an interrupt leaves none of them); return the report."""
    import bpy

    from mocap_dynamics.addon.process import process_trial
    from mocap_dynamics.addon.trial_scene import SceneOptions
    from mocap_dynamics.solver.cli import check_not_a_folder, log, pipeline_options
    from mocap_dynamics.solver.io.atomic import atomic_path, make_folder, staged_outputs, writable_file, \
        writable_folder, write_text
    from mocap_dynamics.solver.report import summary
    from mocap_dynamics.solver.results import write_results

    check_not_a_folder(args.input, "scripts/batch.py --blend")
    blend = writable_file(args.out, "--out", ".blend") if args.out else None
    report_path = writable_file(args.report, "--report") if args.report else None
    tables = writable_folder(args.tables, "--tables") if args.tables else None
    options = pipeline_options(args)
    bpy.ops.wm.read_homefile(use_empty=True)
    with staged_outputs():
        result, _ = process_trial(bpy.context, args.input, options, SceneOptions(per_kg=args.per_kg), progress=log)
        report = result.report()
        report["versions"]["blender"] = bpy.app.version_string
        if blend:
            with atomic_path(make_folder(blend.parent, "--out") / blend.name) as tmp:
                bpy.ops.wm.save_as_mainfile(filepath=str(tmp), copy=True)
        if tables:
            written, notes = write_results(result, tables, flag="--tables")
            report["tables"] = {"files": [str(p) for p in written], "notes": notes}
        if report_path:
            write_text(make_folder(report_path.parent, "--report") / report_path.name, json.dumps(report, indent=2))
    for path, what in ((blend, "saved"), (tables, "wrote the tables to"), (report_path, "wrote")):
        if path:
            log(1.0, f"{what} {path}")
    print(summary(report), end="", flush=True)
    return report


def cli_argv() -> list[str]:
    """Arguments after ``--`` when run inside Blender, else the usual ones."""
    return sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    import bpy  # noqa: F401  (Blender first: it puts an installed extension's bundled wheels on sys.path)

    load_package()
    from mocap_dynamics.solver.cli import guarded

    args = parse_args(cli_argv() if argv is None else argv)
    return guarded(lambda: run(args))[0]


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C while Blender and the modules load, before the command handles it itself
        print("interrupted: nothing written", file=sys.stderr)
        sys.exit(130)
