"""The one keying helper: write whole F-curves at once on every supported Blender.

Blender 4.4 introduced slotted actions (action -> layer -> keyframe strip ->
channelbag per slot); 5.0 removed the legacy ``Action.fcurves``. This module
hides the difference. Keys are written with ``keyframe_points.add`` plus
``foreach_set`` — never ``keyframe_insert`` in a loop — so a 100,000-frame
curve costs one call. Keys are written in time order and LINEAR or CONSTANT
curves ignore Bezier handles, so ``FCurve.update()`` (sorting and handle
recalculation, half the keying time) runs only for BEZIER channels.
"""

from __future__ import annotations

from dataclasses import dataclass

import bpy
import numpy as np

_SLOTTED = "slots" in bpy.types.Action.bl_rna.properties
#: Interpolation names -> the values Blender stores, an unsigned byte per key: written as uint8, ``foreach_set``
#: copies the array at once; an int32 array it converted key by key (2.0 of the CMU file's 20 ms import).
_INTERPOLATION = {item.identifier: item.value
                  for item in bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items}


@dataclass
class Channel:
    """One F-curve: ``data_path``/``index`` of the animated property, key frames and values."""

    data_path: str
    index: int
    frames: np.ndarray
    values: np.ndarray
    interpolation: str = "LINEAR"
    group: str = ""

    def at(self, frames: np.ndarray) -> np.ndarray:
        """The curve's values at ``frames``: linear between keys (or the last key's value for CONSTANT),
        the first or last key's value outside them."""
        if self.interpolation == "CONSTANT":
            return self.values[np.clip(np.searchsorted(self.frames, frames, side="right") - 1, 0, None)]
        return np.interp(frames, self.frames, self.values)


def shared_action(name: str) -> bpy.types.Action | None:
    """A new action that many objects key into, one slot each (Blender 4.4+); None where actions cannot be shared."""
    if not _SLOTTED:
        return None
    action = bpy.data.actions.new(name)
    action.layers.new("Layer").strips.new(type="KEYFRAME")
    return action


def _channel_owner(id_data: bpy.types.ID, action_name: str, shared: bpy.types.Action | None):
    """What holds ``id_data``'s F-curves and groups (created if needed): the channelbag of its slot, or the action."""
    anim = id_data.animation_data or id_data.animation_data_create()
    action = anim.action
    if action is None:
        action = shared or bpy.data.actions.new(action_name)
        anim.action = action
    if not _SLOTTED:
        return action
    slot = anim.action_slot
    if slot is None:
        slot = action.slots.new(id_type=id_data.id_type, name=id_data.name)
        anim.action_slot = slot
    layer = action.layers[0] if action.layers else action.layers.new("Layer")
    strip = layer.strips[0] if layer.strips else layer.strips.new(type="KEYFRAME")
    return strip.channelbag(slot) or strip.channelbags.new(slot)


def _fcurves(id_data: bpy.types.ID, action: bpy.types.Action):
    """The F-curves ``action`` holds for ``id_data`` (its slot's channelbag on Blender 4.4+), or ()."""
    if not _SLOTTED:
        return action.fcurves
    anim = id_data.animation_data
    slot = anim.action_slot if anim is not None and anim.action == action else None
    slot = slot or next((s for s in action.slots if s.identifier[2:] == id_data.name), None)
    if slot is None and len(action.slots) == 1:
        slot = action.slots[0]
    bag = next((strip.channelbag(slot) for layer in action.layers for strip in layer.strips), None) \
        if slot is not None else None
    return bag.fcurves if bag is not None else ()


def fcurve(id_data: bpy.types.ID, data_path: str, index: int = 0) -> bpy.types.FCurve | None:
    """The F-curve of ``id_data``'s active action animating ``data_path`` (``index``), or None."""
    anim = id_data.animation_data
    curves = _fcurves(id_data, anim.action) if anim is not None and anim.action is not None else ()
    return curves.find(data_path, index=index) if curves else None


