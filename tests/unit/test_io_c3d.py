"""C3D reading (markers, units, axes, gaps, force platforms) on the shared recordings, and C3D round trips."""

from __future__ import annotations

import ezc3d
import numpy as np
import pytest

from mocap_dynamics.solver.errors import InputError
from mocap_dynamics.solver.io import ImportOptions, load_trial, write_c3d, write_trc
from mocap_dynamics.solver.io.trial import ForcePlate, Trial
from mocap_dynamics.solver.sample import write_sample


@pytest.fixture(scope="module")
def sprint(shared_data):
    path = shared_data / "sprint_forceplates_JA1Gait35.c3d"
    return load_trial(path), ezc3d.c3d(str(path), extract_forceplat_data=True)


def test_a_label_in_latin_1_reads_as_its_letters_and_can_be_written(tmp_path):
    """Older C3D writers store accented labels in Latin-1 ("LTÖI"), which ezc3d hands over with the byte as a
    surrogate that no file can hold: the report's writing failed with a UnicodeEncodeError."""
    path = write_sample(tmp_path)["c3d"]
    raw = path.read_bytes()
    assert raw.count(b"LTHI") == 1
    path.write_bytes(raw.replace(b"LTHI", b"LT\xd6I"))
    trial = load_trial(path)
    assert "LT\u00d6I" in trial.labels
    write_trc(trial, tmp_path / "written.trc")
    assert "LT\u00d6I" in (tmp_path / "written.trc").read_text(encoding="utf-8")


def test_cmu_file_reads_in_metres_z_up_without_prefix(shared_data):
    path = shared_data / "cmu_dribble_shoot_basketball.c3d"
    trial = load_trial(path)
    raw = ezc3d.c3d(str(path))
    assert trial.markers.shape == (494, 41, 3)
    assert trial.rate == 120.0
    assert trial.labels[:3] == ("LFHD", "RFHD", "LBHD") and not any(":" in label for label in trial.labels)
    assert trial.start_time == pytest.approx(186 / 120)  # first frame 187 (1-based) in the header
    np.testing.assert_allclose(trial.markers[10, 4], raw["data"]["points"][:3, 4, 10] * 0.001)  # C7, mm -> m
    head, toe = trial.marker("LFHD")[:, 2], trial.marker("LTOE")[:, 2]
    assert np.all(head > toe + 1.0)  # Z is up: the head stays a metre above the toes
    assert any("mm" in c and "metres" in c for c in trial.conversions)
    assert any("Y_SCREEN" in c for c in trial.conversions)
    assert not trial.plates and trial.plate_samples is None


def test_squat_gaps_are_missing_samples_with_statistics(shared_data):
    trial = load_trial(shared_data / "squat_gaps.c3d")
    assert trial.markers.shape == (2539, 53, 3)
    missing = 1.0 - trial.present().mean()
    assert missing == pytest.approx(0.0173, abs=0.001)
    gaps = {g.label: g for g in trial.gaps()}
    assert gaps["STRN"].missing > 0 and gaps["STRN"].longest > 0
    assert any("negative residual" in c for c in trial.conversions)
    assert any(c.startswith("gaps: 1.7") and "STRN" in c for c in trial.conversions)
    # The file does not say which axis is up; the markers do (Y), and the import turns it to Z.
    assert any("guessed" in c and "Y up" in c for c in trial.conversions)
    assert np.nanmean(trial.marker("LFHD")[:, 2]) > np.nanmean(trial.marker("LTOE")[:, 2]) + 1.0


def test_up_axis_and_units_overrides(shared_data):
    path = shared_data / "cmu_dribble_shoot_basketball.c3d"
    default = load_trial(path)
    overridden = load_trial(path, ImportOptions(units="cm", up_axis="Y", strip_prefix=False))
    x, y, z = np.moveaxis(default.markers * 10.0, -1, 0)  # cm instead of mm: ten times longer
    np.testing.assert_allclose(overridden.markers, np.stack((x, -z, y), axis=-1))
    assert overridden.labels[0] == "Justin:LFHD"
    assert any("as requested" in c for c in overridden.conversions)


