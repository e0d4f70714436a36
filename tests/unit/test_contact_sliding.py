"""Whether a point slides is judged at Winter's cutoff (``contact.estimate``), checked against force plates: the
sprint's stances, where the dynamics' filter spreads the foot's motion over the whole 0.1 s stance, and a walk,
whose feet stand still at either cutoff; a sole's points are judged with their foot (``contact.sliding``), checked
against rigid-body kinematics in closed form and on the sprint."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.contact import estimate_contact
from mocap_dynamics.solver.contact.compare import compare_with_plates
from mocap_dynamics.solver.contact.estimate import winter_filtered
from mocap_dynamics.solver.contact.model import ContactPoints
from mocap_dynamics.solver.contact.sliding import sliding_factor, sliding_speeds
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
    default): vertical GRF 24.1 -> 22.7 % BW from the plates, centre of pressure in single support 4.4 -> 3.8 cm."""
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


#: A right foot's sole corners [m] (heel lateral and medial, fifth and first metatarsal heads) and an elbow's
#: point, on no sole.
CORNERS = np.array([[0.0, -0.03, 0.0], [0.0, 0.03, 0.0], [0.17, -0.045, 0.0], [0.19, 0.04, 0.0], [0.1, 0.3, 0.0]])
SOLES = np.array([0, 0, 0, 0, -1])


def _turning(pivot, turn_rate: float, drift=(0.0, 0.0, 0.0)) -> np.ndarray:
    """Velocities (1, 5, 3) of ``CORNERS`` turning at ``turn_rate`` [rad/s] about a vertical axis through ``pivot``
    and moving with it at ``drift`` [m/s]: ω ẑ × (p - c) + u."""
    return (np.cross([0.0, 0.0, turn_rate], CORNERS - np.asarray(pivot, float)) + np.asarray(drift))[None]


def test_a_sole_turning_about_a_point_inside_it_is_still_at_its_stillest_corner():
    """A foot pivoting on its ball (a point between the metatarsal heads) at 5 rad/s: every corner moves at
    0.2-0.5 m/s, but the sole stands; its stillest corner is judged still, the others by how much faster they
    move, the elbow on its own."""
    velocities = _turning([0.15, 0.0, 0.0], 5.0)
    own = np.linalg.norm(velocities, axis=-1)[0]
    judged = sliding_speeds(velocities, SOLES)[0]
    stillest = np.argmin(own[:4])
    assert own[:4].min() > 0.2
    assert judged[stillest] == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(judged[:4] ** 2, own[:4] ** 2 - own[stillest] ** 2, atol=1e-12)
    assert judged[4] == pytest.approx(own[4])
    assert sliding_factor(velocities, np.tile([0.0, 0.0, 1.0], (1, 5, 1)), 0.7, SOLES)[0, stillest] == 1.0


@pytest.mark.parametrize("pivot, turn_rate, drift", [([-0.05, -0.08, 0.0], 3.0, (0.0, 0.0, 0.0)),
                                                     ([0.0, 0.0, 0.0], 0.0, (0.8, 0.1, 0.0)),
                                                     ([0.0, -0.03, 0.0], 3.0, (0.0, 0.0, 0.0))])
def test_a_sole_whose_stillest_point_is_a_corner_is_judged_point_by_point(pivot, turn_rate, drift):
    """Turning about a point behind and outside the heel's lateral corner, sliding as a whole, or turning about
    that corner (a heel strike's roll): the sole's slowest point is a corner, and each point keeps its own speed
    (as before the soles were judged together)."""
    velocities = _turning(pivot, turn_rate, drift)
    np.testing.assert_allclose(sliding_speeds(velocities, SOLES), np.linalg.norm(velocities, axis=-1), atol=1e-12)


def test_a_point_without_a_velocity_may_carry_load():
    velocities = _turning([0.15, 0.0, 0.0], 5.0)
    velocities[0, 2] = np.nan
    factor = sliding_factor(velocities, np.tile([0.0, 0.0, 1.0], (1, 5, 1)), 0.7, SOLES)
    assert factor[0, 2] == 1.0 and np.isfinite(factor).all()


def _toe_points_ahead(result, ahead: float):
    """``result``'s motion and dynamics with each sole's toe points ``ahead`` [m] farther along its foot, as a
    marker on the toe tip (a hallux marker, a video keypoint BigToe) places them."""
    model = result.dynamics.model
    segments = list(model.segments)
    for name in model.metadata["soles"]:
        k = model.index(name)
        points = segments[k].contact_points.copy()
        forward = points[2:4].mean(0) - points[0:2].mean(0)
        forward[2] = 0.0
        points[2:4] += ahead * forward / np.linalg.norm(forward)
        segments[k] = replace(segments[k], contact_points=points)
    model = replace(model, segments=tuple(segments))
    return replace(result.motion, model=model), replace(result.dynamics, model=model)


def test_a_sprint_whose_toe_points_lie_at_the_toe_tips_still_stands(sprint):
    """The sprint's toe points 6 cm farther ahead, at the toe tips: they turn with the forefoot 6 cm farther from
    its turning line and move faster in stance. Judged point by point its stances slid away (vertical GRF 39.5 %
    BW from the plates, r 0.959; 22.1 as built); judged with the sole, 23.0 (22.7 as built)."""
    motion, dynamics = _toe_points_ahead(sprint, 0.06)
    ahead = against_plates(estimate_contact(motion, dynamics=dynamics), sprint.trial)
    assert ahead["rmse_vertical_bw_percent"] < against_plates(sprint.contact, sprint.trial)[
        "rmse_vertical_bw_percent"] + 2.0
    assert ahead["correlation_vertical"] > 0.98
