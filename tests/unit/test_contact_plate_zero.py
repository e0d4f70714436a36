"""Force plates not zeroed before the recording (``solver.contact.plate_zero``): walking1 with a steady offset on
its plates' vertical force is warned about, with the offset, plate by plate, as is the sprint's C3D with an offset
on one plate's channels; as recorded no shared trial is (the sit-to-stand's feet resting on their plates while
seated included)."""

from __future__ import annotations

import shutil
from dataclasses import replace

import ezc3d
import numpy as np
import pytest

from mocap_dynamics.solver.io.mot import read_table, write_table
from mocap_dynamics.solver.pipeline import PipelineOptions, run


def offset(shared_data, folder, newtons: float):
    """walking1 with ``newtons`` added to each plate's vertical force, its centre of pressure at the plate's
    middle where the file had none (as an export computes it from the offset alone), written to ``folder``."""
    shutil.copy(shared_data / "subject4_walking1.trc", folder)
    table = read_table(shared_data / "subject4_walking1_grf.mot")
    data = table.data.copy()
    for plate in (1, 2):
        vertical = table.columns.index(f"ground_force_{plate}_vy")
        empty = np.abs(data[:, vertical]) < 20.0
        for axis in "xyz":
            j = table.columns.index(f"ground_force_{plate}_p{axis}")
            data[empty, j] = np.median(data[~empty, j])
        data[:, vertical] += newtons
    write_table(replace(table, data=data), folder / "subject4_walking1_grf.mot")
    return folder / "subject4_walking1.trc"


@pytest.mark.parametrize("newtons", [30.0, -15.0])
def test_plates_not_zeroed_are_warned_about_with_their_offset(shared_data, tmp_path, newtons):
    comparison = run(offset(shared_data, tmp_path, newtons), PipelineOptions(until="contact")).plate_comparison
    warned = [w for w in comparison.warnings if "it was not zeroed" in w]
    assert [w.split(" while")[0] for w in warned] == [f"Force plate 'ground_force_{p}' reads {newtons:.0f} N"
                                                      for p in (1, 2)]


def test_a_c3d_plate_with_an_offset_on_its_channels_is_warned_about(shared_data, tmp_path):
    """The sprint's plate FP2 with every channel offset by 5 % of its peak (a C3D whose FORCE_PLATFORM:ZERO
    frames were meant for a baseline, which ezc3d does not subtract): -122 N while nothing stands on it."""
    c3d = ezc3d.c3d(str(shared_data / "sprint_forceplates_JA1Gait35.c3d"))
    channels = np.asarray(c3d["parameters"]["FORCE_PLATFORM"]["CHANNEL"]["value"])[:, 1] - 1
    analogs = c3d["data"]["analogs"].copy()
    analogs[0, channels] += 0.05 * np.abs(analogs[0, channels]).max(axis=1, keepdims=True)
    c3d["data"]["analogs"] = analogs
    c3d["parameters"]["FORCE_PLATFORM"]["ZERO"]["value"] = np.array([1, 10])
    c3d.write(str(tmp_path / "offset.c3d"))
    comparison = run(tmp_path / "offset.c3d", PipelineOptions(until="contact")).plate_comparison
    assert [w.split(" while")[0] for w in comparison.warnings if "it was not zeroed" in w] == \
        ["Force plate 'FP2' reads -122 N"]


@pytest.mark.parametrize("name", ["subject4_walking1", "subject4_DJ3", "subject4_STS1",
                                  "sprint_forceplates_JA1Gait35"])
def test_plates_as_recorded_are_not_warned_about(shared_data, name):
    path = shared_data / f"{name}.trc"
    path = path if path.is_file() else path.with_suffix(".c3d")
    comparison = run(path, PipelineOptions(until="contact")).plate_comparison
    assert not [w for w in comparison.warnings if "it was not zeroed" in w]
