"""Meshes shared by every visual of a kind (arrows, disks, marker spheres): built once per file."""

from __future__ import annotations

import bmesh
import bpy

from .materials import material


def shared_mesh(name: str, kind: str, build) -> bpy.types.Mesh:
    """The mesh ``"<name> <kind>"`` with the material of ``kind``; ``build(bm)`` fills a new one's bmesh."""
    name = f"{name} {kind}"
    mesh = bpy.data.meshes.get(name)
    if mesh is None:
        mesh = bpy.data.meshes.new(name)
        bm = bmesh.new()
        build(bm)
        bm.to_mesh(mesh)
        bm.free()
        mesh.materials.append(material(kind))
    return mesh
