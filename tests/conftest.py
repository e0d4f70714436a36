"""Shared by every test folder: the package under its one name, and where the shared recordings are.

The repository is imported as the package ``mocap_dynamics`` — the name Blender gives the installed
extension — by tests, scripts and the demo alike. One name matters: numba's on-disk cache records the
module a kernel was compiled in, so the same file imported under two names would break it. (The root
itself is on sys.path only so tests can share helpers as ``tests.unit...``.)
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]
from bootstrap import load_package  # noqa: E402

load_package()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The folder of real recordings made by other people (../shared/data); skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real recordings not found at {SHARED_DATA} (CI has them; see tests/README in the main README)")
    return SHARED_DATA
