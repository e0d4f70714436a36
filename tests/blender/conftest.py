"""Blender tests run in real Blender: the ``bpy`` module from PyPI.

Two modes, chosen by ``MOCAP_DYNAMICS_TEST_MODE``:

- ``repo`` (default): this checkout is registered as the add-on (``make test-blender``, Blender 5.0).
- ``installed``: the linux-x64 extension zip from ``dist/`` is installed into a fresh Blender user
  config (a temporary HOME) and enabled, and every test runs against the installed copy and its
  bundled wheels (``make test-blender45``, Blender 4.5 LTS with nothing but Blender installed).
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODE = os.environ.get("MOCAP_DYNAMICS_TEST_MODE", "repo")
#: the fresh user config of ``installed`` mode (about 400 MB with the extension's wheels), removed at the end
HOME = tempfile.mkdtemp(prefix="mocap-dynamics-home-") if MODE == "installed" else None
if HOME:
    os.environ["HOME"] = HOME  # before bpy: Blender's user config

import bpy  # noqa: E402
import pytest  # noqa: E402


def extension_zip() -> Path:
    """The linux-x64 zip built by ``make extension``."""
    zips = sorted((ROOT / "dist").glob("mocap_dynamics-*-linux_x64.zip"))
    if not zips:
        pytest.fail("no extension zip in dist/: run `make extension` first")
    return zips[-1]


@pytest.fixture(scope="session")
def package():
    """The add-on package as Blender runs it, registered."""
    if MODE == "installed":
        result = bpy.ops.extensions.package_install_files(filepath=str(extension_zip()), repo="user_default",
                                                           enable_on_install=True)
        assert result == {"FINISHED"}
        bpy.ops.wm.save_userpref()  # as Blender does on quit: new Blender processes (the CLI tests) see it too
        pkg = importlib.import_module("bl_ext.user_default.mocap_dynamics")
    else:
        pkg = sys.modules["mocap_dynamics"]  # loaded by tests/conftest.py
        pkg.register()
    for sub in ("solver.io", "solver.pipeline", "addon.trial_scene", "addon.process"):
        importlib.import_module(f"{pkg.__name__}.{sub}")
    yield pkg


@pytest.fixture
def solver(package):
    """The solver half of the package under test (installed copy or checkout)."""
    return package.solver


@pytest.fixture
def scene(package):
    """A fresh empty scene with the add-on still enabled."""
    bpy.ops.wm.read_homefile(use_empty=True)
    assert hasattr(bpy.ops.mocap_dynamics, "import_markers")
    return bpy.context.scene


@pytest.fixture
def walking(scene, shared_data):
    """subject4's walk imported and calibrated on its static trial (synchronously, as a script does)."""
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(shared_data / "subject4_walking1.trc")) == {"FINISHED"}
    assert bpy.ops.mocap_dynamics.build_armature(static_filepath=str(shared_data / "subject4_static1.trc")) \
        == {"FINISHED"}
    return bpy.context.scene.mocap_dynamics.active_trial


_EXIT_STATUS = []


def pytest_sessionfinish(session, exitstatus):
    _EXIT_STATUS.append(int(exitstatus))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """The temporary user config goes. Blender 4.5's ``bpy`` module deadlocks in its exit handlers once Rigify
    has generated a rig: a static destructor waits on a condition variable its "delayed close" thread still
    waits on (seen with gdb: the process hangs after the last test, forever). Under 4.x the run ends here, with
    pytest's status, once everything is reported; Blender 5.0 exits normally."""
    if HOME:
        shutil.rmtree(HOME, ignore_errors=True)
    if bpy.app.version < (5, 0, 0) and _EXIT_STATUS:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_EXIT_STATUS[-1])
