"""Benchmark of segment discovery on unlabelled markers: prints figures, never asserts them.

    .venv/bin/python scripts/bench_discovery.py [--seeds 5] [--until reconstruct|none] [--trials NAME ...]

The labelled trials of ../shared/data (walks, a drop jump, a sit-to-stand, a
squat, a sprint; marker-based and video-based markers; OpenCap, CMU, Vicon and
an anatomical set) get their labels replaced by numbers in a shuffled order
(one shuffle per seed). Per trial and seed: the share of markers whose
discovered segment is the labelled one (issue 17's target: at least 95 %), the
wrong ones, and the discovery time; the labelled segment is the built-in set's
(walking1, CMU) or the one the labels mean (``markersets.recognize``). Then,
for the trials of ``PIPELINE`` among them, the pipeline runs on the labelled
file and on a numbered copy (written as the same format into a temporary
folder, with the trial's plates and static trial) up to ``--until`` (default:
every stage): marker RMS, converged frames, segment lengths and the root
residual of both runs side by side.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import ROOT, load_package  # noqa: E402

import numpy as np  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
#: (file, built-in set whose segments are the truth or None for the labels' meaning, static trial).
TRIALS = (("subject4_walking1.trc", "opencap", "subject4_static1.trc"),
          ("cmu_dribble_shoot_basketball.c3d", "cmu41", None),
          ("subject4_walking4.trc", None, "subject4_static1.trc"),
          ("subject4_DJ3.trc", None, "subject4_static1.trc"),
          ("subject4_STS1.trc", None, "subject4_static1.trc"),
          ("opencap_video_walking3.trc", None, None),
          ("opencap_video_DJ4.trc", None, None),
          ("squat_gaps.c3d", None, None),
          ("sprint_forceplates_JA1Gait35.c3d", None, None))
#: The trials the pipeline comparison runs on (by default; it takes minutes per trial).
PIPELINE = ("subject4_walking1.trc", "cmu_dribble_shoot_basketball.c3d")
TARGET = "target: the discovered segment is the labelled one for >= 95 % of markers (issue 17)"


def numbered(trial, order):
    """``trial`` with its markers in ``order`` and labelled 1, 2, ...; and the new label of each old one."""
    names = tuple(str(k + 1) for k in range(len(order)))
    return (replace(trial, labels=names, markers=trial.markers[:, order]),
            {trial.labels[old]: new for old, new in zip(order, names)})


def score(discovery, truth: dict, renamed: dict):
    """(markers right, markers scored, the wrong ones as 'label: found (truth)')."""
    found = {label: segment for segment, labels in discovery.segments.items() for label in labels}
    wrong = [f"{old}: {found.get(new)} ({truth[old]})" for old, new in renamed.items()
             if old in truth and found.get(new) != truth[old]]
    scored = sum(old in truth for old in renamed)
    return scored - len(wrong), scored, wrong


def labelled_segments(trial, builtin: str | None) -> dict:
    """Label -> segment: the built-in set's, or the one the labels mean (``None``)."""
    from mocap_dynamics.solver.model.markersets import BUILTIN, recognize

    mset = BUILTIN[builtin] if builtin else recognize(trial.labels, trial.metadata.get("point_descriptions"))
    return {label: segment for segment, labels in mset.segments.items() for label in labels}


def bench_identification(trials, seeds: int) -> None:
    from mocap_dynamics.solver.errors import MocapError
    from mocap_dynamics.solver.io import load_trial
    from mocap_dynamics.solver.model.discovery import discover_markerset

    print(f"\n== Segments found from the motion, labels replaced by shuffled numbers ({seeds} shuffles)\n   {TARGET}")
    summary = []
    for name, builtin, _ in trials:
        trial = load_trial(SHARED / name)
        truth = labelled_segments(trial, builtin)
        shares, times, discovery = [], [], None
        for seed in range(seeds):
            anonymous, renamed = numbered(trial, np.random.default_rng(seed).permutation(trial.n_markers))
            t0 = time.perf_counter()
            try:
                discovery = discover_markerset(anonymous)
            except MocapError as error:
                times.append(time.perf_counter() - t0)
                shares.append(0.0)
                print(f"   {name} seed {seed}: no body found, {times[-1]:.2f} s: {error.one_line()}")
                continue
            times.append(time.perf_counter() - t0)
            right, scored, wrong = score(discovery, truth, renamed)
            shares.append(100 * right / scored)
            print(f"   {name} seed {seed}: {right}/{scored} = {shares[-1]:.1f} % of markers on the labelled "
                  f"segment, {len(discovery.clusters)} rigid clusters, {times[-1]:.2f} s"
                  + (f"; wrong: {', '.join(wrong)}" if wrong else ""))
        if discovery is not None:
            confidence = ", ".join(f"{s} {c:.2f}" for s, c in discovery.confidence.items())
            print(f"   confidence (last shuffle found): {confidence}")
            print(f"   landmarks: {', '.join(f'{k} {v}' for k, v in discovery.landmarks.items())}")
        summary.append((name, trial.n_frames, min(shares), float(np.mean(shares)), float(np.median(times))))
    print(f"\n   {'trial':36s} {'frames':>6s} {'worst %':>8s} {'mean %':>7s} {'median s':>9s}")
    for name, frames, worst, mean, seconds in summary:
        print(f"   {name:36s} {frames:6d} {worst:8.1f} {mean:7.1f} {seconds:9.2f}")


