"""``first_use.CompileAhead``: on a first run, a forked helper compiles the kernels of inverse dynamics and zero
gravity while the run compiles OTM's and the contact's, so the run itself compiles only those two. Each check
runs in a process of its own with numba's cache empty (the rest of the suite has filled the usual one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="compiling ahead needs os.fork (not on Windows)")

FIRST_RUN = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from bootstrap import load_package
load_package()
import numba.core.event as event
from mocap_dynamics.solver.first_use import CompileAhead
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.sample import MASS, write_sample

compiled, depth = [], [0]

class Compiles(event.Listener):
    def on_start(self, e):
        depth[0] += 1

    def on_end(self, e):
        depth[0] -= 1
        if depth[0] == 0:
            compiled.append(e.data["dispatcher"].py_func.__qualname__)

event.register("numba:compile", Compiles())
options = PipelineOptions(mass=MASS)
started = time.perf_counter()
stopped = CompileAhead.start(options)
pid = stopped.pid
stopped.stop()
try:
    os.waitpid(pid, os.WNOHANG)
    reaped = False
except ChildProcessError:
    reaped = True
stop_s = time.perf_counter() - started
result = run(write_sample(sys.argv[2])["c3d"], options, compile_ahead=True)
print(json.dumps({"stopped_reaped": reaped, "stop_s": stop_s, "compiled": compiled,
                  "zero_gravity": result.zero_gravity is not None,
                  "again": CompileAhead.start(options) is not None}))
"""


def test_a_first_run_compiles_only_otm_and_contact_itself_and_a_stopped_helper_is_gone(tmp_path):
    cache = tmp_path / "numba"
    cache.mkdir()
    done = subprocess.run([sys.executable, "-c", FIRST_RUN, str(ROOT / "scripts"), str(tmp_path)],
                          env={**os.environ, "NUMBA_CACHE_DIR": str(cache)}, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["stopped_reaped"] and found["stop_s"] < 10, "stop() ends the helper and reaps it"
    assert found["zero_gravity"], "the run went through every step"
    assert found["compiled"] == ["solve_trial", "_solve_frames"], \
        "the run compiles OTM's and the contact's kernels, the helper inverse dynamics' and zero gravity's"
    assert not found["again"], "with the kernels cached, no helper is started"
