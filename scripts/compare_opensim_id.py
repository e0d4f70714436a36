"""Our joint moments against OpenSim 4.6 inverse dynamics on the subject's own OpenSim model (issue 15).

    NUMBA_CACHE_DIR=.venv-peers/numba-cache .venv-peers/bin/python scripts/compare_opensim_id.py \\
        ../shared/data/subject4_DJ3.trc [more trials] [--opensim-cutoff 6] [--out DIR] [pipeline flags]

prints, per trial and joint, r and RMSE [N·m/kg] of our moments with the plates and from the motion alone
against the reference, and the mean r over hip, knee and ankle flexion: over the whole trial, over the frames
in which the plates see all the contact ('covered') and over those away from touch-downs (outside 0.03 s
before to 0.1 s after each plate's onset: the impact, whose peak neither side's coordinates follow); ours with
the plates low-passed at our own cutoff where the plates see all (``low_passed_plates``: what an estimate from
the motion alone would give were its forces exact up to the motion's bandwidth); and the moment about the
plates' centre of pressure that each model's motion needs and the plates do not give (``unbalanced_moment``:
ours and OpenSim's, from the same markers and plates); ``--out`` keeps every file.

For each trial ``NAME.trc`` the folder must hold ``NAME_opensim_ik.mot`` (OpenSim IK coordinates),
``NAME_grf.mot`` (the plates) and ``SUBJECT_opensim_model.osim`` (``SUBJECT`` a prefix of ``NAME``), as
``../shared/data`` names them; your own trial's files, named otherwise, are given with ``--reference-model``,
``--reference-ik`` and ``--reference-grf`` (one trial; the plates serve both sides). A
``SUBJECT_static1.trc`` there is our static trial unless ``--static`` says otherwise. Any pipeline flag
(``--cutoff``, ``--contact-forces``, ``--mass``, ...) sets our run; the defaults are the pipeline's.

The reference: OpenSim's ``InverseDynamicsTool`` on that model and those coordinates, low-passed at
``--opensim-cutoff`` Hz (6 by default, the usual choice with OpenSim's tool; -1: none), with every plate's
force, centre of pressure and free moment applied, sample by sample, to the foot (``calcn_l``/``calcn_r``)
whose midpoint (calcaneus to toes origin, from the OpenSim model's own kinematics) is nearest the centre of
pressure: a plate stepped on by both feet in turn is handed over.

Ours: ``run()`` with the plates (``dynamics_with_plates``) and from the motion alone (``contact.dynamics``,
the plates unused), as clinical moments (``solver.dynamics.moments``).

Why the comparison is fair although the models differ: the OpenSim model is Rajagopal-style (hip
Z-X-Y, a one-DoF "walker" knee with coupled translations, an oblique talocrural ankle and a subtalar joint,
AddBiomechanics-scaled segment masses); ours is a 15-segment model from the markers with de Leva's
inertia tables and Dumas et al.'s segment masses, ball hips and ankles and a hinge knee. Both report
generalized forces about anatomical axes that agree in meaning and sign: hip flexion, adduction, internal
rotation (OpenSim ``hip_flexion_l``,
``hip_adduction_l``, ``hip_rotation_l``; both the ISB joint coordinate system), knee flexion
(``knee_angle_l``) and ankle dorsiflexion (``ankle_angle_l``, about an axis tilted from ours by the
talocrural obliquity). Not compared: ankle inversion against OpenSim's subtalar angle, whose axis is some
40° off ours (their angles correlate at r ≈ 0.5 on DJ3), and the knee's other components (OpenSim's knee
has one coordinate). The joint-angle correlation is printed beside each moment as the check that the axes
match. Both sides see the same plate
forces at the same samples, on the same time base (OpenSim's output is interpolated onto our frames), and
both are divided by the OpenSim model's mass, so RMSE is in N·m/kg of one reference mass. What differs is
left in the figures: filtering (theirs at ``--opensim-cutoff``, ours as our run says), segment inertia, joint
centres (the scaled model's against ours from the markers) and the knee and ankle axes. Segment inertia shows
most in swing, where no force acts: the reference's shanks and feet are heavier than the tables' (subject 4's
foot 2.5 % of the body mass against our 1.7 with its shoe, its shank's centre of mass about 48 % of the way
down from the knee against de Leva's 45), and its hip moments in late swing are about 1.7 times ours (walking1:
-35 against -20 N·m); with its leg segments' masses, centres and inertia in our model, ours comes to -35 too
(session check, 2026-12-06).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import load_package  # noqa: E402

import numpy as np  # noqa: E402

#: (our joint, our component) -> OpenSim coordinate pattern ({s}: side); flexion rows are the main joints.
PAIRS = ((("hip", "flexion"), "hip_flexion_{s}"), (("knee", "flexion"), "knee_angle_{s}"),
         (("ankle", "dorsiflexion"), "ankle_angle_{s}"), (("hip", "adduction"), "hip_adduction_{s}"),
         (("hip", "internal_rotation"), "hip_rotation_{s}"))
FEET = ("calcn_l", "calcn_r")
#: The OpenSim bodies whose origins the comparison needs: the feet's ends (``plate_loads``) and the pelvis, the
#: point about which OpenSim reports its residuals (``unbalanced_moment``).
BODIES = FEET + ("toes_l", "toes_r", "pelvis")


class ReferenceFiles(NamedTuple):
    """The reference's files given by the user (``--reference-model``, ``--reference-ik``, ``--reference-grf``),
    None where they are found by name beside the trial."""

    model: Path | None = None
    ik: Path | None = None
    grf: Path | None = None


def reference_files(trial: Path, given: ReferenceFiles = ReferenceFiles()) -> tuple[Path, Path, Path]:
    """The OpenSim model, IK coordinates and GRF of ``trial``: those ``given``, else found by name beside it
    (module docstring); InputError naming what is missing."""
    from mocap_dynamics.solver.errors import InputError
    models = sorted(p for p in trial.parent.glob("*_opensim_model.osim")
                    if trial.stem.startswith(p.name.removesuffix("_opensim_model.osim")))
    found = ReferenceFiles(models[-1] if models else trial.with_name("SUBJECT_opensim_model.osim"),
                           trial.with_name(f"{trial.stem}_opensim_ik.mot"), trial.with_name(f"{trial.stem}_grf.mot"))
    files = ReferenceFiles(*(g or f for g, f in zip(given, found)))
    for flag, path, own in zip(("--reference-model", "--reference-ik", "--reference-grf"), files, given):
        if not path.is_file():
            raise InputError(f"{trial.name}: no OpenSim reference {path.name} "
                             f"{'at ' + str(path.parent) if own else 'beside it'}",
                             f"give its file with {flag} FILE" if not own else "check the path")
    return files


def body_origins(model_file: Path, ik_file: Path, bodies: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """IK times and the origins (T, B, 3) of ``bodies`` of the OpenSim model at its IK coordinates, Y up."""
    import opensim as osim
    model = osim.Model(str(model_file))
    state = model.initSystem()
    table = osim.TimeSeriesTable(str(ik_file))
    in_degrees = table.getTableMetaDataAsString("inDegrees").strip().lower() == "yes"
    labels, times = list(table.getColumnLabels()), np.array(table.getIndependentColumn())
    data = table.getMatrix().to_numpy()
    coordinates = model.getCoordinateSet()
    names = [n for n in labels if coordinates.contains(n)]
    rotational = {n: coordinates.get(n).getMotionType() == 1 for n in names}  # 1: rotational
    origins = np.empty((len(times), len(bodies), 3))
    for t in range(len(times)):
        for n in names:
            value = data[t, labels.index(n)]
            coordinates.get(n).setValue(state, np.radians(value) if in_degrees and rotational[n] else value, False)
        model.realizePosition(state)
        for b, body in enumerate(bodies):
            origins[t, b] = model.getBodySet().get(body).getPositionInGround(state).to_numpy()
    return times, origins


def plate_times(plates) -> np.ndarray:
    """The sample times [s] of the plates read from a GRF file (one clock for all)."""
    return plates[0].start_time + np.arange(len(plates[0].force)) / plates[0].rate


def plate_loads(plates, ik_times: np.ndarray, centres: np.ndarray, cutoff: float | None = None):
    """The plates (``read_grf_mot``) as external forces on ``FEET`` (one entry per plate and foot, NaN while the
    other foot has the plate), at the GRF file's samples, in our axes; and those sample times. ``cutoff`` [Hz]:
    each entry's force and moment about the origin low-passed there (``filtered_loads``)."""
    from mocap_dynamics.solver.dynamics import ExternalForces
    from mocap_dynamics.solver.io.conventions import to_z_up
    times = plate_times(plates)
    feet = to_z_up(np.stack([np.stack([np.interp(times, ik_times, centres[:, f, i]) for i in range(3)], -1)
                             for f in range(2)], 1), "Y")  # (T, 2, 3)
    segments, points, forces, moments = [], [], [], []
    for plate in plates:
        nearest = np.argmin(np.linalg.norm(feet - plate.cop[:, None], axis=-1), axis=1)
        for f in range(2):
            mine = (nearest == f)[:, None]
            segments.append(f)
            points.append(np.where(mine, plate.cop, np.nan))
            forces.append(np.where(mine, plate.force, np.nan))
            moments.append(np.where(mine, plate.free_moment, np.nan))
    external = ExternalForces(np.array(segments), np.stack(points, 1), np.stack(forces, 1), np.stack(moments, 1))
    return times, external if cutoff is None else filtered_loads(external, plates[0].rate, cutoff)


