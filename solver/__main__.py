"""``python -m solver INPUT [--out DIR] [options]`` from the repository root: the solver alone, no Blender
(``solver.cli`` says what it writes and its exit codes).

``-m`` imports this folder as the top-level package ``solver``; the run imports it again under its one name,
``mocap_dynamics`` (``scripts/bootstrap.py``), before any kernel is loaded: numba's on-disk cache records the
module a kernel was compiled in, so a second name would compile (and cache) every kernel twice.

Once the command is over (its files written and moved into place, its output printed), the process ends with
``os._exit`` after flushing stdout and stderr: tearing down numba's, scipy's and matplotlib's modules takes
0.2-0.4 s and does nothing a finished run needs (mypy ends the same way).
"""

import importlib
import os
import sys
from pathlib import Path


def _end(code: int):
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    try:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
        from bootstrap import load_package

        cli = importlib.import_module(f"{load_package().__name__}.solver.cli")
    except KeyboardInterrupt:  # Ctrl-C while the modules load, before the command handles it itself
        print("interrupted: nothing written", file=sys.stderr)
        _end(130)
    _end(cli.main())
