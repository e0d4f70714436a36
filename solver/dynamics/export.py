"""Joint torques and root (residual) forces as a table: OpenSim .sto or CSV via ``solver.io.write_table``."""

from __future__ import annotations

import numpy as np

from ..io import Table
from .inverse import Dynamics


def dynamics_table(dynamics: Dynamics, per_kg: bool = False) -> Table:
    """One row per frame: the root wrench, then each joint's torque.

    Columns: ``<root>_residual_force_{x,y,z}`` [N] and ``<root>_residual_moment_{x,y,z}``
    [N·m] (world, about the root origin); ball joints ``<segment>_moment_{x,y,z}`` (in
    the parent frame); hinge joints ``<segment>_moment`` and universal joints
    ``<segment>_moment_1``/``_2`` (about their axes). Every torque is the one the
    parent applies on the child. ``per_kg`` divides everything by the body mass.
    """
    model = dynamics.model
    scale = 1.0 / model.total_mass if per_kg else 1.0
    root = model.segments[0].name
    columns = ["time"] + [f"{root}_residual_{kind}_{a}" for kind in ("force", "moment") for a in "xyz"]
    data = [dynamics.times[:, None], dynamics.root_wrench * scale]
    axis = dynamics.axis_torques
    for k, seg in enumerate(model.segments[1:], start=1):
        if seg.joint == "ball":
            columns += [f"{seg.name}_moment_{a}" for a in "xyz"]
            data.append(dynamics.joint_torque_parent[:, k] * scale)
        elif seg.joint == "hinge":
            columns.append(f"{seg.name}_moment")
            data.append(axis[:, k, :1] * scale)
        elif seg.joint == "universal":
            columns += [f"{seg.name}_moment_1", f"{seg.name}_moment_2"]
            data.append(axis[:, k, :2] * scale)
    unit = "N and N·m per kg body mass" if per_kg else "N and N·m"
    return Table(columns=columns, data=np.hstack(data), header={"units": unit}, in_degrees=False,
                 name="Mocap Dynamics joint torques and root residuals")
