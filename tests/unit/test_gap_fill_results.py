"""``<name>_markers_filled.trc`` in every results folder: read back by our TRC reader, in the input file's own
units and axes, the filled samples where the gaps were."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.io import ImportOptions, load_trial
from mocap_dynamics.solver.kinematics.gap_fill import GapFillOptions, fill_gaps
from mocap_dynamics.solver.model import calibrate
from mocap_dynamics.solver.pipeline import PipelineOptions, PipelineResult, run
from mocap_dynamics.solver.results import write_results


def header(path) -> dict:
    lines = path.read_text().splitlines()
    return dict(zip(lines[1].split("\t"), lines[2].split("\t")))


def test_walking1_filled_markers_come_back_in_metres_y_up(shared_data, tmp_path):
    result = run(shared_data / "subject4_walking1.trc", PipelineOptions(until="reconstruct"))
    written, notes = write_results(result, tmp_path)
    path = tmp_path / "subject4_walking1_markers_filled.trc"
    assert path in written and not any("markers_filled" in note for note in notes)
    assert header(path)["Units"] == "m" and header(path)["NumFrames"] == "131"
    back = load_trial(path)
    assert back.metadata["file_up_axis"] == "Y" and not back.warnings
    assert back.labels == result.trial.labels and back.rate == result.trial.rate
    np.testing.assert_allclose(back.markers, result.gap_fill.trial.markers, atol=1e-9)
    assert not np.isnan(back.markers).any(), "every gap of walking1 is filled"
    raw = [line.split("\t") for line in (shared_data / "subject4_walking1.trc").read_text().splitlines()[6:8]]
    ours = [line.split("\t") for line in path.read_text().splitlines()[6:8]]
    np.testing.assert_allclose(np.array(ours, dtype=float)[:, 2:8], np.array(raw, dtype=float)[:, 2:8], atol=1e-9)


@pytest.mark.parametrize("file, units, up_axis", [("squat_gaps.c3d", "mm", "Y"),
                                                  ("cmu_dribble_shoot_basketball.c3d", "mm", "Z")])
def test_c3d_filled_markers_keep_the_files_units_and_up_axis(shared_data, tmp_path, file, units, up_axis):
    trial = load_trial(shared_data / file)
    assert (trial.metadata["file_units"], trial.metadata["file_up_axis"]) == (units, up_axis)
    gap_fill = fill_gaps(trial, GapFillOptions(), {s.name: s.markers for s in calibrate(trial).segments})
    result = PipelineResult(source=str(shared_data / file), options=PipelineOptions(until="calibrate"),
                            trial=trial, gap_fill=gap_fill)
    written, _ = write_results(result, tmp_path)
    path = tmp_path / f"{file[:-4]}_markers_filled.trc"
    assert path in written and header(path)["Units"] == units
    back = load_trial(path, ImportOptions(up_axis=up_axis))  # a Z-up TRC is not OpenSim's convention: say so
    np.testing.assert_allclose(back.markers, gap_fill.trial.markers, atol=1e-9, equal_nan=True)
    assert np.isnan(back.markers).sum() == np.isnan(gap_fill.trial.markers).sum()


def test_a_unit_override_at_import_is_the_unit_written(shared_data, tmp_path):
    """A header that says mm over numbers in metres, read with units="m": the filled file is in metres."""
    lines = (shared_data / "subject4_walking1.trc").read_text().splitlines()
    values = lines[2].split("\t")
    values[4] = "mm"
    lines[2] = "\t".join(values)
    wrong = tmp_path / "walk.trc"
    wrong.write_text("\n".join(lines) + "\n")
    result = run(wrong, PipelineOptions(until="reconstruct", import_options=ImportOptions(units="m")))
    write_results(result, tmp_path / "out")
    path = tmp_path / "out" / "walk_markers_filled.trc"
    assert header(path)["Units"] == "m"
    np.testing.assert_allclose(load_trial(path).markers, result.gap_fill.trial.markers, atol=1e-9)


def test_a_run_stopped_before_gap_filling_says_so(shared_data, tmp_path):
    result = run(shared_data / "subject4_walking1.trc", PipelineOptions(until="calibrate"))
    written, notes = write_results(result, tmp_path)
    assert not written and any("markers_filled.trc not written" in note and "calibrate" in note for note in notes)
