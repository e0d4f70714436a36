"""Write a pipeline result's tables and plots into a folder (the CLI's ``--tables`` and the sidebar's Export).

- ``<name>_angles.mot`` / ``.csv``: clinical joint angles [deg] (OpenSim motion file)
- ``<name>_torques.sto`` / ``.csv``: joint torques and root residuals (OpenSim storage file)
- ``<name>_marker_errors.png``: the marker-error boxplot (Ausejo et al. Fig. 2), when matplotlib is installed
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .dynamics import dynamics_table
from .errors import SolverError
from .io import Table, write_table
from .kinematics import joint_angles, plot_marker_errors
from .kinematics.motion import Motion


def angles_table(motion: Motion) -> Table:
    """Clinical joint angles [deg], one column per joint and component (e.g. ``knee_l_flexion``)."""
    angles = joint_angles(motion)
    columns = ["time"] + [f"{joint}_{component}" for joint, parts in zip(angles.joints, angles.components)
                          for component in parts]
    data = np.hstack([motion.times[:, None], angles.degrees.reshape(len(motion.times), -1)])
    return Table(columns=columns, data=data, header={}, in_degrees=True, name="Mocap Dynamics joint angles")


def write_results(result, folder: str | Path) -> tuple[list[Path], list[str]]:
    """Every table and plot the result allows, into ``folder`` (created); returns the files and notes on what was not."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    name = Path(result.source).stem
    written, notes = [], []
    if result.motion is not None:
        table = angles_table(result.motion)
        written += [write_table(table, folder / f"{name}_angles{suffix}") for suffix in (".mot", ".csv")]
        try:
            written.append(plot_marker_errors(result.motion, folder / f"{name}_marker_errors.png",
                                              title=f"{name}: marker distance errors"))
        except SolverError as error:  # no matplotlib (e.g. inside Blender): the tables are still written
            notes.append(f"marker-error plot not written: {error.one_line()}")
    dynamics = result.best_dynamics
    if dynamics is not None:
        table = dynamics_table(dynamics)
        written += [write_table(table, folder / f"{name}_torques{suffix}") for suffix in (".sto", ".csv")]
    return written, notes
