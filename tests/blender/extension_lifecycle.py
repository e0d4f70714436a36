"""Install, enable, use, disable and remove the extension zip in a fresh Blender user config.

Run by test_extension.py in a separate process whose HOME is a new empty folder:
    python extension_lifecycle.py ZIP WORKDIR
Prints one ``ok: ...`` line per step; any failure raises (non-zero exit).
"""

import importlib
import os
import sys
from pathlib import Path

import bpy  # first: addon_utils exists only once Blender is loaded
import addon_utils

zip_path, workdir = Path(sys.argv[1]), Path(sys.argv[2])
MODULE = "bl_ext.user_default.mocap_dynamics"

assert bpy.ops.extensions.package_install_files(filepath=str(zip_path), repo="user_default",
                                                enable_on_install=True) == {"FINISHED"}
installed = Path(bpy.utils.user_resource("EXTENSIONS", path="user_default")) / "mocap_dynamics"
assert (installed / "blender_manifest.toml").exists(), installed
assert addon_utils.check(MODULE)[1], "not enabled after install"
print(f"ok: installed and enabled {bpy.app.version_string}")

for op in ("import_markers",):
    assert hasattr(bpy.ops.mocap_dynamics, op), op
assert "MOCAP_DYNAMICS_PT_main" in dir(bpy.types)
print("ok: operators and sidebar registered")

site = Path(bpy.utils.user_resource("EXTENSIONS", path=".local")) / "lib" / "python3.11" / "site-packages"
bundled = {name for name in ("ezc3d", "scipy", "numba", "llvmlite") if (site / name / "__init__.py").exists()}
assert bundled == {"ezc3d", "scipy", "numba", "llvmlite"}, f"wheels not extracted into {site}: {bundled}"
ezc3d = importlib.import_module("ezc3d")
print(f"ok: bundled wheels extracted to {site}; ezc3d imported from {ezc3d.__file__}")

package = importlib.import_module(MODULE)
sample = importlib.import_module(f"{MODULE}.solver.sample").write_sample(workdir)
bpy.ops.wm.read_homefile(use_empty=True)
assert bpy.ops.mocap_dynamics.import_markers(filepath=str(sample["c3d"])) == {"FINISHED"}
collection = bpy.context.scene.mocap_dynamics.active_trial
assert collection is not None and collection["mocap_dynamics"]["trial"]["force_plates"] == 2
print(f"ok: imported {Path(sample['c3d']).name} into {collection.name!r} from the installed copy")

bpy.ops.preferences.addon_disable(module=MODULE)
assert not hasattr(bpy.types.Scene, "mocap_dynamics")
assert bpy.ops.extensions.package_uninstall(repo_directory=str(installed.parent),
                                            pkg_id="mocap_dynamics") == {"FINISHED"}
assert not installed.exists()
print("ok: disabled and removed")

if bpy.app.version < (5, 0, 0):  # Blender 4.5's bpy module can deadlock in its exit handlers (conftest.py)
    sys.stdout.flush()
    os._exit(0)
