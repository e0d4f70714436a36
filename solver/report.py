"""A pipeline result's report: the JSON-ready record (``build_report``) and the few lines a person reads first
(``summary``)."""

from __future__ import annotations

import functools
import platform
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np

from .dynamics import Dynamics
from .io import quiet_standing_weight
from .io.trial import Trial
from .kinematics import Motion, convergence_summary, marker_error_stats
from .model import BodyModel
from .constants import STANDARD_GRAVITY as GRAVITY
from .options import options_to_dict


def build_report(result) -> dict:
    """A JSON-ready summary of a ``PipelineResult``: what was read, converted and computed, what the user should
    know, the seconds each step took and the steps reused from an earlier run (``pipeline.run``'s
    ``previous``). ``options`` are in the shape of an options file (``options.options_to_dict``)."""
    report = {"source": result.source, "versions": dict(versions()), "options": options_to_dict(result.options),
              "trial": _trial_report(result.trial)}
    if result.discovery is not None:
        report["discovery"] = result.discovery.summary()
    if result.model is not None:
        report["model"] = _model_report(result.model)
    if result.gap_fill is not None:
        report["gap_fill"] = result.gap_fill.summary()
    if result.motion is not None:
        report["reconstruction"] = _reconstruction_report(result.motion)
    if result.dynamics is not None:
        report["dynamics"] = _dynamics_report(result.dynamics, result.dynamics_with_plates)
    if result.contact is not None:
        report["contact"] = result.contact.summary()
        if result.plate_comparison is not None:
            report["contact"]["plates"] = result.plate_comparison.summary()
    if result.zero_gravity is not None:
        report["zero_gravity"] = result.zero_gravity.summary()
    report["timings_s"] = dict(result.timings)
    report["reused"] = list(result.reused)
    return report