def test_sprint_plates_give_the_reaction_on_the_subject(sprint):
    trial, raw = sprint
    assert trial.markers.shape == (324, 53, 3) and trial.rate == 250.0
    assert len(trial.plates) == 8
    stance = [p for p in trial.plates if p.force[:, 2].max() > 1000.0]
    assert [p.name for p in stance] == ["FP2", "FP4", "FP7", "FP8"]
    for plate in stance:
        assert plate.rate == 1500.0 and len(plate.force) == 324 * 6
        loaded = plate.force[:, 2] > 20.0
        assert plate.force[:, 2].min() > -20.0  # a floor only pushes up
        # Running along +Y: braking (force backwards) early in stance, propulsion late.
        first, last = np.flatnonzero(loaded)[[0, -1]]
        third = (last - first) // 3
        assert plate.force[first:first + third, 1].mean() < 0 < plate.force[last - third:last, 1].mean()
        # COP inside the plate outline while loaded (one sample at 23 N strays 1.5 cm), NaN while unloaded.
        low, high = plate.corners.min(axis=0), plate.corners.max(axis=0)
        firm = plate.force[:, 2] > 50.0
        assert np.all((plate.cop[firm, :2] >= low[:2]) & (plate.cop[firm, :2] <= high[:2]))
        assert np.isnan(plate.cop[~loaded]).all() and not np.isnan(plate.cop[loaded]).any()


def test_sprint_plates_match_ezc3d_after_conversion(sprint):
    trial, raw = sprint
    for plate, platform in zip(trial.plates, raw["data"]["platform"]):
        loaded = plate.force[:, 2] > 20.0
        np.testing.assert_allclose(plate.force, platform["force"].T)  # N, already the reaction in this file
        np.testing.assert_allclose(plate.cop[loaded], platform["center_of_pressure"].T[loaded] * 0.001)
        np.testing.assert_allclose(plate.free_moment[loaded], platform["Tz"].T[loaded] * 0.001, atol=1e-12)
        np.testing.assert_allclose(plate.corners, platform["corners"].T * 0.001)
    assert any("FP2, FP4, FP7, FP8" in c and "reaction on the subject" in c for c in trial.conversions)


def test_sprint_plates_on_marker_frames_average_the_analog_samples(sprint):
    trial, _ = sprint
    samples = trial.plate_samples
    assert samples.force.shape == (324, 8, 3)
    plate = trial.plates[1]
    k = 100  # marker frame k owns the analog samples within half a frame of it
    window = slice(6 * k - 3, 6 * k + 3)
    np.testing.assert_allclose(samples.force[k, 1], plate.force[window].mean(axis=0))
    fz = plate.force[window, 2]
    np.testing.assert_allclose(samples.cop[k, 1], (fz[:, None] * plate.cop[window]).sum(axis=0) / fz.sum())
    unloaded = samples.force[:, :, 2] < 20.0
    assert np.isnan(samples.cop[unloaded]).all() and not np.isnan(samples.cop[~unloaded]).any()


def test_c3d_round_trip_keeps_markers_and_plates(sprint, tmp_path):
    trial, _ = sprint
    path = write_c3d(trial, tmp_path / "sprint copy.c3d")
    back = load_trial(path)
    assert back.labels == trial.labels and back.rate == trial.rate and back.start_time == trial.start_time
    np.testing.assert_allclose(back.markers, trial.markers, atol=1e-6)
    assert np.array_equal(np.isnan(back.markers), np.isnan(trial.markers))
    for copy, plate in zip(back.plates, trial.plates):
        loaded = plate.force[:, 2] > 20.0
        # C3D stores 32-bit floats: forces keep about 7 significant digits.
        np.testing.assert_allclose(copy.force, plate.force, rtol=1e-6, atol=1e-6 * np.abs(plate.force).max())
        np.testing.assert_allclose(copy.cop[loaded], plate.cop[loaded], atol=1e-6)
        np.testing.assert_allclose(copy.corners, plate.corners, atol=1e-6)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sprint copy.c3d"]  # no temporary file left


def test_c3d_round_trip_of_a_made_up_trial_with_offset_plate(tmp_path):
    rng = np.random.default_rng(1)
    markers = rng.uniform(-2.0, 2.0, (50, 3, 3))
    markers[5:9, 1] = np.nan
    n = 50 * 4
    force = np.column_stack((rng.normal(0, 50, n), rng.normal(0, 50, n), rng.uniform(100, 900, n)))
    force[:20, 2] = 5.0  # unloaded at first
    corners = np.array([[0.5, 0.3, 0.0], [0.5, -0.3, 0.0], [-0.5, -0.3, 0.0], [-0.5, 0.3, 0.0]]) + [2.0, 1.0, 0.0]
    cop = np.column_stack((rng.uniform(1.6, 2.4, n), rng.uniform(0.8, 1.2, n), np.zeros(n)))
    cop[:20] = np.nan
    free_moment = np.column_stack((np.zeros(n), np.zeros(n), rng.normal(0, 3, n)))
    free_moment[:20] = 0.0
    plate = ForcePlate("force plate", corners, 400.0, 0.25, force, cop, free_moment)
    trial = Trial("made up", ("A", "B", "C"), markers, 100.0, start_time=0.25, plates=(plate,))
    back = load_trial(write_c3d(trial, tmp_path / "made_up.c3d"))
    np.testing.assert_allclose(back.markers, markers, atol=1e-6)
    copy = back.plates[0]
    assert copy.rate == 400.0 and copy.start_time == pytest.approx(0.25)
    np.testing.assert_allclose(copy.force, force, rtol=1e-6, atol=1e-4)
    np.testing.assert_allclose(copy.cop[20:], cop[20:], atol=1e-6)
    np.testing.assert_allclose(copy.free_moment[20:], free_moment[20:], atol=1e-4)
    assert np.isnan(copy.cop[:20]).all()


