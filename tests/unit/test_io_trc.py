"""TRC reading (OpenSim flavour, tabs or spaces, empty cells) on the shared recordings and on written files."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.errors import InputError
from mocap_dynamics.solver.io import ImportOptions, load_trial, write_trc
from mocap_dynamics.solver.io.trial import Trial


def trc_text(rows: list[str], labels=("A", "B"), frames=None, units="mm", separator="\t", blank_line=True) -> str:
    """A small OpenSim-style TRC file around the given data rows."""
    s = separator
    head = [s.join(["PathFileType", "4", "(X/Y/Z)", "test.trc"]),
            s.join(["DataRate", "CameraRate", "NumFrames", "NumMarkers", "Units", "OrigDataRate",
                    "OrigDataStartFrame", "OrigNumFrames"]),
            s.join(["100", "100", str(len(rows) if frames is None else frames), str(len(labels)), units, "100", "1",
                    str(len(rows))]),
            s.join(["Frame#", "Time"] + [f"{label}{s}{s}" if s == "\t" else label for label in labels]),
            s.join(["", ""] + [f"{a}{i + 1}" for i in range(len(labels)) for a in "XYZ"])]
    return "\n".join(head + ([""] if blank_line else []) + rows) + "\n"


ROWS = ["1\t0.00\t1\t2\t3\t4\t5\t6", "2\t0.01\t1.5\t2.5\t3.5\t\t\t", "3\t0.02\t2\t3\t4\t7\t8\t9"]


def test_walking_trc_reads_y_up_as_z_up(shared_data):
    path = shared_data / "subject4_walking1.trc"
    trial = load_trial(path)
    assert trial.markers.shape == (131, 51, 3) and trial.rate == 100.0 and trial.start_time == 0.0
    assert trial.labels[:3] == ("C7", "L.ASIS", "L.PSIS")
    first_row = path.read_text().split("\n")[6].split("\t")
    x, y, z = map(float, first_row[2:5])  # C7 in the file's Y-up axes, metres
    np.testing.assert_allclose(trial.marker("C7")[0], [x, -z, y])
    assert np.nanmin(trial.marker("C7")[:, 2]) > np.nanmax(trial.marker("r_toe")[:, 2]) + 1.0
    gaps = {g.label: g for g in trial.gaps()}
    assert gaps["r_thigh5"].missing == 121 and gaps["C7"].complete  # "nan" cells are missing samples
    assert any("Y up" in c and "(x, -z, y)" in c for c in trial.conversions)
    assert not trial.warnings


def test_static_trc_reads(shared_data):
    trial = load_trial(shared_data / "subject4_static1.trc")
    assert trial.markers.shape == (517, 55, 3) and trial.present().all()


def test_empty_cells_are_missing_and_millimetres_become_metres(tmp_path):
    path = tmp_path / "small.trc"
    path.write_text(trc_text(ROWS))
    trial = load_trial(path, ImportOptions(up_axis="Z"))
    np.testing.assert_allclose(trial.markers[0], [[0.001, 0.002, 0.003], [0.004, 0.005, 0.006]])
    assert np.isnan(trial.markers[1, 1]).all() and not np.isnan(trial.markers[1, 0]).any()
    assert trial.times[-1] == pytest.approx(0.02)
    assert "1 of 2 markers has gaps: B 1 frame in 1 gap (longest 1)" in "".join(trial.conversions)


@pytest.mark.parametrize("variant", ["spaces", "no blank line", "windows line ends", "trailing tabs", "short row",
                                     "decimal commas"])
def test_layout_variants_read_the_same(tmp_path, variant):
    rows, kwargs = list(ROWS), {}
    if variant == "spaces":
        rows = [" ".join(r.split("\t")) for r in ROWS[::2]]
        kwargs = {"separator": " "}
    elif variant == "trailing tabs":
        rows = [r + "\t" for r in ROWS]
    elif variant == "short row":
        rows[1] = "2\t0.01\t1.5\t2.5\t3.5"  # the last marker's cells left out
    elif variant == "decimal commas":  # a decimal-comma locale's export
        rows = [r.replace(".", ",") for r in ROWS]
    text = trc_text(rows, blank_line=variant != "no blank line", **kwargs)
    path = tmp_path / "variant.trc"
    path.write_bytes(text.replace("\n", "\r\n").encode() if variant == "windows line ends" else text.encode())
    trial = load_trial(path, ImportOptions(up_axis="Z"))
    expected = load_trial(_write(tmp_path / "reference.trc", trc_text(ROWS)), ImportOptions(up_axis="Z"))
    frames = [0, 2] if variant == "spaces" else [0, 1, 2]
    np.testing.assert_array_equal(trial.markers, expected.markers[frames])
    assert ("numbers: written with decimal commas, read as decimal points" in trial.conversions) == \
        (variant == "decimal commas")


def test_trc_round_trip_y_up_and_z_up(shared_data, tmp_path):
    trial = load_trial(shared_data / "subject4_walking1.trc")
    for up_axis in ("Y", "Z"):
        path = write_trc(trial, tmp_path / f"walk_{up_axis}.trc", up_axis=up_axis)
        back = load_trial(path, ImportOptions(up_axis=up_axis))
        assert back.labels == trial.labels and back.rate == trial.rate
        np.testing.assert_allclose(back.markers, trial.markers, atol=1e-6)
        assert np.array_equal(np.isnan(back.markers), np.isnan(trial.markers))
    lines = (tmp_path / "walk_Y.trc").read_text().split("\n")
    assert lines[0].startswith("PathFileType\t4\t(X/Y/Z)") and lines[2].split("\t")[2:5] == ["131", "51", "m"]
    assert lines[3].startswith("Frame#\tTime\tC7\t\t\tL.ASIS")
    assert "\tnan" not in (tmp_path / "walk_Y.trc").read_text()  # missing samples are empty cells
    assert sorted(p.name for p in tmp_path.iterdir()) == ["walk_Y.trc", "walk_Z.trc"]
    # A Z-up TRC without the option: its markers spread 2.6 times further along Z than along Y, which overrules
    # the OpenSim (Y-up) convention, with a warning that names the option keeping it.
    upright = load_trial(tmp_path / "walk_Z.trc")
    np.testing.assert_allclose(upright.markers, trial.markers, atol=1e-6)
    assert any("Z up (not Y up as the OpenSim TRC convention has it: the markers spread 2.6 times" in c
               for c in upright.conversions)
    assert [w for w in upright.warnings if "up" in w] == [
        "The file is taken as Z up, not Y up (the OpenSim TRC convention): its markers spread 2.6 times further "
        "along Z. If the subject lies down, import with ImportOptions(up_axis='Y')"]


def test_a_subject_lying_in_a_y_up_trc_is_kept_by_the_option(tmp_path):
    """Lying along the file's Z, a subject spreads furthest along Z: the import takes Z as up and says so; the
    option keeps the convention."""
    rng = np.random.default_rng(2)
    lying = rng.uniform([-0.2, 0.0, -0.85], [0.2, 0.3, 0.85], (40, 20, 3))  # file axes: Y up, 1.7 m along Z
    path = write_trc(Trial("lying.trc", tuple(f"M{i}" for i in range(20)), lying[..., [0, 2, 1]] * (1, -1, 1),
                           100.0), tmp_path / "lying.trc", up_axis="Y")
    guessed = load_trial(path)
    assert any("ImportOptions(up_axis='Y')" in w for w in guessed.warnings)
    kept = load_trial(path, ImportOptions(up_axis="Y"))
    assert not kept.warnings and np.ptp(kept.markers[..., 2]) < 0.31  # the subject lies in the level
    assert any(c.startswith("axes: file is Y up (as requested; the markers spread ") and
               "times further along Z: the subject lies in this import)" in c for c in kept.conversions)


@pytest.mark.parametrize("text, message", [
    (trc_text(ROWS, labels=("A", "B", "C")), "NumMarkers=3, so 11 columns, but the data rows have 8 values"),
    (trc_text(ROWS, frames=5), "NumFrames=5 but the file has 3 data rows"),
    (trc_text([ROWS[0], ROWS[2], ROWS[1].replace("0.01", "0.02")]), "time does not increase at line 9"),
    (trc_text(ROWS, units="furlongs"), "unknown length units 'furlongs'"),
    (trc_text([ROWS[0], "2\t0.01\t1\t2\tabc\t4\t5\t6"]), "line 8 has 'abc' where a number should be"),
    (trc_text([ROWS[0], ROWS[2] + "\t7\t8"]), "line 8 has 10 values, but the header says NumMarkers=2"),
    ("Frame#\tTime\n1\t0\n", "is not a TRC file"),
    (trc_text(["1\t0\t\t\t\t\t\t", "2\t0.01\t\t\t\t\t\t"]), "no marker has a single valid sample"),
])
def test_bad_trc_files_raise_input_error(tmp_path, text, message):
    path = _write(tmp_path / "bad.trc", text)
    with pytest.raises(InputError, match=message) as error:
        load_trial(path)
    assert error.value.fix  # every error says what to do


def test_label_row_must_list_num_markers(tmp_path):
    text = trc_text(ROWS).replace("\tB\t\t", "\t\t\t")
    with pytest.raises(InputError, match="NumMarkers=2 but the marker name row lists 1"):
        load_trial(_write(tmp_path / "bad.trc", text))


def test_quoted_labels_are_read_without_their_quotes(tmp_path):
    trial = load_trial(_write(tmp_path / "q.trc", trc_text(ROWS, labels=('"A"', "'B'"))))
    assert trial.labels == ("A", "B")
    assert "labels: removed the quotes around 2 labels" in trial.conversions


def test_marker_missing_in_every_frame_is_dropped_with_a_warning(tmp_path):
    rows = ["1\t0\t1\t2\t3\t\t\t", "2\t0.01\t1\t2\t3\t\t\t"]
    trial = load_trial(_write(tmp_path / "t.trc", trc_text(rows)))
    assert trial.labels == ("A",)
    assert any("missing in every frame: B" in w for w in trial.warnings)


def test_binary_file_named_trc_is_refused(tmp_path):
    path = tmp_path / "binary.trc"
    path.write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(InputError, match="binary"):
        load_trial(path)


def test_written_trc_of_a_generated_trial_reads_back(tmp_path):
    rng = np.random.default_rng(3)
    markers = rng.normal(size=(40, 4, 3))
    markers[3:7, 2] = np.nan
    trial = Trial("generated", ("P", "Q", "R", "S"), markers, 60.0, start_time=1.5)
    back = load_trial(write_trc(trial, tmp_path / "g.trc"))
    np.testing.assert_allclose(back.markers, markers, atol=1e-9)
    assert back.start_time == pytest.approx(1.5) and back.rate == 60.0


def _write(path, text):
    path.write_text(text)
    return path


@pytest.mark.parametrize("data_rate, times, rate, warning", [
    ("100", "0.00 0.01 0.02 0.03", 100.0, None),
    ("200", "0.00 0.01 0.02 0.03", 100.0, "The Time column steps at 100 Hz but DataRate says 200 Hz: the trial "
                                          "follows the Time column, as OpenSim does"),
    ("120", "0.000 0.008 0.017 0.025", 120.0, None),  # times rounded to the millisecond follow DataRate
    ("100", "0.00 0.01 0.05 0.06", 100.0, "The Time column does not follow DataRate=100 Hz, nor steps evenly; the "
                                          "trial uses DataRate and the first time"),
    ("0", "0.00 0.01 0.02 0.03", 100.0, "DataRate=0 is not a rate: the trial follows the Time column, 100 Hz")])
def test_the_rate_is_the_headers_unless_the_time_column_steps_evenly_at_another(tmp_path, data_rate, times, rate,
                                                                                warning):
    """A header copied from the cameras' rate over resampled data: OpenSim times a TRC by its Time column."""
    rows = [f"{i + 1}\t{t}\t1\t2\t3\t4\t5\t6" for i, t in enumerate(times.split())]
    text = trc_text(rows).replace("\n100\t100\t", f"\n{data_rate}\t{data_rate}\t", 1)
    (tmp_path / "t.trc").write_text(text)
    trial = load_trial(tmp_path / "t.trc")
    assert trial.rate == pytest.approx(rate)
    assert [w for w in trial.warnings if "Time column" in w] == ([warning] if warning else [])



