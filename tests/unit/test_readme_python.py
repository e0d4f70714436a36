"""The README's "From Python" block, run as written from the repository root on the project's sample walk
(its "walk.trc"), in a fresh interpreter: the library use the README shows works and prints what it says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from mocap_dynamics.solver.sample import write_sample

ROOT = Path(__file__).resolve().parents[2]


def test_the_readmes_python_block_runs(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"\*\*From Python\.\*\*.*?```python\n(.*?)```", readme, re.S).group(1)
    sample = write_sample(tmp_path)["trc"]
    assert block.count('"walk.trc"') == 1
    done = subprocess.run([sys.executable, "-c", block.replace('"walk.trc"', repr(str(sample)))], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    feet, figures = done.stdout.strip().splitlines()
    assert re.fullmatch(r"\('foot_l', 'foot_r'\) \(\d+, 2, 3\)", feet), feet
    explained, knee_peak = map(float, figures.split())
    assert 0.9 < explained <= 1.0 and 20 < knee_peak < 200, figures  # the walk's root force carried; N·m