def test_writing_plates_at_a_rate_c3d_cannot_hold_fails_and_writes_nothing(tmp_path):
    plate = ForcePlate("p", np.array([[1, 1, 0], [-1, 1, 0], [-1, -1, 0], [1, -1, 0]], float), 150.0, 0.0,
                       np.zeros((15, 3)), np.full((15, 3), np.nan), np.zeros((15, 3)))
    trial = Trial("t", ("A",), np.zeros((10, 1, 3)) + 1.0, 100.0, plates=(plate,))
    with pytest.raises(InputError, match="whole multiple of the marker rate"):
        write_c3d(trial, tmp_path / "out.c3d")
    assert list(tmp_path.iterdir()) == []


def test_writing_plates_without_an_outline_fails_and_writes_nothing(tmp_path):
    """Plates read from an OpenSim GRF file have no corners; a C3D written with NaN corners could not be read."""
    plate = ForcePlate("ground_force_1", np.full((4, 3), np.nan), 100.0, 0.0, np.zeros((10, 3)),
                       np.full((10, 3), np.nan), np.zeros((10, 3)))
    trial = Trial("t", ("A",), np.zeros((10, 1, 3)) + 1.0, 100.0, plates=(plate,))
    with pytest.raises(InputError, match="Cannot write force plate 'ground_force_1' to C3D: it has no outline"):
        write_c3d(trial, tmp_path / "out.c3d")
    assert list(tmp_path.iterdir()) == []


def test_c3d_over_65535_frames_round_trips_every_frame(tmp_path):
    """The C3D header counts frames in 16 bits; longer trials must still come back whole."""
    markers = np.linspace(0.0, 1.0, 70_000)[:, None, None] + np.array([[[0.1, 0.2, 0.3]]])
    back = load_trial(write_c3d(Trial("long", ("A",), markers, 1000.0), tmp_path / "long.c3d"))
    assert back.n_frames == 70_000
    np.testing.assert_allclose(back.markers, markers, atol=1e-6)


def test_a_models_outputs_stored_as_points_are_not_markers(shared_data, tmp_path):
    """Vicon's Plug-in Gait stores joint angles, moments and powers as POINTs that POINT:ANGLES, MOMENTS, POWERS
    ... name: they are left out of the markers, and the report says so."""
    original = ezc3d.c3d(str(shared_data / "cmu_dribble_shoot_basketball.c3d"))
    points = original["data"]["points"]
    n_frames = points.shape[2]
    outputs = {"LHipAngles": "ANGLES", "RKneeMoment": "MOMENTS", "LAnklePower": "POWERS"}
    values = np.stack([np.stack([30 * np.sin(np.arange(n_frames) / 50.0)] * 3) for _ in outputs], axis=1)
    c3d = ezc3d.c3d()
    for name in ("RATE", "UNITS"):
        c3d["parameters"]["POINT"][name]["value"] = original["parameters"]["POINT"][name]["value"]
    labels = list(original["parameters"]["POINT"]["LABELS"]["value"])
    c3d["parameters"]["POINT"]["LABELS"]["value"] = labels[:3] + list(outputs) + labels[3:]
    for label, group in outputs.items():
        c3d.add_parameter("POINT", group, [label])
    c3d["data"]["points"] = np.concatenate([points[:, :3], np.r_[values, np.ones((1, 3, n_frames))], points[:, 3:]],
                                           axis=1)
    c3d.write(str(tmp_path / "with_outputs.c3d"))
    trial = load_trial(tmp_path / "with_outputs.c3d")
    plain = load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d")
    assert trial.labels == plain.labels
    np.testing.assert_allclose(trial.markers, plain.markers, atol=1e-4, equal_nan=True)
    assert ("model outputs: 3 points that POINT:ANGLES, FORCES, MOMENTS, POWERS, REACTIONS or SCALARS name "
            "(LHipAngles, RKneeMoment, LAnklePower) are a model's results, not markers: left out") in trial.conversions
