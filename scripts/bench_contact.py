"""Benchmark of contact from motion alone: prints figures, never asserts them.

    .venv/bin/python scripts/bench_contact.py [--out out/bench_contact] [--trials NAME ...] [--sections N ...]
    .venv/bin/python scripts/bench_contact.py --files TRIAL ... [--static FILE] [--sections 2 3]

1. Numba compile time of the contact estimate in a fresh process with an empty cache (the first click a user
   feels; the kinematics and dynamics kernels warmed first, so only contact's own are counted), for the
   default estimate and the paper's springs, and the load time from the on-disk cache.
2. Every real trial with force plates in ``../shared/data``, run as a user runs it (``pipeline.run`` with
   the default options; subject 4 also calibrated on its static trial): the body mass and its source, the
   low-pass cutoff, the surfaces found (floor height against the plates' centres of pressure, tilt, raised
   surfaces), the root force explained, the root force left where no plate measures (box, chair) and in
   flight (``contact.flight``: the motion's own check of its forces, zero for exact kinematics), and the
   agreement with the plates in total and per foot (vertical and horizontal RMSE in % body weight, r, COP
   error in single support, contact timing), and the hip, knee and ankle moments with the estimated contact
   against those with the plates (r, RMSE in N·m/kg); the contact estimate's time per frame after warm-up. A
   GRF plot per trial in ``--out``. The tables the README shows are printed last.
3. The paper's springs (eqs. 4-7, eq. 10's plane, unfiltered forward differences) on the same trials, for
   comparison.
4. The walks moved as on a treadmill belt at 0.8 and 1.3 m/s: the belt found, floor and per-foot forces against
   the overground walk's.
5. walking1 and the trials with a box or a chair with the lab turned by 37, 90 and 180 degrees about the
   vertical: the same surfaces, and per-foot forces against the unturned trial's.
6. The trials with plates as if captured otherwise: resampled to a video camera's 60 or 30 Hz, with white marker
   noise of 1-5 mm or each marker drifting by 1-2 cm at 2 Hz (``tests/unit/test_contact_capture_rates.py``):
   vertical RMSE, r, the root force explained, the joint moments' mean r against those with the plates, and the
   surfaces where they are not the ones found as recorded.
7. The same trials with only their pelvis and leg markers kept: a lower-body model, its head, arms and trunk (HAT)
   following the pelvis's slow motion (the default) or welded to it (``--head welded``); and with the thorax's
   markers kept too but the acromions' (C7 and the sternum, as lower-body gait sets with a thorax have them).
8. The bouncing ball of §3 (table and mouse pad): recovered parameters.
9. Trials cut where a recording may begin or end (a drop jump in flight, a sit-to-stand seated, one walking step):
   vertical RMSE and r against the whole trial's over the same frames.
10. The trials' per-foot plates summed into one plate under both feet (``tests/unit/test_contact_shared_plates.py``):
   split between the feet, each foot's vertical force and the torques with the plates against the per-foot plates'.

``--files``: sections 2 and 3 on your own recordings with force plates instead of the trials of
``../shared/data`` (a C3D with its plates, or a TRC with its ``NAME_grf.mot`` beside it; ``--static`` calibrates
every one on that static trial); the other sections transform the built-in trials and are left out.

Targets (issue 15), default settings, whole trial: vertical GRF r >= 0.95; RMSE <= 8 % BW on walks and
sit-to-stand, <= 15 % BW on drop jumps; root force explained >= 90 %; floor tilt <= 1 deg and height within
1 cm; COP error <= 3 cm in single support; <= 0.3 ms/frame warm; compile <= 5 s cold.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import ROOT, load_package  # noqa: E402

import numpy as np  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
#: (name in the table, file, kind, static trial or None).
TRIALS = (
    ("walking1", "subject4_walking1.trc", "walk", None),
    ("walking4", "subject4_walking4.trc", "walk", None),
    ("DJ3 (box)", "subject4_DJ3.trc", "drop jump", None),
    ("STS1 (chair)", "subject4_STS1.trc", "sit-to-stand", None),
    ("video DJ4 (box)", "opencap_video_DJ4.trc", "drop jump", None),
    ("video walking3", "opencap_video_walking3.trc", "walk", None),
    ("sprint", "sprint_forceplates_JA1Gait35.c3d", "run", None),
    ("walking1 +static", "subject4_walking1.trc", "walk", "subject4_static1.trc"),
    ("DJ3 +static", "subject4_DJ3.trc", "drop jump", "subject4_static1.trc"),
    ("STS1 +static", "subject4_STS1.trc", "sit-to-stand", "subject4_static1.trc"),
)

COMPILE_PROBE = """
import sys, time
sys.path.insert(0, {scripts!r})
from bootstrap import load_package
load_package()
from mocap_dynamics.solver.contact import estimate_contact
from mocap_dynamics.solver.dynamics import inverse_dynamics
from mocap_dynamics.solver.sample import MASS, make_sample
from mocap_dynamics.solver.kinematics import reconstruct
from mocap_dynamics.solver.model import calibrate
sample = make_sample()
motion = reconstruct(sample.trial, calibrate(sample.trial, mass=MASS))
forces = {what!r}
dynamics = inverse_dynamics(motion) if forces == "spring" else inverse_dynamics(motion, cutoff="auto", scheme="central")
if forces is None:  # the warm-up: reconstruction and dynamics kernels only
    sys.exit(print(0.0))
