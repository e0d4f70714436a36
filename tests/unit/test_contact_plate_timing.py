"""Force plates that do not keep time with the markers (``solver.contact.plate_timing``): a drop jump and a walk
with their GRF files' time columns shifted are flagged with the shift, to within a frame (as recorded the walk's
plates already come 5-10 ms late, below a warning); as recorded, no shared trial is."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from mocap_dynamics.solver.contact.plate_timing import plate_lag
from mocap_dynamics.solver.errors import InputError
from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.io.conventions import ImportOptions
from mocap_dynamics.solver.io.mot import read_table, write_table
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from tests.unit.test_contact_ground import on_a_treadmill


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


def on_a_belt_late(shared_data, folder, speed: float, seconds: float):
    """subject4_walking4 as if on a belt at ``speed`` [m/s], its plates' centres of pressure carried with the belt and
    their time column moved by ``seconds``."""
    moved, belt = on_a_treadmill(shared_data / "subject4_walking4.trc", folder, speed)
    start = load_trial(shared_data / "subject4_walking4.trc").times[0]
    table = read_table(shared_data / "subject4_walking4_grf.mot")
    data = table.data.copy()
    carried = belt[None, :] * (data[:, :1] - start)  # in the solver's Z-up axes; the file is Y up: x, -z
    for k, name in enumerate(table.columns):
        if name.endswith("_px"):
            data[:, k] += carried[:, 0]
        elif name.endswith("_pz"):
            data[:, k] -= carried[:, 1]
    data[:, 0] += seconds
    write_table(replace(table, data=data), moved.with_name(f"{moved.stem}_grf.mot"))
    return moved


def test_on_a_belt_a_short_delay_is_flagged_and_the_delay_given_takes_it_away(shared_data, tmp_path):
    """walking4 on a 1.3 m/s belt, its plates 10 ms later than recorded (16 ms behind the markers): under the 20 ms
    a still floor's plates need for a warning, but their centre of pressure trails the foot by 2.1 cm, so the
    torques with them are off; the warning says so and gives the delay. Given it (``import.plate_delay``), the
    plates keep time and the estimate's centre of pressure comes nearer theirs (1.5 cm in single support against
    1.7). As recorded, 6 ms behind: 0.8 cm, not flagged."""
    late = run(on_a_belt_late(shared_data, tmp_path, 1.3, 0.01), PipelineOptions(until="contact"))
    lag = lag_of(late.plate_comparison, late.contact)
    assert 0.012 < lag < 0.019
    [warning] = [w for w in late.plate_comparison.warnings if w.startswith("The force plates run")]
    assert "on the floor moving at 1.30 m/s their centre of pressure trails the foot by 2." in warning
    assert "plate_delay" in warning
    given = run(on_a_belt_late(shared_data, tmp_path, 1.3, 0.01),
                PipelineOptions(until="contact", import_options=ImportOptions(plate_delay=round(lag, 4))))
    assert any(c.startswith("force plates: moved ") for c in given.trial.conversions)
    assert abs(lag_of(given.plate_comparison, given.contact)) < 0.008  # 5 ms: the plates at 100 Hz, moved by 1.6 frames
    assert not [w for w in given.plate_comparison.warnings if w.startswith("The force plates run")]
    cop = [r.plate_comparison.summary()["cop_error_single_support_cm"] for r in (late, given)]
    assert cop[1] < cop[0]


def test_a_delay_out_of_reach_says_what_to_give():
    with pytest.raises(InputError, match=r"Plate delay .* is not a time within ±0.5 s"):
        ImportOptions(plate_delay=3.0)
