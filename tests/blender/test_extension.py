"""The extension zip, built by Blender's own CLI, installs into a fresh Blender and works from there."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import extension_zip

HERE = Path(__file__).resolve().parent


def test_zip_installs_enables_imports_and_uninstalls(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    run = subprocess.run([sys.executable, str(HERE / "extension_lifecycle.py"), str(extension_zip()), str(tmp_path)],
                         env=env, capture_output=True, text=True, timeout=600)
    steps = [line for line in run.stdout.splitlines() if line.startswith("ok:")]
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert len(steps) == 5, steps
