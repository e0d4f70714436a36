"""Winter's cutoff where a foot lands, the steady cutoff elsewhere: 8 Hz, higher for short contacts
(``dynamics.touchdowns``, the default ``auto`` cutoff): the touch-downs of a synthetic drop, on a real drop jump
the root force closer to the plates', and a sprint's stances kept apart from its flights."""

from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.dynamics import motion_derivatives
from mocap_dynamics.solver.dynamics.touchdowns import (AFTER, BEFORE, FIRM_SPEED, HARD_SPEED, LANDING_MAX_HZ, SETTLE,
                                                      SOFT_SPEED, STEADY_HZ, contact_durations, settling_weight,
                                                      steady_cutoff, touchdown_weight, touchdowns)
from mocap_dynamics.solver.kinematics.motion import Motion
from tests.unit.test_dynamics_models import chain

DT = 0.01


def foot_at(heights):
    """A free body with one hinged link named ``foot`` whose contact point, 0.3 m below the root, is at
    ``heights`` (T,) [m] at 100 Hz: its model, times and coordinates."""
    model = chain(["hinge"])
    foot = replace(model.segments[1], name="foot", joint_offset=(0.0, 0.0, 0.0), tip=(0.0, 0.0, -0.3),
                   contact_points=np.array([[0.0, 0.0, -0.3]]))
    model = type(model)((model.segments[0], foot))
    q = np.tile(model.neutral_q(), (len(heights), 1))
    q[:, 2] = 0.3 + np.asarray(heights)
    return model, np.arange(len(heights)) * DT, q


def falling(times, start, end, height, level):
    """Heights over ``times`` of a point resting at ``height`` until ``start``, then falling freely (from rest,
    so ``height`` must be ``level + g (end - start)² / 2``) onto ``level`` at ``end``, resting there after."""
    fall = np.clip(times - start, 0.0, end - start)
    return np.maximum(height - 0.5 * 9.81 * fall ** 2, level)


def dropped_foot(fall: bool):
    """The foot reaching the floor (z = 0) at 1 s and staying there: after a free fall of 0.3 s (2.9 m/s at
    touch-down), or lowered at 0.05 m/s. Its model, times, coordinates and the time of touch-down."""
    times, landing = np.arange(200) * DT, 1.0
    if fall:
        heights = falling(times, landing - 0.3, landing, 0.5 * 9.81 * 0.3 ** 2, 0.0)
    else:
        heights = 0.05 * np.clip(landing - times, 0.0, None)
    return *foot_at(heights), landing


def weight_of(model, times, q):
    """The touch-down weight of coordinates ``q`` (None without feet)."""
    found = touchdowns(model, times, q)
    return None if found is None else touchdown_weight(times, found)


def test_a_fall_onto_the_floor_is_a_touchdown_and_a_slow_lowering_is_not():
    model, times, q, landing = dropped_foot(fall=True)
    weight = weight_of(model, times, q)
    around = (times > landing - BEFORE + 0.05) & (times < landing + AFTER - 0.05)
    assert np.all(weight[around] > 0.99)
    far = (times < landing - BEFORE - 0.1) | (times > landing + AFTER + 0.1)
    assert np.all(weight[far] < 1e-9) and np.all((weight >= 0) & (weight <= 1 + 1e-12))
    model, times, q, _ = dropped_foot(fall=False)
    assert np.all(weight_of(model, times, q) == 0.0)


def test_a_fall_that_ends_before_its_landing_is_no_touchdown():
    """A clip of the free fall above that ends 0.05 s before the foot would land: its lowest frames are the falling
    foot's last, but the foot never stops coming down there, so there is no floor to land on (nor contacts)."""
    model, times, q, landing = dropped_foot(fall=True)
    clip = times < landing - 0.05
    found = touchdowns(model, times[clip], q[clip])
    assert len(found.times) == 0 and len(found.contacts) == 0
    assert np.all(touchdown_weight(times[clip], found) == 0.0)


