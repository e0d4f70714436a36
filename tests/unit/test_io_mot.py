"""OpenSim .mot/.sto tables, GRF files as force plates, attaching them to a trial, body weight from standing."""

from __future__ import annotations

import shutil
from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.errors import InputError
from mocap_dynamics.solver.io import (
    Table, attach_plates, load_trial, quiet_standing_weight, read_grf_mot, read_table, write_table,
)
from mocap_dynamics.solver.pipeline import PipelineOptions, run


def test_grf_table_reads_with_its_header(shared_data):
    table = read_table(shared_data / "subject4_walking1_grf.mot")
    assert table.data.shape == (131, 19) and table.columns[:2] == ("time", "ground_force_1_vx")
    assert table.header["nRows"] == "131" and not table.in_degrees
    np.testing.assert_allclose(table.column("ground_force_1_vy")[:2], [207.522, 220.559])


def test_grf_plates_are_forces_on_the_subject_in_z_up_axes(shared_data):
    table = read_table(shared_data / "subject4_walking1_grf.mot")
    plates = read_grf_mot(shared_data / "subject4_walking1_grf.mot")
    assert [p.name for p in plates] == ["ground_force_1", "ground_force_2"]
    plate = plates[0]
    assert plate.rate == 100.0 and plate.start_time == 0.0 and plate.force.shape == (131, 3)
    vx, vy, vz = (table.column(f"ground_force_1_v{a}") for a in "xyz")
    np.testing.assert_allclose(plate.force, np.column_stack((vx, -vz, vy)))  # Y up -> Z up
    loaded = plate.force[:, 2] >= 20.0
    np.testing.assert_allclose(plate.cop[loaded, 2], table.column("ground_force_1_py")[loaded])
    assert np.isnan(plate.cop[~loaded]).all()
    my = table.column("ground_force_1_my")  # the free moment, about the vertical
    np.testing.assert_allclose(plate.free_moment[loaded, 2], my[loaded])
    assert np.isnan(plate.corners).all()  # the file gives no outline: none is invented
    assert any("no plate outline" in n for n in plate.notes)


def test_quiet_standing_weight_of_subject4(subject4_static):
    assert quiet_standing_weight(subject4_static) == pytest.approx(589.0, abs=10.0)
    assert subject4_static.plate_samples.force.shape == (517, 3, 3)
    assert any("no plate outline" in c for c in subject4_static.conversions)
    assert any("force plates: 3 at 100 Hz" in c for c in subject4_static.conversions)


def test_walking_has_no_quiet_standing(shared_data):
    trial = load_trial(shared_data / "subject4_walking1.trc")
    assert quiet_standing_weight(trial) is None  # no plates at all
    walking = attach_plates(trial, read_grf_mot(shared_data / "subject4_walking1_grf.mot"))
    assert quiet_standing_weight(walking) is None


def test_plates_that_miss_the_trial_cannot_be_attached(shared_data):
    trial = load_trial(shared_data / "subject4_walking1.trc")
    plates = read_grf_mot(shared_data / "subject4_walking1_grf.mot")
    late = [replace(p, start_time=100.0) for p in plates]
    with pytest.raises(InputError, match="does not overlap"):
        attach_plates(trial, late)


def test_plates_that_never_carry_load_are_warned(shared_data):
    """A force file with every force missing (NaN, read as unloaded) or under 20 N measures nothing: said once;
    the trial's own plates are not."""
    trial = load_trial(shared_data / "subject4_walking1.trc")
    plates = read_grf_mot(shared_data / "subject4_walking1_grf.mot")
    said = "No force plate carries load at any time"
    assert not [w for w in attach_plates(trial, plates).warnings if said in w]
    empty = [replace(p, force=np.full_like(p.force, np.nan)) for p in plates]
    assert len([w for w in attach_plates(trial, empty).warnings if said in w]) == 1


