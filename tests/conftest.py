"""Fixtures shared by every test folder: where the repository and the shared recordings are."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The folder of real recordings made by other people (../shared/data); skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real recordings not found at {SHARED_DATA} (CI has them; see tests/README in the main README)")
    return SHARED_DATA
