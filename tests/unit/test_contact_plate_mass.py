"""The body mass from the trial's own plates, as the report says where it came from."""

from __future__ import annotations

import pytest

from mocap_dynamics.solver.contact.plate_mass import PlateMass


@pytest.mark.parametrize("runs, said", [(1, "in 1 run, residual"), (5, "in 5 runs, residual")])
def test_the_source_counts_its_runs(runs, said):
    """The video walk's mass rests on one run of full support: "in 1 run", not "in 1 runs"."""
    assert said in PlateMass(mass=94.9, seconds=1.26, runs=runs, spread=0.0).source
