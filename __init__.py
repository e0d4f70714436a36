"""Mocap Dynamics — Blender extension entry point.

The extension is two halves: ``solver/`` (numpy/scipy/numba, never bpy) and
``addon/`` (everything that touches Blender). The add-on is imported only when
Blender registers it, so ``import <package>.solver`` works without Blender.
"""


def register():
    _numba_cache_in_user_folder()  # before the add-on imports the solver (and the solver numba's kernels)
    from .addon import register as register_addon

    register_addon()


def unregister():
    from .addon import unregister as unregister_addon

    unregister_addon()


def _numba_cache_in_user_folder() -> None:
    """Keep numba's compiled kernels in the extension's user folder: numba's default, beside the sources, may be
    read-only in an installed extension. A ``NUMBA_CACHE_DIR`` set by the user is kept.

    The folder is ``numba_cache/<digest of the solver's sources>``, and older ones are removed: numba checks
    only the timestamp of a kernel's own file, so a cache written by another version could name functions
    that have since moved to another module (an upgrade would then fail to load it)."""
    import hashlib
    import os
    import shutil
    import sys
    from pathlib import Path

    import bpy

    try:
        root = Path(bpy.utils.extension_path_user(__package__, path="numba_cache", create=True))
    except ValueError:  # a checkout registered as a plain add-on (as the tests do): numba's default
        return
    digest = hashlib.sha256()
    for source in sorted((Path(__file__).parent / "solver").rglob("*.py")):
        digest.update(source.read_bytes())
    folder = root / digest.hexdigest()[:16]
    for old in root.iterdir():
        if old.is_dir() and old != folder:
            shutil.rmtree(old, ignore_errors=True)
    folder.mkdir(exist_ok=True)
    if "NUMBA_CACHE_DIR" not in os.environ:
        os.environ["NUMBA_CACHE_DIR"] = str(folder)
        if "numba" in sys.modules:  # imported before (by another add-on), when it read its configuration
            sys.modules["numba"].config.CACHE_DIR = str(folder)
