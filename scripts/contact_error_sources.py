"""Where the joint moments from motion alone go wrong: each part of the estimated contact replaced by the plates'.

    .venv/bin/python scripts/contact_error_sources.py TRIAL [--static FILE] [--impact S] [--cutoff C]

Runs the pipeline with its defaults (until contact; ``--cutoff`` auto, winter, none or Hz overrides the
low-pass cutoff) and compares, over the frames in which the plates see all
the contact (every loaded foot on a plate, no box or seat loaded), our hip, knee and ankle flexion moments from
the motion alone with ours from the plates: both use the same kinematics, so what differs is only the contact
each applies. The estimate's per-foot wrench (force, centre of pressure, free moment) is then rebuilt with
one part taken from the plates at a time, and the moments recomputed (``rnea``): the RMSE [N·m/kg] that is left
says how much of the error that part carries. Parts: each force component (vertical, anteroposterior,
mediolateral), the COP, the free moment; the total force (the plates' total shared between the feet as the
estimate shares it: the error of the kinematic root force the estimate must balance) and the split (the
estimate's total, each foot's difference from the other as the plates', per component). Printed over all those
frames, over the first ``--impact`` seconds after each landing (plates' total vertical force rising above 5 %
of body weight) and over the rest. Also: the kinematic root force against the plates' total, per component.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import load_package  # noqa: E402

import numpy as np  # noqa: E402

JOINTS = (("hip", "flexion"), ("knee", "flexion"), ("ankle", "dorsiflexion"))
#: Substitutions: name -> the parts taken from the plates.
PARTS = {"none (the estimate)": (), "vertical": ("v",), "anteroposterior": ("ap",), "mediolateral": ("ml",),
         "COP": ("cop",), "free moment": ("free",), "force, COP kept": ("v", "ap", "ml"),
         "COP and vertical": ("cop", "v"), "COP and anteroposterior": ("cop", "ap"),
         "total force": ("total",), "split v": ("split v",), "split ap": ("split ap",),
         "split v and ap": ("split v", "split ap"), "total force and COP": ("total", "cop")}


def foot_wrenches(forces: np.ndarray, points: np.ndarray, moments: np.ndarray, height: float):
    """Force (T, 3), COP (T, 3) on the level plane at ``height`` and free moment (T,) of forces (T, K, 3) at
    ``points`` (T, K, 3) with moments (T, K, 3) (NaN entries apply nothing)."""
    ok = np.isfinite(forces).all(-1) & np.isfinite(points).all(-1)
    forces, points = np.where(ok[..., None], forces, 0.0), np.where(ok[..., None], points, 0.0)
    force = forces.sum(1)
    origin = np.array([0.0, 0.0, height])
    moment = np.cross(points - origin, forces).sum(1) + np.nan_to_num(moments).sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        cop = origin + np.cross([0.0, 0.0, 1.0], moment) / force[:, 2:3]
    cop = np.where(np.abs(force[:, 2:3]) > 1e-6, cop, np.nan)
    free = moment[:, 2] - np.nan_to_num(np.cross(cop - origin, force))[:, 2]
    return force, cop, free


def substituted(feet, estimated, plates, parts, axes, places):
    """``ExternalForces`` on the segments ``feet``: the estimate's wrenches, ``parts`` from the plates (docstring)."""
    from mocap_dynamics.solver.dynamics import ExternalForces
    total_e, total_p = sum(w[0] for w in estimated), sum(w[0] for w in plates)
    points, forces, moments = [], [], []
    for f, ((fe, ce, me), (fp, cp, mp)) in enumerate(zip(estimated, plates)):
        force = sum(np.outer((fp if key in parts else fe) @ axis, axis) for key, axis in axes.items())
        if "total" in parts:
            share = np.where(np.abs(total_e[:, 2]) > 1e-6, fe[:, 2] / np.where(total_e[:, 2] == 0, 1, total_e[:, 2]),
                             0.5)
            force = fe + (total_p - total_e) * share[:, None]
        for key in ("v", "ap"):
            if f"split {key}" in parts:
                other = plates[1 - f][0]
                half = 0.5 * (total_e @ axes[key]) + 0.5 * ((fp - other) @ axes[key])
                force = force + np.outer(half - force @ axes[key], axes[key])
        cop = cp if "cop" in parts else ce
        cop = np.where(np.isfinite(cop), cop, places[f])
        points.append(cop)
        forces.append(force)
        moments.append(np.outer(mp if "free" in parts else me, [0.0, 0.0, 1.0]))
    return ExternalForces(np.array(feet), np.stack(points, 1), np.stack(forces, 1), np.stack(moments, 1))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trial", help="a trial with force plates (C3D, or TRC with NAME_grf.mot beside it)")
    parser.add_argument("--static", help="a static trial to calibrate on")
    parser.add_argument("--impact", type=float, default=0.15, help="seconds after each landing counted as impact")
    parser.add_argument("--cutoff", default="auto", help="the pipeline's cutoff: auto (default), winter, none or Hz")
    args = parser.parse_args(argv)
    load_package()
    from mocap_dynamics.solver.dynamics import joint_moments, plate_forces, rnea
    from mocap_dynamics.solver.pipeline import PipelineOptions, run

    cutoff = args.cutoff if args.cutoff in ("auto", "winter", "none") else float(args.cutoff)
    result = run(args.trial, PipelineOptions(until="contact", static=args.static, cutoff=cutoff))
    contact, comparison, dynamics = result.contact, result.plate_comparison, result.contact.dynamics
    if comparison is None or not contact.feet:
        sys.exit(f"{Path(args.trial).name}: no force plates or no feet to compare")
    model, weight = contact.model, contact.body_weight
    feet = [model.index(name) for name in contact.feet]
    frames = np.searchsorted(result.motion.times, dynamics.times - 1e-9)
    measured = plate_forces(result.trial, result.motion)
    height = float(np.nanmedian(result.trial.plate_samples.cop[..., 2]))
    plates, estimated, places = [], [], []
    for segment in feet:
        on = measured.segments == segment
        plates.append(foot_wrenches(measured.forces[frames][:, on], measured.points[frames][:, on],
                                    measured.moments[frames][:, on], height))
        mine = contact.point_segments == segment
        estimated.append(foot_wrenches(contact.point_forces[:, mine], contact.point_positions[:, mine],
                                       np.zeros_like(contact.point_forces[:, mine]), height))
        places.append(contact.point_positions[:, mine].mean(1))
    forward = comparison.forward
    axes = {"v": np.array([0.0, 0.0, 1.0]), "ap": forward, "ml": np.cross([0.0, 0.0, 1.0], forward)}
    seen = comparison.plates_see_all
    total_p = sum(w[0] for w in plates)
    rising = np.flatnonzero(np.diff((total_p[:, 2] > 0.05 * weight).astype(int)) == 1) + 1
    impact = np.zeros(len(seen), bool)
    for start in rising:
        impact |= (dynamics.times >= dynamics.times[start]) & (dynamics.times < dynamics.times[start] + args.impact)
    windows = {name: frames_ for name, frames_ in (("all", seen), ("impact", seen & impact), ("rest", seen & ~impact))
               if frames_.any()}
    reference = joint_moments(result.dynamics_with_plates)
    mass = model.total_mass

    def errors(moments) -> list[list[float]]:
        rows = []
        for frames_ in windows.values():
            row = []
            for side in "lr":
                for joint, component in JOINTS:
                    d = (moments.moment(f"{joint}_{side}", component)
                         - reference.moment(f"{joint}_{side}", component))[frames_] / mass
                    row.append(float(np.sqrt(np.nanmean(d ** 2))))
            rows.append(row)
        return rows

    print(f"{Path(args.trial).name}: cutoff {dynamics.options.get('cutoff_hz')} Hz; frames where the plates see "
          f"all: {seen.sum()} of {len(seen)} ({(seen & impact).sum()} within {args.impact:g} s of a landing)")
    print("RMSE [N·m/kg] of our flexion moments from motion alone against ours with the plates, with the part "
          "named taken from the plates (mean over hip, knee, ankle of both sides; then L hip knee ankle, R ...)")
    print(f"  {'from the plates':26s} " + " ".join(f"{w:>7s}" for w in windows) + "   per joint (all frames)")
    for name, parts in PARTS.items():
        external = substituted(feet, estimated, plates, parts, axes, places)
        moments = joint_moments(rnea(model, dynamics.times, dynamics.q, dynamics.v, dynamics.a,
                                     gravity=dynamics.gravity, external=external))
        rows = errors(moments)
        print(f"  {name:26s} " + " ".join(f"{np.mean(r):7.3f}" for r in rows) + "   "
              + " ".join(f"{x:.3f}" for x in rows[0]))
    root = contact.root_wrench_without[:, :3]
    for label, force in (("estimated total", sum(w[0] for w in estimated)), ("kinematic root force", root)):
        for window, frames_ in windows.items():
            rmse = [100 * np.sqrt(np.nanmean(((force - total_p) @ axis)[frames_] ** 2)) / weight
                    for axis in axes.values()]
            print(f"  {label} against the plates' total, {window}: RMSE vertical {rmse[0]:.1f}, anteroposterior "
                  f"{rmse[1]:.1f}, mediolateral {rmse[2]:.1f} % BW")


if __name__ == "__main__":
    main()
