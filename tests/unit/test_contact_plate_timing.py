"""Force plates that do not keep time with the markers (``solver.contact.plate_timing``): the drop jump with its
GRF file's time column shifted is flagged with the shift, to the frame; as recorded, no shared trial is."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from mocap_dynamics.solver.contact.plate_timing import plate_lag
from mocap_dynamics.solver.io.mot import read_table, write_table
from mocap_dynamics.solver.pipeline import PipelineOptions, run


def shifted(shared_data, folder, name: str, seconds: float):
    """The trial ``name`` with its plates' time column moved by ``seconds``, written to ``folder``."""
    shutil.copy(shared_data / f"{name}.trc", folder)
    table = read_table(shared_data / f"{name}_grf.mot")
    data = table.data.copy()
    data[:, 0] += seconds
    write_table(replace(table, data=data), folder / f"{name}_grf.mot")
    return folder / f"{name}.trc"


@pytest.mark.parametrize("seconds, says", [(0.05, "50 ms behind"), (-0.03, "30 ms ahead of")])
def test_plates_out_of_time_are_flagged_with_their_offset(shared_data, tmp_path, seconds, says):
    comparison = run(shifted(shared_data, tmp_path, "subject4_DJ3", seconds),
                     PipelineOptions(until="contact")).plate_comparison
    assert plate_lag(comparison)[0] == pytest.approx(seconds, abs=1e-9)
    warnings = [w for w in comparison.warnings if w.startswith("The force plates run")]
    assert len(warnings) == 1 and f"run {says} the markers" in warnings[0]


@pytest.mark.parametrize("name", ["subject4_DJ3", "subject4_walking1", "opencap_video_walking3"])
def test_plates_in_time_are_not_flagged(shared_data, name):
    """Walks included, whose estimate loads a heel 30-50 ms before its plate does (best shift 10-30 ms at r
    0.82-0.89: not the near-perfect agreement a warning needs)."""
    comparison = run(shared_data / f"{name}.trc", PipelineOptions(until="contact")).plate_comparison
    assert not [w for w in comparison.warnings if w.startswith("The force plates run")]
