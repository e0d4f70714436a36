"""Unit-test fixtures: the project's sample walk, and the real recordings every solver test reads, loaded
once per session. ``shared_data`` (the real recordings, skipped when absent) and the package import come
from ``tests/conftest.py``.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def sample_walk():
    """The project's sample walk with its ground truth (generated once per session)."""
    from mocap_dynamics.solver.sample import make_sample
    return make_sample()


@pytest.fixture(scope="session")
def subject4_static(shared_data):
    """OpenCap subject 4 standing still, with its force plates (quiet standing weighs about 589 N)."""
    from mocap_dynamics.solver.io import attach_plates, load_trial, read_grf_mot
    return attach_plates(load_trial(shared_data / "subject4_static1.trc"),
                         read_grf_mot(shared_data / "subject4_static1_grf.mot"))


@pytest.fixture(scope="session")
def walking_full15(shared_data, subject4_static):
    """full15 of subject 4, calibrated on its walking trial and static trial (mass from the plates)."""
    from mocap_dynamics.solver.io import load_trial
    from mocap_dynamics.solver.model import calibrate
    return calibrate(load_trial(shared_data / "subject4_walking1.trc"), static=subject4_static)


@pytest.fixture(scope="session")
def cmu_brubaker12(shared_data):
    """brubaker12 calibrated on the CMU basketball trial."""
    from mocap_dynamics.solver.io import load_trial
    from mocap_dynamics.solver.model import calibrate
    return calibrate(load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d"), template="brubaker12")
