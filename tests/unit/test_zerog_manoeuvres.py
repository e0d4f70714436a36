"""Badler et al. §4: self-orientation with zero angular momentum (leg lifting, twisting, closing)."""

import numpy as np
import pytest

from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.model import calibrate
from mocap_dynamics.solver.zerog import self_orientation
from tests.unit.test_dynamics_models import humanoid


@pytest.fixture(scope="module")
def full15(sample_walk):
    return calibrate(sample_walk.trial, "full15")


def test_the_full_manoeuvre_turns_the_standing_body_with_zero_momentum(full15):
    result = self_orientation(full15, "sequence", angle_deg=60, duration_s=1.0)
    motion = result.motion
    np.testing.assert_allclose(motion.q[-1, 7:], motion.q[0, 7:], atol=1e-12)  # standing again
    assert result.momentum_drift <= 1e-9
    assert np.abs(result.momentum).max() <= 1e-9 * result.momentum_scale
    angle, axis = result.torso_reorientation
    assert angle > 5.0  # a net turn, mostly about the vertical
    assert abs(axis[2]) > 0.9
    summary = result.summary()
    assert summary["torso_reorientation_deg"] == angle and summary["peak_joint_torque_nm"]["thigh_l"] > 0.1


def test_reversing_the_twist_reverses_the_turn(full15):
    left = self_orientation(full15, "sequence", angle_deg=45, duration_s=0.8)
    right = self_orientation(full15, "sequence", angle_deg=-45, duration_s=0.8)
    assert np.sign(left.torso_reorientation[1][2]) != np.sign(right.torso_reorientation[1][2])


@pytest.mark.parametrize("manoeuvre", ["leg_lifting", "leg_twisting", "leg_closing"])
def test_each_step_turns_the_torso_and_converges_with_the_step(full15, manoeuvre):
    """RK4 on the momentum equation: halving the step four times changes the net turn by < 1e-4°."""
    coarse = self_orientation(full15, manoeuvre, angle_deg=50, duration_s=1.0, rate_hz=50)
    fine = self_orientation(full15, manoeuvre, angle_deg=50, duration_s=1.0, rate_hz=800)
    assert coarse.torso_reorientation[0] > 1.0
    assert abs(coarse.torso_reorientation[0] - fine.torso_reorientation[0]) < 1e-4
    assert fine.momentum_drift <= 1e-9


def test_a_speed_limit_caps_the_hip_rates(full15):
    result = self_orientation(full15, "leg_lifting", angle_deg=90, duration_s=1.0, v_max=120.0)
    k = full15.index("thigh_l")
    start = full15.v_starts[k]
    assert np.degrees(np.linalg.norm(result.motion.v[:, start:start + 3], axis=1)).max() <= 120.0 + 1e-9
    assert result.summary()["v_max_deg_s"] == 120.0


def test_other_models_and_unknown_manoeuvres(full15):
    assert self_orientation(humanoid(), "leg_twisting", angle_deg=40, duration_s=0.5).torso_reorientation[0] > 1.0
    with pytest.raises(SolverError, match="manoeuvre"):
        self_orientation(full15, "somersault", angle_deg=40, duration_s=0.5)


@pytest.mark.parametrize("limbs", ["arms", "left_leg"])
def test_other_limbs_turn_the_body_too_with_zero_momentum(full15, limbs):
    result = self_orientation(full15, "sequence", angle_deg=60, duration_s=0.5, rate_hz=50, limbs=limbs)
    angle, _ = result.torso_reorientation
    assert result.momentum_drift < 1e-9 and angle > 1.0
    k = full15.names.index({"arms": "upper_arm_l", "left_leg": "thigh_l"}[limbs])
    assert result.peak_torques()[full15.names[k]] > 0
    untouched = full15.names.index({"arms": "thigh_l", "left_leg": "thigh_r"}[limbs])
    start = full15.q_starts[untouched]
    np.testing.assert_allclose(result.motion.q[:, start:start + 4] - full15.neutral_q()[start:start + 4], 0, atol=1e-12)
