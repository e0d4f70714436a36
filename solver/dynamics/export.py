"""Joint torques and root (residual) forces as a table: OpenSim .sto or CSV via ``solver.io.write_table``."""

from __future__ import annotations

import numpy as np

from ..io import Table
from .inverse import Dynamics
from .moments import joint_moments


def dynamics_table(dynamics: Dynamics, per_kg: bool = False) -> Table:
    """One row per frame: the root wrench, the clinical joint moments, then each joint's raw torque vector.

    Columns: ``<root>_residual_force_{x,y,z}`` [N] and ``<root>_residual_moment_{x,y,z}`` [N·m] (world,
    about the root origin); ``<joint>_<component>_moment`` [N·m] for every component of the angle table
    (``solver.dynamics.moments``: e.g. ``hip_l_flexion_moment``, ``knee_l_flexion_moment``,
    ``ankle_l_dorsiflexion_moment``; the root's, ``pelvis_anterior_tilt_moment`` ..., resolve its residual
    torque); ``<segment>_moment_{x,y,z}`` [N·m], the raw torque vector in the parent frame. Every torque is
    the one the parent applies on the child. ``per_kg`` divides everything by the body mass. The header
    names the external forces the torques were computed with (``external_forces``).
    """
    model = dynamics.model
    scale = 1.0 / model.total_mass if per_kg else 1.0
    root = model.segments[0].name
    moments = joint_moments(dynamics)
    raw = [k for k, s in enumerate(model.segments) if k > 0 and s.joint != "weld"]
    columns = (["time"] + [f"{root}_residual_{kind}_{a}" for kind in ("force", "moment") for a in "xyz"]
               + moments.names + [f"{model.segments[k].name}_moment_{a}" for k in raw for a in "xyz"])
    data = [dynamics.times[:, None], dynamics.root_wrench * scale,
            moments.newton_metres.reshape(len(dynamics.times), -1) * scale,
            dynamics.joint_torque_parent[:, raw].reshape(len(dynamics.times), -1) * scale]
    unit = "N and N·m per kg body mass" if per_kg else "N and N·m"
    header = {"units": unit, "external_forces": dynamics.options.get("external", "none")}
    return Table(columns=columns, data=np.hstack(data), header=header, in_degrees=False,
                 name="Mocap Dynamics joint torques and root residuals")
