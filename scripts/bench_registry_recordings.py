"""Contact from motion alone on recordings made elsewhere, which ship inside packages on PyPI (not ../shared/data,
not tuned on): fetched with pip into ``out/registry_recordings``, then ``bench_contact.py --files ... --sections 2``.
Prints figures, never asserts them; skips, saying why, when pip cannot fetch them.

    .venv/bin/python scripts/bench_registry_recordings.py

- ``gaitalytics`` 0.2.2's source package, ``tests/treadmill_events.c3d``: a walk on a split-belt instrumented
  treadmill (12 s at 100 Hz, a plate under each belt at 1000 Hz), a lower-body marker set with a thorax (C7, T10,
  CLAV, STRN; no acromion), and 46 points of a gait model's outputs (angles, moments, powers).
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "out" / "registry_recordings"
#: (pip requirement, its source package's file name, the recording's path inside it).
RECORDINGS = (("gaitalytics==0.2.2", "gaitalytics-0.2.2.tar.gz", "gaitalytics-0.2.2/tests/treadmill_events.c3d"),)


def fetch(requirement: str, package: str, member: str) -> Path:
    """The recording ``member`` of ``requirement``'s source package, downloaded and extracted once."""
    target = FOLDER / member
    if not target.is_file():
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                        "--dest", str(FOLDER), requirement], check=True, capture_output=True, text=True)
        with tarfile.open(FOLDER / package) as sdist:
            sdist.extract(member, FOLDER, filter="data")
    return target


def main() -> None:
    FOLDER.mkdir(parents=True, exist_ok=True)
    files = []
    for requirement, package, member in RECORDINGS:
        try:
            files.append(fetch(requirement, package, member))
        except (subprocess.CalledProcessError, OSError, KeyError, tarfile.TarError) as error:
            why = error.stderr.strip().splitlines()[-1] if getattr(error, "stderr", None) else error
            print(f"   {requirement} {Path(member).name}: skipped (could not fetch it: {why})")
    if files:
        subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_contact.py"), "--files", *map(str, files),
                        "--sections", "2", "--out", str(FOLDER / "plots")], check=True)


if __name__ == "__main__":
    main()
