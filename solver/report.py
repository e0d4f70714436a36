"""Human-readable summary of a pipeline report (the JSON report is the full record)."""

from __future__ import annotations


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
    lines.append("  timings: " + ", ".join(f"{k} {v:.3f} s" for k, v in report["timings_s"].items()))
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
