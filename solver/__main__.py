"""``python -m solver INPUT --out DIR [options]`` from the repository root: the solver alone, no Blender
(``solver.cli`` says what it writes and its exit codes).

``-m`` imports this folder as the top-level package ``solver``; the run imports it again under its one name,
``mocap_dynamics`` (``scripts/bootstrap.py``), before any kernel is loaded: numba's on-disk cache records the
module a kernel was compiled in, so a second name would compile (and cache) every kernel twice.
"""

import importlib
import sys
from pathlib import Path

if __name__ == "__main__":
    try:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
        from bootstrap import load_package

        sys.exit(importlib.import_module(f"{load_package().__name__}.solver.cli").main())
    except KeyboardInterrupt:  # Ctrl-C while the modules load, before the command handles it itself
        print("interrupted: nothing written", file=sys.stderr)
        sys.exit(130)