def test_table_round_trip(tmp_path):
    data = np.column_stack((np.arange(5) * 0.01, np.linspace(-1, 1, 5), [1e-9, 2.5, np.nan, 4, 5]))
    table = Table(("time", "knee_angle_r", "hip_flexion_r"), data, {"DataType": "double"}, in_degrees=True,
                  name="ik")
    back = read_table(write_table(table, tmp_path / "ik.mot"))
    assert back.columns == table.columns and back.in_degrees and back.name == "ik"
    assert back.header["DataType"] == "double" and back.header["nRows"] == "5"
    np.testing.assert_allclose(back.data, data, rtol=1e-10)


def test_grf_with_ground_torque_columns(tmp_path):
    columns = ["time"] + [f"ground_force_v{a}" for a in "xyz"] + [f"ground_force_p{a}" for a in "xyz"] + \
              [f"ground_torque_{a}" for a in "xyz"]
    data = np.zeros((4, 10))
    data[:, 0] = np.arange(4) / 1000.0
    data[:, 2], data[:, 4], data[:, 8] = 700.0, 0.3, 1.5  # vy up, px forward, torque about y (up)
    write_table(Table(tuple(columns), data), tmp_path / "grf.mot")
    (plate,) = read_grf_mot(tmp_path / "grf.mot")
    assert plate.rate == 1000.0
    np.testing.assert_allclose(plate.force[0], [0.0, 0.0, 700.0])
    np.testing.assert_allclose(plate.cop[0], [0.3, 0.0, 0.0])
    np.testing.assert_allclose(plate.free_moment[0], [0.0, 0.0, 1.5])


@pytest.mark.parametrize("text, message", [
    ("nRows=3\nnColumns=2\nendheader\ntime\tx\n0\t1\n0.01\t2\n", "nRows=3 but the file has 2"),
    ("nColumns=3\nendheader\ntime\tx\n0\t1\n", "nColumns=3 but the file has 2"),
    ("version=1\ntime\tx\n0\t1\n", "no 'endheader' line"),
    ("endheader\ntime\tx\n0\t1\n0.01\t2\n0.01\t3\n", "time does not increase at line 5"),
])
def test_bad_tables_raise_input_error(tmp_path, text, message):
    path = tmp_path / "bad.mot"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_table(path)


def test_grf_file_without_force_columns_is_refused(tmp_path):
    path = write_table(Table(("time", "knee"), np.array([[0.0, 1.0], [0.01, 2.0]])), tmp_path / "ik.mot")
    with pytest.raises(InputError, match="no force columns"):
        read_grf_mot(path)


def test_a_grf_file_of_forces_on_the_plates_is_turned_to_the_reactions(shared_data, tmp_path):
    """Some exports write the force on the plate, against OpenSim's convention: a floor only pushes the subject
    up, so a plate pulling down while loaded is negated (force and free moment), and a plate never loaded
    follows the file's loaded ones."""
    table = read_table(shared_data / "subject4_walking1_grf.mot")
    data = table.data.copy()
    for j, name in enumerate(table.columns):
        if name.startswith("ground_force_") and name[-2] in "vm" or name.startswith("ground_torque_"):
            data[:, j] = -data[:, j]
    data = np.c_[data, np.zeros((len(data), 9))]  # a third plate, never loaded
    columns = table.columns + tuple(f"ground_force_3_{k}{a}" for k in "vpm" for a in "xyz")
    path = write_table(replace(table, columns=columns, data=data), tmp_path / "on_plates.mot")
    original, turned = read_grf_mot(shared_data / "subject4_walking1_grf.mot"), read_grf_mot(path)
    for ours, theirs in zip(original, turned):
        np.testing.assert_allclose(theirs.force, ours.force)
        np.testing.assert_allclose(theirs.free_moment, ours.free_moment, equal_nan=True)
        assert any("holds the force on the plate; negated" in note for note in theirs.notes)
    assert any("holds the force on the plate" in note for note in turned[2].notes)
    assert not any("negated" in note for plate in original for note in plate.notes)


