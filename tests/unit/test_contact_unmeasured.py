"""Joint torques with the measured plates and the contact estimated where no plate measures
(``solver.contact.unmeasured``): a drop jump's box and a sit-to-stand's chair have no plate, a walk's first
step lands beside them. Checked by what the physics says and the plates cannot: with the support's force the
body needs little root force there (with the plates alone it needs the support's force); where the plates
see all the contact, the torques are the plates'."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.contact import compare_with_plates, with_unmeasured_support
from mocap_dynamics.solver.dynamics import inverse_dynamics, joint_moments, plate_forces
from mocap_dynamics.solver.dynamics.derivatives import motion_derivatives
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from tests.unit.test_contact_plate_under_box import drop_jump, with_box_plate  # noqa: F401  (fixture)

MAIN = (("hip_l", "flexion"), ("hip_r", "flexion"), ("knee_l", "flexion"), ("knee_r", "flexion"),
        ("ankle_l", "dorsiflexion"), ("ankle_r", "dorsiflexion"))


def root_force_bw(dynamics, weight: float) -> np.ndarray:
    return np.linalg.norm(dynamics.root_wrench[:, :3], axis=1) / weight


@pytest.fixture(scope="module")
def sit_to_stand(shared_data):
    return run(shared_data / "subject4_STS1.trc", PipelineOptions(until="contact"))


@pytest.mark.parametrize("name", ["drop_jump", "sit_to_stand"])
def test_the_support_without_a_plate_carries_the_body_where_the_plates_see_nothing(name, request):
    result = request.getfixturevalue(name)
    contact, plates = result.contact, result.plate_comparison
    weight = contact.body_weight
    supported = plates.off_plates > 0.5 * weight  # on the box, on the seat
    assert supported.mean() > 0.2
    with_plates, with_support = result.dynamics_with_plates, result.dynamics_with_support
    assert result.best_dynamics is with_support
    assert with_support.options["external"] == "measured force plates and the estimated contact on raised surface 1"
    assert np.nanmean(root_force_bw(with_plates, weight)[supported]) > 0.8  # the plates miss the body weight
    assert np.nanmean(root_force_bw(with_support, weight)[supported]) < 0.1  # 0.9 / 7.8 % BW
    assert result.report()["dynamics"]["torques_with"] == with_support.options["external"]
    mass, see = contact.model.total_mass, plates.plates_see_all
    moments, measured = joint_moments(with_support), joint_moments(with_plates)
    for joint, component in MAIN:  # where the plates see all, the plates' torques (off them: < 2 % BW)
        gap = np.abs(moments.moment(joint, component) - measured.moment(joint, component))[see] / mass
        assert np.nanmax(gap) < 0.05, (joint, np.nanmax(gap))


def test_standing_on_the_box_needs_plantarflexors(drop_jump):  # noqa: F811
    """On the box the plates see nothing: with them alone the ankles carry no moment; with the box's force the
    ankles hold the body (plantarflexor, a negative dorsiflexion moment), as the estimate alone has it."""
    contact = drop_jump.contact
    on_box = drop_jump.plate_comparison.off_plates > 0.9 * contact.body_weight
    for dynamics, low, high in ((drop_jump.dynamics_with_plates, -0.05, 0.05),
                                (drop_jump.dynamics_with_support, -1.0, -0.2)):
        ankle = joint_moments(dynamics).moment("ankle_l", "dorsiflexion")[on_box] / contact.model.total_mass
        assert low < np.nanmean(ankle) < high, np.nanmean(ankle)


def test_a_box_on_a_plate_is_measured_not_estimated(drop_jump):  # noqa: F811
    trial, _ = with_box_plate(drop_jump)
    comparison = compare_with_plates(drop_jump.contact, trial)
    assert with_unmeasured_support(drop_jump.dynamics_with_plates, drop_jump.contact, comparison) is None


def test_a_step_beside_the_plates_is_filled_in_and_the_steps_on_them_are_the_plates(shared_data):
    """subject4_walking1 starts with the left foot on the floor beside the plates (0.11 s): there the plates
    alone miss its load (44 % BW of root force); with the estimate's, the body needs what it needs on the
    plates (7 %). The steps on the plates keep the plates' torques."""
    result = run(shared_data / "subject4_walking1.trc", PipelineOptions(until="contact"))
    plates, weight = result.plate_comparison, result.contact.body_weight
    steps = plates.steps_off_plates
    assert steps[:, 0].sum() >= 8 and not steps[:, 1].any() and not (steps.any(1) & plates.covered).any()
    with_plates, with_support = result.dynamics_with_plates, result.dynamics_with_support
    assert result.best_dynamics is with_support
    assert with_support.options["external"] == "measured force plates and the estimated contact on steps off the plates"
    off = steps.any(1)
    assert np.nanmean(root_force_bw(with_plates, weight)[off]) > 0.3
    assert np.nanmean(root_force_bw(with_support, weight)[off]) < 0.12
    moments, measured = joint_moments(with_support), joint_moments(with_plates)
    for joint, component in MAIN:
        gap = moments.moment(joint, component) - measured.moment(joint, component)
        assert np.nanmax(np.abs(gap[plates.covered])) < 1e-9, joint


def test_without_plates_the_report_names_the_estimate_as_the_torques_forces(shared_data):
    """walking1 without its plates: the torques shown and written are those with the estimated contact, and the
    report says so (it said "no external forces" of them)."""
    result = run(shared_data / "subject4_walking1.trc", PipelineOptions(until="contact", grf=None))
    assert result.best_dynamics is result.contact.dynamics
    dynamics = result.report()["dynamics"]
    assert dynamics["torques_with"] == "estimated contact (per_frame forces)"
    assert "with_measured_plates" not in dynamics and "with_plates_and_estimated_support" not in dynamics
    dynamics_only = run(shared_data / "subject4_walking1.trc", PipelineOptions(until="dynamics", grf=None))
    assert dynamics_only.report()["dynamics"]["torques_with"] == "no external forces"


def test_a_fill_in_that_counts_a_measured_load_twice_is_refused(drop_jump):  # noqa: F811
    """DJ3's torques with a fourth plate under the box (the box's load as estimated), filled in as if that plate
    were not there: the box's load would count twice and the root force rise, so the plates' torques stay."""
    trial, _ = with_box_plate(drop_jump)
    options = PipelineOptions()
    derived = motion_derivatives(drop_jump.motion, cutoff=options.filter_cutoff, scheme=options.derivatives)
    four_plates = inverse_dynamics(drop_jump.motion, derivatives=derived,
                                   external=plate_forces(trial, drop_jump.motion))
    np.testing.assert_array_equal(four_plates.times, drop_jump.contact.times)
    assert with_unmeasured_support(four_plates, drop_jump.contact, drop_jump.plate_comparison) is None
    assert with_unmeasured_support(drop_jump.dynamics_with_plates, drop_jump.contact,
                                   drop_jump.plate_comparison) is not None
