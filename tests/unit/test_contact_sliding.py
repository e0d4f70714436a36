"""Whether a point slides is judged at Winter's cutoff (``contact.estimate``), checked against force plates: the
sprint's stances, where the dynamics' filter spreads the foot's motion over the whole 0.1 s stance, and a walk,
whose feet stand still at either cutoff."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.contact import estimate_contact
from mocap_dynamics.solver.contact.compare import compare_with_plates
from mocap_dynamics.solver.contact.estimate import winter_filtered
from mocap_dynamics.solver.contact.model import ContactPoints
from mocap_dynamics.solver.pipeline import PipelineOptions, run


def against_plates(contact, trial) -> dict:
    return compare_with_plates(contact, trial).summary()


@pytest.fixture(scope="module")
def sprint(shared_data):
    return run(shared_data / "sprint_forceplates_JA1Gait35.c3d", PipelineOptions(until="contact"))


@pytest.fixture(scope="module")
def sprint_before(sprint):
    """The sprint's contact with the sliding judged at the dynamics' own filtering (no motion given: the estimate
    before 2026-12-07)."""
    return estimate_contact(dynamics=sprint.dynamics)


def test_winter_s_cutoff_is_the_one_the_dynamics_found(sprint):
    """The sprint's dynamics keep Winter's 32 Hz only where a foot lands hard (none here: 10.9 Hz throughout) and
    record it; the sliding test filters at it without running his analysis again."""
    options = sprint.dynamics.options
    assert options["winter_cutoff_hz"] > 30 and options["steady_cutoff_hz"] < 12
    at_winter = winter_filtered(sprint.motion, sprint.dynamics, ContactPoints.of(sprint.dynamics.model))
    assert at_winter[-1] == options["winter_cutoff_hz"]


def test_the_sprint_s_forces_follow_its_plates_closer_when_sliding_is_judged_at_winter_s_cutoff(sprint, sprint_before):
    """The same dynamics and surfaces, the sliding judged at the dynamics' own filtering or at Winter's (the
    default): vertical GRF 24.1 -> 22.1 % BW from the plates, centre of pressure in single support 4.4 -> 3.7 cm."""
    before = against_plates(sprint_before, sprint.trial)
    now = against_plates(sprint.contact, sprint.trial)
    assert now["rmse_vertical_bw_percent"] < before["rmse_vertical_bw_percent"] - 1.0
    assert now["cop_error_single_support_cm"] < before["cop_error_single_support_cm"] - 0.3
    assert now["rmse_horizontal_bw_percent"] < before["rmse_horizontal_bw_percent"]


def test_where_points_rest_is_judged_as_before(sprint, sprint_before):
    """The floor comes from where points rest in the dynamics' motion, not from the sharper one (there the
    sprint's floor fell 1.6 cm further below its plates)."""
    before = sprint_before
    assert len(before.surfaces) == len(sprint.contact.surfaces) == 1
    assert sprint.contact.summary()["surfaces"][0]["height_m"] == \
        pytest.approx(before.summary()["surfaces"][0]["height_m"], abs=1e-9)


def test_a_walk_s_feet_stand_still_at_either_cutoff(shared_data):
    walk = run(shared_data / "subject4_walking1.trc", PipelineOptions(until="contact"))
    before = estimate_contact(dynamics=walk.dynamics)
    assert against_plates(walk.contact, walk.trial)["rmse_vertical_bw_percent"] == \
        pytest.approx(against_plates(before, walk.trial)["rmse_vertical_bw_percent"], abs=0.1)
    assert np.isclose(walk.contact.explained_force, before.explained_force, atol=0.002)