@pytest.mark.parametrize("scale, shift, note, warning", [
    (1.0, 0.0, None, None),
    (1000.0, 0.0, "ground_force_1: its centre of pressure lies under the feet in mm, not in metres (OpenSim's "
                  "unit): read in mm, its free moment in N·mm", None),
    (100.0, 0.0, "ground_force_1: its centre of pressure lies under the feet in cm", None),
    (1.0, 40.0, None, "Force plate 'ground_force_1''s centre of pressure lies 39.8 m from the nearest marker while "
                      "loaded (median): the plates and the markers are not in one lab frame")])
def test_a_centre_of_pressure_in_another_unit_or_frame_is_found_by_the_feet(shared_data, tmp_path, scale, shift,
                                                                            note, warning):
    """The plates' centre of pressure lies 1-4 cm from the nearest marker on every shared trial; written in mm or
    cm it lies hundreds of metres off and is read in that unit; moved off the subject it gets a warning."""
    table = read_table(shared_data / "subject4_walking1_grf.mot")
    data = table.data.copy()
    for j, name in enumerate(table.columns):
        if name.startswith("ground_force_1_p") or name.startswith("ground_force_1_m"):
            data[:, j] = data[:, j] * scale + (shift if name.endswith("px") else 0.0)
    path = write_table(replace(table, data=data), tmp_path / "plates.mot")
    trial = load_trial(shared_data / "subject4_walking1.trc")
    expected, attached = attach_plates(trial, read_grf_mot(shared_data / "subject4_walking1_grf.mot")), \
        attach_plates(trial, read_grf_mot(path))
    if note:
        assert any(c.startswith(note) for c in attached.conversions)
        np.testing.assert_allclose(attached.plate_samples.cop, expected.plate_samples.cop, atol=1e-9)
        np.testing.assert_allclose(attached.plate_samples.free_moment, expected.plate_samples.free_moment, atol=1e-9)
    else:
        assert not any("centre of pressure lies under the feet" in c for c in attached.conversions)
    placed = [w for w in attached.warnings if "centre of pressure lies" in w]
    assert len(placed) == (warning is not None) and all(w.startswith(warning) for w in placed)


