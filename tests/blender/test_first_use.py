"""First use: the kernels compile in the background (the job the extension starts once enabled), and numba's
cache of an installed extension is in the extension's user folder, not beside its (possibly read-only) files."""

from __future__ import annotations

import importlib
import os
import time
from pathlib import Path

import bpy
import pytest

from conftest import MODE


def test_the_warm_up_compiles_in_the_background(package):
    first_use = importlib.import_module(f"{package.__name__}.addon.first_use")
    assert first_use.warm_up() is None, "headless: no warm-up, the steps compile what they need"
    job = first_use.warm_up_job().start()
    started = time.monotonic()
    while not job.tick():
        assert time.monotonic() - started < 900, job.message
        time.sleep(0.05)
    assert job.error is None and not job.cancelled
    assert first_use.compiled() == (MODE == "installed"), "the marker lives beside the extension's own cache"


@pytest.mark.skipif(MODE != "installed", reason="a checkout registered as an add-on caches beside its sources")
def test_an_installed_extension_caches_kernels_in_its_user_folder(package):
    root = Path(bpy.utils.extension_path_user(package.__name__, path="numba_cache"))
    folder = Path(os.environ["NUMBA_CACHE_DIR"])
    assert folder.parent == root and [p for p in root.iterdir() if p.is_dir()] == [folder], \
        "one cache, named after the solver's sources (a cache of other sources is removed)"
    assert list(folder.rglob("*.nbi")), "the warm-up (or an earlier test) cached kernels there"
    installed = Path(package.__file__).parent
    assert not list(installed.rglob("*.nbi")), "nothing is written beside the installed files"
