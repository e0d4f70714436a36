"""Export a ``BodyModel`` as MJCF (MuJoCo XML) that MuJoCo and Pinocchio load with our exact dynamics.

One nested ``<body>`` per segment (the tree), at the segment's joint offset,
with the segment frame as body frame (no rotation: frames are parallel at
neutral); root ``<freejoint/>`` (qpos: body origin, quaternion w x y z, as our
``q``); ball -> ``<joint type="ball">``; hinge -> ``<joint type="hinge"
axis=...>``; universal -> two hinges in the same body, in order (MuJoCo
composes a body's joints in order, ``R = R(a0, θ0) R(a1, θ1)``, as we do);
weld -> no joint. ``<inertial pos mass fullinertia>`` carries our CM and
inertia about the CM to the last bit (``repr`` floats); the compiler is told
not to touch them (``inertiafromgeom="false"``, no bounds, no balancing, no
static-body fusion, no free-joint alignment). Geoms are capsules along each
segment for looks only (no mass, no contacts); sites mark the markers
(``marker:<label>``) and contact points (``contact:<segment>:<k>``).
Gravity is 0 0 -9.81. With a calibration report, keyframe ``initial`` is the
initial pose.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ..constants import GRAVITY
from ..io.atomic import write_text
from .body import BodyModel
from .tree import dfs_order

def _num(values) -> str:
    return " ".join(repr(float(v)) for v in np.ravel(values))


def joint_names(model: BodyModel) -> dict[str, list[str]]:
    """MJCF joint names per segment: the segment name; a universal joint's two hinges get ``_0``/``_1``."""
    return {s.name: ([f"{s.name}_0", f"{s.name}_1"] if s.joint == "universal" else
                     [] if s.joint == "weld" else [s.name]) for s in model.segments}


def mjcf_string(model: BodyModel) -> str:
    """The MJCF document of ``model``."""
    root = ET.Element("mujoco", model=f"mocap_dynamics {model.metadata.get('template', 'model')}")
    ET.SubElement(root, "compiler", angle="radian", inertiafromgeom="false", boundmass="0", boundinertia="0",
                  balanceinertia="false", fusestatic="false", alignfree="false", autolimits="true")
    ET.SubElement(root, "option", gravity=_num(GRAVITY))
    default = ET.SubElement(root, "default")
    ET.SubElement(default, "geom", contype="0", conaffinity="0", density="0", group="1", rgba="0.8 0.7 0.6 1")
    ET.SubElement(default, "site", size="0.008", group="2")
    world = ET.SubElement(root, "worldbody")
    names = joint_names(model)
    bodies = {-1: world}
    for k in dfs_order(model):
        s = model.segments[k]
        body = ET.SubElement(bodies[s.parent], "body", name=s.name, pos=_num(s.joint_offset))
        bodies[k] = body
        if s.joint == "free":
            ET.SubElement(body, "freejoint", name=s.name)
        elif s.joint == "ball":
            ET.SubElement(body, "joint", name=s.name, type="ball")
        for name, axis in zip(names[s.name], s.axes):
            ET.SubElement(body, "joint", name=name, type="hinge", axis=_num(axis))
        i = s.inertia
        ET.SubElement(body, "inertial", pos=_num(s.com), mass=repr(float(s.mass)),
                      fullinertia=_num([i[0, 0], i[1, 1], i[2, 2], i[0, 1], i[0, 2], i[1, 2]]))
        radius = 0.5 * np.sqrt(s.tip @ s.inertia @ s.tip / (s.length ** 2 * s.mass))
        ET.SubElement(body, "geom", type="capsule", fromto=_num(np.r_[np.zeros(3), s.tip]), size=repr(float(radius)))
        for label, offset in zip(s.markers, s.marker_offsets):
            ET.SubElement(body, "site", name=f"marker:{label}", pos=_num(offset), rgba="0.2 0.4 1 1")
        for j, point in enumerate(s.contact_points):
            ET.SubElement(body, "site", name=f"contact:{s.name}:{j}", pos=_num(point), rgba="1 0.3 0.2 1")
    calibration = model.metadata.get("calibration")
    if calibration is not None:
        q = np.asarray(calibration.initial_q)
        starts = model.q_starts
        qpos = np.concatenate([q[starts[k]:starts[k] + model.segments[k].nq] for k in dfs_order(model)])
        ET.SubElement(ET.SubElement(root, "keyframe"), "key", name="initial", qpos=_num(qpos))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode") + "\n"


def write_mjcf(model: BodyModel, path: str | Path) -> Path:
    """Write ``model`` as an MJCF file (atomically: temporary file, then rename)."""
    return write_text(path, mjcf_string(model))