def filtered_loads(external, rate: float, cutoff: float):
    """``external`` with each entry's force and moment about the origin (zero while the entry's foot is off its
    plate) low-passed at ``cutoff`` [Hz], applied at the origin: the plates filtered like the coordinates, as
    Kristianslund et al. (2012) recommend against the impact peaks that kinematics and forces filtered
    differently produce in joint moments (Bisseling & Hof 2006)."""
    from mocap_dynamics.solver.dynamics import ExternalForces
    from mocap_dynamics.solver.lowpass import butter2, filtfilt, pad_length
    force = np.nan_to_num(external.forces)
    moment = np.nan_to_num(np.cross(external.points, external.forces) + external.moments)
    smooth = lambda x: filtfilt(*butter2(cutoff, rate), x, pad_length(cutoff, rate, len(x)))  # noqa: E731
    return ExternalForces(external.segments, np.zeros_like(force), smooth(force), smooth(moment))


class Reference(NamedTuple):
    """OpenSim's inverse dynamics of a trial: its output table (``moments``), the model's mass [kg], the IK
    file, the plates (``read_grf_mot``), and the IK times with the pelvis origin (T, 3) there, Y up."""

    moments: object
    mass: float
    ik_file: Path
    plates: tuple
    pelvis: tuple[np.ndarray, np.ndarray]


