"""A pipeline result's report: the JSON-ready record (``build_report``) and the few lines a person reads first
(``summary``)."""

from __future__ import annotations

import functools
import math
import platform
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from .model.unplaced_markers import unnamed
from .options import options_to_dict
from .report_schema import ContactSummary, Report


def build_report(result) -> Report:
    """The JSON-ready report (``report_schema.Report``) of a ``PipelineResult``: each stage's section by the
    ``summary()`` of its result, the seconds each step took and the steps reused from an earlier run
    (``pipeline.run``'s ``previous``). ``options`` are in the shape of an options file
    (``options.options_to_dict``). Figures that do not exist (NaN) are None."""
    report: Report = {"source": result.source, "versions": dict(versions()),
                      "options": options_to_dict(result.options), "trial": result.trial.summary()}
    if result.discovery is not None:
        report["discovery"] = result.discovery.summary()
    if result.model is not None:
        report["model"] = result.model.summary()
    if result.gap_fill is not None:
        report["gap_fill"] = result.gap_fill.summary()
    if result.motion is not None:
        report["reconstruction"] = result.motion.summary()
    if result.dynamics is not None:
        report["dynamics"] = result.dynamics.summary(result.dynamics_with_plates, result.best_dynamics)
        if result.plates_applied is not None and result.plates_applied.notes:
            report["dynamics"]["plates_applied"] = list(result.plates_applied.notes)
    if result.contact is not None:
        contact: ContactSummary = result.contact.summary()
        if result.plate_comparison is not None:
            contact["plates"] = result.plate_comparison.summary()
        report["contact"] = contact
    if result.zero_gravity is not None:
        report["zero_gravity"] = result.zero_gravity.summary()
    report["timings_s"] = dict(result.timings)
    report["reused"] = list(result.reused)
    return _without_nan(report)


