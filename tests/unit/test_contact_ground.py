"""The floor's own velocity (``solver.contact.ground``): a treadmill's belt found from the feet, and the contact
estimated relative to it. Known answers: synthetic feet on a moving floor, and a real walk (subject4_walking1)
moved as on a treadmill, which must give the overground walk's floor and forces back (a belt at constant speed
is a frame moving at constant velocity: the dynamics are the same). On the ground the floor stands still,
also under a sprinter's rolling forefeet."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mocap_dynamics.solver.contact.ground import floor_velocity
from mocap_dynamics.solver.contact.model import ContactPoints, point_positions
from mocap_dynamics.solver.contact.support import find_patches
from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.io.trc import write_trc
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.report import build_report, summary

BELT = 1.3  # m/s, subject4_walking1's own walking speed


def feet_on_a_floor(floor_speed: float, body_speed: float, sliding: bool = False):
    """Two feet of four points, alternately standing (on a floor moving at ``floor_speed`` along x; ``sliding``:
    from twice that to a stop over each stance) and swinging (0.1 m up, forward), under a body moving at
    ``body_speed``: positions, velocities, on_feet, CM, times."""
    times = np.arange(200) / 100.0
    positions = np.zeros((200, 8, 3))
    velocities = np.zeros_like(positions)
    on_floor = floor_speed * (2.0 - np.arange(200) % 50 / 25.0 if sliding else 1.0)
    for foot in range(2):
        stance = (np.arange(200) // 50 + foot) % 2 == 0
        velocities[:, 4 * foot:4 * foot + 4, 0] = np.where(stance, on_floor, 2.5)[:, None]
        positions[:, 4 * foot:4 * foot + 4, 2] = np.where(stance, 0.0, 0.1)[:, None]
    centre_of_mass = np.c_[body_speed * times, np.zeros(200), np.ones(200)]
    return positions, velocities, np.ones(8, bool), centre_of_mass, times


def test_feet_travelling_faster_than_the_body_move_with_their_floor():
    assert np.allclose(floor_velocity(*feet_on_a_floor(-1.2, 0.0)), [-1.2, 0.0, 0.0])
    assert np.allclose(floor_velocity(*feet_on_a_floor(-1.2, 0.05)), [-1.2, 0.0, 0.0])  # the body sways a little
    assert not floor_velocity(*feet_on_a_floor(0.05, 1.3)).any()  # walking on the ground
    assert not floor_velocity(*feet_on_a_floor(0.9, 9.5)).any()  # a sprinter's rolling forefoot outpaced by the body
    assert not floor_velocity(*feet_on_a_floor(0.5, 0.1, sliding=True)).any()  # feet sliding to a stop disagree


def on_a_treadmill(path, folder, speed: float):
    """The trial at ``path`` moved against its walking direction at ``speed`` [m/s], written to ``folder``."""
    trial = load_trial(path)
    middle = np.nanmean(trial.markers, axis=1)
    direction = np.r_[(middle[-1] - middle[0])[:2], 0.0]
    direction /= np.linalg.norm(direction)
    shift = -speed * (trial.times - trial.times[0])[:, None, None] * direction
    moved = folder / f"{path.stem}_treadmill.trc"
    write_trc(replace(trial, markers=trial.markers + shift), moved)
    return moved, -speed * direction


def test_a_walk_on_a_treadmill_stands_on_its_belt(shared_data, tmp_path):
    """subject4_walking1 as if on a 1.3 m/s belt: in the lab's frame no foot rests (the pelvis, still there,
    rests on nothing either while the thighs stand upright: until 2026-12-06 a "floor" was found at its height,
    0.78 m); relative to the belt found from the feet, the floor, the cutoff and the forces are the overground
    walk's (same body mass: the plates' file stays with the original), the soles levelled where the feet rest
    flat on the belt as on the ground (``model.contact_points.level_soles_at_rest``; levelled on the ground
    only, the feet's vertical forces differed by 0.9 % BW RMS and the floor by 1.7 mm)."""
    ground = run(shared_data / "subject4_walking1.trc", PipelineOptions(until="contact"))
    moved, belt = on_a_treadmill(shared_data / "subject4_walking1.trc", tmp_path, BELT)
    treadmill = run(moved, PipelineOptions(until="contact", mass=ground.model.total_mass))  # its plates stay behind
    contact, weight = treadmill.contact, treadmill.contact.body_weight
    assert not ground.contact.ground_velocity.any()
    assert np.linalg.norm(contact.ground_velocity - belt) < 0.05
    assert [p.kind for p in contact.patches] == ["floor"]
    assert abs(contact.patches[0].height - ground.contact.patches[0].height) < 0.001
    assert abs(treadmill.dynamics.options["cutoff_hz"] - ground.dynamics.options["cutoff_hz"]) <= 1.0
    difference = contact.foot_force - ground.contact.foot_force
    assert np.sqrt(np.nanmean(difference[..., 2] ** 2)) < 0.002 * weight  # 0.01 % BW (README)
    assert np.sqrt(np.nanmean(np.sum(difference[..., :2] ** 2, axis=-1))) < 0.002 * weight  # 0.00 % BW
    assert "floor moving at 1.30 m/s (a treadmill" in summary(build_report(treadmill))
    # what the lab's frame would find: no point resting, no floor
    dynamics, points = treadmill.dynamics, ContactPoints.of(treadmill.dynamics.model)
    positions = point_positions(dynamics.model, dynamics.q, points)
    in_the_lab = find_patches(dynamics.model, points, dynamics.poses[0], positions,
                              np.gradient(positions, dynamics.times, axis=0), dynamics.model.body_com(dynamics.q),
                              100.0, dynamics.gravity)
    assert in_the_lab == []


def test_the_floor_stands_still_under_a_sprint(shared_data):
    """The sprint's forefeet roll at 0.9 m/s on the ground while the body runs at 9.5 m/s: no treadmill."""
    result = run(shared_data / "sprint_forceplates_JA1Gait35.c3d", PipelineOptions(until="contact"))
    assert not result.contact.ground_velocity.any()
    assert "floor_velocity_m_s" not in result.contact.summary()
