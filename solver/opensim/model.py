"""Our calibrated ``BodyModel`` as an OpenSim 4 model (``.osim``), written with the standard library.

One ``Body`` per segment (our mass; CM and inertia about the CM turned into OpenSim's axes,
``solver.opensim.coordinates``), named like the segment. Joints (``opensim_joints``): the root a
``CustomJoint`` to the ground with three rotations (the pelvis angles, Z-X-Y) and three translations in
ground axes; a ball joint a ``CustomJoint`` with three rotations about the clinical axes in their Cardan
order (Y-X-Z: flexion, ab/adduction, rotation); a hinge a ``PinJoint`` whose joint frames turn its axis onto
their Z; a universal joint a ``CustomJoint`` with its two rotations; a weld a ``WeldJoint``. Every joint
sits at our joint centre (``joint_offset`` in the parent, the child's origin). A ``CustomJoint``'s
rotations compose body-fixed, ``R = R(n1, q1) R(n2, q2) R(n3, q3)``, its translations are along the parent
axes; coordinates are zero in the neutral pose, as ours. Markers (``Marker``) at the calibrated offsets;
contact points, optionally, as ``ContactSphere`` s of 5 mm radius (geometry only: no force uses them).
Gravity is ``0 -9.81 0``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ..constants import STANDARD_GRAVITY
from ..io.atomic import write_text
from ..kinematics.angles import cardan
from ..model.body import BodyModel
from .coordinates import AXES, OpenSimJoint, opensim_joints, to_opensim

VERSION = "40600"
CONTACT_RADIUS = 0.005  # m


def _num(values) -> str:
    return " ".join(repr(float(v)) for v in np.ravel(values))


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attributes) -> ET.Element:
    element = ET.SubElement(parent, tag, **attributes)
    if text is not None:
        element.text = text
    return element


def _objects(model: ET.Element, tag: str) -> ET.Element:
    holder = _sub(model, tag, name=tag.lower())
    objects = _sub(holder, "objects")
    _sub(holder, "groups")
    return objects


def _offset_frame(frames: ET.Element, name: str, parent: str, translation, orientation=np.zeros(3)) -> None:
    frame = _sub(frames, "PhysicalOffsetFrame", name=name)
    _sub(frame, "socket_parent", parent)
    _sub(frame, "translation", _num(translation))
    _sub(frame, "orientation", _num(orientation))


def _coordinate(coordinates: ET.Element, name: str, translation: bool) -> None:
    coordinate = _sub(coordinates, "Coordinate", name=name)
    _sub(coordinate, "default_value", "0")
    _sub(coordinate, "default_speed_value", "0")
    _sub(coordinate, "range", "-10 10" if translation else _num([-2 * np.pi, 2 * np.pi]))
    _sub(coordinate, "clamped", "false")
    _sub(coordinate, "locked", "false")


def _transform_axis(transform: ET.Element, name: str, coordinate: str | None, axis) -> None:
    element = _sub(transform, "TransformAxis", name=name)
    _sub(element, "coordinates", coordinate or "")
    _sub(element, "axis", _num(axis))
    if coordinate:
        _sub(_sub(element, "LinearFunction", name="function"), "coefficients", "1 0")
    else:
        _sub(_sub(element, "Constant", name="function"), "value", "0")


def _pin_orientation(axis: np.ndarray) -> np.ndarray:
    """Body-fixed X-Y-Z angles of a frame whose Z axis is ``axis`` (OpenSim's ``orientation``)."""
    z = axis / np.linalg.norm(axis)
    helper = np.eye(3)[np.argmin(np.abs(z))]
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return cardan(np.column_stack([x, np.cross(z, x), z]), "xyz")


def _joint(joints: ET.Element, model: BodyModel, joint: OpenSimJoint) -> None:
    s = model.segments[joint.segment]
    parent = "/ground" if s.parent < 0 else f"/bodyset/{model.segments[s.parent].name}"
    kind = {"hinge": "PinJoint", "weld": "WeldJoint"}.get(joint.kind, "CustomJoint")
    element = _sub(joints, kind, name=joint.name)
    parent_frame, child_frame = f"{joint.name}_parent_offset", f"{joint.name}_child_offset"
    _sub(element, "socket_parent_frame", parent_frame)
    _sub(element, "socket_child_frame", child_frame)
    if joint.all_coordinates:
        coordinates = _sub(element, "coordinates")
        for name in joint.coordinates:
            _coordinate(coordinates, name, False)
        for name in joint.translations:
            _coordinate(coordinates, name, True)
    orientation = _pin_orientation(joint.axes[0]) if kind == "PinJoint" else np.zeros(3)
    frames = _sub(element, "frames")
    _offset_frame(frames, parent_frame, parent, to_opensim(s.joint_offset), orientation)
    _offset_frame(frames, child_frame, f"/bodyset/{s.name}", np.zeros(3), orientation)
    if kind == "CustomJoint":
        transform = _sub(element, "SpatialTransform")
        rotations = list(zip(joint.coordinates, joint.axes))
        if len(rotations) < 3 and joint.components is not None:  # a universal joint: its missing clinical axis
            clinical = np.array([sign * np.eye(3)["xyz".index(a)] for a, sign in
                                 zip(joint.clinical.sequence, joint.clinical.signs)])
            rotations = [(None, to_opensim(clinical[i])) for i in range(3)]
            for name, i in zip(joint.coordinates, joint.components):
                rotations[i] = (name, to_opensim(clinical[i]))
        elif len(rotations) < 3:  # a universal joint about its own axes
            rotations.append((None, np.cross(*joint.axes)))
        for i, (name, axis) in enumerate(rotations, start=1):
            _transform_axis(transform, f"rotation{i}", name, axis)
        translations = joint.translations or (None, None, None)
        for i, name in enumerate(translations, start=1):
            _transform_axis(transform, f"translation{i}", name, np.eye(3)[i - 1])


def osim_string(model: BodyModel, name: str, contact_points: bool = True) -> str:
    """The ``.osim`` document of ``model`` (module docstring), named ``name``."""
    document = ET.Element("OpenSimDocument", Version=VERSION)
    root = _sub(document, "Model", name=name)
    _sub(root, "credits", "Mocap Dynamics: the subject's calibrated body model "
                          f"({model.metadata.get('template', 'model')}, {model.mass_source})")
    _sub(root, "length_units", "meters")
    _sub(root, "force_units", "N")
    _sub(root, "gravity", f"0 {-STANDARD_GRAVITY!r} 0")
    _sub(root, "Ground", name="ground")
    bodies = _objects(root, "BodySet")
    for s in model.segments:
        body = _sub(bodies, "Body", name=s.name)
        inertia = AXES @ s.inertia @ AXES.T
        _sub(body, "mass", repr(float(s.mass)))
        _sub(body, "mass_center", _num(to_opensim(s.com)))
        _sub(body, "inertia", _num([inertia[0, 0], inertia[1, 1], inertia[2, 2],
                                    inertia[0, 1], inertia[0, 2], inertia[1, 2]]))
    joints = _objects(root, "JointSet")
    for joint in opensim_joints(model):
        _joint(joints, model, joint)
    markers = _objects(root, "MarkerSet")
    for s in model.segments:
        for label, offset in zip(s.markers, s.marker_offsets):
            marker = _sub(markers, "Marker", name=label)
            _sub(marker, "socket_parent_frame", f"/bodyset/{s.name}")
            _sub(marker, "location", _num(to_opensim(offset)))
            _sub(marker, "fixed", "true")
    if contact_points:
        geometry = _objects(root, "ContactGeometrySet")
        for s in model.segments:
            for k, point in enumerate(s.contact_points):
                sphere = _sub(geometry, "ContactSphere", name=f"{s.name}_contact_{k}")
                _sub(sphere, "socket_frame", f"/bodyset/{s.name}")
                _sub(sphere, "location", _num(to_opensim(point)))
                _sub(sphere, "orientation", "0 0 0")
                _sub(sphere, "radius", repr(CONTACT_RADIUS))
    ET.indent(document, space="\t")
    return '<?xml version="1.0" encoding="UTF-8" ?>\n' + ET.tostring(document, encoding="unicode") + "\n"


def write_osim(model: BodyModel, path: str | Path, name: str | None = None, contact_points: bool = True) -> Path:
    """Write ``model`` as an OpenSim model file (atomically)."""
    path = Path(path)
    return write_text(path, osim_string(model, name or path.stem, contact_points))
