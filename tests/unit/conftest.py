"""Unit-test fixtures: the repository root on sys.path (so ``import solver`` works however pytest is started)
and the project's sample walk. ``shared_data`` (the real recordings, skipped when absent) comes from
``tests/conftest.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


@pytest.fixture(scope="session")
def sample_walk():
    """The project's sample walk with its ground truth (generated once per session)."""
    from solver.sample import make_sample
    return make_sample()
