"""Force plates not zeroed before the recording (``solver.contact.plate_zero``): walking1 with a steady offset on
its plates' vertical force is warned about, with the offset, plate by plate; as recorded no shared trial is (the
sit-to-stand's feet resting on their plates while seated included)."""

from __future__ import annotations

import shutil
from dataclasses import replace

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


@pytest.mark.parametrize("name", ["subject4_walking1", "subject4_DJ3", "subject4_STS1"])
def test_plates_as_recorded_are_not_warned_about(shared_data, name):
    comparison = run(shared_data / f"{name}.trc", PipelineOptions(until="contact")).plate_comparison
    assert not [w for w in comparison.warnings if "it was not zeroed" in w]
