"""The estimated GRF as an OpenSim GRF .mot: what a researcher loads into OpenSim as external loads."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.contact import grf_table
from mocap_dynamics.solver.contact.result import BODY_LOAD
from mocap_dynamics.solver.io import read_grf_mot, write_table
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.sample import MASS, write_sample


@pytest.fixture(scope="module")
def contact(tmp_path_factory):
    sample = write_sample(tmp_path_factory.mktemp("sample"))
    return run(sample["c3d"], PipelineOptions(until="contact", mass=MASS)).contact


def test_the_file_reads_back_as_one_plate_per_foot(contact, tmp_path):
    path = write_table(grf_table(contact), tmp_path / "walk_grf_estimated.mot")
    plates = read_grf_mot(path)  # OpenSim's Y-up convention, as our reader assumes for .mot files
    assert [p.name for p in plates] == ["ground_force_1", "ground_force_2"]
    for k, plate in enumerate(plates):
        np.testing.assert_allclose(plate.force, np.nan_to_num(contact.foot_force[:, k]), atol=1e-6, rtol=1e-8)
        loaded = np.isfinite(plate.cop[:, 0]) & np.isfinite(contact.foot_cop[:, k, 0])
        assert loaded.sum() > 20, "the foot stands on the ground for a while"
        np.testing.assert_allclose(plate.cop[loaded], contact.foot_cop[loaded, k], atol=1e-8)
        names = [s.name for s in contact.model.segments]
        on_foot = contact.point_segments == names.index(contact.feet[k])
        np.testing.assert_allclose(plate.force, contact.point_forces[:, on_foot].sum(axis=1), atol=1e-5)


def test_y_is_up_in_the_file_and_the_feet_carry_the_body(contact):
    table = grf_table(contact)
    vertical = table.column("ground_force_1_vy") + table.column("ground_force_2_vy")
    weight = contact.model.total_mass * 9.81
    assert 0.7 < vertical.mean() / weight < 1.3
    assert np.abs(table.column("ground_force_1_vz")).max() < 0.5 * np.abs(table.column("ground_force_1_vy")).max()
    assert table.header["feet"] == " ".join(contact.feet)


def test_free_moment_is_along_the_floor_normal_and_zero_when_unloaded(contact):
    table = grf_table(contact, up_axis="Z")
    unloaded = ~np.isfinite(contact.foot_cop[:, 0, 0])
    assert unloaded.any()
    moment = np.stack([table.column(f"ground_force_1_m{axis}") for axis in "xyz"], axis=1)
    normal = contact.plane.normal
    np.testing.assert_allclose(moment - np.outer(moment @ normal, normal), 0.0, atol=1e-9)
    assert np.abs(moment[:, 2]).max() > 0.1  # a foot in stance twists the ground a little
    assert np.all(moment[unloaded] == 0)
    assert np.all(table.column("ground_force_1_px")[unloaded] == 0), "OpenSim files write 0 for no COP"


def test_a_seated_pelvis_and_thighs_are_contact_bodies_in_the_file(shared_data, tmp_path):
    """subject4_STS1 sits on a chair: after the feet, the file carries the segments the seat loads (pelvis and
    thighs), each with its force, centre of pressure on the seat and free moment; the feet and they add up to
    the whole estimate, the seat carrying the body weight while she sits."""
    contact = run(shared_data / "subject4_STS1.trc", PipelineOptions(until="contact")).contact
    assert contact.other_bodies == ("pelvis", "thigh_l", "thigh_r")
    table = grf_table(contact, up_axis="Z")
    assert table.header["bodies"] == "foot_l foot_r pelvis thigh_l thigh_r"
    plates = read_grf_mot(write_table(grf_table(contact), tmp_path / "sts_grf_estimated.mot"))
    assert len(plates) == 5
    total = sum(np.stack([table.column(f"ground_force_{k}_v{axis}") for axis in "xyz"], 1) for k in range(1, 6))
    # a segment whose points never carry BODY_LOAD of the body weight is left out (the right shank's ring at the
    # ankle, up to 0.7 N in 44 of 1397 frames)
    np.testing.assert_allclose(total, contact.total_force, atol=BODY_LOAD * contact.body_weight)
    assert np.mean(np.linalg.norm(total - contact.total_force, axis=-1) < 1e-6 * contact.body_weight) > 0.96
    seated = table.column("ground_force_3_vz") > 0.5 * contact.body_weight
    assert seated.mean() > 0.2, "five cycles: seated a good part of the trial"
    seat = contact.patches[1]
    np.testing.assert_allclose(table.column("ground_force_3_pz")[seated], seat.height, atol=0.02)  # on the seat
