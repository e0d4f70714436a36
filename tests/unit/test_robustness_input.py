"""Issue 16, the library side: every hostile input of the issue ends in a trial (with a report line) or one
clear error, and absurd values are caught where they enter. Each test names the case it covers."""

from __future__ import annotations

import codecs
import re
import struct
import warnings
from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.errors import InputError, ModelError, MocapError, option, spoken_as
from mocap_dynamics.solver.io import ForcePlate, attach_plates, load_trial, read_grf_mot, write_c3d, write_trc
from mocap_dynamics.solver.io.trial import Trial
from mocap_dynamics.solver.kinematics.marker_outliers import _median, drop_marker_outliers
from mocap_dynamics.solver.model import calibrate
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.plausibility import body_scale, check_body
from tests.unit.test_io_fuzz import records

CMU = "cmu_dribble_shoot_basketball.c3d"


def patch_parameter(data: bytes, group: str, name: str, value: bytes) -> bytes:
    """``data`` with the value of parameter ``group:name`` (the first after the group's record) replaced."""
    found = records(data)
    start = next(i for i, r in enumerate(found) if r["name"] == group and "element size" not in r["fields"])
    record = next(r for r in found[start + 1:] if r["name"] == name)
    at = record["fields"]["description length"] - len(value)
    return data[:at] + value + data[at + len(value):]


def test_c3d_with_no_rate_anywhere_is_one_error_not_a_zero_division(shared_data, tmp_path):
    data = (shared_data / CMU).read_bytes()
    data = patch_parameter(data[:20] + bytes(4) + data[24:], "POINT", "RATE", bytes(4))  # header and POINT:RATE 0
    (tmp_path / "norate.c3d").write_bytes(data)
    with pytest.raises(InputError, match="marker rate is 0 Hz in the header and in POINT:RATE"):
        load_trial(tmp_path / "norate.c3d")


def test_a_dimension_count_of_0x80_is_refused_before_ezc3d_reads_the_file(shared_data, tmp_path):
    data = bytearray((shared_data / CMU).read_bytes())
    used = next(r for r in records(bytes(data)) if r["name"] == "USED")
    data[used["fields"]["dimension count"]] = 0x80
    (tmp_path / "dims.c3d").write_bytes(data)
    with pytest.raises(InputError, match=r"the file's parameter section is corrupt \(record at byte \d+ \(USED\) "
                                         r"has -128 dimensions, not 0 to 7\)"):
        load_trial(tmp_path / "dims.c3d")


def test_a_parameter_section_counted_longer_than_its_records_reads_like_the_file(shared_data, tmp_path):
    """Kistler plate-only exports (biomdp 0.11.2's test files) count three parameter blocks, use two and start the
    data in the third: the data must start after the records, not after the count (ezc3d reads such files)."""
    data = bytearray((shared_data / CMU).read_bytes())
    data[(data[0] - 1) * 512 + 2] += 1  # one block more than the records use: now past the data start
    (tmp_path / "counted_long.c3d").write_bytes(data)
    trial, original = load_trial(tmp_path / "counted_long.c3d"), load_trial(shared_data / CMU)
    np.testing.assert_array_equal(trial.markers, original.markers)
    data[16:18] = struct.pack("<H", data[0] + 1)  # the data start inside the records: refused
    (tmp_path / "inside.c3d").write_bytes(data)
    with pytest.raises(InputError, match=r"the data start at block \d+ is not after the parameters"):
        load_trial(tmp_path / "inside.c3d")


@pytest.fixture(scope="module")
def cmu(shared_data):
    return load_trial(shared_data / CMU)


