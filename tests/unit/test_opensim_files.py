"""The OpenSim writers (model, coordinates, loads, moments, setups) and the OpenSim-model inertia reader,
without OpenSim: well-formed XML, the joints and columns OpenSim expects, exact loads, round trips.
(OpenSim itself runs the files in tests/peers/test_opensim_export.py.)"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from mocap_dynamics.solver.dynamics import ExternalForces, joint_moments, rnea
from mocap_dynamics.solver.errors import InputError
from mocap_dynamics.solver.io import read_table
from mocap_dynamics.solver.kinematics import Motion, joint_angles
from mocap_dynamics.solver.model import calibrate
from mocap_dynamics.solver.opensim import coordinate_names, coordinate_values, generalized_forces, osim_string, \
    write_osim
from mocap_dynamics.solver.opensim.coordinates import to_opensim
from mocap_dynamics.solver.opensim.inertia import apply_opensim_inertia
from mocap_dynamics.solver.opensim.loads import body_loads, external_loads_xml
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.results import write_results
from tests.unit.test_dynamics_models import analytic_motion, chain


@pytest.fixture(scope="module")
def models(sample_walk):
    return {template: calibrate(sample_walk.trial, template=template) for template in ("full15", "brubaker12")}


@pytest.mark.parametrize("template", ["full15", "brubaker12"])
def test_the_model_is_opensim_xml_with_our_bodies_joints_and_markers(models, template):
    model = models[template]
    root = ET.fromstring(osim_string(model, "subject"))
    assert root.tag == "OpenSimDocument" and root.find("Model").get("name") == "subject"
    bodies = root.findall("Model/BodySet/objects/Body")
    assert [b.get("name") for b in bodies] == list(model.names)
    np.testing.assert_allclose([float(b.findtext("mass")) for b in bodies], [s.mass for s in model.segments])
    kinds = {j.get("name"): j.tag for j in root.find("Model/JointSet/objects")}
    expected = {"free": "CustomJoint", "ball": "CustomJoint", "universal": "CustomJoint", "hinge": "PinJoint",
                "weld": "WeldJoint"}
    assert sorted(kinds.values()) == sorted(expected[s.joint] for s in model.segments)
    assert kinds["knee_l"] == "PinJoint" and kinds["hip_l"] == "CustomJoint"
    assert [c.get("name") for c in root.iter("Coordinate")] == coordinate_names(model)
    assert len(coordinate_names(model)) == model.nv
    assert {"hip_l_flexion", "hip_l_adduction", "hip_l_internal_rotation", "knee_l_flexion", "pelvis_tx",
            "ankle_l_dorsiflexion", "ankle_l_inversion"} <= set(coordinate_names(model))
    markers = root.findall("Model/MarkerSet/objects/Marker")
    assert [m.get("name") for m in markers] == list(model.marker_labels)
    first = model.segments[[k for k, s in enumerate(model.segments) if s.markers][0]]
    np.testing.assert_allclose(np.array(markers[0].findtext("location").split(), float),
                               to_opensim(first.marker_offsets[0]))
    spheres = root.findall("Model/ContactGeometrySet/objects/ContactSphere")
    assert len(spheres) == sum(len(s.contact_points) for s in model.segments)
    assert ET.fromstring(osim_string(model, "x", contact_points=False)).find("Model/ContactGeometrySet") is None


def test_coordinates_are_the_clinical_angles_and_the_root_position(models):
    model = models["full15"]
    times = np.linspace(0, 0.3, 31)
    q, _, _ = analytic_motion(model, np.random.default_rng(4), times)
    names, values = coordinate_values(model, times, q)
    angles = joint_angles(Motion.from_q(model, times, q, "test"))
    np.testing.assert_allclose(values[:, names.index("hip_r_adduction")], angles.angle("hip_r", "adduction"))
    np.testing.assert_allclose(values[:, names.index("knee_l_flexion")],
                               np.degrees(q[:, model.q_starts[model.index("shank_l")]]), atol=1e-9)
    np.testing.assert_allclose(values[:, [names.index(f"pelvis_t{a}") for a in "xyz"]], to_opensim(q[:, :3]))
    _, neutral = coordinate_values(model, times[:1], model.neutral_q()[None])
    np.testing.assert_allclose(neutral, 0.0, atol=1e-12)


def test_moments_are_named_as_opensim_names_them(models):
    model = models["brubaker12"]
    times = np.linspace(0, 0.3, 31)
    q, v, a = analytic_motion(model, np.random.default_rng(5), times)
    dynamics = rnea(model, times, q, v, a)
    names, values = generalized_forces(dynamics)
    assert names == [f"{c}_{'force' if c.endswith(('_tx', '_ty', '_tz')) else 'moment'}"
                     for c in coordinate_names(model)]
    moments = joint_moments(dynamics)
    np.testing.assert_allclose(values[:, names.index("ankle_r_inversion_moment")],
                               moments.moment("ankle_r", "inversion"))
    np.testing.assert_allclose(values[:, names.index("pelvis_ty_force")], dynamics.root_wrench[:, 2])  # up is Y


def test_joints_about_other_axes_keep_their_own_angles():
    model = chain(("hinge", "universal", "ball", "weld", "hinge"))  # random axes: no clinical axis
    root = ET.fromstring(osim_string(model, "chain"))
    names = coordinate_names(model)
    assert [c.get("name") for c in root.iter("Coordinate")] == names
    assert names[6:] == ["link1_angle", "link2_angle_1", "link2_angle_2", "link3_about_y", "link3_about_x",
                         "link3_about_z", "link5_angle"]
    assert {j.get("name"): j.tag for j in root.find("Model/JointSet/objects")}["link4_weld"] == "WeldJoint"
    times = np.linspace(0, 0.2, 21)
    q, v, a = analytic_motion(model, np.random.default_rng(7), times)
    dynamics = rnea(model, times, q, v, a)
    columns, values = generalized_forces(dynamics)
    np.testing.assert_allclose(values[:, columns.index("link2_angle_2_moment")], dynamics.axis_torques[:, 2, 1])
    _, coordinates = coordinate_values(model, times, q)
    np.testing.assert_allclose(coordinates[:, names.index("link5_angle")], np.degrees(q[:, model.q_starts[5]]))


def test_loads_sum_exactly_into_one_force_per_body():
    rng = np.random.default_rng(6)
    segments = np.array([2, 5, 2, 2])
    points, forces, moments = (rng.normal(size=(7, 4, 3)) for _ in range(3))
    forces[3, :] = 0.0  # a frame without load
    external = ExternalForces(segments, points, forces, moments)
    names, force, point, torque = body_loads(tuple(f"s{k}" for k in range(6)), external)
    assert names == ["s2", "s5"]
    for b, k in enumerate((2, 5)):
        mine = segments == k
        np.testing.assert_allclose(force[:, b], forces[:, mine].sum(1))
        about_origin = (np.cross(points[:, mine], forces[:, mine]) + moments[:, mine]).sum(1)
        np.testing.assert_allclose(np.cross(point[:, b], force[:, b]) + torque[:, b], about_origin, atol=1e-12)
    np.testing.assert_array_equal(point[3], 0.0)
    xml = ET.fromstring(external_loads_xml(names, "trial_grf.mot"))
    force_s5 = xml.find("ExternalLoads/objects/ExternalForce[@name='s5_load']")
    assert force_s5.findtext("applied_to_body") == "s5" and force_s5.findtext("force_identifier") == "s5_force_v"
    assert xml.findtext("ExternalLoads/datafile") == "trial_grf.mot"


@pytest.fixture(scope="module")
def walking(shared_data, tmp_path_factory):
    result = run(shared_data / "subject4_walking1.trc", PipelineOptions(
        static=str(shared_data / "subject4_static1.trc"), until="dynamics", opensim=True))
    out = tmp_path_factory.mktemp("opensim")
    written, notes = write_results(result, out)
    return result, out / "opensim", written, notes


def test_the_opensim_folder_has_every_file(walking):
    result, folder, written, notes = walking
    name = "subject4_walking1"
    assert {p.name for p in written} >= {f"{name}.osim", f"{name}_coordinates.mot", f"{name}_grf.mot",
                                         f"{name}_external_loads.xml", f"{name}_moments.sto", f"{name}_markers.trc",
                                         f"{name}_id_setup.xml", f"{name}_ik_setup.xml"}
    assert "opensim external loads: the measured force plates, on foot_l, foot_r" in notes
    coordinates, moments = read_table(folder / f"{name}_coordinates.mot"), read_table(folder / f"{name}_moments.sto")
    assert coordinates.in_degrees and len(coordinates.time) == result.trial.n_frames
    assert coordinates.columns[1:] == tuple(coordinate_names(result.model))
    np.testing.assert_allclose(moments.time, result.best_dynamics.times)
    loads = read_table(folder / f"{name}_grf.mot")
    assert np.isfinite(loads.data).all() and len(loads.time) == result.trial.n_frames
    rows = np.searchsorted(loads.time, moments.time - 1e-9)  # the dynamics' frames among the motion's
    np.testing.assert_allclose(loads.time[rows], moments.time, atol=1e-9)
    np.testing.assert_allclose(loads.column("foot_l_force_vy")[rows] + loads.column("foot_r_force_vy")[rows],
                               result.best_dynamics.external.forces[..., 2].sum(1), atol=1e-6)
    setup = ET.parse(folder / f"{name}_id_setup.xml").getroot().find("InverseDynamicsTool")
    assert setup.findtext("lowpass_cutoff_frequency_for_coordinates") == "-1"
    assert setup.findtext("external_loads_file") == f"{name}_external_loads.xml"
    ik = ET.parse(folder / f"{name}_ik_setup.xml").getroot()
    assert len(ik.findall(".//IKMarkerTask")) == len(result.model.marker_labels)


def test_a_drop_jump_weighed_on_its_plates_writes_its_opensim_files(shared_data, tmp_path):
    """No mass given: the plates weigh the subject after a first pass of the dynamics, and the exported coordinates
    are those the rescaled dynamics differentiated (the default filter finds touch-downs by the centre of mass's
    speed, which the shoes' fixed mass moves: "The dynamics were computed from coordinates other than the
    motion's" before the derivatives were taken again for the plates' mass)."""
    result = run(shared_data / "subject4_DJ3.trc", PipelineOptions(until="dynamics", opensim=True))
    assert result.model.mass_source.startswith("force plates")
    written, _ = write_results(result, tmp_path)
    assert {"subject4_DJ3_coordinates.mot", "subject4_DJ3_moments.sto"} <= {p.name for p in written}


def test_without_dynamics_the_model_and_coordinates_are_still_written(walking, tmp_path):
    result, *_ = walking
    from dataclasses import replace
    stopped = replace(result, dynamics=None, dynamics_with_plates=None,
                      options=replace(result.options, until="reconstruct"))
    written, notes = write_results(stopped, tmp_path, opensim=True)
    assert "subject4_walking1_coordinates.mot" in {p.name for p in written}
    assert any("moments not written" in note for note in notes)


def test_our_own_model_reads_back_exactly(models, tmp_path):
    for model in models.values():
        back = apply_opensim_inertia(model, write_osim(model, tmp_path / "own.osim"))
        report = back.metadata["opensim_inertia"]
        assert not report["kept"] and not report["scaled"] and not report["unused_bodies"]
        for a, b in zip(model.segments, back.segments):
            assert b.mass == pytest.approx(a.mass, rel=1e-12)
            np.testing.assert_allclose(b.com, a.com, atol=1e-12)
            np.testing.assert_allclose(b.inertia, a.inertia, atol=1e-12)


def test_a_rajagopal_model_maps_onto_our_segments(walking_full15, shared_data):
    model = apply_opensim_inertia(walking_full15, shared_data / "subject4_opensim_model.osim")
    report = model.metadata["opensim_inertia"]
    assert report["mapped"]["foot_l"] == ["talus_l", "calcn_l", "toes_l"]
    assert report["mapped"]["shank_r"] == ["tibia_r", "patella_r"]
    assert report["scaled"] == {"torso": "torso", "head": "torso"}  # its torso carries the head
    assert walking_full15.metadata["shoes"] and not model.metadata["shoes"]  # its feet are the model's own
    assert model.total_mass == pytest.approx(62.6, abs=0.01)  # the AddBiomechanics model's mass
    assert model.mass_source == "OpenSim model subject4_opensim_model.osim"
    thigh = model.segments[model.index("thigh_l")]
    assert thigh.mass == pytest.approx(7.6133485511297527)
    assert -0.25 < thigh.com[2] < -0.1 and abs(thigh.com[0]) < 0.03  # below the hip, along the femur


def test_bad_opensim_models_are_one_line_errors(walking_full15, tmp_path):
    (tmp_path / "broken.osim").write_text("<OpenSimDocument><Model>")
    (tmp_path / "other.osim").write_text("<OpenSimDocument><Model name='x'/></OpenSimDocument>")
    for name, message in (("broken.osim", "is not valid XML"), ("other.osim", "is not an OpenSim 4 model"),
                          ("missing.osim", "does not exist")):
        with pytest.raises(InputError, match=message):
            apply_opensim_inertia(walking_full15, tmp_path / name)


def test_the_opensim_option_must_be_true_or_false():
    with pytest.raises(InputError, match="opensim"):
        PipelineOptions(opensim="yes")
