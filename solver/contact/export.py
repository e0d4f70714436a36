"""The estimated ground reaction forces as an OpenSim GRF .mot: one "plate" per foot, the layout OpenSim's
ExternalLoads read (and ``solver.io.read_grf_mot`` reads back)."""

from __future__ import annotations

import numpy as np

from ..io import Table
from ..io.conventions import from_z_up
from .result import Contact


def grf_table(contact: Contact, up_axis: str = "Y") -> Table:
    """Per foot ``k`` (``contact.feet`` order, from 1): ``ground_force_k_v{x,y,z}`` [N], the force on the
    subject; ``ground_force_k_p{x,y,z}`` [m], the centre of pressure (0 while the foot is unloaded, as
    OpenSim files have it); ``ground_force_k_m{x,y,z}`` [N·m], the free moment (``Contact.foot_moment``: about
    the COP, along the normal of the surface the foot stands on). In file axes: ``up_axis``
    "Y" (OpenSim's ground frame, the default) or "Z" (the solver's world). Contact forces on other segments
    (e.g. a hand on the ground) are not in the file; ``contact.total_force`` includes them."""
    columns, data = ["time"], [contact.times[:, None]]
    for k, foot in enumerate(contact.feet):
        for kind, values in (("v", contact.foot_force[:, k]), ("p", contact.foot_cop[:, k]),
                             ("m", contact.foot_moment[:, k])):
            columns += [f"ground_force_{k + 1}_{kind}{axis}" for axis in "xyz"]
            data.append(from_z_up(np.nan_to_num(values), up_axis))
    header = {"feet": " ".join(contact.feet), "units": "N, m, N·m; forces on the subject",
              "axes": "Y up (OpenSim ground)" if up_axis == "Y" else "Z up"}
    return Table(columns=columns, data=np.hstack(data), header=header, in_degrees=False,
                 name="Mocap Dynamics estimated ground reaction forces")