def opensim_reference(trial: Path, cutoff: float, folder: Path, filter_plates: bool = False,
                      given: ReferenceFiles = ReferenceFiles()) -> Reference:
    """OpenSim's inverse dynamics of ``trial`` with its ``reference_files`` (module docstring); ``filter_plates``:
    the plates low-passed at ``cutoff`` too (``filtered_loads``)."""
    import opensim as osim
    from mocap_dynamics.solver.io import read_grf_mot, read_table, write_table
    from mocap_dynamics.solver.io.atomic import write_text
    from mocap_dynamics.solver.opensim.loads import external_loads_xml, loads_table
    osim.Logger.removeFileSink()  # no opensim.log in the working folder
    model_file, ik_file, grf_file = reference_files(trial, given)
    ik_times, origins = body_origins(model_file, ik_file, BODIES)
    centres = (origins[:, :2] + origins[:, 2:4]) / 2
    plates = read_grf_mot(grf_file)
    times, external = plate_loads(plates, ik_times, centres, cutoff if filter_plates else None)
    table, bodies = loads_table(FEET, times, external)
    write_table(table, folder / "reference_grf.mot")
    write_text(folder / "reference_loads.xml", external_loads_xml(bodies, "reference_grf.mot"))
    tool = osim.InverseDynamicsTool()
    tool.setModelFileName(str(model_file))
    tool.setCoordinatesFileName(str(ik_file))
    tool.setExternalLoadsFileName(str(folder / "reference_loads.xml"))
    tool.setLowpassCutoffFrequency(cutoff)
    excluded = osim.ArrayStr()
    excluded.append("Muscles")  # net joint moments: the model's muscles (passive or activated) apply nothing
    tool.setExcludedForces(excluded)
    tool.setStartTime(float(ik_times[0]))
    tool.setEndTime(float(ik_times[-1]))
    tool.setResultsDir(str(folder))
    tool.setOutputGenForceFileName("reference_id.sto")
    here = os.getcwd()
    os.chdir(folder)
    try:
        if not tool.run():
            raise RuntimeError(f"OpenSim's inverse dynamics failed on {trial.name}")
    finally:
        os.chdir(here)
    model = osim.Model(str(model_file))
    return Reference(read_table(folder / "reference_id.sto"), model.getTotalMass(model.initSystem()), ik_file,
                     plates, (ik_times, origins[:, 4]))


