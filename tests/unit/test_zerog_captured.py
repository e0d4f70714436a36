"""A captured motion in zero gravity: the CMU basketball trial (../shared/data) reconstructed for 300
frames, its joints replayed on a free-floating body."""

from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.kinematics import reconstruct
from mocap_dynamics.solver.model import calibrate
from mocap_dynamics.solver.zerog import simulate_zero_gravity

FRAMES = 300


@pytest.fixture(scope="module")
def captured(shared_data):
    trial = load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d")
    model = calibrate(trial)
    return reconstruct(replace(trial, markers=trial.markers[:FRAMES]), model)


@pytest.mark.parametrize("initial", ["zero", "first_frames"])
def test_captured_joints_float_with_conserved_momentum(captured, initial):
    result = simulate_zero_gravity(captured, initial_momentum=initial)
    model, motion = captured.model, result.motion
    assert motion.method == "zero_gravity" and motion.n_frames == FRAMES
    np.testing.assert_allclose(model.joint_rotations(motion.q)[:, 1:], model.joint_rotations(captured.q)[:, 1:],
                               atol=1e-12)  # the captured joint angles, every frame
    np.testing.assert_allclose(motion.q[0, :7], captured.q[0, :7], atol=1e-12)  # starts where the capture starts
    assert result.momentum_drift <= 1e-9
    assert len(result.dynamics.times) == FRAMES and np.isfinite(result.dynamics.generalized_forces).all()
    if initial == "zero":
        assert np.abs(result.momentum).max() <= 1e-9 * result.momentum_scale
        np.testing.assert_allclose(model.body_com(motion.q), model.body_com(motion.q[0]) + 0 * motion.q[:, :3],
                                   atol=1e-9)  # no momentum: the centre of mass stays put
    else:
        assert np.linalg.norm(result.initial_momentum[:3]) > 1.0  # the player was moving
    summary = result.summary()
    assert summary["initial_momentum_from"] == initial and summary["frames"] == FRAMES


def test_gaps_are_refused(captured):
    q = captured.q.copy()
    q[10] = np.nan
    with pytest.raises(SolverError, match="no pose"):
        simulate_zero_gravity(replace(captured, q=q))
