"""A trial's name in the scene, and its child collections, rebuilt in place on every run."""

from __future__ import annotations

import bpy

META_PROP = "mocap_dynamics"  # the trial collection's metadata: the latest report and the scene timing


def trial_name(trial: bpy.types.Collection) -> str:
    """The name the trial's child collections, objects and actions carry: the collection's name when it was
    imported, so that renaming the collection in the Outliner loses none of them (its current name for a
    collection without one stored)."""
    scene = trial.get(META_PROP, {}).get("scene", {})
    return scene.get("name", trial.name)


def child(parent: bpy.types.Collection, name: str) -> bpy.types.Collection | None:
    """The child collection ``name`` of ``parent`` (Blender may have numbered it: ``name.001``), or None."""
    return next((c for c in parent.children if c.name.startswith(name)), None)


def remove_objects(objects: list[bpy.types.Object]) -> None:
    """Remove ``objects`` and the actions and meshes that only they used (an action with a fake user stays), so
    that a step run again leaves no orphan data behind."""
    actions = {ob.animation_data.action for ob in objects if ob.animation_data and ob.animation_data.action}
    meshes = {ob.data for ob in objects if ob.type == "MESH"}
    for ob in objects:
        bpy.data.objects.remove(ob)
    for action in actions:
        if action.users == 0:
            bpy.data.actions.remove(action)
    for mesh in meshes:
        if mesh.users == 0:
            bpy.data.meshes.remove(mesh)


def child_collection(parent: bpy.types.Collection, name: str) -> bpy.types.Collection:
    """The child collection ``name`` of ``parent``, emptied (rebuilt on every run), or a new one."""
    existing = child(parent, name)
    if existing is not None:
        remove_objects(list(existing.objects))
        return existing
    collection = bpy.data.collections.new(name)
    parent.children.link(collection)
    return collection


def remove_child_collection(parent: bpy.types.Collection, name: str) -> None:
    """Remove the child collection ``name`` of ``parent`` and its objects, if there is one."""
    existing = child(parent, name)
    if existing is not None:
        remove_objects(list(existing.all_objects))
        for nested in list(existing.children_recursive):
            bpy.data.collections.remove(nested)
        bpy.data.collections.remove(existing)