first = time.perf_counter(); estimate_contact(dynamics=dynamics, forces=forces); first = time.perf_counter() - first
again = time.perf_counter(); estimate_contact(dynamics=dynamics, forces=forces); again = time.perf_counter() - again
print(first - again)
"""


def machine() -> str:
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def compile_times(repeat: int = 3) -> dict[str, str]:
    """Seconds the first estimate spends on contact's numba kernels in a fresh process: compiling them into
    a cache that holds only the reconstruction and dynamics kernels (a first run without contact put them
    there), best and median of ``repeat`` fresh copies of that cache (a shared host's speed drifts by half from
    one minute to the next); then loading them from it."""
    scripts = str(ROOT / "scripts")

    def probe(what: str | None, cache: str) -> float:
        result = subprocess.run([sys.executable, "-c", COMPILE_PROBE.format(scripts=scripts, what=what)],
                                capture_output=True, text=True, check=True,
                                env={**os.environ, "NUMBA_CACHE_DIR": cache})
        return float(result.stdout.split()[-1])

    out = {}
    with tempfile.TemporaryDirectory() as folder:
        warmed = Path(folder) / "warmed"
        probe(None, str(warmed))
        for what in ("per_frame", "spring"):
            seconds = []
            for copy in range(repeat):
                cache = Path(folder) / f"{what}{copy}"
                shutil.copytree(warmed, cache)
                seconds.append(probe(what, str(cache)))
            out[f"{what} contact, compile, empty cache"] = \
                f"{min(seconds):.2f} s best, {np.median(seconds):.2f} s median of {repeat}"
            out[f"{what} contact, load from the on-disk cache"] = f"{probe(what, str(cache)):.2f} s"
    return out


def best_of(fn, repeat: int = 3) -> tuple[float, object]:
    best, value = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t0)
    return best, value


def time_estimates(rows: list[dict], rounds: int = 5) -> None:
    """Each trial's contact estimate timed ``rounds`` times, the trials in turn (a shared host's speed drifts by half
    over minutes: each trial's best then comes from the same spells), its best as ``ms_per_frame``."""
    best = [np.inf] * len(rows)
    for _ in range(rounds):
        for i, figures in enumerate(rows):
            t0 = time.perf_counter()
            figures["estimate"]()
            best[i] = min(best[i], time.perf_counter() - t0)
    for figures, seconds in zip(rows, best):
        figures["ms_per_frame"] = 1000 * seconds / figures["frames"]


