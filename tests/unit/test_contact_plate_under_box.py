"""A plate under the box of a drop jump measures the box, not the floor: its centre of pressure lies at the
plate's top, under the box's top, so the nearest top would be the floor's. DJ3 has no such plate; one is made
from the estimate's own load on the box (the check is where the comparison puts it, not the forces)."""

from __future__ import annotations

import shutil
from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.contact import compare_with_plates
from mocap_dynamics.solver.dynamics import joint_moments
from mocap_dynamics.solver.io.conventions import from_z_up
from mocap_dynamics.solver.io.mot import read_table, write_table
from mocap_dynamics.solver.io.plates import attach_plates
from mocap_dynamics.solver.io.trial import ForcePlate
from mocap_dynamics.solver.pipeline import PipelineOptions, run


@pytest.fixture(scope="module")
def drop_jump(shared_data):
    return run(shared_data / "subject4_DJ3.trc", PipelineOptions(until="contact"))


def with_box_plate(result):
    """The trial with a fourth plate under the box: the box's load as estimated, at the box's footprint centre
    on the floor (z 0)."""
    contact, trial = result.contact, result.trial
    box = next(s for s in contact.summary()["surfaces"] if s["kind"] != "floor")
    on_box = contact.surface_force[:, 1, 2] > 0.05 * contact.body_weight
    force = np.where(on_box[:, None], np.nan_to_num(contact.surface_force[:, 1]), 0.0)
    cop = np.where(on_box[:, None], [box["centre_m"][0], box["centre_m"][1], 0.0], np.nan)
    frames = np.rint((contact.times - trial.start_time) * trial.rate).astype(int)
    full = np.zeros((trial.n_frames, 3))
    full[frames] = force
    cop_full = np.full((trial.n_frames, 3), np.nan)
    cop_full[frames] = cop
    plate = ForcePlate("under_box", np.full((4, 3), np.nan), trial.rate, trial.start_time, full, cop_full,
                       np.zeros_like(full))
    return attach_plates(replace(trial, plates=()), trial.plates + (plate,)), on_box


def test_a_plate_under_the_box_measures_the_box(drop_jump):
    """Taken for the floor's, the plate's load on the box (the body weight) was compared with the floor's
    estimate there (nothing): 73 % BW vertical RMSE. As the box's, with both feet on the one plate the
    comparison cannot split it between them and leaves the box phase out."""
    trial, on_box = with_box_plate(drop_jump)
    plates = compare_with_plates(drop_jump.contact, trial)
    assert plates.plate_surfaces == (0, 0, 0, 1)
    assert plates.covered[on_box].mean() < 0.05  # a frame at its end, where the estimate leaves the box first
    assert plates.rmse_vertical < 20.0  # 16.0: the landings' (the trial's 12.7 counts the box phase's zeros)


def test_a_plate_under_the_box_applies_its_force_at_the_top_where_the_feet_take_it(drop_jump, shared_data,
                                                                                  tmp_path):
    """DJ3 with the box's plate in its GRF file, run as a user runs it: the plate's force is moved along its line
    of action to the box's top (the same wrench), split between the feet on the box, and the torques with the
    plates follow those from the estimate on the box (whose load the plate is), as applied at the plate's own
    surface under the box they did not."""
    contact = drop_jump.contact
    on_box = contact.surface_force[:, 1, 2] > 0.05 * contact.body_weight
    forces = np.where(on_box[:, None, None], np.nan_to_num(contact.point_surface_forces[1]), 0.0)  # (T, K, 3)
    force = forces.sum(1)
    moment = np.cross(np.nan_to_num(contact.point_positions), forces).sum(1)  # about the origin
    with np.errstate(invalid="ignore", divide="ignore"):  # what a plate in the floor under the box measures
        cop = np.stack([-moment[:, 1] / force[:, 2], moment[:, 0] / force[:, 2], np.zeros(len(force))], axis=1)
    free = np.zeros_like(force)
    free[:, 2] = moment[:, 2] - np.cross(np.nan_to_num(cop), force)[:, 2]
    frames = np.rint((contact.times - drop_jump.trial.start_time) * drop_jump.trial.rate).astype(int)
    box = [np.zeros((drop_jump.trial.n_frames, 3)) for _ in range(3)]
    for whole, values in zip(box, (force, np.where(on_box[:, None], cop, 0.0), free)):
        whole[frames] = from_z_up(values, "Y")
    shutil.copy(shared_data / "subject4_DJ3.trc", tmp_path)
    table = read_table(shared_data / "subject4_DJ3_grf.mot")
    columns = table.columns + tuple(f"ground_force_4_{k}{a}" for k in "vpm" for a in "xyz")
    write_table(replace(table, columns=columns, data=np.column_stack([table.data, *box])),
                tmp_path / "subject4_DJ3_grf.mot")
    result = run(tmp_path / "subject4_DJ3.trc", PipelineOptions(until="contact"))
    notes = [w for w in result.plate_comparison.warnings if "lies under raised surface 1's top" in w]
    assert len(notes) == 1 and notes[0].startswith("force plate 'ground_force_4' lies under raised surface 1's top")
    assert result.dynamics_with_plates.options["external"] == \
        "measured force plates, at the top of the box they lie under, split between the feet"
    standing = on_box & (contact.times < 0.9)  # on the box, before the push-off
    with_plates, from_motion = (np.stack([joint_moments(d).moment(f"ankle_{side}", "dorsiflexion")[standing]
                                          for side in "lr"]) / result.model.total_mass
                                for d in (result.dynamics_with_plates, result.contact.dynamics))
    assert np.sqrt(np.mean((with_plates - from_motion) ** 2)) < 0.01  # N·m/kg: 0.005 (0.033 at the plate)
    stopped = run(tmp_path / "subject4_DJ3.trc", PipelineOptions(until="dynamics"))  # no contact step: the same
    np.testing.assert_array_equal(stopped.dynamics_with_plates.joint_torque_world,
                                  result.dynamics_with_plates.joint_torque_world)
    assert stopped.report()["dynamics"]["plates_applied"][0] == notes[0]