@pytest.mark.parametrize("speed", [0.8, 1.5, 3.0])
def test_a_touchdown_counts_by_its_arrival_speed(speed):
    """A body set down on the floor at a constant speed: at 0.8 m/s it keeps the steady cutoff,
    at 1.5 m/s Winter's counts half, at 3 m/s (a landing) fully, over the whole touch-down window."""
    model, times, q = foot_at(np.clip(speed * (1.0 - np.arange(200) * DT), 0.0, None))
    found = touchdowns(model, times, q)
    assert len(found[0]) == 1 and abs(found[1][0] - speed) < 0.05 * speed
    weight = touchdown_weight(times, found)
    expected = np.clip((speed - SOFT_SPEED) / (FIRM_SPEED - SOFT_SPEED), 0.0, 1.0)
    around = (times > 1.0 - BEFORE + 0.05) & (times < 1.0 + AFTER - 0.05)
    np.testing.assert_allclose(weight[around], expected, atol=0.05)
    assert weight.max() <= expected + 1e-12


def test_a_landing_on_a_raised_level_counts_and_falling_past_one_does_not():
    """A jump onto a box: the foot stands on the floor, is lifted and falls 0.3 s onto a level 0.3 m up where it
    rests (the floor band alone misses this landing). Then a step off that box: the foot lifted from it
    falls past its level to the floor; only the floor landing counts."""
    times = np.arange(250) * DT
    lift = np.clip((times - 0.4) / 0.3, 0.0, 1.0)
    top = 0.3 + 0.5 * 9.81 * 0.3 ** 2
    onto_box = np.where(times < 0.7, top * (1 - np.cos(np.pi * lift)) / 2, falling(times, 0.7, 1.0, top, 0.3))
    weight = weight_of(*foot_at(onto_box))
    assert np.all(weight[(times > 1.0 - BEFORE + 0.05) & (times < 1.0 + AFTER - 0.05)] > 0.99)
    assert np.all(weight[times < 0.7] < 1e-9) and np.all(weight[times > 1.0 + AFTER + 0.1] < 1e-9)

    lift = np.clip((times - 0.5) / 0.2, 0.0, 1.0)
    drop = 0.1 + 0.3  # released 0.1 m above the box: it passes the box's level after 0.14 s, lands 0.15 s later
    land = 0.7 + np.sqrt(2 * drop / 9.81)
    off_box = np.where(times < 0.7, 0.3 + 0.1 * (1 - np.cos(np.pi * lift)) / 2, falling(times, 0.7, land, drop, 0.0))
    weight = weight_of(*foot_at(off_box))
    passing = 0.7 + np.sqrt(2 * 0.1 / 9.81)
    assert np.all(weight[np.abs(times - passing) < 0.02] < 1e-9)
    assert np.all(weight[(times > land - BEFORE + 0.05) & (times < land + AFTER - 0.05)] > 0.99)


def test_a_hard_landing_settles_and_a_soft_one_does_not():
    """The free fall of 0.3 s (2.9 m/s at touch-down) is a hard landing: the settling weight is 1 from the end of
    the touch-down window for ``SETTLE``; the same foot set down at 0.9 m/s (a walk's heel is slower) is not."""
    model, times, q, landing = dropped_foot(fall=True)
    found = touchdowns(model, times, q)
    assert len(found[0]) == 1 and abs(found[0][0] - landing) < 0.015 and found[1][0] > 2.5
    weight = settling_weight(times, found)
    assert np.all(weight[(times > landing + AFTER + 0.05) & (times < landing + AFTER + SETTLE - 0.05)] > 0.99)
    assert np.all(weight[(times < landing + AFTER - 0.05) | (times > landing + AFTER + SETTLE + 0.05)] < 1e-9)
    set_down = foot_at(np.clip(0.9 * (landing - np.arange(200) * DT), 0.0, 0.3))
    found = touchdowns(set_down[0], set_down[1], set_down[2])
    assert len(found[0]) == 1 and settling_weight(set_down[1], found) is None


