"""The bones a rig's evaluation of some bones depends on (``addon/rig_dependencies.py``), on an armature built
in real Blender with every kind of relation: parents, constraint targets (subtarget, IK pole, custom space,
Armature constraint targets), drivers on a constraint and on a bone (custom property and transform channel
variables, a bone name with quotes), IK chains reaching in from a child, a B-Bone's custom handle."""

from __future__ import annotations

import importlib

import bpy
from mathutils import Matrix

from tests.blender.characters import _armature

SWITCH = 'switch "fk"'


def _rig() -> bpy.types.Object:
    names = ["root", "parent", "mech", "ik_end", "aim_parent", "aim", SWITCH, "knob", "pole", "space",
             "handle", "deform", "unrelated", "other"]
    parents = {"parent": "root", "mech": "parent", "ik_end": "mech", "aim": "aim_parent", "unrelated": "root"}
    bones = {name: ((k, 0.0, 0.0), (k, 0.0, 0.1), parents.get(name)) for k, name in enumerate(names)}
    bones["ik_end"] = ((2.0, 0.0, 0.1), (2.0, 0.0, 0.2), "mech")  # connected to mech's tail
    ob = _armature("dependencies", bones, Matrix.Identity(4))
    bpy.ops.object.mode_set(mode="EDIT")
    edit = ob.data.edit_bones["parent"]
    edit.bbone_segments, edit.bbone_handle_type_start = 4, "ABSOLUTE"
    edit.bbone_custom_handle_start = ob.data.edit_bones["handle"]
    bpy.ops.object.mode_set(mode="OBJECT")
    pose = ob.pose.bones
    track = pose["mech"].constraints.new("DAMPED_TRACK")
    track.target, track.subtarget = ob, "aim"
    track.owner_space, track.space_object, track.space_subtarget = "CUSTOM", ob, "space"
    ik = pose["ik_end"].constraints.new("IK")
    ik.target, ik.subtarget, ik.pole_target, ik.pole_subtarget, ik.chain_count = ob, "other", ob, "pole", 2
    armature = pose["aim"].constraints.new("ARMATURE")
    armature.targets.new().target = ob
    armature.targets[0].subtarget = "deform"
    pose["unrelated"].constraints.new("COPY_LOCATION").subtarget = "other"
    pose[SWITCH]["fk"] = 1.0
    variable = track.driver_add("influence").driver.variables.new()
    variable.targets[0].id = ob
    variable.targets[0].data_path = f'pose.bones["{bpy.utils.escape_identifier(SWITCH)}"]["fk"]'
    variable = pose["aim"].driver_add("rotation_euler", 0).driver.variables.new()
    variable.type = "TRANSFORMS"
    variable.targets[0].id, variable.targets[0].bone_target = ob, "knob"
    return ob


def test_closure_follows_every_relation_and_nothing_else(package):
    bpy.ops.wm.read_homefile(use_empty=True)
    closure = importlib.import_module(f"{package.__name__}.addon.rig_dependencies").dependency_closure
    ob = _rig()
    assert closure(ob, ["mech"]) == {"mech", "parent", "root", "handle", "aim", "aim_parent", "space", "deform",
                                     SWITCH, "knob", "ik_end", "pole", "other"}
    assert closure(ob, ["knob"]) == {"knob"}
    assert closure(ob, ["unrelated"]) == {"unrelated", "root", "other"}
