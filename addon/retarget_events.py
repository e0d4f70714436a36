"""Contact events in the scene: keyed booleans on a rig (``left foot contact``, ``right foot contact``) and
timeline markers at every heel strike and toe off.

The contact step keys them on the solved rig from the contact estimate's stances
(``solver.retarget.foot_contacts``); the retarget step reads them back as the
stances to plant the feet in, and keys them on the character too.
"""

from __future__ import annotations

import bpy
import numpy as np

from ..solver.retarget.events import FootContacts, stance_events
from .keying import Channel, key_channels, read_channels, step_channel

SIDES = {"l": "left", "r": "right"}
#: The keyed booleans, one per foot side (left first).
CONTACT_PROPS = tuple(f"{side} foot contact" for side in SIDES.values())
#: The velocity [m/s, armature space] of the floor the feet stand on: a treadmill's belt, zero on the ground.
FLOOR_VELOCITY_PROP = "floor velocity"
#: The action group of the stances (and of the contact step's other curves on the solved rig).
CONTACT_GROUP = "Contact"
#: The timeline markers of the events.
EVENT_MARKERS = frozenset(f"{side} {kind}" for side in SIDES.values() for kind in ("heel strike", "toe off"))


def _side(foot: str) -> str:
    return "r" if foot.lower().endswith(("_r", ".r", "right")) else "l"


def contact_channels(id_data: bpy.types.ID, frames: np.ndarray, stance: np.ndarray) -> list[Channel]:
    """The booleans of stances ``(T, 2)`` (left, right) as constant channels, creating the properties."""
    for prop in CONTACT_PROPS:
        id_data[prop] = False
    return [step_channel(f'["{prop}"]', frames, stance[:, f], group=CONTACT_GROUP)
            for f, prop in enumerate(CONTACT_PROPS)]


def clear_events(scene: bpy.types.Scene) -> None:
    """Remove the timeline markers ``mark_events`` makes."""
    for marker in [m for m in scene.timeline_markers if m.name in EVENT_MARKERS]:
        scene.timeline_markers.remove(marker)


def mark_events(scene: bpy.types.Scene, frames: np.ndarray, stance: np.ndarray) -> int:
    """Timeline markers ``left heel strike``, ``left toe off``, ... at the stances' ends (replacing earlier
    ones of those names); returns how many."""
    clear_events(scene)
    events = stance_events(stance, np.asarray(frames, dtype=float))
    for event in events:
        scene.timeline_markers.new(f"{tuple(SIDES.values())[event.foot]} {event.kind}", frame=round(event.time))
    return len(events)


def key_contact_events(rig: bpy.types.Object, contacts: FootContacts, frames: np.ndarray,
                       scene: bpy.types.Scene) -> None:
    """Key the contact estimate's stances on ``rig`` (at ``frames``, the contact's) and mark its events; the
    velocity of the floor they stand on goes in ``FLOOR_VELOCITY_PROP``."""
    stance = np.zeros((len(frames), 2), dtype=bool)
    for f, foot in enumerate(contacts.feet):
        stance[:, "lr".index(_side(foot))] |= contacts.stance[:, f]
    key_channels(rig, contact_channels(rig, frames, stance))
    rig[FLOOR_VELOCITY_PROP] = [float(v) for v in contacts.floor_velocity]
    mark_events(scene, frames, stance)


def read_floor_velocity(rig: bpy.types.Object) -> np.ndarray:
    """The floor's velocity (3,) [m/s] stored with the stances on ``rig`` (zero where none is)."""
    return np.asarray(rig.get(FLOOR_VELOCITY_PROP, (0.0, 0.0, 0.0)), dtype=float)


def read_stance(rig: bpy.types.Object, action: bpy.types.Action, frames: np.ndarray) -> np.ndarray | None:
    """The stances ``(T, 2)`` keyed on ``rig`` in ``action``, sampled at ``frames``; None if it has none."""
    found = {ch.data_path: ch for ch in read_channels(rig, action)}
    channels = [found.get(f'["{prop}"]') for prop in CONTACT_PROPS]
    if any(ch is None for ch in channels):
        return None
    return np.column_stack([ch.at(frames) > 0.5 for ch in channels])
