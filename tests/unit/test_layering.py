"""The house rules that keep one codebase running inside Blender and as plain Python."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLENDER_MODULES = {"bpy", "bpy_extras", "mathutils", "bmesh", "gpu", "blf", "aud", "idprop"}
PROJECT_PACKAGES = {"solver", "addon", "mocap_dynamics"}


def _imports(path: Path):
    """Yield (module, level) for every import statement of a file."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, 0
        elif isinstance(node, ast.ImportFrom):
            yield node.module or "", node.level


def _files(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def test_solver_never_imports_blender():
    offenders = [f"{path.relative_to(ROOT)}: {module}" for path in _files("solver")
                 for module, level in _imports(path) if level == 0 and module.split(".")[0] in BLENDER_MODULES]
    assert not offenders, offenders


def test_project_imports_are_relative():
    """Blender extensions require relative imports; an absolute one would break the installed add-on."""
    offenders = [f"{path.relative_to(ROOT)}: {module}" for folder in ("solver", "addon") for path in _files(folder)
                 for module, level in _imports(path) if level == 0 and module.split(".")[0] in PROJECT_PACKAGES]
    assert not offenders, offenders


def test_whole_solver_imports_without_blender():
    """Importing every solver module in a fresh interpreter loads no Blender module."""
    modules = ["mocap_dynamics." + ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
               for p in _files("solver")]
    code = (f"import importlib, sys; sys.path.insert(0, {str(ROOT / 'scripts')!r})\n"
            "from bootstrap import load_package; load_package()\n"
            f"for m in {modules!r}: importlib.import_module(m)\n"
            f"print(sorted(set(sys.modules) & set({sorted(BLENDER_MODULES)!r})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
