"""Process many motion-capture trials in parallel, on this machine or on a Dask distributed cluster.

    .venv/bin/python scripts/batch.py SOURCE... --out OUT [--recursive] [--jobs N]
                                      [--scheduler tcp://HOST:PORT] [--blend] [--timeout S] [pipeline flags]

SOURCE: folders of .c3d/.trc recordings, recordings, or text files listing them. Writes OUT/<trial>/
(report.json, report.txt, tables, plots, log.txt; with --blend a .blend), OUT/summary.csv and
OUT/root_force_distribution.png. Exit codes: 0 every trial ok; 3 some trials failed (the summary says which
and why); 2 bad arguments (one line on stderr); 130 / 143 interrupted by Ctrl-C / SIGTERM (the running trials
are stopped, the summary marks the unfinished ones); 1 an unexpected error. See solver/batch.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import load_package  # noqa: E402

if __name__ == "__main__":
    try:
        load_package()
        from mocap_dynamics.solver.batch import main

        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C while the modules load, before the batch handles it itself
        print("interrupted: nothing written", file=sys.stderr)
        sys.exit(130)
