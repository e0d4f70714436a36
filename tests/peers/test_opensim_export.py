"""OpenSim 4.6 loads our exported model, motion and loads and reproduces our numbers (issue 20).

On subject4_walking1 and subject4_DJ3 (plates, default options), subject4_walking1 without its plates (the
loads are then the contact estimated from the motion) and subject4_STS1 (the plates and, on the chair, which
has none, the estimated contact: ``contact.unmeasured``), ``--opensim`` files:

- the model's kinematics: OpenSim's markers at the exported coordinates are ours (1e-9 m);
- inverse dynamics with the same velocities and accelerations (OpenSim's ``InverseDynamicsSolver`` on the
  exported model, coordinates and external loads, no filtering): r ≥ 0.999 per coordinate and a maximum
  difference ≤ 2 % of the coordinate's peak (measured: agreement to ~1e-9);
- OpenSim's own ``InverseDynamicsTool`` on the files as exported (no filtering): it differentiates the
  coordinates with quintic splines where we take finite differences; with its derivatives (read from
  OpenSim's splines) our inverse dynamics gives its moments to the same bounds. Its agreement with our own
  moments is printed (with the default filter and central differences: r >= 0.999 at hips, knees and
  ankles; lower for small, inertia-dominated moments such as the shoulders' and the root residuals);
- OpenSim IK with the exported model's markers on the original marker file: marker RMS within 2 mm of ours.
"""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.io import read_table
from mocap_dynamics.solver.dynamics import rnea
from mocap_dynamics.solver.kinematics import marker_rms
from mocap_dynamics.solver.opensim import generalized_forces
from mocap_dynamics.solver.opensim.coordinates import dynamics_coordinates
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.results import write_results

osim = pytest.importorskip("opensim")
from tests.peers.opensim_helpers import coordinate_states, inverse_dynamics_tool, inverse_kinematics_rms, \
    our_derivatives, solve_inverse_dynamics, spline_derivatives  # noqa: E402

#: (trial, the loads exported as the export's note names them): the plates; without them, the contact
#: estimated from the motion; the plates and the contact estimated on the chair.
CASES = {"walking1-plates": ("subject4_walking1", "measured force plates"),
         "DJ3-plates": ("subject4_DJ3", "measured force plates"),
         "walking1-estimated": ("subject4_walking1", "contact forces estimated from the motion"),
         "STS1-plates-and-chair": ("subject4_STS1",
                                   "measured force plates and the estimated contact on raised surface 1")}


@pytest.fixture(scope="module", params=CASES.values(), ids=CASES.keys())
def exported(request, shared_data, tmp_path_factory):
    name, source = request.param
    plates, estimated = source.startswith("measured"), "estimated" in source
    result = run(shared_data / f"{name}.trc", PipelineOptions(static=str(shared_data / "subject4_static1.trc"),
                                                              grf="auto" if plates else None, opensim=True,
                                                              until="contact" if estimated else "dynamics"))
    out = tmp_path_factory.mktemp(name)
    written, notes = write_results(result, out)
    assert any(f"external loads: the {source}," in note for note in notes), notes
    return name, result, out / "opensim"


def test_every_file_is_written(exported):
    name, _, folder = exported
    assert {p.name for p in folder.iterdir()} >= {f"{name}{suffix}" for suffix in (
        ".osim", "_coordinates.mot", "_grf.mot", "_external_loads.xml", "_moments.sto", "_markers.trc",
        "_id_setup.xml", "_ik_setup.xml")}
    assert read_table(folder / f"{name}_coordinates.mot").in_degrees


def test_opensim_places_the_markers_where_we_do(exported):
    name, result, folder = exported
    model = osim.Model(str(folder / f"{name}.osim"))
    state = model.initSystem()
    assert model.getTotalMass(state) == pytest.approx(result.model.total_mass, rel=1e-12)
    coordinates = read_table(folder / f"{name}_coordinates.mot")
    ours = result.model.marker_positions(dynamics_coordinates(result.motion, result.best_dynamics))
    markers = model.getMarkerSet()
    labels = [markers.get(i).getName() for i in range(markers.getSize())]
    columns = [result.model.marker_labels.index(label) for label in labels]
    for t in (0, len(coordinates.time) // 2, len(coordinates.time) - 1):
        for name_, value in zip(coordinates.columns[1:], coordinates.data[t, 1:]):
            coordinate = model.getCoordinateSet().get(name_)
            coordinate.setValue(state, value if name_.endswith(("_tx", "_ty", "_tz")) else np.radians(value), False)
        model.realizePosition(state)
        theirs = np.array([[markers.get(i).getLocationInGround(state).get(k) for k in range(3)]
                           for i in range(len(labels))])
        expected = ours[t, columns] @ np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])  # to Y up
        np.testing.assert_allclose(theirs, expected, atol=1e-7)  # the .mot keeps 10 significant digits


