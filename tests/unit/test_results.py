"""Measured plate forces as external forces, and the exported tables, on a real walking trial."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.dynamics import joint_moments, plate_forces
from mocap_dynamics.solver.io import read_table
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.results import write_results


@pytest.fixture(scope="module")
def walking(shared_data):
    return run(shared_data / "subject4_walking1.trc",
               PipelineOptions(static=str(shared_data / "subject4_static1.trc"), until="dynamics"))


def test_plates_act_on_the_feet_with_their_whole_force(walking):
    external = plate_forces(walking.trial, walking.motion)
    names = {walking.model.segments[k].name for k in external.segments}
    assert names <= {"foot_l", "foot_r"}
    samples = walking.trial.plate_samples
    loaded = np.isfinite(samples.cop).all(-1, keepdims=True)  # below 20 N a plate has no COP and applies nothing
    measured = np.where(loaded, samples.force, 0.0).sum(axis=1)
    np.testing.assert_allclose(np.nansum(external.forces, axis=1), measured, atol=1e-9)


def test_measured_forces_explain_most_of_the_root_force(walking):
    report = walking.report()["dynamics"]
    without = report["without_external_forces"]["root_force_mean_percent_bw"]
    assert without > 80, "without contact forces the root must hold the body up"
    assert report["root_force_ratio_with_to_without_plates"] < 0.3


def test_tables_are_written_and_read_back(walking, tmp_path):
    written, notes = write_results(walking, tmp_path)
    assert {p.name for p in written} >= {"subject4_walking1_angles.mot", "subject4_walking1_angles.csv",
                                         "subject4_walking1_torques.sto", "subject4_walking1_torques.csv"}
    torques = read_table(tmp_path / "subject4_walking1_torques.sto")
    dynamics = walking.best_dynamics
    np.testing.assert_allclose(torques.column("pelvis_residual_force_z"), dynamics.root_wrench[:, 2], rtol=1e-8)
    knee = walking.model.index("shank_l")
    np.testing.assert_allclose(torques.column("knee_l_flexion_moment"), dynamics.axis_torques[:, knee, 0], rtol=1e-8)
    np.testing.assert_allclose(torques.column("shank_l_moment_y"), dynamics.joint_torque_parent[:, knee, 1], rtol=1e-8)
    angles = read_table(tmp_path / "subject4_walking1_angles.mot")
    assert angles.in_degrees and len(angles.time) == len(walking.motion.times)
    assert not notes or all("plot" in note for note in notes)


def test_with_plates_the_torques_from_the_motion_alone_are_written_beside(shared_data, tmp_path):
    """The torques table has the plates' forces; beside it, the same table with the contact estimated from the
    motion alone, each header naming its forces. The knee moments from the motion alone follow the plates'
    (walking1: r 0.94-0.97 in the README's validation) but are not the same numbers."""
    result = run(shared_data / "subject4_walking1.trc", PipelineOptions(until="contact"))
    write_results(result, tmp_path)
    plates = read_table(tmp_path / "subject4_walking1_torques.sto")
    alone = read_table(tmp_path / "subject4_walking1_torques_motion_alone.sto")
    assert (tmp_path / "subject4_walking1_torques_motion_alone.csv").is_file()
    assert plates.header["external_forces"].startswith("measured force plates")
    assert alone.header["external_forces"] == "estimated contact (per_frame forces)"
    np.testing.assert_allclose(alone.column("knee_l_flexion_moment"),
                               joint_moments(result.contact.dynamics).moment("knee_l", "flexion"), rtol=1e-8)
    for column in ("knee_l_flexion_moment", "knee_r_flexion_moment"):
        assert np.corrcoef(plates.column(column), alone.column(column))[0, 1] > 0.9
        assert np.abs(plates.column(column) - alone.column(column)).max() > 1.0  # N·m: another estimate
