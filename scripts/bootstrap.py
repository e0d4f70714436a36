"""Import this repository as the package ``mocap_dynamics``, the way Blender sees the installed extension.

The extension uses relative imports only (Blender requires it), so outside
Blender the repository root must be imported as a package. Scripts and tests
call ``load_package()``; ``import mocap_dynamics.solver`` works without bpy.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "mocap_dynamics"


def load_package():
    """The repository as the ``mocap_dynamics`` package (imported once per process)."""
    if PACKAGE in sys.modules:
        return sys.modules[PACKAGE]
    spec = importlib.util.spec_from_file_location(PACKAGE, ROOT / "__init__.py",
                                                  submodule_search_locations=[str(ROOT)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = module
    spec.loader.exec_module(module)
    return module