@pytest.mark.parametrize("value", [np.inf, -np.inf, 1e300, 1e30])
def test_non_finite_and_absurd_samples_become_missing_with_a_report_line(cmu, tmp_path, value):
    """One inf (TRC or C3D), 1e300 (TRC: "marker RMS inf mm") or 1e30 (C3D: "turns by more than 90°")."""
    markers = cmu.markers.copy()
    markers[200, cmu.labels.index("LKNE"), 1] = value
    trial = replace(cmu, markers=markers)
    paths = [write_trc(trial, tmp_path / "bad.trc")]
    if abs(value) < 3e38 / 1000:  # what 32-bit C3D floats can hold (in mm)
        paths.append(write_c3d(trial, tmp_path / "bad.c3d"))
    for path in paths:
        back = load_trial(path)
        assert np.isnan(back.marker("LKNE")[200]).all() and np.isfinite(back.marker("LKNE")[199]).all()
        assert np.isfinite(back.markers[back.present()]).all()
        line = [w for w in back.warnings if "not finite or beyond 100 km" in w]
        assert line == ["1 marker samples were not finite or beyond 100 km (corrupt values) and are read as "
                        "missing: LKNE (1)"], back.warnings


@pytest.mark.parametrize("writer, value", [(write_trc, 1e300), (write_trc, np.inf), (write_c3d, 1e30)])
def test_a_huge_sample_no_longer_breaks_the_later_stages(cmu, tmp_path, writer, value):
    """Before: "marker RMS inf mm" (1e300), LinAlgError (inf), "turns by more than 90°" (1e30 in a C3D)."""
    markers = cmu.markers.copy()
    markers[200, cmu.labels.index("LKNE")] = [value, 0.0, 0.0]
    path = writer(replace(cmu, markers=markers), tmp_path / f"huge{'.trc' if writer is write_trc else '.c3d'}")
    report = run(path, PipelineOptions(until="dynamics", mass=70.0)).report()
    assert 0 < report["reconstruction"]["marker_rms_m"] < 0.02 and report["reconstruction"]["converged_percent"] == 100
    assert np.isfinite(report["dynamics"]["without_external_forces"]["root_force_mean_n"])


def test_a_bom_in_a_trc_is_read_like_the_file_without_it(shared_data, tmp_path):
    text = (shared_data / "subject4_walking1.trc").read_bytes()
    (tmp_path / "bom.trc").write_bytes(codecs.BOM_UTF8 + text)
    (tmp_path / "utf16.trc").write_bytes(text.decode("utf-8").encode("utf-16"))
    plain = load_trial(shared_data / "subject4_walking1.trc")
    for name in ("bom.trc", "utf16.trc"):
        back = load_trial(tmp_path / name)
        assert back.labels == plain.labels and np.array_equal(back.markers, plain.markers, equal_nan=True)


def test_a_model_error_says_that_most_markers_were_empty(cmu, tmp_path):
    markers = np.full_like(cmu.markers, np.nan)
    markers[:, 0] = cmu.markers[:, 0]
    path = write_c3d(replace(cmu, markers=markers), tmp_path / "one.c3d")
    with pytest.raises(ModelError) as error:
        run(path, PipelineOptions(until="calibrate"))
    assert "cannot form a body" in error.value.what
    assert error.value.what.endswith("(note: 40 of the file's 41 markers are empty in every frame and were dropped, "
                                     "RFHD, LBHD, RBHD, C7, T10, CLAV ...)")


@pytest.mark.parametrize("units, factor, fix", [("cm", 10.0, "mm"), ("mm", 0.001, "m")])
def test_a_wrong_unit_is_warned_at_import_and_refused_by_the_body_model(shared_data, units, factor, fix):
    """--units cm on a mm file (a 3.8 m torso), --units mm on a metre TRC (0.1 mm segments)."""
    from mocap_dynamics.solver.io import ImportOptions
    path = shared_data / (CMU if units == "cm" else "subject4_walking1.trc")
    trial = load_trial(path, ImportOptions(units=units))
    assert any("no person is that" in w and f"ImportOptions(units='{fix}')" in w for w in trial.warnings)
    with pytest.raises(ModelError) as error:
        run(path, PipelineOptions(until="calibrate", import_options=ImportOptions(units=units)))
    assert "segments are no person's" in error.value.what
    ratio = float(re.search(r": ([\d.e+-]+) times an average adult's", error.value.what).group(1))
    assert ratio == pytest.approx(factor, rel=0.25)
    assert error.value.fix == f"The length unit is probably wrong: import with ImportOptions(units='{fix}')"


