"""Model markers and marker errors: where the rig says each marker is, and how far the measured one is.

Each model marker is a small sphere parented to its bone, so it follows any
motion keyed on the rig without keys of its own. Its colour is its median
reconstruction error (green under 1 cm, yellow under 2.5 cm, red above). The
measured marker's empty gets the per-frame distance as a keyed ``error_mm``
curve (Graph Editor).
"""

from __future__ import annotations

import bmesh
import bpy
import numpy as np

from ..solver.kinematics.motion import Motion
from ..solver.model.body import BodyModel
from .armature import bone_axes
from .keying import Channel, key_channels
from .markers import LABEL_PROP
from .meshes import shared_mesh

#: Median error [m] -> colour kind; the first bound the error is under wins.
ERROR_CLASSES = ((0.01, "marker_good"), (0.025, "marker_fair"), (np.inf, "marker_poor"))
SPHERE_RADIUS = 0.008  # m


def _sphere_mesh(kind: str) -> bpy.types.Mesh:
    return shared_mesh("MocapDynamics model marker", kind,
                       lambda bm: bmesh.ops.create_icosphere(bm, subdivisions=2, radius=SPHERE_RADIUS))


def _error_class(median_error: float) -> str:
    return next(kind for bound, kind in ERROR_CLASSES if median_error < bound)


def build_model_markers(model: BodyModel, rig: bpy.types.Object, collection: bpy.types.Collection,
                        median_errors: dict[str, float]) -> None:
    """One sphere per model marker, parented to its bone at the marker's offset, coloured by its median error."""
    axes = bone_axes(rig, model)
    for k, seg in enumerate(model.segments):
        bone_length = rig.data.bones[seg.name].length
        for label, offset in zip(seg.markers, seg.marker_offsets):
            error = median_errors.get(label, np.nan)
            kind = _error_class(error) if np.isfinite(error) else "marker"
            ob = bpy.data.objects.new(f"{label} (model)", _sphere_mesh(kind))
            ob.parent, ob.parent_type, ob.parent_bone = rig, "BONE", seg.name
            ob.location = axes[k].T @ offset - np.array([0.0, bone_length, 0.0])  # children of a bone start at its tail
            ob[LABEL_PROP + "_model"] = label
            collection.objects.link(ob)


def key_marker_errors(motion: Motion, markers: bpy.types.Collection, frames: np.ndarray) -> None:
    """Key each measured marker's distance to its model marker [mm] as ``error_mm`` on its empty."""
    columns = {label: i for i, label in enumerate(motion.marker_labels)}
    for ob in markers.objects:
        i = columns.get(ob.get(LABEL_PROP))
        if i is not None:
            ob["error_mm"] = 0.0
            key_channels(ob, [Channel('["error_mm"]', 0, frames, 1000.0 * motion.marker_errors[:, i], group="Error")])
