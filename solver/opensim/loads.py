"""External forces as OpenSim external loads: an ``ExternalLoads`` XML and its GRF .mot.

Every ``ExternalForces`` entry acting on one body (a force plate under a foot, or the estimated contact
forces at a foot's contact points) is summed into one load per body, exactly: the total force ``F = Σ f_k``
at the point ``P`` (the entries' points weighted by their vertical force: a plate's centre of pressure when
one plate carries the foot) and the torque about ``P``, ``T = Σ (p_k − P) × f_k + m_k`` (a plate's free
moment). Columns ``<body>_force_v{x,y,z}`` [N], ``<body>_force_p{x,y,z}`` [m] and ``<body>_torque_{x,y,z}``
[N·m], in ground axes (Y up), zero while the body carries nothing; one ``ExternalForce`` per body reads
them (force and point expressed in ground).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from ..dynamics import ExternalForces
from ..io import Table
from .coordinates import to_opensim
from .model import VERSION


def body_loads(names: tuple[str, ...], external: ExternalForces) -> tuple[list[str], np.ndarray, np.ndarray,
                                                                           np.ndarray]:
    """Bodies carrying a load (``names[k]`` names the segment index ``k``), and per body (T, B, 3) the force, its
    point and the torque about it (our axes)."""
    bodies = sorted(set(external.segments.tolist()))
    shape = external.forces.shape[:1] + (len(bodies), 3)
    force, point, torque = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    for b, k in enumerate(bodies):
        mine = external.segments == k
        f, p = external.forces[:, mine], external.points[:, mine]
        weight = np.abs(f[..., 2])
        total = weight.sum(axis=1, keepdims=True)
        share = np.divide(weight, total, out=np.full_like(weight, 1.0 / weight.shape[1]), where=total > 0)
        force[:, b] = f.sum(axis=1)
        point[:, b] = np.einsum("tk,tki->ti", share, p)
        torque[:, b] = (np.cross(p - point[:, b, None], f) + external.moments[:, mine]).sum(axis=1)
        point[:, b][~np.any(f != 0, axis=(1, 2))] = 0.0  # unloaded: OpenSim files have zeros there
    return [names[k] for k in bodies], force, point, torque


def loads_table(names: tuple[str, ...], times: np.ndarray, external: ExternalForces,
                force_times: np.ndarray | None = None) -> tuple[Table, list[str]]:
    """The GRF .mot of ``external`` (module docstring; ``names[k]`` names segment ``k``) on ``times``, and the
    bodies it loads. ``force_times``: the times of the forces' rows (default: the first of ``times``); the
    other rows are zero."""
    names, force, point, torque = body_loads(names, external)
    times = np.asarray(times, dtype=float)
    rows = np.arange(len(force)) if force_times is None else np.searchsorted(times, np.asarray(force_times) - 1e-9)
    columns, data = ["time"], [times[:, None]]
    for b, name in enumerate(names):
        for label, values in ((f"{name}_force_v", force), (f"{name}_force_p", point), (f"{name}_torque_", torque)):
            placed = np.zeros((len(times), 3))
            placed[rows] = to_opensim(values[:, b])
            columns += [f"{label}{axis}" for axis in "xyz"]
            data.append(placed)
    return Table(columns=columns, data=np.hstack(data), header={"units": "N, m, N·m; ground axes, Y up"},
                 name="Mocap Dynamics external loads"), names


def external_loads_xml(bodies: list[str], datafile: str) -> str:
    """An ``ExternalLoads`` document applying the columns of ``datafile`` to ``bodies`` (module docstring)."""
    document = ET.Element("OpenSimDocument", Version=VERSION)
    loads = ET.SubElement(document, "ExternalLoads", name="external_loads")
    objects = ET.SubElement(loads, "objects")
    for body in bodies:
        force = ET.SubElement(objects, "ExternalForce", name=f"{body}_load")
        for tag, text in (("applied_to_body", body), ("force_expressed_in_body", "ground"),
                          ("point_expressed_in_body", "ground"), ("force_identifier", f"{body}_force_v"),
                          ("point_identifier", f"{body}_force_p"), ("torque_identifier", f"{body}_torque_"),
                          ("data_source_name", datafile)):
            ET.SubElement(force, tag).text = text
    ET.SubElement(loads, "groups")
    ET.SubElement(loads, "datafile").text = datafile
    ET.indent(document, space="\t")
    return '<?xml version="1.0" encoding="UTF-8" ?>\n' + ET.tostring(document, encoding="unicode") + "\n"
