"""JSON save/load (exact round trip) and the MJCF document's structure (peer engines: tests/peers)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from mocap_dynamics.solver.errors import InputError, ModelError
from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.model import calibrate, load_model, mjcf_string, save_model, write_mjcf

FIELDS = ("joint_offset", "axes", "tip", "com", "inertia", "marker_offsets", "contact_points")


@pytest.fixture(scope="module")
def model(shared_data):
    return calibrate(load_trial(shared_data / "subject4_walking1.trc"), template="brubaker12")


def test_json_round_trip_is_exact(model, tmp_path):
    path = save_model(model, tmp_path / "subject4.json")
    back = load_model(path)
    assert back.mass_source == model.mass_source and back.metadata == model.metadata
    assert back.metadata["calibration"].initial_q == model.metadata["calibration"].initial_q
    for a, b in zip(model.segments, back.segments):
        assert (a.name, a.parent, a.joint, a.mass, a.markers) == (b.name, b.parent, b.joint, b.mass, b.markers)
        for field in FIELDS:
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


def test_bad_model_files(tmp_path):
    (tmp_path / "x.json").write_text('{"format": "something else"}')
    with pytest.raises(ModelError, match="Not a body model"):
        load_model(tmp_path / "x.json")
    (tmp_path / "y.json").write_text("{")
    with pytest.raises(ModelError, match="not valid JSON"):
        load_model(tmp_path / "y.json")
    with pytest.raises(ModelError, match="does not exist"):
        load_model(tmp_path / "z.json")


def test_writes_are_atomic(model, tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        write_mjcf(model, tmp_path / "no_such_folder" / "m.xml")
    write_mjcf(model, tmp_path / "m.xml")
    assert [p.name for p in tmp_path.iterdir()] == ["m.xml"]  # no temporary file left behind


def test_mjcf_mirrors_the_model(model):
    root = ET.fromstring(mjcf_string(model))
    compiler = root.find("compiler").attrib
    assert compiler["inertiafromgeom"] == "false" and compiler["angle"] == "radian"
    assert root.find("option").get("gravity") == "0.0 0.0 -9.81"
    bodies = {b.get("name"): b for b in root.iter("body")}
    assert list(bodies) == list(model.names)  # depth first, as our segments
    for s in model.segments:
        body = bodies[s.name]
        parent = next(p for p in root.iter() if body in list(p))
        assert parent.get("name") == (model.segments[s.parent].name if s.parent >= 0 else None)
        inertial = body.find("inertial")
        assert float(inertial.get("mass")) == s.mass
        ixx, iyy, izz, ixy, ixz, iyz = map(float, inertial.get("fullinertia").split())
        i = s.inertia
        assert (ixx, iyy, izz, ixy, ixz, iyz) == (i[0, 0], i[1, 1], i[2, 2], i[0, 1], i[0, 2], i[1, 2])
        joints = body.findall("joint") + body.findall("freejoint")
        assert [j.get("type", "free") for j in joints] == {
            "free": ["free"], "ball": ["ball"], "hinge": ["hinge"], "universal": ["hinge", "hinge"]}[s.joint]
        sites = [x.get("name") for x in body.findall("site")]
        assert sites == [f"marker:{m}" for m in s.markers] + [f"contact:{s.name}:{k}"
                                                                for k in range(len(s.contact_points))]
    qpos = root.find("keyframe/key").get("qpos").split()
    assert len(qpos) == model.nq