def _fit(ours: np.ndarray, theirs: np.ndarray, frames: np.ndarray | None = None) -> tuple[float, float]:
    keep = np.isfinite(ours) & np.isfinite(theirs) & (True if frames is None else frames)
    return float(np.corrcoef(ours[keep], theirs[keep])[0, 1]), float(np.sqrt(np.mean((ours - theirs)[keep] ** 2)))


def plates_see_all(contact, comparison) -> np.ndarray:
    """(T,) on the contact dynamics' frames: the frames in which the reference, which has only the plates, sees
    all the contact (``PlateComparison.plates_see_all``: no loaded foot off the plates, no box or seat
    loaded)."""
    return np.interp(contact.dynamics.times, comparison.times, comparison.plates_see_all.astype(float)) > 0.5


def unbalanced_moment(dynamics, reference: Reference):
    """The moment [N·m] about the lab's lateral axis (OpenSim's Z, our -Y) through the plates' combined centre of
    pressure that each model's motion needs beyond the plates' loads: zero for a model whose masses and motion
    are the body's. Ours: the root residual with the plates (``dynamics``), moved from the root origin to that
    point; OpenSim's: its pelvis residuals (``pelvis_tilt_moment``, about the ground's Z through the pelvis
    origin, and the ``pelvis_t*`` forces, in ground axes) moved there. Both (T,) on ``dynamics.times``, in our
    axes (about +Y); NaN where the plates carry under a tenth of the body weight (no centre of pressure).
    Where this is large the joint moments from the motion alone, whose contact must carry it, part from the
    reference's, whose pelvis keeps it."""
    from mocap_dynamics.solver.io.conventions import to_z_up
    plates, moments = reference.plates, reference.moments
    force = sum(np.nan_to_num(p.force) for p in plates)
    moment = sum(np.nan_to_num(np.cross(p.cop, p.force) + p.free_moment) for p in plates)
    height = np.nanmean(np.concatenate([p.cop[:, 2] for p in plates]))
    loaded = force[:, 2] > 0.1 * dynamics.model.total_mass * np.linalg.norm(dynamics.gravity)  # else ill-defined
    with np.errstate(divide="ignore", invalid="ignore"):
        cop = np.stack([(height * force[:, 0] - moment[:, 1]) / force[:, 2],
                        (height * force[:, 1] + moment[:, 0]) / force[:, 2], np.full(len(force), height)], -1)
    cop[~loaded] = np.nan
    on = lambda times, x: np.stack([np.interp(dynamics.times, times, x[:, i]) for i in range(3)], -1)  # noqa: E731
    point = on(plate_times(plates), cop)
    ours = dynamics.root_wrench[:, 3:] + np.cross(dynamics.q[:, :3] - point, dynamics.root_wrench[:, :3])
    residual_force = on(moments.time, to_z_up(np.stack(
        [moments.column(f"pelvis_t{axis}_force") for axis in "xyz"], -1), "Y"))
    origin = on(reference.pelvis[0], to_z_up(reference.pelvis[1], "Y"))
    tilt = np.interp(dynamics.times, moments.time, moments.column("pelvis_tilt_moment"))
    theirs = -tilt + np.cross(origin - point, residual_force)[:, 1]
    return ours[:, 1], theirs


