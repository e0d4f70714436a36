"""``--opensim-model FILE.osim``: segment masses, CM and inertia from an OpenSim 4 model (e.g. one scaled by
AddBiomechanics) instead of the inertia table's, where its bodies map onto our segments.

Bodies map by name onto our anatomical segments (``BODIES``: Rajagopal, gait2392 and Hamner names, and our
own segment names, as ``solver.opensim.model`` writes them); several bodies may make one segment (talus,
calcaneus and toes: the foot) and one body may cover several (a torso with the head: torso and head). The
model is posed at its coordinates' default values (its standing pose, taken as anatomical neutral: OpenSim's
X forward, Y up, Z right are our X, Z, -Y) by forward kinematics of its joints (offset frames; ``CustomJoint``
transform axes with linear, constant, polynomial, spline and multiplier functions; the other joint types by
their coordinates' axes). Then for each model segment:

- its members are covered exactly by some bodies: their combined mass, CM and inertia (parallel axes,
  ``solver.model.inertia.combine``), the CM taken from our segment origin, which is the joint centre where the
  bodies meet their parent (the pelvis: midway between the hip joints);
- one body covers it and other segments too: the table's CM and inertia are kept and the masses (and
  inertias) of those segments scaled to the body's mass;
- no body: the table's values stay (with its shoe, for a foot: the model's feet wear theirs).

The report (``BodyModel.metadata["opensim_inertia"]``) says which segment took what from which bodies.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..io.documents import parse_document
from ..model.body import BodyModel
from ..model.frames import axis_rotation
from ..model.inertia import combine
from ..model.templates import SIDES, TEMPLATES
from .coordinates import AXES

#: Our anatomical segment -> OpenSim body names ({s}: side), the first giving the proximal joint centre.
BODIES = {
    "pelvis": ("pelvis",), "torso": ("torso",), "head": ("head",),
    "upper_arm_{s}": ("humerus_{s}",), "forearm_{s}": ("ulna_{s}", "radius_{s}"), "hand_{s}": ("hand_{s}",),
    "thigh_{s}": ("femur_{s}",), "shank_{s}": ("tibia_{s}", "patella_{s}", "fibula_{s}"),
    "foot_{s}": ("talus_{s}", "calcn_{s}", "toes_{s}"),
}
#: Coordinate axes of the joints other than CustomJoint, in order: (kind, axis) per coordinate.
JOINT_AXES = {
    "PinJoint": (("r", 2),), "SliderJoint": (("t", 0),), "UniversalJoint": (("r", 0), ("r", 1)),
    "BallJoint": (("r", 0), ("r", 1), ("r", 2)), "GimbalJoint": (("r", 0), ("r", 1), ("r", 2)),
    "FreeJoint": (("r", 0), ("r", 1), ("r", 2), ("t", 0), ("t", 1), ("t", 2)),
    "PlanarJoint": (("r", 2), ("t", 0), ("t", 1)), "WeldJoint": (),
}


def _vector(element: ET.Element | None, tag: str, default=(0.0, 0.0, 0.0)) -> np.ndarray:
    found = None if element is None else element.find(tag)
    return np.array(default if found is None or not (found.text or "").split() else found.text.split(), float)


def _orientation(angles: np.ndarray) -> np.ndarray:
    """OpenSim's body-fixed X-Y-Z orientation angles as a rotation matrix."""
    x, y, z = np.eye(3)
    return axis_rotation(x, angles[0]) @ axis_rotation(y, angles[1]) @ axis_rotation(z, angles[2])


def _function(element: ET.Element | None, x: float) -> float:
    """An OpenSim function of one coordinate at ``x``."""
    if element is None:
        return 0.0
    kind = element.tag
    if kind == "Constant":
        return float(_vector(element, "value", (0.0,))[0])
    if kind == "LinearFunction":
        slope, offset = _vector(element, "coefficients", (1.0, 0.0))
        return slope * x + offset
    if kind == "PolynomialFunction":
        return float(np.polyval(_vector(element, "coefficients", (0.0,)), x))
    if kind in ("SimmSpline", "NaturalCubicSpline", "GCVSpline", "PiecewiseLinearFunction"):
        return float(np.interp(x, _vector(element, "x", (0.0,)), _vector(element, "y", (0.0,))))
    if kind == "MultiplierFunction":
        inner = next(iter(element.find("function") or []), None)
        return float(_vector(element, "scale", (1.0,))[0]) * _function(inner, x)
    raise InputError(f"The OpenSim model uses a {kind} in a joint, which Mocap Dynamics cannot evaluate",
                     "use a model with linear, polynomial or spline joint functions")