def test_no_rate_in_the_header_nor_an_even_time_column_is_refused(tmp_path):
    rows = [f"{i + 1}\t{t}\t1\t2\t3\t4\t5\t6" for i, t in enumerate("0.00 0.01 0.05 0.06".split())]
    text = trc_text(rows).replace("\n100\t100\t", "\n0\t0\t", 1)
    with pytest.raises(InputError, match="DataRate=0 is not a positive rate, and the Time column does not step"):
        load_trial(_write(tmp_path / "t.trc", text))


def test_a_time_column_written_coarser_than_the_frames_is_read_as_the_steps_it_rounds(tmp_path):
    """250 Hz markers with their times written to the hundredth repeat times from row to row: the file was refused
    ("time does not increase"). They are the even 250 Hz steps rounded, read so with a note; a row repeated in
    a file written as finely as it is sampled is still refused."""
    rows = [f"{i + 1}\t{i / 250:.2f}\t1\t2\t3\t4\t5\t6" for i in range(40)]
    text = trc_text(rows).replace("\n100\t100\t", "\n250\t250\t", 1)
    trial = load_trial(_write(tmp_path / "rounded.trc", text))
    assert trial.rate == 250.0 and not [w for w in trial.warnings if "Time column" in w]
    assert "rounded.trc: its time column, written to 0.01 s, read as the even steps it rounds (250 Hz)" \
        in trial.conversions
    repeated = [f"{i + 1}\t{min(i, 30) / 100:.2f}\t1\t2\t3\t4\t5\t6" for i in range(32)]
    with pytest.raises(InputError, match="time does not increase"):
        load_trial(_write(tmp_path / "repeated.trc", trc_text(repeated)))