def balance(result, reference: Reference) -> dict:
    """Mean and RMS [N·m/kg] of each side's ``unbalanced_moment`` where the plates see all away from
    touch-downs, and their r. (At a landing's impact, 6 Hz coordinates leave the reference tens of N·m/kg.)
    The dynamics with the plates share the contact's frames (one filtering of the motion)."""
    if result.dynamics_with_plates is None or result.plate_comparison is None:
        return {}
    ours, theirs = unbalanced_moment(result.dynamics_with_plates, reference)
    seen = plates_see_all(result.contact, result.plate_comparison) \
        & result.plate_comparison.away_from_touchdowns
    keep = np.isfinite(ours) & np.isfinite(theirs) & seen
    ours, theirs = ours[keep] / reference.mass, theirs[keep] / reference.mass
    return {"ours_mean": float(ours.mean()), "ours_rms": float(np.sqrt(np.mean(ours ** 2))),
            "opensim_mean": float(theirs.mean()), "opensim_rms": float(np.sqrt(np.mean(theirs ** 2))),
            "r": float(np.corrcoef(ours, theirs)[0, 1])}


def low_passed_plates(dynamics):
    """Our ``dynamics`` with the plates (``PipelineResult.dynamics_with_plates``) again, the plates low-passed at
    the motion's own cutoff at touch-downs (``options["cutoff_hz"]``; ``filtered_loads``): the measured forces
    with no more bandwidth than the kinematics have at touch-downs: the moments an estimate from the motion alone
    would give were its forces exact up to that cutoff. None without plates or a cutoff."""
    from mocap_dynamics.solver.dynamics import rnea
    from mocap_dynamics.solver.dynamics.derivatives import time_step
    cutoff = dynamics.options.get("cutoff_hz") if dynamics is not None else None
    if cutoff is None or dynamics.external is None:
        return None
    external = filtered_loads(dynamics.external, 1.0 / time_step(dynamics.times), cutoff)
    return rnea(dynamics.model, dynamics.times, dynamics.q, dynamics.v, dynamics.a, gravity=dynamics.gravity,
                external=external, options=dynamics.options)


def compare(result, reference, mass: float, ik_file: Path) -> list[dict]:
    """Rows per side and joint component: r and RMSE [N·m/kg] of ours with the plates and from the motion
    alone against the reference (from the motion alone also where the plates see all, ``covered``, and there
    away from touch-downs, ``away``; with the plates low-passed at our cutoff, ``low_passed``, where the plates see
    all), and r of the joint angles (the axes check)."""
    from mocap_dynamics.solver.dynamics import joint_moments
    from mocap_dynamics.solver.io import read_table
    from mocap_dynamics.solver.kinematics import joint_angles
    ik = read_table(ik_file)
    angles = joint_angles(result.motion)
    sources = {"plates": result.dynamics_with_plates,
               "motion_alone": result.contact.dynamics if result.contact is not None else None,
               "low_passed": low_passed_plates(result.dynamics_with_plates)}
    moments = {key: joint_moments(d) for key, d in sources.items() if d is not None}
    seen = None if result.plate_comparison is None else plates_see_all(result.contact, result.plate_comparison)
    away = None if seen is None else seen & result.plate_comparison.away_from_touchdowns
    rows = []
    for (joint, component), pattern in PAIRS:
        for side in "lr":
            coordinate = pattern.format(s=side)
            if f"{coordinate}_moment" not in reference.columns or f"{joint}_{side}" not in angles.joints:
                continue
            their_angle = np.interp(result.motion.times, ik.time, ik.column(coordinate))
            row = {"joint": f"{joint}_{side}_{component}", "opensim": coordinate,
                   "our_cutoff_hz": result.dynamics.options.get("cutoff_hz"),
                   "angle_r": _fit(angles.angle(f"{joint}_{side}", component), their_angle)[0]}
            for key, m in moments.items():
                ours = m.moment(f"{joint}_{side}", component) / mass
                theirs = np.interp(m.times, reference.time, reference.column(f"{coordinate}_moment")) / mass
                row[f"{key}_r"], row[f"{key}_rmse"] = _fit(ours, theirs, seen if key == "low_passed" else None)
                if key == "motion_alone" and seen is not None:
                    row["covered_r"], row["covered_rmse"] = _fit(ours, theirs, seen)
                    row["away_r"], row["away_rmse"] = _fit(ours, theirs, away)
            rows.append(row)
    return rows