@functools.cache
def versions() -> dict:
    """Mocap Dynamics (the manifest's version), Python and the solver's libraries, for reports (read once: the
    package metadata takes milliseconds to parse)."""
    manifest = Path(__file__).resolve().parents[1] / "blender_manifest.toml"
    found = {"mocap_dynamics": tomllib.loads(manifest.read_text())["version"] if manifest.is_file() else None,
             "python": platform.python_version()}
    for package in ("numpy", "scipy", "numba", "ezc3d"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:  # bundled wheels inside Blender may lack metadata
            found[package] = getattr(__import__(package), "__version__", None)
    return found


def _trial_report(trial: Trial) -> dict:
    gaps = trial.gaps()
    weight = quiet_standing_weight(trial)
    return {
        "frames": trial.n_frames,
        "rate_hz": trial.rate,
        "start_time_s": trial.start_time,
        "duration_s": trial.duration,
        "markers": trial.n_markers,
        "force_plates": len(trial.plates),
        "missing_samples_percent": 100.0 * sum(g.missing for g in gaps) / max(1, trial.n_frames * trial.n_markers),
        "markers_with_gaps": {g.label: {"missing": g.missing, "gaps": g.gaps, "longest": g.longest}
                              for g in gaps if not g.complete},
        "body_weight_n": weight,
        "body_mass_kg_from_plates": None if weight is None else weight / GRAVITY,
        "conversions": list(trial.conversions),
        "warnings": list(trial.warnings),
    }


def _model_report(model: BodyModel) -> dict:
    cal = model.metadata["calibration"]
    worst = sorted(cal.marker_residuals.items(), key=lambda kv: -kv[1])[:5]
    return {
        "template": cal.template,
        "segments": len(model.segments),
        "dof": model.nv,
        "mass_kg": model.total_mass,
        "mass_source": model.mass_source,
        "mass_assumed": model.mass_source.startswith("assumed"),
        "inertia_table": f"{cal.table} ({cal.sex})",
        "markerset": cal.markerset,
        "static": cal.static,
        "segment_lengths_m": cal.lengths,
        "cluster_residuals_m": cal.segment_residuals,
        "worst_markers_m": dict(worst),
        "joint_centres": cal.joint_centres,
        "welded": list(cal.welded),
        "initial_marker_rms_m": cal.initial_marker_rms,
        "markers": cal.markers,
        "ignored_markers": cal.ignored,
        "notes": list(cal.notes),
        "warnings": list(cal.warnings),
        "inertia_from_opensim_model": model.metadata.get("opensim_inertia"),
    }


def _reconstruction_report(motion: Motion) -> dict:
    summary = convergence_summary(motion)
    stats = marker_error_stats(motion)
    worst = np.argsort(-stats.median)[:5]
    return {
        "method": motion.method,
        "frames": summary.frames,
        "frames_converged": summary.converged,
        "converged_percent": summary.rate_percent,
        "frames_without_data": summary.no_data_frames,
        "iterations_mean": summary.iterations_mean,
        "iterations_max": summary.iterations_max,
        "constraint_norm_max": summary.constraint_norm_max,
        "seconds_per_frame": summary.seconds_per_frame,
        "marker_rms_m": summary.marker_rms,
        "worst_markers_median_m": {stats.labels[i]: float(stats.median[i]) for i in worst},
    }


def _residual_figures(dynamics: Dynamics) -> dict:
    weight = dynamics.model.total_mass * GRAVITY
    force = np.linalg.norm(dynamics.root_wrench[:, :3], axis=1)
    torque = np.linalg.norm(dynamics.root_wrench[:, 3:], axis=1)
    return {"root_force_mean_n": float(np.nanmean(force)),
            "root_force_mean_percent_bw": float(100 * np.nanmean(force) / weight),
            "root_force_max_n": float(np.nanmax(force)), "root_torque_mean_nm": float(np.nanmean(torque))}


def _dynamics_report(dynamics: Dynamics, with_plates: Dynamics | None) -> dict:
    best = with_plates or dynamics
    peaks = np.nanmax(np.linalg.norm(best.joint_torque_world, axis=-1), axis=0)
    report = {
        "frames": len(dynamics.times),
        "derivatives": dynamics.options,
        "without_external_forces": _residual_figures(dynamics),
        "peak_joint_torque_nm": {s.name: float(peaks[k]) for k, s in enumerate(best.model.segments)
                                 if k > 0 and s.joint != "weld"},
        "torques_with": "measured force plates" if with_plates is not None else "no external forces",
    }
    if with_plates is not None:
        report["with_measured_plates"] = _residual_figures(with_plates)
        report["root_force_ratio_with_to_without_plates"] = (report["with_measured_plates"]["root_force_mean_n"]
                                                             / report["without_external_forces"]["root_force_mean_n"])
    return report


def summary(report: dict) -> str:
    """A few lines a person reads first: what was imported, converted and worth a warning."""
    trial = report["trial"]
    lines = [
        f"Mocap Dynamics report for {report['source']}",
        f"  {trial['markers']} markers x {trial['frames']} frames at {trial['rate_hz']:g} Hz "
        f"({trial['duration_s']:.2f} s), {trial['force_plates']} force plates",
        f"  missing samples: {trial['missing_samples_percent']:.2f} % "
        f"({len(trial['markers_with_gaps'])} markers with gaps)",
    ]
    if trial.get("body_weight_n") is not None:
        lines.append(f"  quiet standing on the plates: {trial['body_weight_n']:.0f} N "
                     f"= {trial['body_mass_kg_from_plates']:.1f} kg")
    lines += [f"  converted: {c}" for c in trial["conversions"]]
    lines += [f"  warning: {w}" for w in trial["warnings"]]
    discovery = report.get("discovery")
    if discovery:
        lines.append(f"  marker set found from the motion: {len(discovery['rigid_clusters'])} rigid clusters; "
                     "segments (confidence): " + ", ".join(f"{s} {c:.2f}" for s, c in discovery["confidence"].items()))
        lines += [f"  note: {n}" for n in discovery["notes"]]
    model = report.get("model")
    if model:
        worst = max(model["cluster_residuals_m"].items(), key=lambda kv: kv[1], default=("-", 0.0))
        lines += [f"  body model {model['template']}: {model['segments']} segments, {model['dof']} DoF, "
                  f"{model['mass_kg']:.1f} kg ({model['mass_source']})",
                  f"  least rigid marker cluster: {worst[0]} {1000 * worst[1]:.1f} mm RMS; "
                  f"initial pose marker RMS {1000 * model['initial_marker_rms_m']:.1f} mm"]
        inertia = model.get("inertia_from_opensim_model")
        if inertia:
            lines.append(f"  inertia from {inertia['file']}: " + "; ".join(
                f"{segment} <- {'+'.join(bodies)}" for segment, bodies in inertia["mapped"].items())
                + "".join(f"; {segment} scaled to {body}'s mass" for segment, body in inertia["scaled"].items())
                + (f"; the inertia table's: {', '.join(inertia['kept'])}" if inertia["kept"] else "")
                + (f"; bodies not used: {', '.join(inertia['unused_bodies'])}" if inertia["unused_bodies"] else ""))
        lines += [f"  warning: {w}" for w in model["warnings"]]
    filled = report.get("gap_fill")
    if filled:
        by_method = ", ".join(f"{name} {n}" for name, n in filled["samples_by_method"].items() if n)
        lines.append(f"  gap filling ({filled['options']['method']}): {filled['samples_filled']} samples of "
                     f"{len(filled['markers'])} markers filled{f' ({by_method})' if by_method else ''}, "
                     f"{filled['gaps_left']} gaps left")
    rec = report.get("reconstruction")
    if rec:
        lines.append(f"  reconstruction ({rec['method']}): {rec['frames_converged']}/{rec['frames']} frames converged, "
                     f"marker RMS {1000 * rec['marker_rms_m']:.1f} mm, {1000 * rec['seconds_per_frame']:.2f} ms/frame")
    dyn = report.get("dynamics")
    if dyn:
        derivatives = dyn["derivatives"]
        cutoff = derivatives.get("cutoff_hz")
        lines.append(f"  derivatives: {derivatives['derivatives']}, " + (
            "no filter" if cutoff is None else f"low-pass {cutoff:g} Hz"
            + (f" ({derivatives['cutoff_source']})" if "cutoff_source" in derivatives else "")))
        line = (f"  root residual force: {dyn['without_external_forces']['root_force_mean_percent_bw']:.0f} % body "
                f"weight without contact forces")
        if "with_measured_plates" in dyn:
            line += f", {dyn['with_measured_plates']['root_force_mean_percent_bw']:.0f} % with the measured plates"
        lines.append(line)
    contact = report.get("contact")
    if contact:
        lines += _contact_lines(contact)
    lines.append("  timings: " + ", ".join([f"{k} {v:.3f} s" for k, v in report["timings_s"].items()]
                                           + [f"{k} reused" for k in report.get("reused", [])]))
    return "\n".join(lines) + "\n"


def _contact_lines(contact: dict) -> list[str]:
    lines = [f"  contact ({contact['forces'].replace('_', ' ')} forces on surfaces from "
             f"{contact['surfaces_from']}): explains {100 * contact['explained_force']:.0f} % of the root force"]
    if contact.get("floor_tilt_deg") is not None:
        lines[-1] += f"; floor tilted {contact['floor_tilt_deg']:.2f} deg"
    if "resting_height_m" in contact:
        lines[-1] += f", resting height {100 * contact['resting_height_m']:.1f} cm"
    for surface in contact["surfaces"]:
        loads = ", ".join(f"{a:.2f}-{b:.2f} s" for a, b in surface["load_intervals_s"]) or "never"
        extent = "" if not surface.get("extent_m") else \
            f", {surface['extent_m'][0]:.2f} x {surface['extent_m'][1]:.2f} m"
        lines.append(f"    {surface['name']}: height {100 * surface['height_m']:.1f} cm, tilt "
                     f"{surface['tilt_deg']:.1f} deg{extent}; carries load {loads}")
    plates = contact.get("plates")
    if plates:
        lines.append(f"  estimated vs plates: vertical GRF RMSE {plates['rmse_vertical_bw_percent']:.1f} % BW, "
                     f"r = {plates['correlation_vertical']:.2f}; horizontal RMSE "
                     f"{plates['rmse_horizontal_bw_percent']:.1f} % BW")
        for foot, figures in plates.get("feet", {}).items():
            cop = figures["cop_error_single_support_cm"]
            lines.append(f"    {foot}: vertical RMSE {figures['rmse_vertical_bw_percent']:.1f} % BW, "
                         f"r = {figures['correlation_vertical']:.2f}"
                         + ("" if cop != cop else f"; COP error {cop:.1f} cm in single support"))
    lines += [f"  warning: {w}" for w in contact.get("warnings", [])]
    return lines
