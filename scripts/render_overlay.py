"""Render a processed trial with its force overlays: a still for slides, a PNG sequence, an MP4.

    .venv/bin/python scripts/render_overlay.py TRIAL.blend [--out DIR] [--still [FRAME]] [--sequence] [--movie] [...]
    blender --background --python scripts/render_overlay.py -- TRIAL.blend [--out DIR] [options]

TRIAL.blend is a scene saved by process_trial.py (or the add-on). Without
--still, --sequence or --movie it renders a still of the saved current frame.
A still frames the subject at its frame; sequences and movies follow it
(--camera fixed: one wide shot). --plots adds a panel of the vertical GRF and
one joint's torque with a cursor at the frame.
Writes DIR/<trial>_still_<frame>.png, DIR/<trial>_<frame>.png and
DIR/<trial>.mp4 (DIR: out/NAME without --out, NAME the .blend's). Exit codes:
0 done; 2 bad input or options (one line on stderr says what is wrong and
what to do); 1 an unexpected error (a bug).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import load_package  # noqa: E402
from process_trial import cli_argv  # noqa: E402

CURRENT = "current"


def parse_args(argv: list[str]) -> argparse.Namespace:
    from mocap_dynamics.addon.render import BACKGROUNDS, CAMERAS, VIEWS
    from mocap_dynamics.addon.render_plots import DEFAULT_JOINT, TORQUE_PLOTS
    from mocap_dynamics.solver.cli import OneLineParser

    parser = OneLineParser(prog="render_overlay.py", description=__doc__.splitlines()[0])
    parser.add_argument("blend", help="a .blend saved by process_trial.py")
    parser.add_argument("--out", help="folder for the images and the movie (created if needed; default: out/NAME, "
                                      "NAME the .blend's, beside python -m solver's results)")
    parser.add_argument("--trial", help="name of the trial collection (default: the only one in the file)")
    parser.add_argument("--still", nargs="?", const=CURRENT, metavar="FRAME",
                        help="render one frame as PNG (default: the file's current frame)")
    parser.add_argument("--sequence", action="store_true", help="render the frames as a PNG sequence")
    parser.add_argument("--movie", action="store_true", help="render the frames as an MP4 (H.264)")
    parser.add_argument("--engine", choices=["workbench", "eevee"], default="workbench",
                        help="Workbench (fast, default) or EEVEE (lit, slower)")
    parser.add_argument("--resolution", default="1280x720", help="WIDTHxHEIGHT in pixels (default 1280x720)")
    parser.add_argument("--frames", help="A:B (or A-B), the frames to frame and render (default: the whole trial)")
    parser.add_argument("--view", choices=list(VIEWS), default="side", help="camera direction (default: side)")
    parser.add_argument("--camera", choices=CAMERAS, default="follow",
                        help="follow the subject (default; a still frames its frame) or one fixed wide shot")
    parser.add_argument("--plots", action="store_true",
                        help="a panel beside the render: vertical GRF and a joint torque, cursor at the frame")
    parser.add_argument("--joint", default=DEFAULT_JOINT,
                        help=f"the joint whose torque the panel plots (default {DEFAULT_JOINT})")
    parser.add_argument("--torque-plot", choices=TORQUE_PLOTS, default=TORQUE_PLOTS[0],
                        help="the joint's sagittal moment, signed as its angle (default), or the torque's magnitude")
    parser.add_argument("--twin", action="store_true", help="show the zero-gravity twin beside the subject")
    parser.add_argument("--background", choices=BACKGROUNDS, default="light", help="light (default) or dark")
    parser.add_argument("--transparent-body", action="store_true", help="a see-through body (arrows show through)")
    parser.add_argument("--contact-points", action="store_true",
                        help="an arrow per loaded contact point beside each foot's estimated GRF")
    parser.add_argument("--no-plates", action="store_true", help="hide the measured force-plate arrows")
    parser.add_argument("--samples", type=int, default=16, help="EEVEE render samples (default 16)")
    args = parser.parse_args(argv)
    if args.out is None:
        from mocap_dynamics.solver.cli import default_out

        args.out = str(default_out(args.blend))
    return args


def _integers(text: str, what: str, example: str) -> tuple[int, ...]:
    """``text`` as integers separated like ``example`` (``"x"`` or ``":"``; also ``1280X720``, ``1280×720``,
    ``1-120`` as people write them)."""
    from mocap_dynamics.solver.errors import InputError

    separator = "x" if "x" in example else ":"
    text = text.lower().replace("×", "x") if separator == "x" else text
    if separator == ":" and ":" not in text and "-" in text[1:]:
        text = text[0] + text[1:].replace("-", ":", 1)
    try:
        values = tuple(int(part) for part in text.split(separator))
    except ValueError:
        values = ()
    if len(values) != len(example.split(separator)):
        raise InputError(f"{what} {text!r} is not of the form {example}", f"give e.g. {example}")
    return values


def find_trial(name: str | None):
    """The trial collection ``name``, or the file's only one."""
    import bpy

    from mocap_dynamics.addon.trial_scene import META_PROP
    from mocap_dynamics.solver.errors import InputError

    trials = [c for c in bpy.context.scene.collection.children_recursive if META_PROP in c]
    if name is not None:
        found = [c for c in trials if c.name == name]
        if not found:
            raise InputError(f"No trial {name!r} in the file (it has: {', '.join(c.name for c in trials) or 'none'})",
                             "give one of those names to --trial")
        return found[0]
    if not trials:
        raise InputError("The file has no trial collection", "process a recording with process_trial.py first")
    if len(trials) > 1:
        raise InputError(f"The file has {len(trials)} trials ({', '.join(c.name for c in trials)})",
                         "choose one with --trial NAME")
    return trials[0]