def trial_figures(name: str, file: str, static: str | None, out: Path) -> dict | None:
    """The default pipeline on one trial, and what it says against the plates."""
    from mocap_dynamics.solver.contact import estimate_contact
    from mocap_dynamics.solver.errors import MocapError
    from mocap_dynamics.solver.pipeline import PipelineOptions, run
    from mocap_dynamics.solver.plots import plot_grf

    options = PipelineOptions(until="contact", static=None if static is None else str(SHARED / static))
    try:
        result = run(SHARED / file, options)
    except MocapError as error:
        print(f"   {name}: not run ({error.one_line()})")
        return None
    contact, plates = result.contact, result.plate_comparison
    summary = contact.summary()
    weight = contact.body_weight
    cop = result.trial.plate_samples.cop[..., 2] if result.trial.plate_samples is not None else np.full(1, np.nan)
    floor_truth = float(np.nanmedian(cop)) if np.isfinite(cop).any() else float("nan")
    figures = {"name": name, "frames": len(contact.times), "mass": result.model.total_mass,
               "mass_source": result.model.mass_source.split(" (")[0],
               "cutoff": result.dynamics.options.get("cutoff_hz"), "surfaces": summary["surfaces"],
               "floor_error_cm": 100 * (summary["surfaces"][0]["height_m"] - floor_truth) if contact.surfaces
               else float("nan"),
               "tilt": summary.get("floor_tilt_deg", float("nan")), "explained": 100 * contact.explained_force,
               "flight": summary.get("flight"),
               # a fresh copy each time: the forward kinematics ``Dynamics.poses`` caches count as in a user's run
               "estimate": lambda: estimate_contact(result.motion, dynamics=replace(result.dynamics))}
    off_plates = np.zeros(len(contact.times), bool)
    for j in range(1, len(contact.surfaces)):
        with np.errstate(invalid="ignore"):
            off_plates |= contact.surface_force[:, j] @ contact.surfaces[j].top.normal > 0.05 * weight
    figures["left_off_plates"] = 100 * float(np.linalg.norm(contact.root_wrench[off_plates, :3], axis=1).mean()) \
        / weight if off_plates.any() else float("nan")
    if plates is not None:
        s = plates.summary()
        figures.update(vertical=s["rmse_vertical_bw_percent"], r=s["correlation_vertical"],
                       horizontal=s["rmse_horizontal_bw_percent"], r_ap=s["correlation_anteroposterior"],
                       cop=s["cop_error_single_support_cm"], onset=s["onset_error_mean_abs_s"],
                       offset=s["offset_error_mean_abs_s"], compared=s["frames_compared"], feet=s["feet"],
                       alone=s["where_plates_see_all"], moments=s.get("joint_moments"))
        plot_grf(contact, plates, out / f"{Path(file).stem}{'_static' if static else ''}_grf.png",
                 title=f"{name}: estimated from motion vs plates")
    return figures


def springs_figures(file: str) -> str:
    """The paper's method on the same trial, as one line."""
    from mocap_dynamics.solver.errors import MocapError
    from mocap_dynamics.solver.pipeline import PipelineOptions, run
    options = PipelineOptions(until="contact", cutoff=None, derivatives="forward", contact_forces="spring")
    try:
        result = run(SHARED / file, options)
    except MocapError as error:
        return f"not run ({error.one_line()})"
    s = result.plate_comparison.summary() if result.plate_comparison is not None else {}
    return (f"{100 * result.contact.explained_force:.1f} % explained, plane tilt "
            f"{result.contact.plane_angle:.1f} deg, vertical RMSE {s.get('rmse_vertical_bw_percent', np.nan):.1f} "
            f"% BW, r {s.get('correlation_vertical', np.nan):.3f}")


def fmt(value, spec=".1f", missing="-") -> str:
    return missing if value is None or (isinstance(value, float) and not np.isfinite(value)) else format(value, spec)


