"""Markers as animated empties: one empty per marker, keyed as whole F-curves.

Gaps are shown honestly: a marker's empty is hidden (viewport and render)
while its marker is missing, and no key is written inside the gap, so nothing
is silently interpolated into view. Once the pipeline has filled gaps
(``show_filled``), the filled samples are keyed too and look different: while
a sample is filled, a violet sphere (``FILLED_PROP`` on the empty keyed 1, a
mesh, so it shows in the viewport and in renders) sits on the marker.
"""

from __future__ import annotations

import bmesh
import bpy
import numpy as np

from ..solver.io.trial import Trial
from ..solver.kinematics.gap_fill import GapFill
from .keying import Channel, key_channels, shared_action, vector_channels, visibility_channels
from .meshes import shared_mesh

LABEL_PROP = "mocap_label"
FILLED_PROP = "filled"  # keyed on a marker's empty: 1 while its sample is filled, 0 while measured


def build_markers(trial: Trial, collection: bpy.types.Collection, frames: np.ndarray, size: float,
                  display: str) -> list[bpy.types.Object]:
    """Create and key one empty per marker of ``trial`` in ``collection``; keys at ``frames``."""
    present = trial.present()
    action = shared_action(f"{collection.name}")
    objects = []
    for m, label in enumerate(trial.labels):
        ob = bpy.data.objects.new(label, None)
        ob.empty_display_type = display
        ob.empty_display_size = size
        ob[LABEL_PROP] = label
        collection.objects.link(ob)
        channels = vector_channels("location", frames, trial.markers[:, m], group="Marker")
        if not present[:, m].all():
            channels += visibility_channels(frames, present[:, m])
        key_channels(ob, channels, action_name=f"{collection.name} {label}", shared=action)
        objects.append(ob)
    return objects


def show_filled(gap_fill: GapFill, markers: bpy.types.Collection, spheres: bpy.types.Collection,
                frames: np.ndarray) -> None:
    """Key the filled samples onto the marker empties in ``markers`` (keys at ``frames``) and mark them.

    Every empty with filled samples (or with filled samples from an earlier run) gets its location and
    visibility keyed again from the filled trial and ``FILLED_PROP`` keyed 0/1 (constant); a violet sphere
    of the empty's size, parented to it in ``spheres`` (an emptied collection), is visible only while the
    sample is filled.
    """
    trial, filled = gap_fill.trial, gap_fill.filled
    shown = trial.present()
    columns = {label: m for m, label in enumerate(trial.labels)}
    for ob in markers.objects:
        m = columns.get(ob.get(LABEL_PROP))
        if m is None or not (filled[:, m].any() or FILLED_PROP in ob):
            continue
        ob[FILLED_PROP] = 0
        key_channels(ob, vector_channels("location", frames, trial.markers[:, m], group="Marker")
                     + visibility_channels(frames, shown[:, m])  # always: replaces the curves of the gaps
                     + [Channel(f'["{FILLED_PROP}"]', 0, frames, filled[:, m].astype(float),
                                interpolation="CONSTANT", group="Gap fill")])
        if filled[:, m].any():
            sphere = bpy.data.objects.new(f"{ob[LABEL_PROP]} (filled)", _filled_mesh())
            sphere.parent = ob
            sphere.scale = (ob.empty_display_size,) * 3
            sphere[LABEL_PROP + "_filled"] = ob[LABEL_PROP]
            spheres.objects.link(sphere)
            key_channels(sphere, visibility_channels(frames, filled[:, m]))


def _filled_mesh() -> bpy.types.Mesh:
    return shared_mesh("MocapDynamics filled marker", "marker_filled",
                       lambda bm: bmesh.ops.create_icosphere(bm, subdivisions=2, radius=1.0))