def _parse(text: str) -> ET.Element:
    try:
        return ET.fromstring(text)
    except ET.ParseError as error:
        raise ValueError(str(error)) from None


def _last(path: str) -> str:
    return (path or "").strip().rstrip("/").split("/")[-1]


class _OsimModel:
    """Bodies (mass, CM, inertia in the body frame) and their poses in the ground at the default pose."""

    def __init__(self, path: Path):
        document = parse_document(path, _parse, "OpenSim model", "XML", "choose an OpenSim 4 .osim file")
        model = document.find("Model")
        if model is None or model.find("BodySet") is None or model.find("JointSet") is None:
            raise InputError(f"{path.name} is not an OpenSim 4 model (no Model with a BodySet and a JointSet)",
                             "open and save it in OpenSim 4 to convert it, or choose another .osim file")
        self.bodies = {}
        for body in model.iterfind("BodySet/objects/Body"):
            xx, yy, zz, xy, xz, yz = _vector(body, "inertia", (0.0,) * 6)
            self.bodies[body.get("name")] = (float(_vector(body, "mass", (0.0,))[0]), _vector(body, "mass_center"),
                                             np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]))
        defaults = {c.get("name"): float(_vector(c, "default_value", (0.0,))[0]) for c in model.iter("Coordinate")}
        self.joints = [self._joint(joint, defaults) for joint in model.find("JointSet/objects")]
        self.poses = self._poses()

    @staticmethod
    def _joint(joint: ET.Element, defaults: dict) -> dict:
        frames = {f.get("name"): (_last(f.findtext("socket_parent")), _vector(f, "translation"),
                                  _orientation(_vector(f, "orientation"))) for f in joint.iterfind("frames/*")}

        def frame(socket: str):
            name = _last(joint.findtext(socket))
            return frames.get(name, (name, np.zeros(3), np.eye(3)))

        rotation, translation = np.eye(3), np.zeros(3)
        if joint.tag == "CustomJoint":
            for axis in joint.iterfind("SpatialTransform/TransformAxis"):
                names = (axis.findtext("coordinates") or "").split()
                value = _function(next((e for e in axis if e.tag not in ("coordinates", "axis")), None),
                                  defaults.get(names[0], 0.0) if names else 0.0)
                direction = _vector(axis, "axis", (1.0, 0.0, 0.0))
                if axis.get("name", "").startswith("rotation"):
                    rotation = rotation @ axis_rotation(direction / np.linalg.norm(direction), value)
                else:
                    translation = translation + value * direction
        else:
            names = [c.get("name") for c in joint.iterfind("coordinates/Coordinate")]
            for (kind, i), name in zip(JOINT_AXES.get(joint.tag, ()), names):
                if kind == "r":
                    rotation = rotation @ axis_rotation(np.eye(3)[i], defaults.get(name, 0.0))
                else:
                    translation = translation + defaults.get(name, 0.0) * np.eye(3)[i]
        return {"name": joint.get("name"), "parent": frame("socket_parent_frame"),
                "child": frame("socket_child_frame"), "rotation": rotation, "translation": translation}

    def _poses(self) -> dict:
        """Each body's rotation and origin in the ground, and each joint's centre in the ground."""
        poses, self.centres = {"ground": (np.eye(3), np.zeros(3))}, {}
        pending = list(self.joints)
        while pending:
            ready = [j for j in pending if j["parent"][0] in poses]
            if not ready:
                raise InputError("The OpenSim model's joints do not connect every body to the ground",
                                 "check its JointSet")
            for joint in ready:
                pending.remove(joint)
                parent, (r_pb, p_pb) = joint["parent"][0], poses[joint["parent"][0]]
                _, p_f, r_f = joint["parent"]
                child, p_c, r_c = joint["child"]
                r_frame = r_pb @ r_f  # the parent frame F in the ground
                r_m = r_frame @ joint["rotation"]  # the child frame M
                origin_m = p_pb + r_pb @ p_f + r_frame @ joint["translation"]
                r_body = r_m @ r_c.T
                poses[child] = (r_body, origin_m - r_body @ p_c)
                self.centres[child] = (parent, origin_m)
        return poses

    def in_ground(self, body: str) -> tuple[float, np.ndarray, np.ndarray]:
        """Mass, CM and inertia about the CM of a body, in the ground at the default pose."""
        mass, com, inertia = self.bodies[body]
        rotation, origin = self.poses[body]
        return mass, origin + rotation @ com, rotation @ inertia @ rotation.T