def print_trial(f: dict) -> None:
    raised = "; ".join(f"{s['name']} {100 * s['height_m']:.1f} cm ({', '.join(s['segments'])})"
                       for s in f["surfaces"][1:]) or "none"
    print(f"   {f['name']}: {f['frames']} frames, {f['mass']:.1f} kg ({f['mass_source']}), cutoff "
          f"{fmt(f['cutoff'], 'g')} Hz; floor {fmt(f['floor_error_cm'], '+.1f')} cm from the plates' COP height, "
          f"tilt {fmt(f['tilt'], '.2f')} deg; raised: {raised}")
    print(f"      root force explained {f['explained']:.1f} %; left where no plate measures "
          f"{fmt(f['left_off_plates'])} % BW; contact estimate {f['ms_per_frame']:.3f} ms/frame after warm-up")
    if f["flight"] is not None:
        flown = f["flight"]
        print(f"      in flight {flown['seconds']:.2f} s: root force {flown['root_force_rms_percent_bw']:.1f} % BW RMS "
              "there (zero for exact kinematics)")
    if "vertical" in f:
        print(f"      plates ({f['compared']} frames compared): vertical RMSE {f['vertical']:.1f} % BW, r {f['r']:.3f};"
              f" horizontal {f['horizontal']:.1f} % BW, r AP {f['r_ap']:.2f}; COP {fmt(f['cop'])} cm in single "
              f"support; onset {fmt(f['onset'] and 1000 * f['onset'], '.0f')} ms, offset "
              f"{fmt(f['offset'] and 1000 * f['offset'], '.0f')} ms")
        a = f["alone"]
        print(f"      where no box or seat carries load ({a['frames_compared']} frames): vertical RMSE "
              f"{fmt(a['rmse_vertical_bw_percent'])} % BW, r {fmt(a['correlation_vertical'], '.3f')}; horizontal "
              f"{fmt(a['rmse_horizontal_bw_percent'])} % BW")
        for foot, g in f["feet"].items():
            print(f"         {foot}: vertical {g['rmse_vertical_bw_percent']:.1f} % BW, r "
                  f"{fmt(g['correlation_vertical'], '.3f')}; horizontal {g['rmse_horizontal_bw_percent']:.1f} % BW;"
                  f" COP {fmt(g['cop_error_single_support_cm'])} cm over {g['single_support_frames']} frames")
        if f.get("moments"):
            whole, seen = f["moments"], f["moments"]["where_plates_see_all"]
            print(f"      joint moments with the estimate vs with the plates: mean r {fmt(whole['mean_r'], '.3f')}, "
                  f"RMSE {fmt(whole['mean_rmse_nm_per_kg'], '.3f')} N·m/kg; where the plates see all "
                  f"{fmt(seen['mean_r'], '.3f')}, {fmt(seen['mean_rmse_nm_per_kg'], '.3f')} N·m/kg ("
                  + ", ".join(f"{name.removesuffix('_moment')} {fmt(m['r'], '.2f')}"
                              for name, m in seen["moments"].items()) + ")")


