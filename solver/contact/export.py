"""The estimated ground reaction forces as an OpenSim GRF .mot: one "plate" per foot, the layout OpenSim's
ExternalLoads read (and ``solver.io.read_grf_mot`` reads back)."""

from __future__ import annotations

import numpy as np

from ..io import Table
from ..io.conventions import from_z_up
from .estimate import Contact


def free_moments(contact: Contact) -> np.ndarray:
    """Each foot's free moment (T, F, 3) [N·m]: the vertical part of its point forces' moment about its COP,
    ``M_z = Σ_i ((p_i − c) × f_i)_z`` (the horizontal parts vanish at the COP of a level ground); zero
    where the foot carries no force."""
    moments = np.zeros_like(contact.foot_force)
    names = [s.name for s in contact.model.segments]
    for k, foot in enumerate(contact.feet):
        on_foot = contact.point_segments == names.index(foot)
        arm = contact.point_positions[:, on_foot] - contact.foot_cop[:, k, None]
        moment = np.cross(arm, contact.point_forces[:, on_foot]).sum(axis=1)
        moments[:, k, 2] = np.nan_to_num(moment[:, 2])
    return moments


def grf_table(contact: Contact, up_axis: str = "Y") -> Table:
    """Per foot ``k`` (``contact.feet`` order, from 1): ``ground_force_k_v{x,y,z}`` [N], the force on the
    subject; ``ground_force_k_p{x,y,z}`` [m], the centre of pressure (0 while the foot is unloaded, as
    OpenSim files have it); ``ground_force_k_m{x,y,z}`` [N·m], the free moment. In file axes: ``up_axis``
    "Y" (OpenSim's ground frame, the default) or "Z" (the solver's world). Contact forces on other segments
    (e.g. a hand on the ground) are not in the file; ``contact.total_force`` includes them."""
    columns, data = ["time"], [contact.times[:, None]]
    moments = free_moments(contact)
    for k, foot in enumerate(contact.feet):
        for kind, values in (("v", contact.foot_force[:, k]), ("p", contact.foot_cop[:, k]), ("m", moments[:, k])):
            columns += [f"ground_force_{k + 1}_{kind}{axis}" for axis in "xyz"]
            data.append(from_z_up(np.nan_to_num(values), up_axis))
    header = {"feet": " ".join(contact.feet), "units": "N, m, N·m; forces on the subject",
              "axes": "Y up (OpenSim ground)" if up_axis == "Y" else "Z up"}
    return Table(columns=columns, data=np.hstack(data), header=header, in_degrees=False,
                 name="Mocap Dynamics estimated ground reaction forces")
