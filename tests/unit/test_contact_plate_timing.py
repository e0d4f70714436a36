"""Force plates that do not keep time with the markers (``solver.contact.plate_timing``): a drop jump and a walk
with their GRF files' time columns shifted are flagged with the shift, to within a frame (as recorded the walk's
plates already come 5-10 ms late, below a warning); as recorded, no shared trial is."""

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


def lag_of(comparison, contact):
    return plate_lag(comparison, contact.root_wrench_without[:, 2])[0]


@pytest.mark.parametrize("name, seconds, says", [("subject4_DJ3", 0.05, "behind"), ("subject4_DJ3", -0.03, "ahead of"),
                                                 ("subject4_walking4", 0.03, "behind"),
                                                 ("subject4_walking4", -0.05, "ahead of")])
def test_plates_out_of_time_are_flagged_with_their_offset(shared_data, tmp_path, name, seconds, says):
    """Walking4's were not, at any shift up to 80 ms either way, when the estimate's load on the plates was the
    measure (a heel loaded before its plate sees it)."""
    result = run(shifted(shared_data, tmp_path, name, seconds), PipelineOptions(until="contact"))
    lag = lag_of(result.plate_comparison, result.contact)
    assert lag == pytest.approx(seconds, abs=0.01)
    warnings = [w for w in result.plate_comparison.warnings if w.startswith("The force plates run")]
    assert len(warnings) == 1 and f"ms {says} the markers" in warnings[0]
    assert f"run {1000 * abs(lag):.0f} ms" in warnings[0]


@pytest.mark.parametrize("name", ["subject4_DJ3", "subject4_walking1", "opencap_video_walking3"])
def test_plates_in_time_are_not_flagged(shared_data, name):
    """Found within 10 ms of the markers' time (the walks' GRF files at 100 Hz come 5-10 ms late)."""
    result = run(shared_data / f"{name}.trc", PipelineOptions(until="contact"))
    assert abs(lag_of(result.plate_comparison, result.contact)) < 0.01
    assert not [w for w in result.plate_comparison.warnings if w.startswith("The force plates run")]
