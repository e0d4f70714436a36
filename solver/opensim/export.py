"""``--opensim``: a run's model, motion, loads and moments as OpenSim files, in ``OUT/opensim/``.

- ``<name>.osim``: the calibrated model (``solver.opensim.model``);
- ``<name>_coordinates.mot``: the motion as that model's coordinates (``inDegrees=yes``, as OpenSim writes
  it), on every frame, filtered as the dynamics were;
- ``<name>_external_loads.xml`` and ``<name>_grf.mot``: the external forces of the torques (the measured
  plates when the trial has them, else the estimated contact forces), one load per body
  (``solver.opensim.loads``);
- ``<name>_moments.sto``: our moments as OpenSim names them (``<coordinate>_moment``, ``_force``);
- ``<name>_markers.trc``: the trial's markers in OpenSim's axes (Y up, metres), for OpenSim's IK;
- ``<name>_id_setup.xml`` and ``<name>_ik_setup.xml``: OpenSim tool setups that run inverse dynamics
  (no filtering) and inverse kinematics (every marker of the model, weight 1) on these files, e.g.
  ``opensim-cmd run-tool <name>_id_setup.xml``.

OpenSim's inverse dynamics differentiates the coordinates with its own splines, ours with forward
differences (or Lee's estimates): its moments equal ours where the accelerations agree (smooth or filtered
motions), and exactly with our velocities and accelerations (the peer tests use both).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ..io import Table, write_table, write_trc
from ..io.atomic import write_text
from .coordinates import coordinate_values, dynamics_coordinates, generalized_forces
from .loads import external_loads_xml, loads_table
from .model import VERSION, write_osim

FOLDER = "opensim"


def _setup(tool: str, properties: dict) -> str:
    document = ET.Element("OpenSimDocument", Version=VERSION)
    element = ET.SubElement(document, tool, name=properties.pop("name"))
    for key, value in properties.items():
        if isinstance(value, ET.Element):
            element.append(value)
        else:
            ET.SubElement(element, key).text = value
    ET.indent(document, space="\t")
    return '<?xml version="1.0" encoding="UTF-8" ?>\n' + ET.tostring(document, encoding="unicode") + "\n"


def write_opensim(result, folder: str | Path) -> tuple[list[Path], list[str]]:
    """The OpenSim files of a pipeline result into ``folder/opensim`` (module docstring); returns the files
    written and notes (where the loads came from, what was not written and why)."""
    out = Path(folder) / FOLDER
    out.mkdir(parents=True, exist_ok=True)
    name = Path(result.source).stem
    model, motion, dynamics = result.model, result.motion, result.best_dynamics
    if model is None:
        return [], ["opensim files not written: the run stopped before the body model"]
    written, notes = [], []
    written.append(write_osim(model, out / f"{name}.osim"))
    written.append(write_trc(result.trial, out / f"{name}_markers.trc"))
    written.append(write_text(out / f"{name}_ik_setup.xml", _setup("InverseKinematicsTool", {
        "name": name, "model_file": f"{name}.osim", "marker_file": f"{name}_markers.trc",
        "IKTaskSet": _marker_tasks(model), "coordinate_file": "", "time_range": _span(result.trial.times),
        "output_motion_file": f"{name}_opensim_ik.mot", "report_marker_locations": "false"})))
    if motion is None:
        return written, ["opensim coordinates not written: the run stopped before the reconstruction"]
    q = motion.q if dynamics is None else dynamics_coordinates(motion, dynamics)
    names, values = coordinate_values(model, motion.times, q)
    written.append(write_table(Table(columns=("time", *names), data=_columns(motion.times, values), in_degrees=True,
                                     name="Coordinates"), out / f"{name}_coordinates.mot"))
    if dynamics is None:
        return written, ["opensim moments not written: the run stopped before the dynamics"]
    setup = {"name": name, "model_file": f"{name}.osim", "time_range": _span(dynamics.times),
             "external_loads_file": "", "coordinates_file": f"{name}_coordinates.mot",
             "lowpass_cutoff_frequency_for_coordinates": "-1", "output_gen_force_file": f"{name}_opensim_id.sto"}
    if dynamics.external is not None and len(dynamics.external.segments):
        estimated = result.contact is not None and dynamics is result.contact.dynamics
        source = "the contact forces estimated from the motion" if estimated else f"the {dynamics.options['external']}"
        table, bodies = loads_table(model.names, motion.times, dynamics.external, dynamics.times)
        written.append(write_table(table, out / f"{name}_grf.mot"))
        written.append(write_text(out / f"{name}_external_loads.xml",
                                  external_loads_xml(bodies, f"{name}_grf.mot")))
        setup["external_loads_file"] = f"{name}_external_loads.xml"
        notes.append(f"opensim external loads: {source}, on {', '.join(bodies)}")
    else:
        notes.append("opensim external loads not written: the torques have no external forces")
    columns, moments = generalized_forces(dynamics)
    written.append(write_table(Table(columns=("time", *columns), data=_columns(dynamics.times, moments),
                                     name="Inverse Dynamics Generalized Forces"), out / f"{name}_moments.sto"))
    written.append(write_text(out / f"{name}_id_setup.xml", _setup("InverseDynamicsTool", setup)))
    return written, notes


def _marker_tasks(model) -> ET.Element:
    """An ``IKTaskSet`` with every model marker at weight 1."""
    tasks = ET.Element("IKTaskSet", name="marker_tasks")
    objects = ET.SubElement(tasks, "objects")
    for label in model.marker_labels:
        task = ET.SubElement(objects, "IKMarkerTask", name=label)
        ET.SubElement(task, "apply").text = "true"
        ET.SubElement(task, "weight").text = "1"
    ET.SubElement(tasks, "groups")
    return tasks


def _span(times: np.ndarray) -> str:
    return f"{float(times[0])!r} {float(times[-1])!r}"


def _columns(times: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.column_stack([times, values])
