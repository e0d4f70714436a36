"""Build the installable extension zips with Blender's own extension CLI.

    .venv/bin/python scripts/build_extension.py

1. Downloads the runtime wheels the manifest lists (unmodified, from PyPI) into
   ``wheels/`` (ignored by git), skipping those already there.
2. Runs ``blender_ext.py build --split-platforms`` (shipped inside the bpy
   package) to write one zip per platform into ``dist/``, then
   ``blender_ext.py validate`` on each zip.
Exits non-zero with one line saying what is wrong.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def blender_ext_cli() -> Path:
    """Path of Blender's extension CLI inside the installed bpy package."""
    import bpy  # noqa: F401  (only to locate the package; the CLI runs as a separate process)

    base = Path(bpy.__file__).resolve().parent.parent.parent.parent  # .../bpy/<version>/scripts/modules/bpy
    matches = sorted(base.glob("scripts/addons_core/bl_pkg/cli/blender_ext.py"))
    if not matches:
        raise SystemExit(f"error: Blender's extension CLI was not found under {base}; reinstall bpy (make venv).")
    return matches[0]


def download_wheels(wheels: list[str]) -> None:
    """Fetch each manifest wheel that is missing, with pip download for its exact platform tags."""
    folder = ROOT / "wheels"
    folder.mkdir(exist_ok=True)
    for rel in wheels:
        path = ROOT / rel
        if path.exists():
            continue
        name, version, python, abi, plat = path.name[:-4].split("-")
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
               "--only-binary=:all:", "--no-deps", "--python-version", python[2:], "--implementation", "cp",
               "--abi", abi, "--dest", str(folder), f"{name}=={version}"]
        for p in plat.split("."):
            cmd += ["--platform", p]
        print(f"downloading {path.name}", flush=True)
        if subprocess.run(cmd, capture_output=True).returncode != 0 or not path.exists():
            raise SystemExit(f"error: could not download {path.name} from PyPI; check the network and the "
                             f"versions in blender_manifest.toml.")


def build() -> list[Path]:
    manifest = tomllib.loads((ROOT / "blender_manifest.toml").read_text())
    download_wheels(manifest["wheels"])
    cli = blender_ext_cli()
    out = ROOT / "dist"
    out.mkdir(exist_ok=True)
    result = subprocess.run([sys.executable, str(cli), "build", "--source-dir", str(ROOT), "--output-dir", str(out),
                             "--split-platforms"], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"error: extension build failed: {(result.stdout + result.stderr).strip().splitlines()[-1]}")
    zips = []
    for platform in manifest["platforms"]:
        z = out / f"{manifest['id']}-{manifest['version']}-{platform.replace('-', '_')}.zip"
        if not z.exists():
            raise SystemExit(f"error: the build did not produce {z.name}.")
        check = subprocess.run([sys.executable, str(cli), "validate", str(z)], capture_output=True, text=True)
        if check.returncode != 0:
            raise SystemExit(f"error: {z.name} does not validate: {(check.stdout + check.stderr).strip()}")
        print(f"built and validated {z.relative_to(ROOT)} ({z.stat().st_size / 1e6:.1f} MB)", flush=True)
        zips.append(z)
    return zips


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    build()


if __name__ == "__main__":
    main()
