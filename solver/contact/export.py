"""The estimated ground reaction forces as an OpenSim GRF .mot: one "plate" per contact body (the feet, then a
seated pelvis and thighs, ...), the layout OpenSim's ExternalLoads read (and ``solver.io.read_grf_mot`` reads
back)."""

from __future__ import annotations

import numpy as np

from ..io import Table
from ..io.conventions import from_z_up
from .result import Contact


def grf_table(contact: Contact, up_axis: str = "Y") -> Table:
    """Per contact body ``k`` (from 1: the feet, ``contact.feet``, then the other segments that carry load,
    ``contact.other_bodies``, e.g. a seated pelvis and thighs; the header's ``bodies`` names them in order):
    ``ground_force_k_v{x,y,z}`` [N], the force on the subject; ``ground_force_k_p{x,y,z}`` [m], the centre of
    pressure (0 while the body is unloaded, as OpenSim files have it); ``ground_force_k_m{x,y,z}`` [N·m], the
    free moment (about the COP, along the normal of the surface the body rests on). In file axes:
    ``up_axis`` "Y" (OpenSim's ground frame, the default) or "Z" (the solver's world)."""
    columns, data = ["time"], [contact.times[:, None]]
    loads = zip(np.concatenate([contact.foot_force, contact.other_force], 1).swapaxes(0, 1),
                np.concatenate([contact.foot_cop, contact.other_cop], 1).swapaxes(0, 1),
                np.concatenate([contact.foot_moment, contact.other_moment], 1).swapaxes(0, 1))
    for k, (force, cop, moment) in enumerate(loads):
        for kind, values in (("v", force), ("p", cop), ("m", moment)):
            columns += [f"ground_force_{k + 1}_{kind}{axis}" for axis in "xyz"]
            data.append(from_z_up(np.nan_to_num(values), up_axis))
    header = {"feet": " ".join(contact.feet), "bodies": " ".join(contact.feet + contact.other_bodies),
              "units": "N, m, N·m; forces on the subject",
              "axes": "Y up (OpenSim ground)" if up_axis == "Y" else "Z up"}
    return Table(columns=columns, data=np.hstack(data), header=header, in_degrees=False,
                 name="Mocap Dynamics estimated ground reaction forces")