def _covers(osim: _OsimModel, members: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """OpenSim body -> the anatomical segments it covers, first body of a segment first (a torso without a head
    body covers the head; a body of another name that is named like one of our model segments covers that
    segment's members)."""
    covers = {}
    for segment, bodies in BODIES.items():
        for side in (SIDES if "{s}" in segment else ("",)):
            for pattern in bodies:
                name = pattern.format(s=side)
                if name in osim.bodies:
                    covers[name] = covers.get(name, ()) + (segment.format(s=side),)
    if "torso" in covers and "head" not in osim.bodies:
        covers["torso"] = ("torso", "head")
    covers.update({name: members[name] for name in osim.bodies if name in members and name not in covers})
    return covers


def _origin(osim: _OsimModel, segment: str, bodies: list[str]) -> np.ndarray:
    """Our segment's origin in the OpenSim ground: the joint centre of its first body (the pelvis: mid-hip)."""
    if segment == "pelvis":
        thighs = {pattern.format(s=s) for s in SIDES for pattern in BODIES["thigh_{s}"] + ("thigh_{s}",)}
        hips = [centre for child, (parent, centre) in osim.centres.items() if parent in bodies and child in thighs]
        if len(hips) == 2:
            return (hips[0] + hips[1]) / 2
    return osim.centres[bodies[0]][1]


def apply_opensim_inertia(model: BodyModel, path: str | Path) -> BodyModel:
    """``model`` with the segment masses, CM and inertia of the OpenSim model at ``path`` (module docstring)."""
    path = Path(path)
    osim = _OsimModel(path)
    template = TEMPLATES.get(model.metadata.get("template"))
    members = {t.name: t.members for t in template.segments} if template else {}
    members = {s.name: tuple(members.get(s.name, (s.name,))) for s in model.segments}
    covers = _covers(osim, members)
    segments, report = list(model.segments), {"file": str(path), "mapped": {}, "scaled": {}, "kept": []}
    for k, s in enumerate(model.segments):
        mine = [b for b, c in covers.items() if set(c) <= set(members[s.name])]
        straddling = [b for b, c in covers.items() if set(c) & set(members[s.name]) and b not in mine]
        if mine and {x for b in mine for x in covers[b]} == set(members[s.name]):
            mass, com, inertia = combine([osim.in_ground(b) for b in mine])  # the first member's first body first
            origin = _origin(osim, members[s.name][0], mine)
            segments[k] = replace(s, mass=mass, com=AXES.T @ (com - origin), inertia=AXES.T @ inertia @ AXES)
            report["mapped"][s.name] = mine
        elif straddling:
            body = straddling[0]
            shared = [i for i, t in enumerate(model.segments) if set(covers[body]) & set(members[t.name])]
            ratio = osim.bodies[body][0] / sum(model.segments[i].mass for i in shared)
            segments[k] = replace(s, mass=s.mass * ratio, inertia=s.inertia * ratio)
            report["scaled"][s.name] = body
        else:
            report["kept"].append(s.name)
    used = {b for bodies in report["mapped"].values() for b in bodies} | set(report["scaled"].values())
    report["unused_bodies"] = sorted(set(osim.bodies) - used)
    if not report["mapped"] and not report["scaled"]:
        raise InputError(f"None of the bodies of {path.name} maps onto a segment ({', '.join(sorted(osim.bodies))})",
                         "use a model with Rajagopal, gait2392 or Mocap Dynamics body names")
    shoes = {name: kg for name, kg in model.metadata.get("shoes", {}).items() if name in report["kept"]}
    result = BodyModel(tuple(segments), mass_source=f"OpenSim model {path.name}",
                       metadata={**model.metadata, "opensim_inertia": report, "shoes": shoes})
    report["mass_kg"] = result.total_mass
    return result
