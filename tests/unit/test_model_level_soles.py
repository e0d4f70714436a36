"""The soles levelled on the floor of a static trial (``model.contact_points.level_soles``), on subject 4's
real static trial: on the plates' floor where the feet stand, left alone (and said) where they never do; and,
without a static trial, level where the feet rest flat in the movement trial (``level_soles_at_rest``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.model import ContactConfig, calibrate
from mocap_dynamics.solver.model.contact_points import STANDING, floor_height, level_soles, with_contact_points
from mocap_dynamics.solver.model.fit import fit_segments


def sole_heights(model, trial) -> np.ndarray:
    """Height (T, feet, points) of each foot's sole points in the frames of ``trial`` the model fits."""
    fit = fit_segments(model, trial.labels, trial.markers)
    rotations, origins = model.forward_kinematics(fit.q[fit.valid])
    feet = [k for k, s in enumerate(model.segments) if s.name in model.metadata["feet"]]
    return np.stack([(origins[:, k, None] + np.einsum("tij,pj->tpi", rotations[:, k],
                                                      model.segments[k].contact_points))[..., 2] for k in feet], 1)


def test_the_soles_of_a_standing_static_trial_rest_on_its_plates(walking_full15, subject4_static):
    """Calibrated with the static trial, every sole point lies on the plates' floor while the subject stands."""
    heights = sole_heights(walking_full15, subject4_static)
    assert np.abs(np.median(heights, axis=0) - floor_height(subject4_static)).max() < 0.005


def test_feet_that_never_stand_on_the_floor_keep_their_soles_and_are_named(walking_full15, subject4_static):
    """The same static trial with the subject 30 cm up (on a box; the plates' floor stays where it is): no foot
    stands within ``STANDING`` of the floor, so no sole point moves, and one warning names both feet."""
    on_a_box = replace(subject4_static, markers=subject4_static.markers + [0.0, 0.0, 0.30])
    assert 0.30 > 2 * STANDING
    levelled, warnings = level_soles(walking_full15, on_a_box)
    for before, after in zip(walking_full15.segments, levelled.segments):
        np.testing.assert_array_equal(before.contact_points, after.contact_points)
    assert len(warnings) == 1 and "foot_l and foot_r never stand on the floor" in warnings[0]
    assert "soles not levelled" in warnings[0] and "standing on the floor" in warnings[0]


def test_a_foot_lifted_in_part_of_the_static_trial_is_levelled_from_the_frames_it_stands(walking_full15,
                                                                                           subject4_static):
    """The left foot's markers lifted 20 cm in the first half of the static trial (a foot raised, then put
    down): the levelling uses the frames in which it stands and gives the soles of the whole static trial."""
    markers = subject4_static.markers.copy()
    left_foot = [i for i, label in enumerate(subject4_static.labels)
                 if label in walking_full15.segments[walking_full15.index("foot_l")].markers]
    half = len(markers) // 2
    markers[:half, left_foot, 2] += 0.20
    levelled, warnings = level_soles(walking_full15, replace(subject4_static, markers=markers))
    whole, _ = level_soles(walking_full15, subject4_static)
    k = walking_full15.index("foot_l")
    assert warnings == ()
    np.testing.assert_allclose(levelled.segments[k].contact_points, whole.segments[k].contact_points, atol=0.003)


def test_without_a_static_trial_the_soles_are_level_where_the_feet_rest_flat(shared_data):
    """walking1 calibrated on itself: in mid-stance (the foot's four sole points still) the sole built from the
    heel and toe markers tilts by 1.7-1.8 cm, heels low; levelled, its four points lie within 4 mm of one height
    there."""
    model = calibrate(load_trial(shared_data / "subject4_walking1.trc"))
    trial = load_trial(shared_data / "subject4_walking1.trc")
    levelled, built = sole_heights(model, trial), sole_heights(with_contact_points(model), trial)
    for foot in range(2):
        flat = np.abs(np.gradient(built[:, foot], axis=0)).max(1) < 0.0005  # still: under 5 cm/s at 100 Hz
        assert flat.sum() >= 10
        assert np.median(np.ptp(built[flat, foot], axis=1)) > 0.012
        assert np.median(np.ptp(levelled[flat, foot], axis=1)) < 0.004


def test_feet_that_never_rest_flat_keep_their_soles(shared_data):
    """The sprint's feet touch down on the forefoot and roll: no foot rests flat, no sole point moves."""
    model = calibrate(load_trial(shared_data / "sprint_forceplates_JA1Gait35.c3d"))
    built = with_contact_points(model)
    for segment, as_built in zip(model.segments, built.segments):
        np.testing.assert_array_equal(segment.contact_points, as_built.contact_points)


def test_feet_given_rings_instead_of_soles_are_not_levelled(shared_data):
    """A foot whose contact points are a ring (``ContactConfig(feet=False)``), not the sole, keeps it."""
    rings = ContactConfig(feet=False)
    model = calibrate(load_trial(shared_data / "subject4_walking1.trc"), contact=rings)
    for segment, as_built in zip(model.segments, with_contact_points(model, rings).segments):
        np.testing.assert_array_equal(segment.contact_points, as_built.contact_points)
