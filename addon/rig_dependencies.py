"""Which bones of a rig the evaluated pose of some of its bones depends on (their dependency closure).

Blender evaluates a bone's pose from its parent, its constraints' target
bones (subtargets, the Armature constraint's targets, IK poles, custom
spaces), the drivers on its properties and on its constraints (and the
bones their variables read: transform channels, or any property path under
``pose.bones["…"]``/``bones["…"]``), the B-Bone shapes those targets may be
read through (custom handles, connected parent and children), and the IK and
Spline IK constraints of other bones whose chains reach it. The closure of a
set of bones under these relations is all Blender needs to evaluate them
exactly: a rig cut down to it poses them as the whole rig does. It is
conservative (a bone named where it may not matter is kept).
"""

from __future__ import annotations

import re

import bpy

_BONE_PATH = re.compile(r'(?:pose\.)?bones\["((?:[^"\\]|\\.)*)"\]')
_SUBTARGETS = ("subtarget", "pole_subtarget", "space_subtarget")
_CHAIN_CONSTRAINTS = ("IK", "SPLINE_IK")


def path_bone(data_path: str) -> str | None:
    """The bone a property path starts under (``pose.bones["X"]…`` or ``bones["X"]…``), or None."""
    found = _BONE_PATH.match(data_path)
    return bpy.utils.unescape_identifier(found.group(1)) if found else None


def rig_drivers(ob: bpy.types.Object) -> list[tuple[bpy.types.AnimData, bpy.types.FCurve]]:
    """Every driver of the armature object and of its armature data, with the animation data holding it."""
    return [(owner.animation_data, fc) for owner in (ob, ob.data) if owner.animation_data
            for fc in owner.animation_data.drivers]


def _driver_reads(fcurve: bpy.types.FCurve) -> set[str]:
    """Bone names a driver's variables read (bone targets, and bones in their property paths)."""
    names = set()
    for variable in fcurve.driver.variables:
        for target in variable.targets:
            names.add(target.bone_target)
            names.update(bpy.utils.unescape_identifier(n) for n in _BONE_PATH.findall(target.data_path or ""))
    return names


def _direct_dependencies(ob: bpy.types.Object) -> tuple[dict[str, set[str]], set[str]]:
    """Each bone's own inputs (parent, constraint target bones, B-Bone handles, what its drivers read), and
    the bones read by drivers that are not under a bone (on the object or the armature: any bone may see them)."""
    deps = {}
    for pose_bone in ob.pose.bones:
        bone = pose_bone.bone
        names = {bone.parent.name} if bone.parent else set()
        names.update(h.name for h in (bone.bbone_custom_handle_start, bone.bbone_custom_handle_end) if h)
        if bone.bbone_segments > 1:  # automatic handles: the connected children
            names.update(child.name for child in bone.children if child.use_connect)
        for constraint in pose_bone.constraints:
            names.update(getattr(constraint, attr, "") for attr in _SUBTARGETS)
            names.update(target.subtarget for target in getattr(constraint, "targets", ()))
        deps[pose_bone.name] = names
    shared = set()
    for _, fcurve in rig_drivers(ob):
        owner = path_bone(fcurve.data_path)
        (shared if owner is None else deps.get(owner, set())).update(_driver_reads(fcurve))
    return deps, shared


def _chains(ob: bpy.types.Object) -> list[tuple[str, set[str]]]:
    """``(bone, bones its chain may move)`` for every IK or Spline IK constraint (chain length 0: to the root)."""
    out = []
    for pose_bone in ob.pose.bones:
        for constraint in pose_bone.constraints:
            if constraint.type in _CHAIN_CONSTRAINTS:
                chain, parent, length = {pose_bone.name}, pose_bone.parent, constraint.chain_count
                while parent is not None and (length == 0 or len(chain) <= length):
                    chain.add(parent.name)
                    parent = parent.parent
                out.append((pose_bone.name, chain))
    return out


def dependency_closure(ob: bpy.types.Object, bones) -> set[str]:
    """The bones of armature object ``ob`` that Blender needs to evaluate the pose of ``bones`` exactly."""
    deps, shared = _direct_dependencies(ob)
    chains = _chains(ob)
    needed, frontier = set(), (set(bones) | shared) & deps.keys()
    while frontier:
        needed |= frontier
        reached = set().union(*(deps[name] for name in frontier))
        reached |= {owner for owner, chain in chains if chain & needed}
        frontier = (reached & deps.keys()) - needed
    return needed
