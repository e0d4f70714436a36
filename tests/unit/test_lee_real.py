"""Lee's estimation on real recordings (../shared/data): a walk with a static calibration, a squat with marker
gaps, the Motion's use by inverse dynamics, and the errors a user can make."""

from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.dynamics import inverse_dynamics
from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.kinematics.lee import RESIDUAL_TOLERANCES, estimate_lee
from mocap_dynamics.solver.model import calibrate


@pytest.fixture(scope="module")
def walk(shared_data):
    trial = load_trial(shared_data / "subject4_walking1.trc")
    model = calibrate(trial, static=load_trial(shared_data / "subject4_static1.trc"))
    calls = []
    motion = estimate_lee(trial, model, flight="detect", progress=lambda done, total: calls.append((done, total)))
    return trial, model, motion, calls


def test_walk_runs_through_with_consistent_states(walk):
    trial, model, motion, calls = walk
    assert motion.method == "lee" and motion.q.shape == (trial.n_frames, model.nq)
    assert motion.v.shape == motion.a.shape == (trial.n_frames, model.nv)
    assert np.isfinite(motion.q).all() and np.isfinite(motion.v).all() and np.isfinite(motion.a).all()
    residuals = motion.info["residuals"]["pva"]
    for key, tolerance in zip(("joint_position", "joint_velocity", "joint_acceleration"), RESIDUAL_TOLERANCES):
        assert residuals[key].max() < tolerance
    assert motion.converged.all()
    assert motion.info["flight_windows"] == []  # walking: always a foot on the ground
    raw = motion.info["residuals"]["ic"]
    assert raw["joint_position"].max() > 0.01  # what the raw per-segment fits leave (m)
    assert np.sqrt(np.nanmean(motion.marker_errors ** 2)) < 0.02
    assert calls[-1] == (3 * trial.n_frames, 3 * trial.n_frames)


def test_inverse_dynamics_uses_the_motions_own_rates(walk):
    _, model, motion, _ = walk
    dynamics = inverse_dynamics(motion)
    assert dynamics.options["derivatives"] == "given by lee"
    np.testing.assert_array_equal(dynamics.times, motion.times)  # every frame, none lost to differences
    assert np.isfinite(dynamics.generalized_forces).all()


def test_marker_rates_as_initial_guesses(walk):
    trial, model, _, _ = walk
    motion = estimate_lee(trial, model, initial_guess="markers")
    assert motion.converged.all() and np.isfinite(motion.a).all()


def test_marker_gaps(shared_data):
    """The squat's first 300 frames miss about a thousand marker samples."""
    trial = load_trial(shared_data / "squat_gaps.c3d")
    trial = replace(trial, markers=trial.markers[:300])
    assert np.isnan(trial.markers).any()
    model = calibrate(trial)
    motion = estimate_lee(trial, model)
    assert np.isfinite(motion.q).all() and np.isfinite(motion.a).all()
    assert motion.converged.all()


@pytest.mark.parametrize("options", [dict(weights=(5, 2)), dict(velocity_weights=(2, 2, 5, 5, -5)),
                                     dict(initial_guess="guess"), dict(self_iterations=0), dict(dx=0.0),
                                     dict(flight="often"), dict(initial_guess="markers",
                                                                marker_velocities=np.zeros((3, 4, 3)))])
def test_bad_options_are_reported(walk, options):
    trial, model, _, _ = walk
    with pytest.raises(SolverError):
        estimate_lee(trial, model, **options)


def test_too_short_a_trial_is_reported(walk):
    trial, model, _, _ = walk
    with pytest.raises(SolverError):
        estimate_lee(replace(trial, markers=trial.markers[:3]), model)