def test_opensim_inverse_dynamics_with_our_derivatives_reproduces_our_moments(exported):
    name, result, folder = exported
    dynamics = result.best_dynamics
    coordinates = read_table(folder / f"{name}_coordinates.mot")
    rows = np.searchsorted(coordinates.time, dynamics.times - 1e-9)  # the dynamics' frames
    values = {c: coordinates.column(c)[rows] for c in coordinates.columns[1:]}
    q, u, udot = coordinate_states(dynamics, values)
    theirs = solve_inverse_dynamics(folder / f"{name}.osim", folder / f"{name}_external_loads.xml",
                                    dynamics.times, q, u, udot)
    ours = read_table(folder / f"{name}_moments.sto")
    assert len(ours.columns) - 1 == len(theirs)
    for column in ours.columns[1:]:
        a, b = ours.column(column), theirs[column.rsplit("_", 1)[0]]
        peak = np.abs(a).max()
        assert np.corrcoef(a, b)[0, 1] >= 0.999, column
        assert np.abs(a - b).max() <= 0.02 * peak, column


def test_opensim_inverse_dynamics_tool_on_the_files_matches_us_with_its_derivatives(exported):
    """The tool as a user runs it (setup, coordinates, loads; no filtering): our inverse dynamics with the
    tool's own spline derivatives gives its moments; against our forward differences it is printed."""
    name, result, folder = exported
    dynamics = result.best_dynamics
    theirs = inverse_dynamics_tool(folder / f"{name}_id_setup.xml")
    np.testing.assert_allclose(theirs.time, dynamics.times, atol=1e-9)
    u, udot = spline_derivatives(folder / f"{name}.osim", folder / f"{name}_coordinates.mot", dynamics.times)
    v, a = our_derivatives(dynamics.model, dynamics.q, u, udot)
    columns, ours = generalized_forces(rnea(dynamics.model, dynamics.times, dynamics.q, v, a,
                                            external=dynamics.external))
    exported_moments = read_table(folder / f"{name}_moments.sto")
    assert set(columns) == set(theirs.columns[1:])
    for column, mine in zip(columns, ours.T):
        tool = theirs.column(column)
        assert np.corrcoef(mine, tool)[0, 1] >= 0.999, column
        assert np.abs(mine - tool).max() <= 0.02 * np.abs(mine).max(), column
        r = np.corrcoef(exported_moments.column(column), tool)[0, 1]
        print(f"{name} {column}: r {r:.4f} between OpenSim's tool and our finite differences")


def test_opensim_inverse_kinematics_fits_the_markers_as_well_as_we_do(exported, shared_data):
    name, result, folder = exported
    theirs = inverse_kinematics_rms(folder / f"{name}_ik_setup.xml", shared_data / f"{name}.trc")
    ours = marker_rms(result.motion)
    print(f"{name}: marker RMS OpenSim IK {1000 * theirs:.2f} mm, ours {1000 * ours:.2f} mm")
    assert abs(theirs - ours) <= 0.002


def test_joints_about_other_axes_reproduce_in_opensim(tmp_path):
    """A chain whose hinge and universal axes are no clinical axes keeps its own angles; OpenSim agrees on
    the poses and, with the same derivatives, on the generalized forces."""
    from mocap_dynamics.solver.opensim import coordinate_values, write_osim
    from mocap_dynamics.solver.opensim.coordinates import to_opensim
    from tests.unit.test_dynamics_models import analytic_motion, chain
    model = chain(("hinge", "universal", "ball", "weld", "hinge"))
    times = np.linspace(0.0, 0.4, 9)
    q, v, a = analytic_motion(model, np.random.default_rng(8), times)
    dynamics = rnea(model, times, q, v, a)
    path = write_osim(model, tmp_path / "chain.osim")
    names, values = coordinate_values(model, times, q)
    states = coordinate_states(dynamics, dict(zip(names, values.T)))
    opensim_model = osim.Model(str(path))
    state = opensim_model.initSystem()
    for name in names:
        opensim_model.getCoordinateSet().get(name).setValue(state, float(states[0][name][3]), False)
    opensim_model.realizePosition(state)
    _, origins = model.forward_kinematics(q[3])
    for k, segment in enumerate(model.segments):
        body = opensim_model.getBodySet().get(segment.name)
        np.testing.assert_allclose(body.getPositionInGround(state).to_numpy(), to_opensim(origins[k]), atol=1e-9)
    theirs = solve_inverse_dynamics(path, None, times, *states)
    columns, ours = generalized_forces(dynamics)
    for column, mine in zip(columns, ours.T):
        np.testing.assert_allclose(theirs[column.rsplit("_", 1)[0]], mine, atol=1e-8 * np.abs(ours).max())