def print_table(name: str, rows: list[dict], settings: str, balanced: dict | None = None) -> None:
    cutoff = rows[0]["our_cutoff_hz"] if rows else None
    used = "none" if cutoff is None else f"{cutoff:.1f} Hz"
    print(f"\n{name} ({settings}; our cutoff used: {used}): r and RMSE [N·m/kg] against OpenSim ID with the "
          "plates; 'covered': the frames in which every foot loaded stands on a plate and no "
          "other surface carries load (there the reference sees all the contact); 'away': those frames outside "
          "0.03 s before to 0.1 s after each touch-down on a plate; 'low-passed': ours with the plates low-passed "
          "at our cutoff, covered frames (what an estimate from the motion alone, exact up to that cutoff, would "
          "give)")
    labels = {"plates": "plates", "motion_alone": "motion alone", "covered": "motion alone, covered frames",
              "away": "motion alone, covered frames away from touch-downs",
              "low_passed": "the plates low-passed at our cutoff, covered frames"}
    print(f"  {'joint':28s} {'angle r':>8s} {'plates r':>9s} {'RMSE':>6s} {'motion r':>9s} {'RMSE':>6s} "
          f"{'covered r':>10s} {'RMSE':>6s} {'away r':>7s} {'RMSE':>6s} {'low-passed r':>13s} {'RMSE':>6s}")
    for row in rows:
        figures = " ".join(f"{row.get(f'{key}_r', np.nan):{width}.3f} {row.get(f'{key}_rmse', np.nan):6.3f}"
                           for key, width in zip(labels, (9, 9, 10, 7, 13)))
        print(f"  {row['joint']:28s} {row['angle_r']:8.3f} {figures}")
    for key, label in labels.items():
        main = [row[f"{key}_r"] for row in rows if row["joint"].endswith(("_flexion", "_dorsiflexion"))
                and f"{key}_r" in row]
        if main:
            print(f"  mean r over hip, knee and ankle flexion ({label}): {np.mean(main):.3f}")
    if balanced:
        print("  moment the motion needs about the plates' centre of pressure, lateral axis, covered frames away "
              "from touch-downs "
              f"[N·m/kg]: ours mean {balanced['ours_mean']:+.3f}, RMS {balanced['ours_rms']:.3f}; OpenSim's "
              f"(its pelvis residuals) mean {balanced['opensim_mean']:+.3f}, RMS {balanced['opensim_rms']:.3f}; "
              f"r {balanced['r']:.3f}")


def compare_trial(trial: Path, options, cutoff: float, folder: Path, write: bool = False,
                  filter_plates: bool = False, given: ReferenceFiles = ReferenceFiles()) -> tuple[list[dict], dict]:
    """Run our pipeline and OpenSim's reference on ``trial`` with the reference's files ``given`` (a GRF given
    is our run's too); OpenSim's files go into ``folder``, ours (tables and OpenSim files) into ``folder/ours``
    when ``write``. The comparison rows (``compare``) and the moments both motions leave unbalanced
    (``balance``)."""
    from mocap_dynamics.solver.pipeline import run
    from mocap_dynamics.solver.results import write_results
    static = next(iter(p for p in trial.parent.glob("*_static1.trc") if trial.stem.startswith(
        p.name.removesuffix("_static1.trc"))), None)
    if options.static is None and static is not None and static != trial:
        options = replace(options, static=str(static))
    folder.mkdir(parents=True, exist_ok=True)
    if given.grf is not None:
        options = replace(options, grf=str(given.grf))
    reference = opensim_reference(trial, cutoff, folder, filter_plates, given)
    result = run(trial, replace(options, until="contact"))
    if write:
        write_results(result, folder / "ours", opensim=True)
    return compare(result, reference.moments, reference.mass, reference.ik_file), balance(result, reference)


