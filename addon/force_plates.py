"""Force plates: an outlined plate per platform and the measured GRF as an arrow at the COP."""

from __future__ import annotations

import bpy
import numpy as np

from ..solver.io.trial import Trial
from .arrows import create_arrow, key_arrow
from .materials import material


def _plate_object(name: str, corners: np.ndarray, collection: bpy.types.Collection) -> bpy.types.Object:
    """A flat quad through the four plate corners, drawn with its outline in the viewport."""
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(c) for c in corners], [], [(0, 1, 2, 3)])
    mesh.materials.append(material("plate"))
    ob = bpy.data.objects.new(name, mesh)
    ob.show_wire = True
    ob.show_all_edges = True
    ob.display_type = "SOLID"
    collection.objects.link(ob)
    return ob


def build_plates(trial: Trial, collection: bpy.types.Collection, frames: np.ndarray,
                 scene: bpy.types.Scene) -> list[bpy.types.Object]:
    """Plate outlines (where the file gives them) plus one measured-GRF arrow per plate, keyed on the marker frames."""
    samples = trial.plate_samples
    arrows = []
    for p, plate in enumerate(trial.plates):
        if np.isfinite(plate.corners).all():
            _plate_object(plate.name, plate.corners, collection)
        arrow = create_arrow(f"{plate.name} GRF", collection, "force_measured", scene)
        key_arrow(arrow, frames, samples.cop[:, p], samples.force[:, p])
        arrows.append(arrow)
    return arrows
