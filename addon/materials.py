"""Flat-colour materials that read the same in Workbench, EEVEE and Cycles.

Colours are one table so every visual of a kind looks the same everywhere
(viewport, renders, legends).
"""

from __future__ import annotations

import bpy

#: Name -> RGBA (linear). Measured forces are orange, estimated ones green (as in Brubaker Fig. 1), root
#: residuals red; torque disks magenta while the joint generates power, cyan while it absorbs it;
#: the zero-gravity body's angular momentum yellow; gap-filled marker samples are violet.
COLOURS = {
    "marker": (0.9, 0.9, 0.9, 1.0),
    "marker_good": (0.1, 0.75, 0.2, 1.0),
    "marker_fair": (0.95, 0.8, 0.1, 1.0),
    "marker_poor": (0.9, 0.1, 0.1, 1.0),
    "marker_filled": (0.55, 0.15, 0.95, 1.0),
    "plate": (0.25, 0.25, 0.28, 1.0),
    "plate_outline": (0.05, 0.05, 0.05, 1.0),
    "force_measured": (1.0, 0.35, 0.02, 1.0),
    "force_estimated": (0.1, 0.8, 0.1, 1.0),
    "force_residual": (0.85, 0.05, 0.1, 1.0),
    "contact_plane": (0.15, 0.35, 1.0, 1.0),
    "contact_raised": (0.35, 0.2, 0.9, 1.0),
    "torque_generating": (0.9, 0.1, 0.7, 1.0),
    "torque_absorbing": (0.0, 0.75, 0.9, 1.0),
    "body": (0.55, 0.62, 0.75, 1.0),
    "angular_momentum": (1.0, 0.85, 0.0, 1.0),
}


def material(kind: str) -> bpy.types.Material:
    """The shared material of a visual kind (created once per file)."""
    name = f"MocapDynamics {kind}"
    mat = bpy.data.materials.get(name)
    if mat is None:
        mat = bpy.data.materials.new(name)
        rgba = COLOURS[kind]
        mat.diffuse_color = rgba  # Workbench (material colour) and the viewport
        if mat.node_tree is None:  # Blender < 5.0 creates materials without nodes
            mat.use_nodes = True
        bsdf = mat.node_tree.nodes.get("Principled BSDF")
        if bsdf is not None:
            bsdf.inputs["Base Color"].default_value = rgba
            bsdf.inputs["Roughness"].default_value = 0.6
    return mat
