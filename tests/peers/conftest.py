"""Peer-engine tests (MuJoCo, Pinocchio): run in .venv-peers; skipped, with the reason, where the engines
are missing."""

from __future__ import annotations

import importlib.util

import pytest

MISSING = [name for name in ("mujoco", "pinocchio") if importlib.util.find_spec(name) is None]


def pytest_collection_modifyitems(config, items):
    if MISSING:
        skip = pytest.mark.skip(reason=f"peer engines not importable: {', '.join(MISSING)} "
                                       "(run with .venv-peers/bin/python: make test-peers)")
        for item in items:
            item.add_marker(skip)
