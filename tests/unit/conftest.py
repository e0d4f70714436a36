"""Unit-test fixtures: the project's sample walk. ``shared_data`` (the real recordings, skipped when absent)
and the package import come from ``tests/conftest.py``.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def sample_walk():
    """The project's sample walk with its ground truth (generated once per session)."""
    from mocap_dynamics.solver.sample import make_sample
    return make_sample()
