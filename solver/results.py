"""Write a pipeline result's tables and plots into a folder (``python -m solver``, the CLI's ``--tables``, the
batch and the sidebar's Export).

- ``<name>_angles.mot`` / ``.csv``: clinical joint angles [deg] (OpenSim motion file)
- ``<name>_torques.sto`` / ``.csv``: joint torques and root residuals (OpenSim storage file), with the plates'
  forces where the trial has them; then also ``<name>_torques_motion_alone.sto`` / ``.csv``, the same with the
  contact estimated from the motion alone
- ``<name>_grf_estimated.mot`` / ``.csv``: the contact estimate's GRF per foot, then per other loaded segment
  (OpenSim GRF file, Y up)
- ``<name>_markers_filled.trc``: the markers after gap filling (OpenSim TRC, in the input file's own units and
  axes; still-missing samples are empty cells)
- with ``opensim`` (``PipelineOptions.opensim``, ``--opensim``): ``opensim/``, the model, coordinates, external
  loads and moments as OpenSim files (``solver.opensim.export``)
- PNG plots, each when its data exists and matplotlib is installed (``solver.plots``):
  ``<name>_marker_errors.png`` (Ausejo et al. Fig. 2), ``<name>_convergence.png`` (OTM per frame),
  ``<name>_torques.png`` (main joints), ``<name>_grf.png`` (estimated vs measured ground reaction force)
- ``manifest.json``: the files of the run that wrote the folder (``io.manifest``)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .contact import grf_table
from .dynamics import dynamics_table
from .errors import SolverError
from .io import Table, write_table, write_trc
from .io.atomic import make_folder, signals_deferred, staged_outputs
from .io.conventions import file_convention
from .kinematics import joint_angles, plot_marker_errors
from .kinematics.motion import Motion
from .plots import check_matplotlib, plot_convergence, plot_grf, plot_joint_torques


def angles_table(motion: Motion) -> Table:
    """Clinical joint angles [deg], one column per joint and component (e.g. ``knee_l_flexion``)."""
    angles = joint_angles(motion)
    columns = ["time"] + [f"{joint}_{component}" for joint, parts in zip(angles.joints, angles.components)
                          for component in parts]
    data = np.hstack([motion.times[:, None], angles.degrees.reshape(len(motion.times), -1)])
    return Table(columns=columns, data=data, header={}, in_degrees=True, name="Mocap Dynamics joint angles")


def write_results(result, folder: str | Path, opensim: bool | None = None, plots: bool | None = None,
                  flag: str = "the results folder") -> tuple[list[Path], list[str]]:
    """Every table the result allows, into ``folder`` (created; ``flag`` names it in messages), the plots when
    ``plots`` and the OpenSim files when ``opensim`` (default: the run's ``plots`` and ``opensim`` options);
    returns the files and notes on what was not written.

    The files appear together when the writing is done (or, inside a command's ``staged_outputs``, when the
    command is), with the folder's manifest; the previous run's files that this one does not write again
    are removed (``io.manifest``).
    """
    folder = make_folder(folder, flag)
    name = Path(result.source).stem
    written, notes = [], []
    with staged_outputs() as outputs:
        outputs.results_folder(folder, result.source)
        if result.gap_fill is not None:
            units, up_axis = file_convention(result.trial.metadata, result.options.import_options)
            written.append(write_trc(result.gap_fill.trial, folder / f"{name}_markers_filled.trc", up_axis, units))
        else:
            notes.append(f"{name}_markers_filled.trc not written: the run stopped before gap filling "
                         f"(after {result.options.until})")
        if result.motion is not None:
            table = angles_table(result.motion)
            written += [write_table(table, folder / f"{name}_angles{suffix}") for suffix in (".mot", ".csv")]
        dynamics = result.best_dynamics
        for torques, kind in ((dynamics, ""), (result.motion_alone_dynamics, "_motion_alone")):
            if torques is not None:
                written += [write_table(dynamics_table(torques), folder / f"{name}_torques{kind}{suffix}")
                            for suffix in (".sto", ".csv")]
        if result.contact is not None:
            table = grf_table(result.contact)
            written += [write_table(table, folder / f"{name}_grf_estimated{suffix}")
                        for suffix in (".mot", ".csv")]
        drawn = []
        if result.options.plots if plots is None else plots:
            drawn, plot_notes = write_plots(result, folder, name)
            notes += plot_notes
        if result.options.opensim if opensim is None else opensim:
            from .opensim.export import write_opensim  # only when asked for

            files, opensim_notes = write_opensim(result, folder)
            written, notes = written + files, notes + opensim_notes
    return written + drawn, notes


def write_plots(result, folder: Path, name: str) -> tuple[list[Path], list[str]]:
    """The plots whose data the result has, as ``folder/<name>_<plot>.png``; notes say what was skipped and why."""
    try:
        check_matplotlib()
    except SolverError as error:  # no matplotlib (e.g. inside Blender): the tables are still written
        return [], [f"plots not written: {error.one_line()}"]
    written, notes = [], []
    for plot, draw, missing in _plots(result, name):
        if missing:
            notes.append(f"{plot} plot not written: {missing}")
            continue
        try:
            with signals_deferred():  # Ctrl-C waits for the plot: a signal inside matplotlib's renderer breaks it
                written.append(draw(folder / f"{name}_{plot}.png"))
        except SolverError as error:
            notes.append(f"{plot} plot not written: {error.one_line()}")
    if result.contact is not None and result.plate_comparison is None:
        notes.append("grf plot shows the estimate only: the trial has no force plates")
    return written, notes


def _plots(result, name: str):
    """(plot, draw(path), why it cannot be drawn or None) for each plot of a report."""
    motion, dynamics, contact = result.motion, result.best_dynamics, result.contact

    def stopped(stage: str) -> str | None:
        return None if result.options.runs(stage) else f"the {stage} stage was not run (the run stopped after " \
                                                         f"{result.options.until})"

    yield ("marker_errors", lambda path: plot_marker_errors(motion, path, title=f"{name}: marker distance errors"),
           stopped("reconstruct") or (motion.marker_errors is None and f"the {motion.method} motion has no marker "
                                                                        "errors"))
    yield ("convergence", lambda path: plot_convergence(motion, path, title=name),
           stopped("reconstruct") or (motion.method != "otm" and f"the motion was reconstructed by {motion.method}, "
                                                                 "not frame by frame by OTM"))
    alone = result.motion_alone_dynamics
    yield ("torques", lambda path: plot_joint_torques(dynamics, path, title=name, motion_alone=alone),
           stopped("dynamics"))
    yield ("grf", lambda path: plot_grf(contact, result.plate_comparison, path, title=name), stopped("contact"))