def test_landings_either_side_of_a_hard_one_settle_alike():
    """Free falls onto the floor whose body comes down at about 1.9 and 2.1 m/s (a drop from a 20 cm box, recorded
    twice): settling weights of about 0.9 and 1 after them (a switch at ``HARD_SPEED`` gave 0 and 1); about 0.5
    at 1.5 m/s: the share of the speed between ``SOFT_SPEED`` and ``HARD_SPEED``."""
    times, landing = np.arange(300) * DT, 2.0
    found, plateau = [], []
    for speed in (1.5, 1.9, 2.1):
        fall = speed / 9.81
        model, times, q = foot_at(falling(times, landing - fall, landing, 0.5 * 9.81 * fall ** 2, 0.0))
        found.append(touchdowns(model, times, q))
        weight = settling_weight(times, found[-1])
        plateau.append(weight[np.abs(times - (found[-1].times[0] + AFTER + SETTLE / 2)) < 0.1])
    speeds = np.array([f.speeds[0] for f in found])
    assert all(len(f.times) == 1 for f in found) and speeds[1] < HARD_SPEED < speeds[2]
    for speed, weights in zip(speeds, plateau):
        assert np.allclose(weights, min(1.0, (speed - SOFT_SPEED) / (HARD_SPEED - SOFT_SPEED)))
    assert 0.3 < plateau[0][0] < 0.7 and plateau[1][0] > 0.8 and np.allclose(plateau[2], 1.0)


def test_no_feet_keeps_winters_cutoff_throughout():
    model = chain(["hinge"])  # no segment named foot*
    times = np.arange(300) * DT
    q = np.tile(model.neutral_q(), (len(times), 1))
    q[:, 7] = np.sin(2 * np.pi * 1.5 * times) + np.random.default_rng(3).normal(0, 2e-4, len(times))
    assert weight_of(model, times, q) is None
    motion = Motion.from_q(model, times, q, method="otm")
    _, _, _, a_auto, options = motion_derivatives(motion, cutoff="auto", scheme="central")[:5]
    _, _, _, a_winter, winter = motion_derivatives(motion, cutoff="winter", scheme="central")[:5]
    assert "steady_cutoff_hz" not in options and options["cutoff_hz"] == winter["cutoff_hz"]
    np.testing.assert_array_equal(a_auto, a_winter)


def test_a_drop_jump_keeps_its_landing_and_sheds_the_wobble(shared_data):
    """subject4_DJ3 (a drop jump from a box onto two plates, ending on a second landing): the default cutoff
    keeps Winter's at the two landings only, and the root force from the motion (what the contact estimate must
    balance) follows the plates' total closer than with Winter's cutoff throughout, fore-aft and vertically,
    over the frames the plates see every foot."""
    from mocap_dynamics.solver.pipeline import PipelineOptions, run
    results = {cutoff: run(shared_data / "subject4_DJ3.trc", PipelineOptions(until="contact", cutoff=cutoff))
               for cutoff in ("auto", "winter")}
    options = results["auto"].dynamics.options
    assert options["cutoff_hz"] > STEADY_HZ and options["steady_cutoff_hz"] == STEADY_HZ
    assert 0.05 < options["touchdown_share"] < 0.25
    errors = {}
    for cutoff, result in results.items():
        comparison, weight = result.plate_comparison, result.contact.body_weight
        seen = comparison.covered & (result.contact.surface_force[:, 1:, 2].sum(1) < 0.02 * weight)
        error = (result.contact.root_wrench_without[:, :3] - comparison.measured)[seen] / weight
        errors[cutoff] = (np.sqrt(np.mean((error @ comparison.forward) ** 2)),
                          np.sqrt(np.mean(error[:, 2] ** 2)))
    assert errors["auto"][0] < errors["winter"][0] - 0.01
    assert errors["auto"][1] <= errors["winter"][1] + 0.002


