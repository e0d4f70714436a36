"""Badler et al. §5: hand over hand along a ladder in zero gravity; the grasping hand holds its rung, the
grasp wrench is what changes the body's momentum, and the §7 energy measures are reported."""

import numpy as np
import pytest

from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.model import calibrate
from mocap_dynamics.solver.zerog import ladder_traversal

RATE = 200.0


@pytest.fixture(scope="module")
def climb(sample_walk):
    model = calibrate(sample_walk.trial, "full15")
    return model, ladder_traversal(model, rungs=4, rung_spacing=0.3, duration_per_rung=1.0, rate_hz=RATE)


def test_the_grasping_hand_holds_its_rung_and_the_hands_alternate(climb):
    model, result = climb
    _, pos = model.forward_kinematics(result.motion.q)
    ends = result.info["period_ends_s"]
    times = result.motion.times
    for k in range(1, 5):
        frames = (times >= ends[k - 1]) & (times < ends[k])
        hold = model.index("hand_r" if k % 2 else "hand_l")
        assert np.abs(pos[frames, hold] - pos[frames, hold][0]).max() < 1e-9
    rise = result.motion.q[-1, 2] - result.motion.q[0, 2]
    assert rise == pytest.approx(3 * 0.3)


def test_the_grasp_wrench_is_the_rate_of_momentum(climb):
    """Newton-Euler for the whole body: the only external force is the grasp, so it equals dp/dt (central
    differences, away from the hand switches where the grasp force jumps)."""
    model, result = climb
    force = result.dynamics.external.forces.sum(1)
    rate = (result.momentum[2:, :3] - result.momentum[:-2, :3]) * RATE / 2
    times = result.motion.times[1:-1]
    smooth = np.min(np.abs(times[:, None] - np.array(result.info["period_ends_s"])[None]), axis=1) > 2.5 / RATE
    assert np.abs(rate - force[1:-1])[smooth].max() <= 2e-2 * np.abs(force).max()
    assert np.abs(result.dynamics.root_wrench).max() < 1e-9 * np.abs(force).max()


def test_energy_measures_are_reported(climb):
    _, result = climb
    summary = result.summary()
    energy = summary["energy"]
    assert energy["effort_nms"] > 0 and energy["power_generated_peak_w"] > 0 > energy["power_absorbed_peak_w"]
    assert summary["peak_joint_torque_nm"]["upper_arm_r"] > 1.0
    with pytest.raises(SolverError, match="rungs"):
        ladder_traversal(climb[0], rungs=1)
