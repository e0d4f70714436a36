"""Force arrows and torque disks that follow the character, for renders.

Each arrow and disk of the retargeted motion (the captured motion's torque
disks and estimated ground reaction arrows, or a zero-gravity variant's
disks) gets a twin in ``"<trial> <character> visuals"``: the same keyed
force or torque, direction and scale drivers, but pinned to the character's
bone for its segment by a Copy Location constraint, its own keyed location
being the offset from that bone, scaled like the motion
(``solver.retarget.follow_offset``: a centre of pressure stays on the sole).
The solved rig keeps its own visuals.
"""

from __future__ import annotations

import bpy
import numpy as np

from ..solver.retarget import Retargeted, follow_offset
from .arrows import PUSHES_PROP, create_arrow
from .collections import child_collection, trial_name
from .dynamics_visuals import torque_disk
from .keying import key_channels, read_channels, shared_action
from .retarget_source import CAPTURED

MATERIAL_PREFIX = "MocapDynamics "


def visual_collections(trial: bpy.types.Collection, source: str, action: bpy.types.Action) -> list:
    """The collections holding the visuals of the motion ``source``."""
    name = trial_name(trial)
    names = [f"{name} dynamics", f"{name} contact"] if source == CAPTURED else [f"{action.name} torques"]
    return [c for c in trial.children_recursive if any(c.name.startswith(n) for n in names)]


def _twin(root: bpy.types.Object, collection: bpy.types.Collection, scene: bpy.types.Scene, character: str):
    """A new torque disk or force arrow of the same kind as ``root`` (an arrow that ends at its root too), or
    None for other objects."""
    name = f"{root.name} ({character})"
    if "torque_Nm" in root:
        return torque_disk(name, collection, scene)
    if "force_N" in root and root.children and root.children[0].active_material is not None:
        kind = root.children[0].active_material.name.removeprefix(MATERIAL_PREFIX)
        return create_arrow(name, collection, kind, scene, pushes=bool(root.get(PUSHES_PROP, False)))
    return None


def follow_character(context: bpy.types.Context, trial: bpy.types.Collection, source: str,
                     action: bpy.types.Action, target: bpy.types.Object, result: Retargeted,
                     frames: np.ndarray, source_heads: np.ndarray, source_names: tuple[str, ...]) -> int:
    """Twins of the source's visuals pinned to ``target``'s bones; ``source_heads`` ``(T, S, 3)`` are the
    solved rig's bone heads (world) at ``frames``. Returns how many visuals follow the character."""
    groups = result.mapping.groups()
    collection = child_collection(trial, f"{trial_name(trial)} {target.name} visuals")
    old = bpy.data.actions.get(collection.name)
    if old is not None and old.users == 0:  # the twins' keys of an earlier run
        bpy.data.actions.remove(old)
    shared = shared_action(collection.name)
    count = 0
    by_length = sorted(source_names, key=len, reverse=True)
    for original in [ob for c in visual_collections(trial, source, action) for ob in c.objects if ob.parent is None]:
        segment = next((s for s in by_length if original.name.startswith(f"{s} ")), None)
        bones = groups.get(segment)
        if not bones:
            continue
        channels = read_channels(original)
        location = [ch for ch in channels if ch.data_path == "location"]
        if len(location) != 3:
            continue
        twin = _twin(original, collection, context.scene, target.name)
        if twin is None:
            continue
        at = location[0].frames
        anchor = np.column_stack([np.interp(at, frames, source_heads[:, source_names.index(segment), i])
                                  for i in range(3)])
        offset = follow_offset(np.column_stack([ch.values for ch in sorted(location, key=lambda c: c.index)]),
                               anchor, result.scale)
        for ch in location:
            ch.values = offset[:, ch.index]
        key_channels(twin, channels, shared=shared)
        pin = twin.constraints.new("COPY_LOCATION")
        pin.target, pin.subtarget, pin.use_offset = target, bones[0], True
        count += 1
    return count