def _copy(trial, path: Path):
    from mocap_dynamics.solver.io import write_c3d, write_trc
    return write_c3d(trial, path) if path.suffix == ".c3d" else write_trc(trial, path)


def bench_pipeline(trials, until: str) -> None:
    from mocap_dynamics.solver.io import load_trial
    from mocap_dynamics.solver.pipeline import PipelineOptions, run

    print(f"\n== Pipeline up to {until}: labelled file vs the same markers numbered (discovered)")
    for name, _, static_name in trials:
        trial = load_trial(SHARED / name)
        anonymous, renamed = numbered(trial, np.random.default_rng(0).permutation(trial.n_markers))
        with tempfile.TemporaryDirectory() as folder:
            copy = _copy(anonymous, Path(folder) / f"numbered_{name}")
            grf = SHARED / f"{Path(name).stem}_grf.mot"
            options = {"until": until, "grf": str(grf) if grf.is_file() else None}
            static_copy = None
            if static_name:
                static = load_trial(SHARED / static_name)
                known = [i for i, label in enumerate(static.labels) if label in renamed]
                static_copy = write_copy_static(static, known, renamed, Path(folder) / f"numbered_{static_name}")
            runs = {}
            for kind, path, static_path in (("labelled", SHARED / name, SHARED / static_name if static_name else None),
                                            ("numbered", copy, static_copy)):
                t0 = time.perf_counter()
                runs[kind] = run(path, PipelineOptions(static=str(static_path) if static_path else None, **options))
                runs[kind].timings["total"] = time.perf_counter() - t0
        for kind, result in runs.items():
            print(f"   {name} {kind}: " + _figures(result))
        lengths = {kind: r.model.metadata["calibration"].lengths for kind, r in runs.items()}
        diff = {s: 1000 * (lengths["numbered"][s] - lengths["labelled"][s]) for s in lengths["labelled"]}
        worst = max(diff, key=lambda s: abs(diff[s]))
        print(f"   segment lengths numbered - labelled: largest {worst} {diff[worst]:+.1f} mm, "
              f"mean |difference| {np.mean(np.abs(list(diff.values()))):.1f} mm")


def write_copy_static(static, known, renamed, path):
    """The static trial with the movement trial's numbers (markers the movement lacks are dropped)."""
    return _copy(replace(static, labels=tuple(renamed[static.labels[i]] for i in known),
                         markers=static.markers[:, known]), path)


def _figures(result) -> str:
    parts = [f"markerset {result.model.metadata['calibration'].markerset}",
             f"static {'used' if result.model.metadata['calibration'].static else 'not used'}"]
    if result.motion is not None:
        rec = result.report()["reconstruction"]
        parts += [f"{rec['frames_converged']}/{rec['frames']} frames converged",
                  f"marker RMS {1000 * rec['marker_rms_m']:.2f} mm"]
    if result.dynamics is not None:
        dyn = result.report()["dynamics"]["without_external_forces"]
        parts.append(f"root residual {dyn['root_force_mean_percent_bw']:.1f} % BW")
    parts.append(f"{result.timings['total']:.1f} s (calibrate {result.timings.get('calibrate', 0):.2f} s)")
    return ", ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="shuffles per trial (default 5)")
    parser.add_argument("--until", default="zero_gravity",
                        help="last pipeline stage (default: every stage; none: no pipeline runs)")
    parser.add_argument("--trials", nargs="+", metavar="NAME", choices=[t[0] for t in TRIALS],
                        help="the trials to run (default: all for the segments, "
                             f"{' and '.join(PIPELINE)} for the pipeline)")
    args = parser.parse_args()
    load_package()
    if not SHARED.is_dir():
        sys.exit(f"{SHARED} is missing: the benchmark reads the shared recordings")
    chosen = [t for t in TRIALS if t[0] in (args.trials or [t[0] for t in TRIALS])]
    bench_identification(chosen, args.seeds)
    if args.until != "none":
        bench_pipeline([t for t in chosen if args.trials or t[0] in PIPELINE], args.until)


if __name__ == "__main__":
    main()