def test_a_sprints_short_contacts_raise_the_steady_cutoff(shared_data, monkeypatch):
    """The sprint (250 Hz; Winter's cutoff 33 Hz, capped at ``LANDING_MAX_HZ`` for touch-downs): the body comes
    down at under 1 m/s where its forefeet arrive at 2-4.5 m/s, so no touch-down keeps the landing cutoff; its
    stances last 0.08-0.12 s, so the steady cutoff is the inverse of their median, 10-12 Hz. The vertical GRF
    from motion alone then follows the plates closer than with every touch-down at the landing cutoff (README:
    37 -> 26 % BW); at the steady 8 Hz of a walk the feet are never still long enough to find the floor there
    (it is found at Winter's cutoff instead, ``estimate.winter_filtered``)."""
    from mocap_dynamics.solver.dynamics import touchdowns as module
    from mocap_dynamics.solver.opensim.coordinates import dynamics_coordinates
    from mocap_dynamics.solver.pipeline import PipelineOptions, run
    sprint = shared_data / "sprint_forceplates_JA1Gait35.c3d"
    default = run(sprint, PipelineOptions(until="contact"))
    options = default.dynamics.options
    assert options["cutoff_hz"] == LANDING_MAX_HZ and options["winter_cutoff_hz"] > 30
    assert options["touchdown_share"] == 0.0 and "settling_share" not in options
    assert 10.0 < options["steady_cutoff_hz"] < 12.0
    assert dynamics_coordinates(default.motion, default.dynamics).shape == default.motion.q.shape  # the export's
    assert default.plate_comparison.correlation_vertical > 0.975
    # supports found at the dynamics' own cutoff; the one warning is its root force in flight (test_contact_flight)
    assert [w[:9] for w in default.contact.warnings] == ["in flight"]
    monkeypatch.setattr(module, "SOFT_SPEED", -1.0)  # every touch-down keeps the landing cutoff fully
    monkeypatch.setattr(module, "FIRM_SPEED", 0.0)
    landings = run(sprint, PipelineOptions(until="contact"))
    assert default.plate_comparison.rmse_vertical < landings.plate_comparison.rmse_vertical - 5
    monkeypatch.undo()
    monkeypatch.setattr(module, "MIN_CONTACT", np.inf)  # no contact counts: the steady 8 Hz
    steady = run(sprint, PipelineOptions(until="contact"))
    assert steady.dynamics.options["steady_cutoff_hz"] == STEADY_HZ
    assert steady.contact.patches[0].found_at_hz == options["winter_cutoff_hz"]


def test_the_steady_cutoff_follows_short_contacts():
    """A foot's contacts (runs of frames with one of its points near a level, inside the trial) and the steady
    cutoff they give: 1 / their median when that beats ``STEADY_HZ``, contacts under ``MIN_CONTACT`` left out,
    at most the landing cutoff."""
    near = np.zeros((40, 3), bool)
    near[5:15, 0] = near[10:20, 1] = True  # foot 0: frames 5-19 (one contact, 15 frames, its two points overlap)
    near[0:8, 2] = near[25:31, 2] = True  # foot 1: a contact cut by the trial's start, then one of 6 frames
    np.testing.assert_allclose(contact_durations(near, np.array([0, 0, 1]), 0.01), [0.15, 0.06])
    assert steady_cutoff(np.array([0.7, 0.8]), 20.0) == STEADY_HZ  # a walk
    assert steady_cutoff(np.array([0.09, 0.1, 0.11, 0.02]), 20.0) == pytest.approx(10.0)  # a sprint, one flicker
    assert steady_cutoff(np.array([0.065]), 15.0) == 15.0
    assert steady_cutoff(np.array([0.03]), 20.0) == steady_cutoff(np.zeros(0), 20.0) == STEADY_HZ


def test_video_drop_jump_settles_after_its_landing(shared_data, monkeypatch):
    """opencap_video_DJ4 (video keypoints; a drop from a 31 cm box): after the landing the markers shake at 6-8
    Hz while the plates' force is smooth; filtered at 6 Hz for 0.4 s after the hard landing, the vertical GRF
    from the motion alone follows the plates closer (13.5 -> 13.1 % BW; 15.2 -> 14.2 before the markers' weights
    of ``kinematics.marker_weights`` took part of the shaking out)."""
    from mocap_dynamics.solver.dynamics import touchdowns as module
    from mocap_dynamics.solver.pipeline import PipelineOptions, run
    trial = shared_data / "opencap_video_DJ4.trc"
    settled = run(trial, PipelineOptions(until="contact"))
    assert 0.1 < settled.dynamics.options["settling_share"] < 0.5
    monkeypatch.setattr(module, "HARD_SPEED", np.inf)
    unsettled = run(trial, PipelineOptions(until="contact"))
    assert "settling_share" not in unsettled.dynamics.options
    assert settled.plate_comparison.rmse_vertical < unsettled.plate_comparison.rmse_vertical - 0.3