def test_the_right_unit_passes_both_checks(cmu, shared_data):
    assert not any("no person" in w for w in cmu.warnings)
    scale, stature = body_scale(calibrate(cmu))
    assert 0.9 < scale < 1.2 and 1.6 < stature < 2.0


def grf_in_ms(shared_data, tmp_path) -> str:
    lines = (shared_data / "subject4_walking1_grf.mot").read_text().splitlines()
    end = next(i for i, line in enumerate(lines) if line.strip().lower() == "endheader") + 2
    rows = [line.split("\t") for line in lines[end:] if line.strip()]
    body = ["\t".join([f"{1000 * float(r[0]):g}"] + r[1:]) for r in rows]
    path = tmp_path / "walk_grf_ms.mot"
    path.write_text("\n".join(lines[:end] + body) + "\n")
    return path


def test_a_grf_file_timed_in_milliseconds_is_refused(shared_data, tmp_path):
    trial = load_trial(shared_data / "subject4_walking1.trc")
    with pytest.raises(InputError) as error:
        attach_plates(trial, read_grf_mot(grf_in_ms(shared_data, tmp_path)))
    assert error.value.what == ("Force plate 'ground_force_1' has a sample every 10 s (0.1 Hz), no force plate's "
                                "rate, while the markers run 0-1.3 s: its time column looks like milliseconds")
    assert error.value.fix == "Give grf=<path> with its time in seconds"


def test_plates_covering_little_of_the_trial_are_warned(shared_data):
    trial = load_trial(shared_data / "subject4_walking1.trc")
    plates = read_grf_mot(shared_data / "subject4_walking1_grf.mot")
    short = tuple(replace(p, force=p.force[:30], cop=p.cop[:30], free_moment=p.free_moment[:30]) for p in plates)
    attached = attach_plates(trial, short)
    assert sum("only 2" in w and "of the markers'" in w for w in attached.warnings) == len(plates)


def standing_figure_with_plates(sample_walk, plate_forces: list[float], height: float = 1.4) -> Trial:
    """The sample figure standing still 2 s (its first pose, scaled to ``height``) on two type-2 plates with
    the given vertical reactions [N] (what ezc3d then reads is their negative)."""
    pose = sample_walk.trial.markers[0] * height / 1.75
    n = 200
    noise = np.random.default_rng(0).normal(scale=2e-4, size=(n,) + pose.shape)
    trial = Trial("standing", sample_walk.trial.labels, pose[None] + noise, 100.0)
    plates = []
    for i, (vertical, corner_x) in enumerate(zip(plate_forces, (0.0, 0.6))):
        corners = np.array([[corner_x + 0.6, 0.4, 0], [corner_x, 0.4, 0], [corner_x, 0, 0], [corner_x + 0.6, 0, 0]])
        force = np.tile([0.0, 0.0, vertical], (n * 10, 1))
        cop = np.tile(corners.mean(axis=0), (n * 10, 1))
        plates.append(ForcePlate(f"FP{i + 1}", corners, 1000.0, 0.0, force, cop, np.zeros_like(force)))
    return replace(trial, plates=tuple(plates))