def _without_nan(value):
    """``value`` with every NaN float replaced by None (JSON has no NaN)."""
    if isinstance(value, dict):
        return {k: _without_nan(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_nan(v) for v in value]
    return None if isinstance(value, float) and math.isnan(value) else value


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


def summary(report: Report) -> str:
    """A few lines a person reads first: what was imported, converted and worth a warning."""
    trial = report["trial"]
    lines = [
        f"Mocap Dynamics report for {report['source']}",
        f"  {trial['markers']} markers x {trial['frames']} frames at {trial['rate_hz']:g} Hz "
        f"({trial['duration_s']:.2f} s), {trial['force_plates']} force plates",
        f"  missing samples: {trial['missing_samples_percent']:.2f} % "
        f"({len(trial['markers_with_gaps'])} marker{'' if len(trial['markers_with_gaps']) == 1 else 's'} with gaps)",
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
        dumas = [what for what, key in (("the segments' masses", "segment_masses"),
                                        ("the torso's centre of mass", "torso_centre")) if model.get(key) == "dumas"]
        lines += [f"  body model {model['template']}: {model['segments']} segments, {model['dof']} DoF, "
                  f"{model['mass_kg']:.1f} kg ({model['mass_source']})"
                  + (f"; shoes {shoes}" if (shoes := shoes_text(model.get("shoes_kg"))) else "")
                  + (f"; {' and '.join(dumas)} from Dumas et al. 2007" if dumas else ""),
                  f"  least rigid marker cluster: {worst[0]} {1000 * worst[1]:.1f} mm RMS; "
                  f"initial pose marker RMS {figure(model['initial_marker_rms_m'], '.1f', 1000)} mm"]
        inertia = model.get("inertia_from_opensim_model")
        if inertia:
            lines.append(f"  inertia from {inertia['file']}: " + "; ".join(
                f"{segment} <- {'+'.join(bodies)}" for segment, bodies in inertia["mapped"].items())
                + "".join(f"; {segment} scaled to {body}'s mass" for segment, body in inertia["scaled"].items())
                + (f"; the inertia table's: {', '.join(inertia['kept'])}" if inertia["kept"] else "")
                + (f"; bodies not used: {', '.join(inertia['unused_bodies'])}" if inertia["unused_bodies"] else ""))
        if model.get("ignored_markers"):
            lines.append(unused_markers_line(model["ignored_markers"], model.get("markers_moving_with", {})))
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
                     f"marker RMS {figure(rec['marker_rms_m'], '.1f', 1000)} mm, "
                     f"{figure(rec['seconds_per_frame'], '.2f', 1000)} ms/frame")
        if rec.get("frames_without_data"):
            lines.append(f"  warning: {rec['frames_without_data']} frames without the markers to place the pelvis: "
                         "a held pose shows there, and they get no forces or torques")
        if rec.get("samples_down_weighted"):
            lighter = ", ".join(f"{label} in {n}" for label, n in rec["samples_down_weighted"].items())
            lines.append(f"  markers weighing less where they left their segment on their own: {lighter} frames")
        if rec.get("frames_held"):
            held = ", ".join(f"{name} in {n}" for name, n in rec["frames_held"].items())
            lines.append(f"  warning: segments without the markers to place them, held at their posture relative to "
                         f"their parents (their motion assumed, not measured): {held} frames")
    dyn = report.get("dynamics")
    if dyn:
        derivatives = dyn["derivatives"]
        cutoff = derivatives.get("cutoff_hz")
        lines.append(f"  derivatives: {derivatives['derivatives']}, " + (
            "no filter" if cutoff is None else f"low-pass {cutoff:g} Hz"
            + (f" ({derivatives['cutoff_source']})" if "cutoff_source" in derivatives else "")))
        without = dyn["without_external_forces"]["root_force_mean_percent_bw"]
        line = f"  root residual force: {figure(without, '.0f')} % body weight without contact forces"
        if "with_measured_plates" in dyn:
            with_plates = dyn["with_measured_plates"]["root_force_mean_percent_bw"]
            line += f", {figure(with_plates, '.0f')} % with the measured plates"
        if "with_plates_and_estimated_support" in dyn:
            filled = dyn["with_plates_and_estimated_support"]["root_force_mean_percent_bw"]
            line += f", {figure(filled, '.0f')} % with the {dyn['torques_with']} (the torques' forces)"
        lines.append(line)
        if "plates" not in report.get("contact", {}):  # else among the plate comparison's warnings
            lines += [f"  note: {n}" for n in dyn.get("plates_applied", [])]
    contact = report.get("contact")
    if contact:
        lines += _contact_lines(contact)
    lines.append("  timings: " + ", ".join([f"{k} {v:.3f} s" for k, v in report["timings_s"].items()]
                                           + [f"{k} reused" for k in report.get("reused", [])]))
    return "\n".join(lines) + "\n"


def figure(value: float | None, spec: str, scale: float = 1.0) -> str:
    """A figure of the report for a person (this summary, the sidebar): ``scale * value`` formatted by ``spec``,
    or n/a where it does not exist (None in the report, left out of the collection metadata)."""
    return "n/a" if value is None else format(scale * value, spec)


def joint_moments_figures(plates: dict) -> tuple[dict, str] | None:
    """The figures of the joint moments with the estimated contact against those with the plates
    (``compare_moments_with_plates``) a person reads, and over which frames: where the plates see all the contact
    if they ever do, else every frame; None when not compared. (Figures that do not exist may be None or, in
    Blender's stored metadata, left out.)"""
    moments = plates.get("joint_moments")
    if not moments:
        return None
    seen = moments.get("where_plates_see_all") or {}
    counted = [v.get("frames", 0) for v in seen.get("moments", {}).values()]
    return (seen, "where the plates see all") if counted and max(counted) > 0 else (moments, "all frames")


def joint_moments_text(plates: dict) -> str | None:
    """``joint_moments_figures`` as one line: the means, then r per moment, left / right."""
    found = joint_moments_figures(plates)
    if found is None:
        return None
    figures, where = found
    sides = {}
    for name, values in figures.get("moments", {}).items():
        joint, side, component = name.removesuffix("_moment").split("_", 2)
        sides.setdefault(f"{joint} {component}", {})[side] = figure(values.get("r"), ".2f")
    each = ", ".join(f"{name} {r['l']} / {r['r']}" if len(r) == 2 else
                     f"{name} {' '.join(f'{v} ({k})' for k, v in r.items())}" for name, r in sides.items())
    return (f"joint moments, estimate vs plates ({where}): mean r {figure(figures.get('mean_r'), '.2f')}, RMSE "
            f"{figure(figures.get('mean_rmse_nm_per_kg'), '.2f')} N·m/kg; r (left / right) {each}")


def unused_markers_line(ignored: dict[str, str], moving: dict[str, dict]) -> str:
    """One line naming the markers the model does not use, grouped by why (``model.ignored_markers``), and the
    segment those without a name move with (``model.markers_moving_with``, ``model.unplaced_markers``)."""
    by_reason: dict[str, list[str]] = {}
    for label, why in ignored.items():
        by_reason.setdefault(why, []).append(label)
    by_segment: dict[str, list[str]] = {}
    for label, found in moving.items():
        by_segment.setdefault(found["segment"], []).append(label)
    hint = "; ".join(f"{', '.join(labels)} with the {segment} ({_span([moving[x]['spread_m'] for x in labels])} mm)"
                     for segment, labels in by_segment.items())
    return (f"  markers not used ({len(ignored)}): " + "; ".join(f"{', '.join(labels)} ({why})"
                                                              for why, labels in by_reason.items())
            + (f". Moving rigidly with a segment (their distances' spread): {hint}" if hint else "")
            + (". To place one on a segment: --markerset FILE.toml, or the Marker Mapping panel" if unnamed(ignored)
               else ""))


def _span(values_m: list[float]) -> str:
    """Millimetres, as "3" or "3-4"."""
    low, high = f"{1000 * min(values_m):.0f}", f"{1000 * max(values_m):.0f}"
    return low if low == high else f"{low}-{high}"


def filter_text(derivatives: dict) -> str:
    """The filter before differentiating, in a few words: "low-pass 16.5 Hz at touch-downs, 6 Hz after hard
    landings, 8 Hz elsewhere", "low-pass 6 Hz" or "no filter" (the report gives the reasons)."""
    cutoff = derivatives.get("cutoff_hz")
    if cutoff is None:
        return "no filter"
    steady, settling = derivatives.get("steady_cutoff_hz"), derivatives.get("settling_cutoff_hz")
    if steady is None or steady == cutoff:
        return f"low-pass {cutoff:.3g} Hz"
    return f"low-pass {cutoff:.3g} Hz at touch-downs, " + \
        (f"{settling:.3g} Hz after hard landings, " if settling is not None else "") + f"{steady:.3g} Hz elsewhere"


def shoes_text(shoes: dict | None) -> str:
    """The shoes a model wears: ``"0.30 kg each"`` (or per foot when they differ), "" barefoot."""
    shoes = shoes or {}
    if len(set(shoes.values())) == 1:
        return f"{next(iter(shoes.values())):.2f} kg each"
    return ", ".join(f"{name} {kg:.2f} kg" for name, kg in shoes.items())


def _contact_lines(contact: ContactSummary) -> list[str]:
    lines = [f"  contact ({contact['forces'].replace('_', ' ')} forces on surfaces from "
             f"{contact['surfaces_from']}): explains {figure(contact['explained_force'], '.0f', 100)} % of the root "
             "force"]
    if contact.get("floor_tilt_deg") is not None:
        lines[-1] += f"; floor tilted {contact['floor_tilt_deg']:.2f} deg"
    if contact.get("floor_velocity_m_s"):
        lines[-1] += (f"; floor moving at {sum(v * v for v in contact['floor_velocity_m_s']) ** 0.5:.2f} m/s "
                      "(a treadmill: contact taken relative to its belt)")
    if "resting_height_m" in contact:
        lines[-1] += f", resting height {100 * contact['resting_height_m']:.1f} cm"
    for surface in contact["surfaces"]:
        loads = ", ".join(f"{a:.2f}-{b:.2f} s" for a, b in surface["load_intervals_s"]) or "never"
        extent = "" if not surface.get("extent_m") else \
            f", {surface['extent_m'][0]:.2f} x {surface['extent_m'][1]:.2f} m"
        above = f" ({100 * surface['height_above_floor_m']:.1f} above the floor)" \
            if "height_above_floor_m" in surface else ""
        lines.append(f"    {surface['name']}: height {100 * surface['height_m']:.1f} cm{above}, tilt "
                     f"{surface['tilt_deg']:.1f} deg{extent}; carries load {loads}")
    if (flown := contact.get("flight")) is not None:
        lines.append(f"    in flight {flown['seconds']:.2f} s (no body point near a surface): root force "
                     f"{flown['root_force_rms_percent_bw']:.1f} % BW RMS there, zero for exact kinematics; the "
                     f"contact explains {figure(flown.get('explained_force_in_reach'), '.0f', 100)} % of the root "
                     "force in the frames with a body point near a surface")
    plates = contact.get("plates")
    if plates and plates["frames_compared"] == 0:
        lines.append(f"  estimated vs plates: no frame to compare (of {plates['frames']}, none has a pose with every "
                     "loaded foot on a plate that has data there)")
    elif plates:
        compared = "" if plates["frames_compared"] == plates["frames"] else \
            f" ({plates['frames_compared']} of {plates['frames']} frames: those with a pose and every loaded foot " \
            "on the plates)"
        lines.append(f"  estimated vs plates{compared}: vertical GRF RMSE "
                     f"{figure(plates['rmse_vertical_bw_percent'], '.1f')} % BW, "
                     f"r = {figure(plates['correlation_vertical'], '.2f')}; horizontal RMSE "
                     f"{figure(plates['rmse_horizontal_bw_percent'], '.1f')} % BW")
        alone = plates.get("where_plates_see_all", {})
        seen = alone.get("frames_compared", plates["frames_compared"])
        if seen == 0:
            lines.append("    a box or seat carries load in every frame compared")
        elif seen != plates["frames_compared"]:
            lines.append(f"    where no box or seat carries load ({seen} of {plates['frames_compared']} frames): "
                         f"vertical RMSE {figure(alone['rmse_vertical_bw_percent'], '.1f')} % BW, r = "
                         f"{figure(alone['correlation_vertical'], '.2f')}; horizontal RMSE "
                         f"{figure(alone['rmse_horizontal_bw_percent'], '.1f')} % BW")
        for foot, figures in plates.get("feet", {}).items():
            cop = figures["cop_error_single_support_cm"]
            onset, offset = figures["onset_error_mean_abs_s"], figures["offset_error_mean_abs_s"]
            lines.append(f"    {foot}: vertical RMSE {figure(figures['rmse_vertical_bw_percent'], '.1f')} % BW, "
                         f"r = {figure(figures['correlation_vertical'], '.2f')}; horizontal RMSE "
                         f"{figure(figures['rmse_horizontal_bw_percent'], '.1f')} % BW"
                         + ("" if cop is None else f"; COP error {cop:.1f} cm in single support")
                         + ("" if onset is None or offset is None else
                            f"; onsets / offsets {1000 * onset:.0f} / {1000 * offset:.0f} ms off on average"))
        if (text := joint_moments_text(plates)) is not None:
            lines.append(f"    {text}")
    if plates:
        lines += [f"  warning: {w}" for w in plates.get("warnings", [])]
    lines += [f"  warning: {w}" for w in contact.get("warnings", [])]
    return lines