def test_samples_without_a_value_where_a_plate_is_unloaded_read_as_zero(shared_data, tmp_path):
    """Some exports write no value (NaN) for every column of a plate below their threshold, rather than zeros: the
    samples next to those runs (a heel strike's first, a toe-off's last) still carry up to a few hundred newtons
    at 100 Hz. Read as unloaded, walking1's plates give back the file's forces (zero below the export's 20 N) and
    its body mass and comparison (before: 29 of 129 frames compared, the mass from 0.29 s); a run between samples
    that carry half the plate's peak or more is data lost under load and stays NaN."""
    table = read_table(shared_data / "subject4_walking1_grf.mot")
    data = table.data.copy()
    for plate in (1, 2):
        quiet = np.abs(table.column(f"ground_force_{plate}_vy")) < 20.0
        columns = [j for j, name in enumerate(table.columns) if name.startswith(f"ground_force_{plate}_")]
        data[np.ix_(quiet, columns)] = np.nan
    stance = np.flatnonzero(table.column("ground_force_1_vy") > 0.8 * table.column("ground_force_1_vy").max())
    lost = stance[len(stance) // 2: len(stance) // 2 + 2]  # two samples lost at the peak of a stance
    data[np.ix_(lost, [j for j, n in enumerate(table.columns) if n.startswith("ground_force_1_")])] = np.nan
    write_table(replace(table, data=data), tmp_path / "subject4_walking1_grf.mot")
    original, blank = read_grf_mot(shared_data / "subject4_walking1_grf.mot"), read_grf_mot(tmp_path /
                                                                                          "subject4_walking1_grf.mot")
    for p, (ours, theirs) in enumerate(zip(original, blank)):
        kept = np.ones(len(ours.force), bool)
        if p == 0:
            kept[lost] = False
            assert np.isnan(theirs.force[lost]).all()
        quiet = np.abs(ours.force[:, 2]) < 20.0
        np.testing.assert_allclose(theirs.force[kept & ~quiet], ours.force[kept & ~quiet])
        assert (theirs.force[quiet] == 0.0).all()
        assert any("samples without a value (NaN) read as the plate unloaded" in note for note in theirs.notes)
    shutil.copy(shared_data / "subject4_walking1.trc", tmp_path)
    as_written, as_recorded = (run(folder / "subject4_walking1.trc", PipelineOptions(until="contact"))
                               for folder in (tmp_path, shared_data))
    assert as_written.model.total_mass == pytest.approx(as_recorded.model.total_mass, abs=0.2)
    assert as_written.plate_comparison.covered.sum() == as_recorded.plate_comparison.covered.sum() - len(lost)


def test_a_grf_file_written_z_up_is_read_by_its_forces(shared_data, tmp_path):
    """A GRF file in a Z-up lab's axes (a C3D's kept, beside a Y-up TRC) was read Y up: the vertical force taken
    for a level one, walking1's mass assumed (70 kg) and its forces 88 % BW off. A floor pushes up, so the axis
    the loaded plates push along is up; read so, the plates are the file's as written Y up."""
    table = read_table(shared_data / "subject4_walking1_grf.mot")
    data = table.data.copy()
    for stem in {name[:-1] for name in table.columns if name != "time"}:
        y, z = table.columns.index(f"{stem}y"), table.columns.index(f"{stem}z")
        data[:, y], data[:, z] = -table.data[:, z], table.data[:, y]  # OpenSim's Y up to a lab's Z up
    path = write_table(replace(table, data=data), tmp_path / "z_up_grf.mot")
    original, z_up = read_grf_mot(shared_data / "subject4_walking1_grf.mot"), read_grf_mot(path)
    for ours, theirs in zip(original, z_up):
        for field in ("force", "cop", "free_moment"):
            np.testing.assert_allclose(getattr(theirs, field), getattr(ours, field), atol=1e-9, equal_nan=True)
        assert any(note.startswith("axes: GRF file is Z up, kept: its loaded plates push 23.7 times harder along Z")
                   for note in theirs.notes)
    assert not any("times harder" in note for plate in original for note in plate.notes)


def test_a_table_without_its_header_is_read_by_its_column_names(shared_data, tmp_path):
    """A GRF table written without OpenSim's header (its first line the column names, time first), as a script
    may export it, reads as the file with its header; without those names it is refused with the reason."""
    lines = (shared_data / "subject4_walking1_grf.mot").read_text().splitlines()
    bare = tmp_path / "bare_grf.mot"
    bare.write_text("\n".join(lines[lines.index("endheader") + 1:]) + "\n")
    original, read = read_table(shared_data / "subject4_walking1_grf.mot"), read_table(bare)
    assert read.columns == original.columns and read.header == {}
    np.testing.assert_array_equal(read.data, original.data)
    assert len(read_grf_mot(bare)) == 2
    (tmp_path / "numbers.mot").write_text("0\t1\n0.01\t2\n")
    with pytest.raises(InputError, match="nor column names starting with 'time'"):
        read_table(tmp_path / "numbers.mot")


def test_a_grf_file_written_with_decimal_commas_reads_as_with_points(shared_data, tmp_path):
    """A decimal-comma locale's export (-14,8093) reads as the file with points, and the plates' notes say so."""
    lines = (shared_data / "subject4_walking1_grf.mot").read_text().splitlines()
    names = lines.index("endheader") + 1
    commas = tmp_path / "commas_grf.mot"
    commas.write_text("\n".join(lines[:names + 1] + [line.replace(".", ",") for line in lines[names + 1:]]) + "\n")
    original, read = read_grf_mot(shared_data / "subject4_walking1_grf.mot"), read_grf_mot(commas)
    np.testing.assert_array_equal(read[0].force, original[0].force)
    assert "commas_grf.mot: numbers: written with decimal commas, read as decimal points" in read[0].notes


def test_a_csv_table_reads_as_it_was_written(tmp_path):
    """The .csv tables the solver writes (no header, commas) read back as they were written, gaps included."""
    table = Table(columns=("time", "ground_force_vx", "ground_force_vy"), data=np.array([[0.0, 1.5, np.nan],
                                                                                      [0.01, -2.0, 3.25]]))
    read = read_table(write_table(table, tmp_path / "table.csv"))
    assert read.columns == table.columns
    np.testing.assert_array_equal(read.data, table.data)


def test_torque_columns_about_the_lab_origin_are_moved_to_the_centre_of_pressure(shared_data, tmp_path):
    """Some exports write a plate's whole moment about the lab's origin in the torque columns: applied at the
    centre of pressure as a free moment, walking1's joint moments with the plates followed the estimate's at r
    -0.04 (0.98). About the centre of pressure a level plate's moment is vertical, so such columns are found and
    moved there; the plates then read as the file's own."""
    table = read_table(shared_data / "subject4_walking1_grf.mot")
    data = table.data.copy()
    for plate in (1, 2):
        force, point, torque = (np.stack([table.column(f"ground_force_{plate}_{k}{a}") for a in "xyz"], axis=1)
                                for k in "vpm")
        data[:, [table.columns.index(f"ground_force_{plate}_m{a}") for a in "xyz"]] = np.cross(point, force) + torque
    path = write_table(replace(table, data=data), tmp_path / "about_origin_grf.mot")
    original, moved = read_grf_mot(shared_data / "subject4_walking1_grf.mot"), read_grf_mot(path)
    for ours, theirs in zip(original, moved):
        np.testing.assert_allclose(theirs.free_moment, ours.free_moment, atol=1e-6)
        assert any("torque columns are the moment about the lab's origin" in note for note in theirs.notes)
    assert not any("lab's origin" in note for plate in original for note in plate.notes)


@pytest.mark.parametrize("rate", [1200.0, 2000.0])
def test_a_plate_sampled_faster_than_its_time_column_is_written_reads_at_its_rate(shared_data, tmp_path, rate):
    """A 1200 or 2000 Hz plate's times written to the millisecond repeat from row to row, and the file was
    refused ("time does not increase"); they are read as the even steps they round, with a note, and the plates
    are the same as with exact times. A row repeated in a table sampled as finely as it is written is refused."""
    original = read_table(shared_data / "subject4_walking1_grf.mot")
    times = np.arange(original.time[0], original.time[-1], 1.0 / rate)
    data = np.column_stack([times] + [np.interp(times, original.time, column) for column in original.data.T[1:]])
    exact = write_table(replace(original, data=data), tmp_path / "exact_grf.mot")
    rounded = tmp_path / "rounded_grf.mot"
    lines = exact.read_text().splitlines()
    start = lines.index("endheader") + 2
    rounded.write_text("\n".join(lines[:start] + [f"{t:.3f}" + line[line.index("\t"):]
                                                  for t, line in zip(times, lines[start:])]) + "\n")
    for ours, theirs in zip(read_grf_mot(exact), read_grf_mot(rounded)):
        assert theirs.rate == rate and theirs.start_time == pytest.approx(ours.start_time, abs=1e-4)
        np.testing.assert_array_equal(theirs.force, ours.force)
        assert f"rounded_grf.mot: its time column, written to 0.001 s, read as the even steps it rounds ({rate:g} Hz)" \
            in theirs.notes
    repeated = tmp_path / "repeated.mot"
    rows = "\n".join(f"{0.01 * i:.2f}\t{i}" for i in range(20))
    repeated.write_text(f"endheader\ntime\tx\n{rows}\n0.19\t20\n")
    with pytest.raises(InputError, match="time does not increase"):
        read_table(repeated)
