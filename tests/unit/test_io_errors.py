"""Bad input gets one clear InputError (what was wrong, what to do), no traceback from a library, no file written."""

from __future__ import annotations

import shutil

import ezc3d
import numpy as np
import pytest

from mocap_dynamics.solver.errors import InputError
from mocap_dynamics.solver.io import ImportOptions, load_trial, write_c3d, write_trc
from mocap_dynamics.solver.io.atomic import atomic_path
from mocap_dynamics.solver.io.trial import Trial


def write_raw_c3d(path, points_mm: np.ndarray, units: str | None = "mm", analogs: int = 0) -> str:
    """A C3D written by ezc3d itself: points ``(T, M, 3)`` in ``units``, optional analog channels (10 per frame)."""
    c3d = ezc3d.c3d()
    n_frames, n_markers = points_mm.shape[:2]
    c3d["parameters"]["POINT"]["RATE"]["value"] = [100.0]
    c3d["parameters"]["POINT"]["LABELS"]["value"] = [f"M{i}" for i in range(n_markers)]
    if units is not None:
        c3d["parameters"]["POINT"]["UNITS"]["value"] = [units]
    c3d["data"]["points"] = np.concatenate((np.moveaxis(points_mm, (0, 1, 2), (2, 1, 0)),
                                            np.ones((1, n_markers, n_frames))))
    if analogs:
        c3d["parameters"]["ANALOG"]["RATE"]["value"] = [1000.0]
        c3d["parameters"]["ANALOG"]["LABELS"]["value"] = [f"A{i}" for i in range(analogs)]
        c3d["data"]["analogs"] = np.zeros((1, analogs, 10 * n_frames))
    c3d.write(str(path))
    return path


def assert_input_error(path, *messages, options=None):
    """Loading ``path`` raises an InputError naming ``messages`` and saying what to do, and writes nothing."""
    before = sorted(path.parent.iterdir())
    with pytest.raises(InputError) as error:
        load_trial(path, options)
    for message in messages:
        assert message in str(error.value)
    assert error.value.what and error.value.fix
    assert sorted(path.parent.iterdir()) == before
    return error.value


def test_truncated_c3d(shared_data, tmp_path):
    data = (shared_data / "cmu_dribble_shoot_basketball.c3d").read_bytes()
    path = tmp_path / "cut.c3d"
    path.write_bytes(data[:len(data) // 2])
    assert_input_error(path, "truncated", "of its 494 frames")
    path.write_bytes(data[:600])  # cut inside the parameter section
    assert_input_error(path, "is not a readable C3D file")


def test_not_a_c3d(tmp_path, shared_data):
    path = tmp_path / "walk.c3d"
    shutil.copy(shared_data / "subject4_walking1.trc", path)
    assert_input_error(path, "walk.c3d is not a readable C3D file")
    (tmp_path / "empty.c3d").write_bytes(b"")
    assert_input_error(tmp_path / "empty.c3d", "empty.c3d is not a readable C3D file")


def test_c3d_with_zero_markers(tmp_path):
    path = write_raw_c3d(tmp_path / "analog_only.c3d", np.zeros((10, 0, 3)), analogs=2)
    assert_input_error(path, "has no markers")


def test_c3d_unknown_or_missing_units(tmp_path):
    points = np.random.default_rng(0).uniform(100, 1000, (5, 2, 3))
    error = assert_input_error(write_raw_c3d(tmp_path / "u.c3d", points, units="furlong"),
                               "unknown length units 'furlong' in POINT:UNITS")
    assert "ImportOptions(units=" in error.fix
    assert_input_error(write_raw_c3d(tmp_path / "none.c3d", points, units=None), "unknown length units None")
    trial = load_trial(tmp_path / "u.c3d", ImportOptions(units="mm"))
    np.testing.assert_allclose(trial.markers, points * 0.001, rtol=1e-6)  # the override rescues the file


def test_c3d_marker_missing_everywhere_is_dropped_and_all_missing_is_an_error(tmp_path):
    markers = np.zeros((6, 2, 3)) + [0.1, 0.2, 1.0]
    markers[:, 1] = np.nan
    trial = Trial("t", ("kept", "gone"), markers, 100.0)
    back = load_trial(write_c3d(trial, tmp_path / "one_gone.c3d"))
    assert back.labels == ("kept",)
    assert back.warnings == ("Dropped 1 marker(s) missing in every frame: gone",)
    nothing = Trial("t", ("a", "b"), np.full((6, 2, 3), np.nan), 100.0)
    assert_input_error(write_c3d(nothing, tmp_path / "none.c3d"), "no marker has a single valid sample")


def test_zero_coordinates_are_missing_samples(tmp_path):
    points = np.ones((4, 1, 3)) * 500.0
    points[2] = 0.0
    trial = load_trial(write_raw_c3d(tmp_path / "zeros.c3d", points))
    assert np.isnan(trial.markers[2]).all() and trial.present().sum() == 3
    assert any("exactly (0, 0, 0)" in c for c in trial.conversions)


def test_missing_file_unknown_extension_and_folder(tmp_path):
    assert_input_error(tmp_path / "nowhere.c3d", "no such file")
    (tmp_path / "notes.txt").write_text("hello")
    assert_input_error(tmp_path / "notes.txt", "unknown file type '.txt'")
    (tmp_path / "folder.trc").mkdir()
    assert_input_error(tmp_path / "folder.trc", "folder.trc is a folder, not a recording")


def test_bad_import_options():
    with pytest.raises(InputError, match="units override ImportOptions\\(units='inch'\\)"):
        ImportOptions(units="inch")
    with pytest.raises(InputError, match="up axis override ImportOptions\\(up_axis='X'\\)"):
        ImportOptions(up_axis="X")
    assert ImportOptions(up_axis="y").up_axis == "Y"


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "result.trc"
    path.write_text("previous result")
    with pytest.raises(RuntimeError), atomic_path(path) as temporary:
        temporary.write_text("half a file")
        raise RuntimeError("the writer failed half way")
    assert path.read_text() == "previous result"
    assert [p.name for p in tmp_path.iterdir()] == ["result.trc"]


def test_writing_into_a_missing_folder_or_with_a_wrong_name(tmp_path):
    trial = Trial("t", ("A",), np.ones((3, 1, 3)), 100.0)
    with pytest.raises(InputError, match="does not exist"):
        write_trc(trial, tmp_path / "no" / "such" / "folder.trc")
    with pytest.raises(InputError, match="must end in .c3d"):
        write_c3d(trial, tmp_path / "markers.trc")
    assert list(tmp_path.iterdir()) == []
