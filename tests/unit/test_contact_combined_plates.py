"""One column set for both feet (plates combined before export): the comparison cannot split it between the feet,
so it says so; the shared trials' plates, one per foot, are never taken for that."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.contact import compare_with_plates
from mocap_dynamics.solver.io.plates import attach_plates
from mocap_dynamics.solver.io.trial import ForcePlate
from mocap_dynamics.solver.pipeline import PipelineOptions, run


def combined(trial):
    """``trial`` with its plates summed into one: forces and free moments added, COPs weighted by vertical force."""
    force = sum(np.nan_to_num(p.force) for p in trial.plates)
    with np.errstate(invalid="ignore", divide="ignore"):
        cop = sum(np.nan_to_num(p.cop) * np.nan_to_num(p.force[:, 2:3]) for p in trial.plates) / force[:, 2:3]
    first = trial.plates[0]
    plate = ForcePlate("both_feet", np.full((4, 3), np.nan), first.rate, first.start_time, force,
                       np.where(force[:, 2:3] > 20.0, cop, np.nan), sum(np.nan_to_num(p.free_moment)
                                                                         for p in trial.plates))
    return attach_plates(replace(trial, plates=()), (plate,))


@pytest.mark.parametrize("name", ["subject4_walking1", "subject4_STS1"])
def test_a_plate_under_both_feet_is_said(shared_data, name):
    result = run(shared_data / f"{name}.trc", PipelineOptions(until="contact"))
    assert result.plate_comparison.warnings == ()  # one plate per foot
    plates = compare_with_plates(result.contact, combined(result.trial))
    assert len(plates.warnings) == 1 and "'both_feet' carries both feet at once" in plates.warnings[0]