def test_plates_of_one_type_with_opposite_signs_and_an_implausible_mass_are_warned(sample_walk, tmp_path):
    """The issue's quiet-standing C3D: one plate reads -712 N, the other +380 N, and a 1.4 m figure weighs
    111 kg."""
    path = write_c3d(standing_figure_with_plates(sample_walk, [712.0, -380.0]), tmp_path / "standing.c3d")
    trial = load_trial(path)
    assert [w for w in trial.warnings if "type 2" in w] == [
        "Force plates FP1 and FP2 are all type 2 (one sign convention), but FP1 had to be negated and FP2 kept "
        "for the floor to push the subject up: the sign, CORNERS or zero of one of them is wrong, so their forces "
        "and a body mass from them are suspect; check the plates' setup, or set mass=<kg>"]
    model = check_body(calibrate(trial), trial)
    assert model.mass_source == "force plates" and model.total_mass == pytest.approx(1092 / 9.81, rel=1e-3)
    bmi = [w for w in model.metadata["calibration"].warnings if "body-mass index" in w]
    assert len(bmi) == 1 and "A body mass of 111.3 kg (force plates) for a body 1.38 m tall" in bmi[0]
    assert "check the force plates' sign, CORNERS or zero, the mass, or set mass=<kg>" in bmi[0]


def test_plates_that_agree_give_no_warning(sample_walk, tmp_path):
    trial = load_trial(write_c3d(standing_figure_with_plates(sample_walk, [200.0, 150.0]), tmp_path / "ok.c3d"))
    assert not [w for w in trial.warnings if "type 2" in w]
    model = check_body(calibrate(trial), trial)
    assert model.total_mass == pytest.approx(350 / 9.81, rel=1e-3)
    assert not [w for w in model.metadata["calibration"].warnings if "body-mass index" in w]


@pytest.mark.parametrize("mass", [1e6, 1e-9])
def test_an_absurd_mass_is_refused_before_any_work(mass):
    with pytest.raises(ModelError, match=rf"mass={mass!r} kg is no human body mass \(2 to 500 kg\)"):
        PipelineOptions(mass=mass)


def test_a_mass_the_plates_contradict_is_refused_or_warned(subject4_static):
    plates = 589 / 9.81
    model = calibrate(subject4_static, mass=2.05 * plates)
    with pytest.raises(ModelError, match="weighs the subject at 60.0 kg"):
        check_body(model, subject4_static)
    warned = check_body(calibrate(subject4_static, mass=1.3 * plates), subject4_static)
    assert any("Body mass mass=78" in w and "(+30 %)" in w for w in warned.metadata["calibration"].warnings)
    assert check_body(calibrate(subject4_static, mass=plates), subject4_static).metadata["calibration"].warnings \
        == calibrate(subject4_static, mass=plates).metadata["calibration"].warnings


@pytest.fixture(scope="module")
def cmu_model(cmu):
    return calibrate(cmu)


@pytest.mark.parametrize("shape, axis", [((101, 7), 0), ((50, 8, 5, 3), 2), ((40, 6, 6), 0), ((3, 4), 1),
                                         ((0, 3), 0), ((700, 3, 2), 0)])
def test_the_outlier_medians_are_numpys_nanmedian(shape, axis):
    """The outlier search's median: numpy's ``nanmedian`` to the bit, odd and even counts, all-NaN slices (NaN),
    empty ones and long ones."""
    values = np.random.default_rng(0).normal(size=shape)
    values[np.random.default_rng(1).random(shape) < 0.3] = np.nan
    values[..., :1] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's warning for all-NaN slices
        expected = np.nanmedian(values, axis=axis)
    assert np.array_equal(_median(values, axis), expected, equal_nan=True)


def test_a_33_mm_head_marker_jump_is_dropped_and_named(cmu, cmu_model):
    markers = cmu.markers.copy()
    markers[250, cmu.labels.index("RFHD")] += [0.033, 0.0, 0.0]
    cleaned = drop_marker_outliers(replace(cmu, markers=markers), cmu_model)
    assert np.isnan(cleaned.marker("RFHD")[250]).all() and np.isfinite(cleaned.marker("RFHD")[[249, 251]]).all()
    line = cleaned.warnings[-1]
    assert line.startswith("Dropped 2 marker samples that jumped off their segment (mislabelled or swapped)")
    assert "RFHD frame 251 (3.633 s, up to 26 mm off)" in line
    assert "LFIN frame 459" in line, "the file's own glitch, a 25 mm one-frame jump of a finger marker"


