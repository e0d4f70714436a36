"""The project's own sample walk: deterministic, physically consistent forces, planted feet, readable files."""

from __future__ import annotations

import ezc3d
import numpy as np
import pytest

from mocap_dynamics.solver import sample
from mocap_dynamics.solver.io import load_trial


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    first, second = tmp_path_factory.mktemp("first"), tmp_path_factory.mktemp("second")
    return sample.write_sample(first), sample.write_sample(second)


def test_two_runs_write_identical_files(written):
    first, second = written
    assert set(first) == {"c3d", "trc"}
    for kind in first:
        assert first[kind].read_bytes() == second[kind].read_bytes()


def test_files_read_back_as_the_generated_trial(written, sample_walk):
    files, _ = written
    truth = sample_walk.trial
    for path in files.values():
        trial = load_trial(path)
        assert trial.labels == sample.LABELS and trial.rate == 100.0 and trial.n_frames == 300
        np.testing.assert_allclose(trial.markers, truth.markers, atol=1e-6)
        assert not trial.warnings
    plates = load_trial(files["c3d"]).plates
    assert [p.rate for p in plates] == [1000.0, 1000.0] and len(plates[0].force) == 3000
    for plate, original in zip(plates, truth.plates):
        np.testing.assert_allclose(plate.corners, original.corners, atol=1e-6)
        size = np.ptp(plate.corners, axis=0)
        assert sorted(size[:2]) == pytest.approx([0.4, 0.6])


def test_ground_reaction_force_is_mass_times_com_acceleration_minus_gravity(written, sample_walk):
    plates = load_trial(written[0]["c3d"]).plates  # what the files carry, 32-bit floats
    truth = sample_walk
    times = truth.plate_times
    h = 2e-4  # an independent central difference of the figure's centre of mass
    com_acceleration = (sample.centre_of_mass(times + h) - 2 * sample.centre_of_mass(times)
                        + sample.centre_of_mass(times - h)) / h ** 2
    off_plate = np.where((truth.foot_plate < 0)[:, :, None], truth.foot_force, 0.0).sum(axis=1)
    on_plates = sum(p.force for p in plates)
    expected = sample.MASS * (com_acceleration - [0.0, 0.0, -sample.GRAVITY])
    # Two central differences (2e-4 s here, 1e-4 s in the generator) differ by up to 0.5 N where a foot
    # pattern switches phase (the motion is C2 there); elsewhere by far less.
    np.testing.assert_allclose(on_plates + off_plate, expected, atol=1.0)
    assert np.median(np.abs(on_plates + off_plate - expected)) < 0.01
    # Impulse = change of momentum, without differentiating twice: integral of F/M + g = v(end) - v(start).
    total = on_plates + off_plate
    impulse = ((total[1:] + total[:-1]) / 2).sum(axis=0) * (times[1] - times[0]) / sample.MASS
    velocity = (sample.centre_of_mass(times[[0, -1]] + h) - sample.centre_of_mass(times[[0, -1]] - h)) / (2 * h)
    np.testing.assert_allclose(impulse + [0.0, 0.0, -sample.GRAVITY * (times[-1] - times[0])],
                               velocity[1] - velocity[0], atol=1e-3)
    assert expected[:, 2].min() > 0.7 * sample.MASS * sample.GRAVITY  # walking: 0.8 to 1.2 body weight
    assert np.abs(expected[:, 0]).max() < 0.25 * sample.MASS * sample.GRAVITY


def test_each_plate_records_one_stance_of_one_foot_heel_to_toe(sample_walk):
    truth = sample_walk
    for p, plate in enumerate(truth.trial.plates):
        loaded = plate.force[:, 2] > 0
        feet = np.flatnonzero((truth.foot_plate == p).any(axis=0))
        assert len(feet) == 1  # one foot, and only while it stands on this plate
        np.testing.assert_array_equal(loaded, truth.foot_force[:, feet[0], 2] * (truth.foot_plate[:, feet[0]] == p)
                                      > 0)
        stance = np.flatnonzero(loaded)
        assert np.all(np.diff(stance) == 1) and 0.6 < len(stance) / 1000.0 < 0.7  # one stance, ~0.66 s
        cop = plate.cop[plate.force[:, 2] >= 20.0]
        assert np.all(np.diff(cop[:, 0]) > 0)  # heel to toe, forward
        low, high = plate.corners.min(axis=0), plate.corners.max(axis=0)
        assert np.all((cop[:, :2] > low[:2]) & (cop[:, :2] < high[:2]))
    other_steps = (truth.foot_plate < 0) & (truth.foot_force[:, :, 2] > 0)
    for plate in truth.trial.plates:  # the steps off the plates land outside them
        low, high = plate.corners.min(axis=0), plate.corners.max(axis=0)
        cops = truth.foot_cop[other_steps]
        assert not np.any(np.all((cops[:, :2] > low[:2]) & (cops[:, :2] < high[:2]), axis=1))


def test_feet_do_not_slide_while_on_the_ground():
    """The heel stays put from heel strike to heel rise, the ball of the foot from foot flat to toe-off."""
    times = np.arange(0.0, 3.0, 0.001)
    frames = sample._segment_frames(sample._points(times))
    for side, name in ((0, "L"), (1, "R")):
        foot = sample._foot(times, side)
        origin, axes = frames[name + "foot"]
        heel = origin + axes @ [-sample.HEEL_BACK, 0.0, -sample.ANKLE_HEIGHT]
        ball = origin + axes @ [sample.BALL_FORWARD, 0.0, -sample.ANKLE_HEIGHT]
        for point, start, end in ((heel, 0.0, sample.HEEL_OFF), (ball, sample.FOOT_FLAT, sample.DUTY)):
            planted = foot.on_ground & (foot.fraction >= start) & (foot.fraction < end)
            for strike in np.unique(foot.heel_strike[planted]):
                during = planted & (foot.heel_strike == strike)
                assert np.ptp(point[during], axis=0).max() < 1e-9
                assert np.abs(point[during, 2]).max() < 1e-9  # on the floor


def test_segments_keep_their_lengths():
    points = sample._points(np.arange(0.0, 3.0, 0.002))
    for side in "LR":
        for proximal, distal, length in (("hip", "knee", sample.THIGH), ("knee", "ankle", sample.SHANK),
                                         ("shoulder", "elbow", sample.UPPER_ARM), ("elbow", "wrist", sample.FOREARM)):
            distance = np.linalg.norm(points[side + distal] - points[side + proximal], axis=1)
            np.testing.assert_allclose(distance, length)  # the legs never had to stretch


def test_sample_has_the_deliberate_gaps(sample_walk):
    gaps = {g.label: g for g in sample_walk.trial.gaps() if not g.complete}
    assert {label: (g.missing, g.gaps) for label, g in gaps.items()} == {"LFIN": (5, 1), "RSHN": (3, 1)}


def test_labels_are_the_cmu_marker_set(shared_data):
    raw = ezc3d.c3d(str(shared_data / "cmu_dribble_shoot_basketball.c3d"))
    labels = tuple(label.split(":")[-1] for label in raw["parameters"]["POINT"]["LABELS"]["value"])
    assert sample.LABELS == labels
