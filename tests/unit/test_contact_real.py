"""subject4_walking1 (real mocap and force plates): contact estimated from the motion, checked against the plates.

The plates are only compared with. The bounds are sanity bounds, not tuned to this trial: Brubaker et al.
explain about 90 % of the root force and note that the estimated vertical GRF has the plates' timing and
magnitude but not their shape; eqs. 4-7 cannot make the fore-aft GRF of feet that do not slide.
"""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.contact import compare_with_plates, estimate_contact
from mocap_dynamics.solver.io import attach_plates, load_trial, read_grf_mot
from mocap_dynamics.solver.kinematics import reconstruct
from mocap_dynamics.solver.model import calibrate


def with_plates(folder, name):
    return attach_plates(load_trial(folder / f"{name}.trc"), read_grf_mot(folder / f"{name}_grf.mot"))


@pytest.fixture(scope="module")
def walk(shared_data):
    trial = with_plates(shared_data, "subject4_walking1")
    model = calibrate(trial, "full15", static=with_plates(shared_data, "subject4_static1"))
    motion = reconstruct(trial, model)
    return trial, estimate_contact(motion, forces="spring")


def test_contact_explains_most_of_the_root_force(walk):
    _, contact = walk
    assert 0.5 < contact.explained_force <= 1.0
    weight = contact.model.total_mass * 9.81
    mean_vertical = contact.total_force[:, 2].mean()
    assert 0.8 * weight < mean_vertical < 1.2 * weight  # walking on level ground carries the body weight


def test_the_ground_is_the_lab_floor(walk):
    _, contact = walk
    assert contact.plane_angle < 3.0  # the paper: -0.06° ± 1.1° over all its trials
    assert -0.05 < contact.plane_height < 0.10
    assert -0.05 < contact.resting_height < 0.10  # the sole points rest near the floor (z = 0)
    assert contact.plane_height < contact.resting_height


def test_plates_agree(walk):
    trial, contact = walk
    comparison = compare_with_plates(contact, trial)
    assert comparison.covered.mean() > 0.5
    assert comparison.rmse_vertical < 25.0  # % body weight
    assert comparison.correlation_vertical > 0.5
    assert len(comparison.events) >= 3  # two steps of one foot, one of the other
    assert np.all(np.abs(comparison.onset_errors) < 0.3) and np.all(np.abs(comparison.offset_errors) < 0.3)
    feet = {contact.feet[e.foot] for e in comparison.events}
    assert feet == {"foot_l", "foot_r"}