def print_table(rows: list[dict]) -> None:
    print("\n| trial | mass | floor (cm off, tilt) | raised surfaces | explained | vertical RMSE, r | there, no box "
          "or seat loaded | horizontal RMSE | COP (single support) | ms/frame |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for f in rows:
        raised = ", ".join(f"{100 * s['height_m']:.0f} cm" for s in f["surfaces"][1:]) or "-"
        print(f"| {f['name']} | {f['mass']:.1f} kg ({f['mass_source']}) | {fmt(f['floor_error_cm'], '+.1f')}, "
              f"{fmt(f['tilt'], '.1f')} deg | {raised} | {f['explained']:.1f} % | "
              f"{fmt(f.get('vertical'))} % BW, {fmt(f.get('r'), '.3f')} | "
              f"{fmt(f.get('alone', {}).get('rmse_vertical_bw_percent'))} % BW, "
              f"{fmt(f.get('alone', {}).get('correlation_vertical'), '.3f')} | {fmt(f.get('horizontal'))} % BW | "
              f"{fmt(f.get('cop'))} cm | {f['ms_per_frame']:.3f} |")


def print_moments_table(rows: list[dict]) -> None:
    """The hip, knee and ankle moments with the estimated contact against those with the plates (same model and
    motion: only the contact differs; ``contact.compare_moments_with_plates``)."""
    print("\n| trial | whole trial: mean r, RMSE [N·m/kg] | where the plates see all | there, r per moment "
          "(hip, knee, ankle; left / right) |")
    print("|---|---|---|---|")
    for f in rows:
        if not f.get("moments"):
            continue
        whole, seen = f["moments"], f["moments"]["where_plates_see_all"]
        r = [fmt(m["r"], ".2f") for m in seen["moments"].values()]
        print(f"| {f['name']} | {fmt(whole['mean_r'], '.3f')}, {fmt(whole['mean_rmse_nm_per_kg'], '.3f')} | "
              f"{fmt(seen['mean_r'], '.3f')}, {fmt(seen['mean_rmse_nm_per_kg'], '.3f')} | "
              + ", ".join(" / ".join(r[i:i + 2]) for i in range(0, len(r), 2)) + " |")


def bench_treadmill(out: Path) -> None:
    """The walks moved as on a treadmill belt (``tests/unit/test_contact_ground.py``): the belt found from the
    feet, and the floor and per-foot forces against the overground walk's (same body mass)."""
    from mocap_dynamics.solver.pipeline import PipelineOptions, run
    sys.path.insert(0, str(ROOT))
    from tests.unit.test_contact_ground import on_a_treadmill
    print("   the walks moved as on a treadmill (floor and per-foot forces against the overground walk's):")
    for file in ("subject4_walking1.trc", "subject4_walking4.trc", "opencap_video_walking3.trc"):
        ground = run(SHARED / file, PipelineOptions(until="contact"))
        for speed in (0.8, 1.3):
            moved, belt = on_a_treadmill(SHARED / file, out, speed)
            contact = run(moved, PipelineOptions(until="contact", mass=ground.model.total_mass)).contact
            gap = contact.foot_force - ground.contact.foot_force
            print(f"      {file} at {speed} m/s: belt found {np.linalg.norm(contact.ground_velocity):.2f} m/s "
                  f"({np.linalg.norm(contact.ground_velocity - belt):.3f} off), floor "
                  f"{1000 * (contact.patches[0].height - ground.contact.patches[0].height):+.1f} mm, per-foot "
                  f"force RMS {100 * np.sqrt(np.nanmean(gap[..., 2] ** 2)) / contact.body_weight:.2f} % BW "
                  f"vertical, {100 * np.sqrt(np.nanmean(np.sum(gap[..., :2] ** 2, -1))) / contact.body_weight:.2f} "
                  "horizontal")


def bench_turned(out: Path) -> None:
    """The trials with raised surfaces with the lab turned (``tests/unit/test_contact_support.py``): the same
    surfaces, and the per-foot forces against the unturned trial's (same body mass)."""
    from mocap_dynamics.solver.pipeline import PipelineOptions, run
    sys.path.insert(0, str(ROOT))
    from tests.unit.test_contact_support import turned, turning
    print("   the lab turned about the vertical (surfaces and per-foot forces, turned back, against the unturned "
          "trial's):")
    for file in ("subject4_walking1.trc", "subject4_DJ3.trc", "subject4_STS1.trc", "opencap_video_DJ4.trc"):
        lab = run(SHARED / file, PipelineOptions(until="contact")).contact
        for degrees in (37, 90, 180):
            contact = run(turned(SHARED / file, out, degrees),
                          PipelineOptions(until="contact", mass=lab.model.total_mass)).contact
            same = [(p.kind, p.segments) for p in contact.patches] == [(p.kind, p.segments) for p in lab.patches]
            gap = contact.foot_force @ turning(degrees) - lab.foot_force
            print(f"      {file} turned {degrees} deg: surfaces {'the same' if same else 'DIFFERENT'}, per-foot force "
                  f"RMS {100 * np.sqrt(np.nanmean(gap ** 2)) / lab.body_weight:.5f} % BW")


#: (column, rate [Hz] or None: as recorded, white marker noise [m]) of ``bench_recaptured``.
#: (column, rate [Hz] or None: as recorded, noise [m] RMS, drift [Hz]: the noise low-passed there, or None: white).
RECAPTURED = (("as recorded", None, 0.0, None), ("60 Hz", 60.0, 0.0, None), ("30 Hz", 30.0, 0.0, None),
              ("1 mm noise", None, 0.001, None), ("60 Hz, 3 mm noise", 60.0, 0.003, None),
              ("60 Hz, 5 mm noise", 60.0, 0.005, None), ("60 Hz, 1 cm drift at 2 Hz", 60.0, 0.01, 2.0),
              ("60 Hz, 2 cm drift at 2 Hz", 60.0, 0.02, 2.0))


def bench_recaptured(out: Path) -> None:
    """The trials with plates resampled and given marker noise, white or drifting (seed 1): a Markdown table of
    vertical RMSE [% BW], r, the root force explained and the joint moments' mean r against those with the plates
    (where they see all) per variant, and the surfaces found where they are not those found as recorded."""
    from mocap_dynamics.solver.pipeline import PipelineOptions, run
    sys.path.insert(0, str(ROOT))
    from tests.unit.test_contact_capture_rates import recaptured
    print("   the trials captured otherwise (vertical RMSE % BW, r; root force explained; joint moments' mean r "
          "against those with the plates, where they see all):")
    print("\n| trial | " + " | ".join(variant[0] for variant in RECAPTURED) + " |")
    print("|---|" + "---|" * len(RECAPTURED))
    for name, file, kind, static in TRIALS:
        if static is not None or kind == "run" or not (SHARED / file).is_file():
            continue
        cells, recorded = [], None
        for k, (_, rate, noise, drift) in enumerate(RECAPTURED):
            result = run(recaptured(SHARED / file, out / "recaptured" / str(k), rate, noise, seed=1 if drift else 0,
                                    drift_hz=drift), PipelineOptions(until="contact"))
            s = result.plate_comparison.summary()
            moments = s.get("joint_moments", {}).get("where_plates_see_all", {}).get("mean_r")
            kinds = [p.kind for p in result.contact.patches]
            recorded = recorded or kinds
            surfaces = ", ".join(f"{p.kind} {p.height:.2f} m" for p in result.contact.patches)
            cells.append(f"{s['rmse_vertical_bw_percent']:.1f}, {s['correlation_vertical']:.3f}; "
                         f"{100 * result.contact.explained_force:.1f} %; {fmt(moments, '.3f')}"
                         + ("" if kinds == recorded else f" [{surfaces}]"))
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print()


def bench_lower_body(out: Path) -> None:
    """The trials with plates with their lower-body markers only: a Markdown table, HAT following the pelvis
    (default) against welded to it, and with the thorax's markers kept but its acromions' (C7 and the sternum)."""
    from mocap_dynamics.solver.pipeline import PipelineOptions, run
    sys.path.insert(0, str(ROOT))
    from tests.unit.test_model_partial_bodies import lower_body_copy
    print("   lower-body markers only (vertical RMSE % BW, r; horizontal RMSE % BW; COP cm; explained; moments r "
          "against ours with the plates where they see all):")
    print("\n| trial | HAT following the pelvis (default) | HAT welded (`--head welded`) | with a thorax (C7 and the "
          "sternum, no acromion) |\n|---|---|---|---|")
    for name, file, kind, static in TRIALS:
        if static is not None or not file.endswith(".trc") or not (SHARED / file).is_file():
            continue
        legs = lower_body_copy(SHARED / file, out / "lower_body")
        thorax = lower_body_copy(SHARED / file, out / "lower_body_thorax", thorax=True)
        cells = []
        for copy, head in ((legs, "level"), (legs, "welded"), (thorax, "level")):
            result = run(copy, PipelineOptions(until="contact", head=head))
            s = result.plate_comparison.summary()
            moments = s["joint_moments"]["where_plates_see_all"]["mean_r"]
            cells.append(f"{s['rmse_vertical_bw_percent']:.1f}, {s['correlation_vertical']:.3f}; "
                         f"{s['rmse_horizontal_bw_percent']:.1f}; {fmt(s['cop_error_single_support_cm'])}; "
                         f"{100 * result.contact.explained_force:.1f} %; {moments:.3f} ({result.model.total_mass:.1f} "
                         "kg)")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print()


#: (trial, start, stop [s]) of ``bench_cut``: where a recording may begin or end.
CUTS = (("subject4_DJ3", 1.1, 3.0), ("subject4_STS1", 0.0, 1.5), ("subject4_walking1", 0.3, 0.9))


def bench_cut(out: Path) -> None:
    """The trials cut (``tests/unit/test_contact_cut_trials.py``): vertical RMSE [% BW] and r of the cut trial,
    without its first and last 0.05 s, and of the whole trial over the same frames (the low-pass filter's ends
    fall inside the motion)."""
    from mocap_dynamics.solver.pipeline import PipelineOptions, run
    sys.path.insert(0, str(ROOT))
    from tests.unit.test_contact_cut_trials import cut
    print("   the trials cut (vertical RMSE % BW, r; surfaces):")
    print("\n| trial, cut | cut | cut, without its first and last 0.05 s | whole trial, same frames |")
    print("|---|---|---|---|")
    for stem, start, stop in CUTS:
        whole = run(SHARED / f"{stem}.trc", PipelineOptions(until="contact")).plate_comparison
        part = run(cut(SHARED / f"{stem}.trc", out / "cut", start, stop), PipelineOptions(until="contact"))
        times = part.plate_comparison.times
        cells = [part.plate_comparison.totals,
                 part.plate_comparison.totals_over((times >= times[0] + 0.05) & (times <= times[-1] - 0.05)),
                 whole.totals_over((whole.times >= times[0] - 1e-9) & (whole.times <= times[-1] + 1e-9))]
        kinds = ", ".join(p.kind for p in part.contact.patches)
        print(f"| {stem}, {start:g}-{stop:g} s ({kinds}) | "
              + " | ".join(f"{c['rmse_vertical_bw_percent']:.1f}, {c['correlation_vertical']:.3f}" for c in cells)
              + " |", flush=True)
    print()


def bench_one_plate(out: Path) -> None:
    """One plate under both feet, split between them (``contact.shared_plates``): the body mass, each foot's force
    [% BW RMS] and the main joint moments with the plates (mean r, worst RMSE [N·m/kg]) against the per-foot plates'."""
    from mocap_dynamics.solver.contact.compare_moments import compare_moments_with_plates
    from mocap_dynamics.solver.pipeline import PipelineOptions, run
    sys.path.insert(0, str(ROOT))
    from tests.unit.test_contact_shared_plates import one_plate
    print("   one plate under both feet, split between them, against the per-foot plates:")
    for name in ("subject4_walking1", "subject4_walking4", "subject4_DJ3", "subject4_STS1", "opencap_video_DJ4",
                 "opencap_video_walking3"):
        per_foot = run(SHARED / f"{name}.trc", PipelineOptions(until="contact"))
        shared = run(one_plate(SHARED, out, name), PipelineOptions(until="contact"))
        measured, weight = per_foot.plate_comparison.measured_feet, per_foot.contact.body_weight
        gap = (shared.plate_comparison.measured_feet - measured) / weight
        loaded = np.nansum(measured[..., 2], 1) > 0.05 * weight
        moments = compare_moments_with_plates(shared.dynamics_with_plates, per_foot.dynamics_with_plates,
                                              per_foot.plate_comparison.plates_see_all).summary()
        print(f"      {name}: mass {shared.model.total_mass:.1f} kg ({per_foot.model.total_mass:.1f}); per foot "
              f"{100 * np.sqrt(np.nanmean(gap[loaded, :, 2] ** 2)):.1f} % BW vertical, "
              f"{100 * np.sqrt(np.nanmean(np.sum(gap[loaded, :, :2] ** 2, -1))):.1f} horizontal; moments mean r "
              f"{moments['mean_r']:.3f}, RMSE up to "
              f"{max(m['rmse_nm_per_kg'] for m in moments['moments'].values()):.3f} N·m/kg")


def bench_ball() -> None:
    from mocap_dynamics.solver.contact import Material, Surface, estimate_ball, simulate_ball

    for name, material in (("table", Material(24.0, 4.0, 2.0)), ("mouse pad", Material(15.0, 5.0, 3.0))):
        surface = Surface.floor(0.72, material=material)
        ball = simulate_ball(surface, start=(0.0, 0.0, 1.0), velocity=(0.5, 0.1, 0.0), rate=240.0, duration=2.0)
        seconds, found = best_of(lambda: estimate_ball(ball.times, ball.positions))
        m = found.surface.material
        print(f"   ball on the {name}: true kappa {material.stiffness:g}, delta_N {material.normal_damping:g}, "
              f"delta_T {material.tangential_damping:g}, height 72 cm -> found {m.stiffness:.3f}, "
              f"{m.normal_damping:.3f}, {m.tangential_damping:.3f}, {100 * found.surface.top.height_at(0, 0):.3f} cm "
              f"({seconds:.3f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "out" / "bench_contact"), help="folder for the plots")
    parser.add_argument("--trials", nargs="*", help="names of the trials to run (default: all)")
    parser.add_argument("--sections", nargs="*", type=int, default=list(range(1, 11)),
                        help="the numbered sections of this docstring to run (default: all)")
    parser.add_argument("--files", nargs="+", type=Path, metavar="TRIAL",
                        help="your own recordings with force plates instead of ../shared/data (sections 2 and 3)")
    parser.add_argument("--static", type=Path, metavar="FILE", help="with --files: the static trial of them all")
    args = parser.parse_args()
    sections = set(args.sections)
    trials = TRIALS
    if args.files:
        missing = [str(f) for f in args.files + ([args.static] if args.static else []) if not f.is_file()]
        if missing:
            sys.exit(f"error: no such file: {', '.join(missing)} (check --files and --static)")
        static = None if args.static is None else str(args.static.resolve())
        trials = tuple((f.stem, str(f.resolve()), "given", static) for f in args.files)
        sections &= {1, 2, 3}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    load_package()
    print(f"== Contact from motion alone ({machine()}, load average {os.getloadavg()[0]:.1f})")
    if 1 in sections:
        for label, seconds in compile_times().items():
            print(f"   numba kernels of the {label}: {seconds}")
    if not SHARED.is_dir() and not args.files:
        print("   real trials: skipped (../shared/data is absent)")
        return
    rows = []
    for name, file, kind, static in trials if 2 in sections else ():
        if args.trials and name not in args.trials:
            continue
        if not (SHARED / file).is_file():
            print(f"   {name}: skipped ({file} is absent)")
            continue
        figures = trial_figures(name, file, static, out)
        if figures is not None:
            rows.append(figures)
    time_estimates(rows)
    for figures in rows:
        print_trial(figures)
    if 3 in sections:
        print("   the paper's springs (eq. 10 plane, unfiltered forward differences), same trials, no static:")
        for name, file, kind, static in trials:
            if static is None and (SHARED / file).is_file() and (not args.trials or name in args.trials):
                print(f"      {name}: {springs_figures(file)}")
    for number, section in ((4, bench_treadmill), (5, bench_turned), (6, bench_recaptured), (7, bench_lower_body),
                            (9, bench_cut), (10, bench_one_plate)):
        if number in sections:
            section(out)
    if 8 in sections:
        bench_ball()
    if rows:
        print_table(rows)
        print_moments_table(rows)


if __name__ == "__main__":
    main()