def main(argv=None) -> int:
    load_package()
    from mocap_dynamics.solver.cli import OneLineParser, add_pipeline_arguments, guarded, pipeline_options
    parser = OneLineParser(prog="compare_opensim_id.py", description=__doc__.split("\n")[0])
    parser.add_argument("trials", nargs="+", help="TRC trials with an OpenSim reference beside them")
    parser.add_argument("--opensim-cutoff", type=float, default=6.0, metavar="HZ",
                        help="OpenSim's low-pass cutoff of the IK coordinates (default 6; -1: none)")
    parser.add_argument("--filter-plates", action="store_true",
                        help="low-pass the reference's plates at --opensim-cutoff too (Kristianslund et al. 2012)")
    parser.add_argument("--out", metavar="DIR", help="keep OpenSim's files, ours (tables and OpenSim files, in "
                                                     "TRIAL/ours) and a comparison.json here")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON too")
    parser.add_argument("--reference-model", type=Path, metavar="FILE.osim",
                        help="the subject's OpenSim model (default: SUBJECT_opensim_model.osim beside the trial)")
    parser.add_argument("--reference-ik", type=Path, metavar="FILE.mot",
                        help="its IK coordinates of the trial (default: NAME_opensim_ik.mot beside it)")
    parser.add_argument("--reference-grf", type=Path, metavar="FILE.mot",
                        help="the trial's plates, for both sides (default: NAME_grf.mot beside it)")
    add_pipeline_arguments(parser, per_trial=False)
    args = parser.parse_args(argv)

    given = ReferenceFiles(*(p and p.resolve() for p in (args.reference_model, args.reference_ik,
                                                         args.reference_grf)))
    if args.opensim_cutoff <= 0 and args.opensim_cutoff != -1:
        parser.error(f"--opensim-cutoff {args.opensim_cutoff:g} is no cutoff: give one in Hz above 0, or -1 for none")
    if args.filter_plates and args.opensim_cutoff == -1:
        parser.error("--filter-plates low-passes the reference's plates at --opensim-cutoff, which -1 turns off: "
                     "give a cutoff in Hz with it")
    if any(given) and len(args.trials) > 1:
        parser.error("--reference-model, --reference-ik and --reference-grf are one trial's files: give one trial "
                     "with them")

    def work():
        import opensim
        opensim.Logger.setLevelString("error")  # not its missing display meshes
        options = pipeline_options(args)
        settings = (f"ours: cutoff {options.cutoff or 'none'}, {options.derivatives} differences, contact "
                    f"{options.contact_forces}; OpenSim: cutoff {args.opensim_cutoff:g} Hz"
                    f"{', plates filtered too' if args.filter_plates else ''}")
        everything = {}
        with tempfile.TemporaryDirectory(prefix="compare_opensim_id_") as scratch:  # OpenSim's files, unless kept
            root = Path(args.out) if args.out else Path(scratch)
            for trial in (Path(t).resolve() for t in args.trials):
                rows, balanced = compare_trial(trial, options, args.opensim_cutoff, root / trial.stem,
                                               write=bool(args.out), filter_plates=args.filter_plates, given=given)
                print_table(trial.stem, rows, settings, balanced)
                everything[trial.stem] = {"moments": rows, "unbalanced_moment": balanced}
        if args.out:
            (root / "comparison.json").write_text(json.dumps(everything, indent=2))
        if args.json:
            print(json.dumps(everything, indent=2))
        return everything

    return guarded(work)[0]


if __name__ == "__main__":
    sys.exit(main())