def test_a_swap_drops_both_markers_for_its_frames_and_nothing_else(cmu, cmu_model):
    markers = cmu.markers.copy()
    left, right = cmu.labels.index("LFHD"), cmu.labels.index("RFHD")
    markers[100:130, [left, right]] = markers[100:130, [right, left]]
    cleaned = drop_marker_outliers(replace(cmu, markers=markers), cmu_model)
    dropped = np.isnan(cleaned.markers).any(axis=2) & ~np.isnan(cmu.markers).any(axis=2)
    assert set(zip(*np.nonzero(dropped))) == {(f, m) for f in range(100, 130) for m in (left, right)} | {
        (458, cmu.labels.index("LFIN"))}
    assert "LFHD frames 101-130 (2.383-2.625 s" in cleaned.warnings[-1]


def test_clean_trials_keep_every_sample(shared_data, subject4_static, sample_walk):
    for trial in (subject4_static, load_trial(shared_data / "squat_gaps.c3d"), sample_walk.trial):
        assert drop_marker_outliers(trial, calibrate(trial)) is trial


def test_the_jump_no_longer_reaches_the_head_torque(cmu, tmp_path):
    """The issue: a 33 mm one-frame jump of a head marker made a 100 N·m head-torque spike."""
    markers = cmu.markers.copy()
    markers[250, cmu.labels.index("RFHD")] += [0.033, 0.0, 0.0]
    peaks = []
    for name, trial in (("clean", cmu), ("jump", replace(cmu, markers=markers))):
        result = run(write_c3d(trial, tmp_path / f"{name}.c3d"), PipelineOptions(until="dynamics", mass=70.0))
        head = result.model.index("head")
        peaks.append(np.nanmax(np.linalg.norm(result.dynamics.joint_torque_world[240:260, head], axis=-1)))
    # Undropped, the jump makes a 131 N·m spike here (4 N·m clean); dropped, the frame reconstructs from three
    # head markers, 8 N·m (gap filling would bring it nearer the clean value).
    assert peaks[1] < 2.5 * peaks[0] and peaks[1] < 15.0, peaks


def test_options_are_named_in_the_callers_language():
    from mocap_dynamics.solver.cli import COMMAND_LINE
    assert option("import.units", "mm") == "ImportOptions(units='mm')" and option("mass", hint="kg") == "mass=<kg>"
    with spoken_as(COMMAND_LINE):
        assert option("import.units", "mm") == "--units mm" and option("mass", hint="kg") == "--mass KG"
        assert option("markerset", hint="path") == "--markerset FILE.toml" and option("template", "x") == "--model x"
        assert option("zero_gravity.rungs", 4) == "rungs = 4 in the [zero_gravity] table of the --options file"
        assert option("import.strip_prefix", False) == "--keep-prefix"
        with pytest.raises(MocapError, match="Unknown units override --units inch"):
            from mocap_dynamics.solver.io import ImportOptions
            ImportOptions(units="inch")
    assert option("mass", 3) == "mass=3", "the caller's spelling is back after the block"


def test_a_message_is_one_line_whatever_went_into_it():
    assert InputError("a\nb\r\nc", "do\tthis").one_line() == "a b c. Do this."


def test_corrupt_names_in_a_c3d_stay_on_one_line(shared_data, tmp_path):
    data = bytearray((shared_data / CMU).read_bytes())
    record = records(bytes(data))[20]
    at = record["fields"]["name length"] + 2
    data[at:at + 2] = b"\n\x07"
    data[record["fields"]["element size"]] = 0x30
    (tmp_path / "names.c3d").write_bytes(data)
    with pytest.raises(InputError) as error:
        load_trial(tmp_path / "names.c3d")
    assert "\n" not in error.value.one_line() and "(??TE) has element size 48" in error.value.one_line()

