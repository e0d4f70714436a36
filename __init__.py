"""Mocap Dynamics — Blender extension entry point.

The extension is two halves: ``solver/`` (numpy/scipy/numba, never bpy) and
``addon/`` (everything that touches Blender). The add-on is imported only when
Blender registers it, so ``import <package>.solver`` works without Blender.
"""


def register():
    from .addon import register as register_addon

    register_addon()


def unregister():
    from .addon import unregister as unregister_addon

    unregister_addon()