def run(args: argparse.Namespace) -> list[Path]:
    """Open the .blend, render what ``args`` ask; return the files written."""
    import bpy

    from mocap_dynamics.addon.render import RenderOptions, check, render_overlay
    from mocap_dynamics.solver.cli import log
    from mocap_dynamics.solver.errors import InputError
    from mocap_dynamics.solver.io.atomic import make_folder, writable_folder

    blend = Path(args.blend)
    if not blend.is_file():
        raise InputError(f"{blend} does not exist", "give the .blend written by process_trial.py --out")
    if blend.suffix != ".blend":
        raise InputError(f"{blend} is not a .blend file", "give the .blend written by process_trial.py --out")
    resolution = _integers(args.resolution, "Resolution", "1280x720")
    frames = _integers(args.frames, "Frame range", "1:120") if args.frames else None
    still = None if args.still in (None, CURRENT) else _integers(args.still, "Frame", "42")[0]
    try:
        bpy.ops.wm.open_mainfile(filepath=str(blend), load_ui=False)
    except RuntimeError as error:
        raise InputError(f"Blender cannot open {blend}: {str(error).strip()}", "check the file") from None
    scene = bpy.context.scene
    collection = find_trial(args.trial)
    if args.still == CURRENT or not (args.still or args.sequence or args.movie):
        still = scene.frame_current
    options = RenderOptions(engine=args.engine.upper(), resolution=resolution, view=args.view, camera=args.camera,
                            frames=frames, still=still, sequence=args.sequence, movie=args.movie,
                            plates=not args.no_plates, contact_points=args.contact_points, twin=args.twin,
                            plots=args.plots, joint=args.joint, torque_plot=args.torque_plot,
                            background=args.background,
                            transparent_body=args.transparent_body, samples=args.samples)
    check(scene, options, collection)
    out = make_folder(writable_folder(args.out, "--out"), "--out")
    return render_overlay(scene, collection, out, options, progress=log)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code. Blender is imported first: it puts an installed
    extension's bundled wheels on sys.path."""
    import bpy  # noqa: F401

    load_package()
    from mocap_dynamics.solver.cli import guarded

    return guarded(lambda: run(parse_args(cli_argv() if argv is None else argv)))[0]


if __name__ == "__main__":
    sys.exit(main())
