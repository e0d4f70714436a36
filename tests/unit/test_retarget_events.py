"""Foot events from the contact estimate: a foot is planted while some point of its sole is still
(``slowest_sole_speed``), checked against rigid-body kinematics in closed form and against a sprint's plates."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.retarget import foot_contacts
from mocap_dynamics.solver.contact.sliding import slowest_sole_speed

#: A right foot's sole corners [m]: heel lateral and medial, fifth and first metatarsal heads.
SOLE = np.array([[0.0, -0.03], [0.0, 0.03], [0.17, -0.045], [0.19, 0.04]])


def _pivoting(pivots: np.ndarray, turn_rate: float, drift: np.ndarray = np.zeros(2)) -> np.ndarray:
    """Horizontal velocities (T, K, 2) of the sole corners of a foot turning at ``turn_rate`` [rad/s] about a
    vertical axis through each pivot (T, 2) and moving with it at ``drift`` [m/s]: ω ẑ × (p - c) + u."""
    arms = SOLE[None] - pivots[:, None]
    return turn_rate * np.stack([-arms[..., 1], arms[..., 0]], axis=-1) + drift


def _slowest_on_a_grid(pivots: np.ndarray, turn_rates: np.ndarray, drifts: np.ndarray) -> np.ndarray:
    """The slowest speed (T,) over the sole's points on a 1 mm grid, each point's velocity from the motion
    itself (``_pivoting``'s formula at that point), not from the corners'."""
    x, y = np.meshgrid(np.arange(-0.001, 0.192, 0.001), np.arange(-0.046, 0.042, 0.001))
    grid = np.stack([x.ravel(), y.ravel()], -1)
    ring = SOLE[[0, 2, 3, 1]]  # anticlockwise
    edges, starts = np.roll(ring, -1, 0) - ring, ring
    turns = edges[:, 0] * (grid[:, None, 1] - starts[:, 1]) - edges[:, 1] * (grid[:, None, 0] - starts[:, 0])
    grid = grid[(turns >= 0).all(1)]
    arms = grid[None] - pivots[:, None]
    moving = turn_rates[:, None, None] * np.stack([-arms[..., 1], arms[..., 0]], -1) + drifts[:, None]
    return np.linalg.norm(moving, axis=-1).min(1)


def test_a_foot_pivoting_on_its_ball_has_a_still_point_though_every_corner_moves():
    """Turning at 3 rad/s about the first metatarsal's neighbourhood, inside the sole: the corners move at
    0.1-0.5 m/s, the point under the axis not at all; about a point 5 cm beyond the toes the slowest point is
    the sole's nearest to the axis, moving at ω times that distance."""
    inside = np.array([[0.15, 0.0]])
    velocities = _pivoting(inside, 3.0)
    assert np.linalg.norm(velocities, axis=-1).min() > 0.1
    assert slowest_sole_speed(velocities) == pytest.approx([0.0])
    beyond = np.array([[0.19 + 0.05, 0.04]])
    assert slowest_sole_speed(_pivoting(beyond, 3.0)) == pytest.approx([3.0 * 0.05])


def test_the_slowest_sole_speed_is_the_polygon_s_for_any_turn_and_drift():
    """Random pivots, turn rates and drifts: the same slowest speed as sampling the polygon densely (to the
    sampling's resolution), never above the corners' slowest, and a pure drift moves every point alike."""
    rng = np.random.default_rng(1)
    pivots, rates, drifts = rng.uniform([-0.1, -0.15], [0.3, 0.15], (200, 2)), rng.uniform(-6, 6, 200), \
        rng.normal(0, 0.3, (200, 2))
    velocities = np.concatenate([_pivoting(pivots[i:i + 1], rates[i], drifts[i]) for i in range(200)])
    found, sampled = slowest_sole_speed(velocities), _slowest_on_a_grid(pivots, rates, drifts)
    assert np.all(found <= np.linalg.norm(velocities, axis=-1).min(1) + 1e-12)
    assert np.all(found <= sampled + 1e-12)
    assert np.all(sampled - found <= np.abs(rates) * 0.0015)  # the grid's resolution: within 1.5 mm of any point
    assert np.count_nonzero(found == 0.0) > 10  # some pivots lie inside the sole
    drift = np.broadcast_to([0.3, -0.4], (1, 4, 2))
    assert slowest_sole_speed(drift) == pytest.approx([0.5])


def test_a_corner_without_a_velocity_is_left_out():
    velocities = _pivoting(np.array([[0.15, 0.0], [0.15, 0.0]]), 3.0)
    velocities[1, 0] = np.nan
    assert slowest_sole_speed(velocities) == pytest.approx([0.0, 0.0], abs=1e-12)
    velocities[1] = np.nan
    assert np.isnan(slowest_sole_speed(velocities)[1])


def test_a_sprinter_s_rolling_forefoot_stays_planted_nearer_its_plates(shared_data):
    """The sprint at 9 m/s (2026-12-07): a stance lasts 0.1 s and the forefoot rolls through it, so every corner
    of the sole moves at 0.54 m/s (medians) while the plates carry it and the sole's slowest point at 0.2. The
    stances found cover 46 / 42 of the 59 / 59 frames in which the plates carry each foot (30 / 29 from the
    corners alone at the dynamics' filtering), none outside them, and the toe offs come 16-24 ms before the
    plates' (44-48 from the corners alone)."""
    result = run(shared_data / "sprint_forceplates_JA1Gait35.c3d", PipelineOptions(until="contact"))
    contact, plates = result.contact, result.plate_comparison
    contacts = foot_contacts(contact)
    weight = contact.model.total_mass * float(np.linalg.norm(contact.dynamics.gravity))
    covered = np.interp(contact.times, plates.times, plates.covered.astype(float)) > 0.5
    for f in range(len(contact.feet)):
        carried = covered & (np.interp(contact.times, plates.times, plates.measured_feet[:, f, 2]) > 0.05 * weight)
        stance = contacts.stance[:, f] & covered
        assert np.count_nonzero(stance & carried) >= 0.68 * np.count_nonzero(carried)
        assert not np.any(stance & ~carried)
    toe_offs = [e.time for e in contacts.events if e.kind == "toe off"]
    for event in plates.events:
        if np.isfinite(event.measured_offset):
            assert min(abs(t - event.measured_offset) for t in toe_offs) <= 0.03
