"""Flight phases (Lee eq. 4.12-4.19, E.13-E.60): detection, the CM parabola, and a simulated 3-D free flight of
a calibrated body model estimated from noisy markers, against finite differences of the raw marker fits."""

import numpy as np
import pytest

from mocap_dynamics.solver.dynamics import (
    GRAVITY, forward_differences, inverse_dynamics, momentum, segment_motion, simulate,
)
from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.io.trial import Trial
from mocap_dynamics.solver.kinematics.lee import estimate_lee
from mocap_dynamics.solver.kinematics.lee.flight import FLIGHT_CLEARANCE, detect_flight, flight_parabola, flight_windows
from mocap_dynamics.solver.kinematics.motion import Motion
from mocap_dynamics.solver.model import calibrate, fit_segments

RATE = 100.0
DURATION = 0.5
STEPS_PER_FRAME = 10
NOISE = 0.002  # m


def test_detect_flight_finds_airborne_windows_long_enough():
    heights = np.zeros(100)
    heights[30:60] = 0.2  # 0.3 s in the air
    heights[80:84] = 0.2  # a 40 ms blip: too short
    heights[10] = FLIGHT_CLEARANCE / 2  # not above the clearance
    assert detect_flight(heights + 0.9, RATE) == [(30, 60)]


def test_flight_window_option():
    times = np.arange(50) / RATE
    assert flight_windows(None, times, None) == []
    assert flight_windows((0.1, 0.2), times, None) == [(10, 21)]
    for bad in ("sometimes", (0.1,), (0.3, 0.31)):
        with pytest.raises(SolverError):
            flight_windows(bad, times, None)


def test_parabola_with_gravity_fits_a_ballistic_cm():
    times = np.arange(40) / RATE
    cm = np.array([0.1, -0.2, 1.0]) + np.outer(times, [1.0, 0.5, 3.0]) + 0.5 * np.outer(times ** 2, GRAVITY)
    noisy = cm + np.random.default_rng(0).normal(0, 1e-3, cm.shape)
    position, velocity, acceleration = flight_parabola(times, [(5, 35)], noisy, GRAVITY)
    assert np.isnan(position[:5]).all() and np.isnan(velocity[35:]).all()
    np.testing.assert_allclose(position[5:35], cm[5:35], atol=2e-3)
    np.testing.assert_allclose(velocity[5:35], np.array([1.0, 0.5, 3.0]) + np.outer(times[5:35], GRAVITY), atol=0.05)
    np.testing.assert_allclose(acceleration[5:35], np.broadcast_to(GRAVITY, (30, 3)))


@pytest.fixture(scope="module")
def flight(sample_walk):
    """A calibrated full15 model (from the project's sample walk) in free flight with gravity for 0.5 s
    (RK4 at 1 ms; joint torques 0.1 N·m per kg of the child segment, sinusoidal at 2 Hz), its markers with
    2 mm Gaussian noise, and Lee's estimate with the whole trial as the flight window."""
    model = calibrate(sample_walk.trial)
    rng = np.random.default_rng(0)
    q0 = np.array(model.metadata["calibration"].initial_q, dtype=float)
    v0 = np.zeros(model.nv)
    v0[0:3], v0[3:6], v0[6:] = (1.0, 0.2, 2.5), (0.3, 1.5, 0.2), rng.normal(0.0, 0.3, model.nv - 6)
    n_steps = int(DURATION * RATE) * STEPS_PER_FRAME
    amplitude = np.concatenate([[s.mass * 0.1] * s.nv for s in model.segments[1:]])
    phase = rng.uniform(0.0, 2 * np.pi, model.nv - 6)
    tau = np.zeros((n_steps, model.nv))
    tau[:, 6:] = amplitude * np.sin(2 * np.pi * 2.0 * np.arange(n_steps)[:, None] / (RATE * STEPS_PER_FRAME) + phase)
    q, v = simulate(model, q0, v0, tau, 1 / (RATE * STEPS_PER_FRAME), gravity=GRAVITY, method="rk4")
    q = q[::STEPS_PER_FRAME]
    markers = model.marker_positions(q) + rng.normal(0.0, NOISE, (len(q), len(model.marker_labels), 3))
    trial = Trial(source="simulated flight", labels=model.marker_labels, markers=markers, rate=RATE)
    return model, q, trial, estimate_lee(trial, model, flight=(0.0, DURATION))


def cm_and_momentum(model, q, v):
    """Whole-body CM (T, 3) and angular momentum about it (T, 3) of a motion, by the dynamics module."""
    linear, about_origin = momentum(model, q, v)
    com, _, _, _ = segment_motion(model, q, v)
    masses = np.array([s.mass for s in model.segments])
    cm = np.einsum("s,tsi->ti", masses, com) / masses.sum()
    return cm, about_origin - np.cross(cm, linear)


def test_flight_constraints_hold_after_estimation(flight):
    """The thesis's tolerances (§9.4): joints 1e-9 m, 1e-6 m/s, 1e-3 m/s²; CM acceleration = g, H constant."""
    model, _, _, motion = flight
    residuals = motion.info["residuals"]["pva"]
    assert residuals["joint_position"].max() < 1e-9
    assert residuals["joint_velocity"].max() < 1e-6
    assert residuals["joint_acceleration"].max() < 1e-3
    assert residuals["cm_acceleration"].max() < 1e-9
    assert residuals["momentum_change"].max() < 1e-9 and residuals["momentum_rate"].max() < 1e-9
    assert motion.converged.all()
    # the same seen through the Motion's q, v, a by the dynamics module
    root = inverse_dynamics(motion).root_wrench
    assert np.abs(root).max() < 1e-6  # momentum rate = gravity: CM acceleration g, no torque about the CM
    _, spin = cm_and_momentum(model, motion.q, motion.v)
    assert np.abs(spin - spin.mean(axis=0)).max() < 1e-9


def test_finite_differences_of_the_raw_markers_are_far_from_it(flight):
    model, _, trial, motion = flight
    fit = fit_segments(model, trial.labels, trial.markers)
    times, q, v, a = forward_differences(model, trial.times, fit.q)
    raw = Motion.from_q(model, times, q, "raw fits", v=v, a=a)
    cm, spin = cm_and_momentum(model, q, v)
    cm_acceleration = np.diff(cm, 2, axis=0) * RATE ** 2
    assert np.abs(cm_acceleration - GRAVITY).max() > 10.0  # m/s²
    assert np.abs(spin - spin.mean(axis=0)).max() > 1.0  # kg m²/s
    assert np.abs(inverse_dynamics(raw).root_wrench[:, :3]).max() > 100.0  # N
    ic = motion.info["residuals"]["ic"]  # the raw fits with spline derivatives
    assert ic["cm_acceleration"].max() > 10.0 and ic["joint_position"].max() > 0.01


def test_estimate_stays_near_the_true_motion(flight):
    """Segment origins within 3 cm and orientations within 15° (the CMU set has two markers on the limbs;
    the raw per-segment fits are off by up to 14°)."""
    model, q, _, motion = flight
    rot, pos = model.forward_kinematics(q)
    assert np.abs(motion.positions - pos).max() < 0.03
    cos = (np.einsum("tsij,tsij->ts", motion.rotations, rot) - 1) / 2
    assert np.degrees(np.arccos(np.clip(cos, -1, 1))).max() < 15.0
