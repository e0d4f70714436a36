"""Markers as animated empties: one empty per marker, keyed as whole F-curves.

Gaps are shown honestly: a marker's empty is hidden (viewport and render)
while its marker is missing, and no key is written inside the gap, so nothing
is silently interpolated into view.
"""

from __future__ import annotations

import bpy
import numpy as np

from ..solver.io.trial import Trial
from .keying import key_channels, shared_action, vector_channels, visibility_channels

LABEL_PROP = "mocap_label"


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
