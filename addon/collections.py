"""Child collections of a trial, rebuilt in place on every run."""

from __future__ import annotations

import bpy


def _child(parent: bpy.types.Collection, name: str) -> bpy.types.Collection | None:
    """The child collection ``name`` of ``parent`` (Blender may have numbered it: ``name.001``), or None."""
    return next((c for c in parent.children if c.name.startswith(name)), None)


def child_collection(parent: bpy.types.Collection, name: str) -> bpy.types.Collection:
    """The child collection ``name`` of ``parent``, emptied (rebuilt on every run), or a new one."""
    existing = _child(parent, name)
    if existing is not None:
        for ob in list(existing.objects):
            bpy.data.objects.remove(ob)
        return existing
    collection = bpy.data.collections.new(name)
    parent.children.link(collection)
    return collection


def remove_child_collection(parent: bpy.types.Collection, name: str) -> None:
    """Remove the child collection ``name`` of ``parent`` and its objects, if there is one."""
    existing = _child(parent, name)
    if existing is not None:
        for ob in list(existing.all_objects):
            bpy.data.objects.remove(ob)
        for child in list(existing.children_recursive):
            bpy.data.collections.remove(child)
        bpy.data.collections.remove(existing)