@pytest.mark.parametrize("cutoff", ["auto", "winter"])
def test_the_plates_dynamics_use_the_same_filtering(shared_data, cutoff):
    from mocap_dynamics.solver.pipeline import PipelineOptions, run
    result = run(shared_data / "subject4_DJ3.trc", PipelineOptions(until="dynamics", cutoff=cutoff))
    np.testing.assert_array_equal(result.dynamics.q, result.dynamics_with_plates.q)
    np.testing.assert_array_equal(result.dynamics.a, result.dynamics_with_plates.a)


def test_a_walks_heel_strikes_keep_the_steady_cutoff(shared_data, monkeypatch):
    """opencap_video_walking3 (video keypoints): its body comes down at under 0.3 m/s at its heel strikes, so they
    keep the steady cutoff; rather than each keeping Winter's, the keypoints' wobble stays out of the
    contact estimate: the moments from motion alone follow ours with the plates closer (mean r over hip, knee
    and ankle flexion 0.938 -> 0.948). The vertical GRF gained too (5.3 -> 4.6 % BW) until the markers' weights
    of ``kinematics.marker_weights`` (2026-12-06) took most of the wobble out; now every heel strike at
    Winter's follows the plates' vertical force a little closer (3.12 against 3.57 % BW since the soles are
    levelled where the feet rest flat, 2026-12-07; 3.27 against 3.47 before), and the moments keep the
    weighting."""
    from mocap_dynamics.solver.dynamics import joint_moments, touchdowns as module
    from mocap_dynamics.solver.pipeline import PipelineOptions, run

    def figures():
        result = run(shared_data / "opencap_video_walking3.trc", PipelineOptions(until="contact"))
        plates, alone = joint_moments(result.dynamics_with_plates), joint_moments(result.contact.dynamics)
        r = [np.corrcoef(plates.moment(f"{joint}_{side}", part), alone.moment(f"{joint}_{side}", part))[0, 1]
             for joint, part in (("hip", "flexion"), ("knee", "flexion"), ("ankle", "dorsiflexion")) for side in "lr"]
        return np.mean(r), result.plate_comparison.rmse_vertical

    weighted = figures()
    monkeypatch.setattr(module, "SOFT_SPEED", -1.0)  # every touch-down keeps Winter's fully
    monkeypatch.setattr(module, "FIRM_SPEED", 0.0)
    every = figures()
    assert weighted[0] > every[0] + 0.006 and weighted[1] < every[1] + 0.6


def test_a_landing_keeps_the_landing_floor_where_winter_finds_less(shared_data, tmp_path, monkeypatch):
    """subject4_DJ3 resampled to 60 Hz (its plates as they are): Winter's residual analysis finds 10 Hz there (the
    trajectories have no white-noise floor, so its cutoff follows the sampling rate); the landings keep
    ``LANDING_MIN_HZ`` and the vertical GRF from the motion alone follows the plates closer than at Winter's."""
    import shutil
    from mocap_dynamics.solver.dynamics import touchdowns as module
    from mocap_dynamics.solver.io import load_trial
    from mocap_dynamics.solver.io.trc import write_trc
    from mocap_dynamics.solver.io.trial import resample
    from mocap_dynamics.solver.pipeline import PipelineOptions, run
    write_trc(resample(load_trial(shared_data / "subject4_DJ3.trc"), 60.0), tmp_path / "dj3_60hz.trc")
    shutil.copy(shared_data / "subject4_DJ3_grf.mot", tmp_path / "dj3_60hz_grf.mot")
    floored = run(tmp_path / "dj3_60hz.trc", PipelineOptions(until="contact"))
    options = floored.dynamics.options
    assert options["winter_cutoff_hz"] < 12 and options["cutoff_hz"] == module.LANDING_MIN_HZ
    monkeypatch.setattr(module, "LANDING_MIN_HZ", 0.0)
    winter = run(tmp_path / "dj3_60hz.trc", PipelineOptions(until="contact"))
    assert winter.dynamics.options["cutoff_hz"] == options["winter_cutoff_hz"]
    assert floored.plate_comparison.rmse_vertical < winter.plate_comparison.rmse_vertical - 1.5