def read_channels(id_data: bpy.types.ID, action: bpy.types.Action | None = None) -> list[Channel]:
    """Every F-curve of ``action`` (default: ``id_data``'s active action) for ``id_data``, keys read whole with
    ``foreach_get``; each channel's interpolation is its first key's."""
    anim = id_data.animation_data
    action = action or (anim.action if anim is not None else None)
    if action is None:
        return []
    out = []
    for fc in _fcurves(id_data, action):
        n = len(fc.keyframe_points)
        if n == 0:
            continue
        co = np.empty(2 * n, dtype=np.float32)
        fc.keyframe_points.foreach_get("co", co)
        out.append(Channel(fc.data_path, fc.array_index, co[0::2].astype(float), co[1::2].astype(float),
                           fc.keyframe_points[0].interpolation, fc.group.name if fc.group else ""))
    return out


def remove_group(id_data: bpy.types.ID, group: str) -> None:
    """Remove the F-curves of ``group`` from ``id_data``'s active action and the custom properties they
    animate: what a step keyed on an earlier run, so that running it again (or not at all) leaves none behind."""
    anim = id_data.animation_data
    curves = _fcurves(id_data, anim.action) if anim is not None and anim.action is not None else ()
    for fc in [fc for fc in curves if fc.group is not None and fc.group.name == group]:
        prop = fc.data_path[2:-2] if fc.data_path.startswith('["') and fc.data_path.endswith('"]') else None
        curves.remove(fc)
        if prop is not None and prop in id_data:
            del id_data[prop]


def assign_action(id_data: bpy.types.ID, action: bpy.types.Action) -> None:
    """Make ``action`` the active action of ``id_data`` (with its slot for that ID on Blender 4.4+)."""
    anim = id_data.animation_data or id_data.animation_data_create()
    anim.action = action
    if _SLOTTED and anim.action_slot is None and action.slots:
        anim.action_slot = next((s for s in action.slots if s.identifier[2:] == id_data.name), action.slots[0])


def key_channels(id_data: bpy.types.ID, channels: list[Channel], action_name: str | None = None,
                 shared: bpy.types.Action | None = None) -> None:
    """Replace the given F-curves of ``id_data`` with whole curves of keys.

    Frames may be fractional. Samples where the value is NaN are skipped (no
    key), so missing data is never keyed as zero. An object without an action
    keys into ``shared`` (see ``shared_action``) if given, else a new action.
    """
    owner = _channel_owner(id_data, action_name or f"{id_data.name}Action", shared)
    fcurves = owner.fcurves
    for ch in channels:
        old = fcurves.find(ch.data_path, index=ch.index)
        if old is not None:
            fcurves.remove(old)
        fc = fcurves.new(ch.data_path, index=ch.index)
        if ch.group:
            fc.group = owner.groups.get(ch.group) or owner.groups.new(ch.group)
        keep = ~np.isnan(ch.values)
        frames = np.asarray(ch.frames, dtype=np.float32)[keep]
        values = np.asarray(ch.values, dtype=np.float32)[keep]
        n = len(frames)
        if n == 0:
            continue
        co = np.empty(2 * n, dtype=np.float32)
        co[0::2] = frames
        co[1::2] = values
        points = fc.keyframe_points
        points.add(n)
        points.foreach_set("co", co)
        points.foreach_set("interpolation", np.full(n, _INTERPOLATION[ch.interpolation], dtype=np.uint8))
        if ch.interpolation == "BEZIER":  # keys arrive sorted; only Bezier curves need their handles computed
            fc.update()
    id_data.update_tag(refresh={"TIME"})  # new curves on an evaluated action: rebuild its animation relations


def vector_channels(data_path: str, frames: np.ndarray, values: np.ndarray, **kwargs) -> list[Channel]:
    """One channel per component of ``values`` ``(N, K)`` (e.g. location -> 3 curves)."""
    return [Channel(data_path, k, frames, values[:, k], **kwargs) for k in range(values.shape[1])]


def step_channel(data_path: str, frames: np.ndarray, values: np.ndarray, group: str = "") -> Channel:
    """A constant-interpolation channel keyed only where ``values`` change (and at the first frame)."""
    values = np.asarray(values, dtype=float)
    change = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    return Channel(data_path, 0, np.asarray(frames)[change], values[change], interpolation="CONSTANT", group=group)


def visibility_channels(frames: np.ndarray, visible: np.ndarray) -> list[Channel]:
    """``hide_viewport``/``hide_render`` keyed only where visibility changes (constant interpolation)."""
    hidden = ~np.asarray(visible, dtype=bool)
    return [step_channel(path, frames, hidden) for path in ("hide_viewport", "hide_render")]
