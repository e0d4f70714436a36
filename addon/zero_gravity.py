"""Zero-gravity simulations in the scene: each one a new named action, optionally on a second rig beside the first.

The captured motion stays untouched: a simulation is keyed into its own action
(``"<trial> <name>"``, kept with a fake user so it survives saving). Beside the
original (the default), it plays on a second rig that shares the armature and
the body mesh, offset sideways, with its own torque disks and the whole-body
angular-momentum arrow, so both can be rendered side by side. On the original
rig, the new action becomes the active one, and the captured motion's torque
and contact visuals are hidden (they belong to the other action) until
``show_captured`` brings the captured motion back.
"""

from __future__ import annotations

from dataclasses import replace

import bpy
import numpy as np

from ..solver.kinematics.motion import Motion
from ..solver.zerog import ZeroGravity
from .armature import BODY_PROP, key_motion
from .arrows import create_arrow, key_arrow
from .collections import child_collection, remove_child_collection, trial_name
from .dynamics_visuals import build_dynamics_visuals
from .keying import assign_action

#: Angular momentum is drawn as an arrow of this many "newtons" per kg·m²/s, so it shares the force scale.
MOMENTUM_ARROW_SCALE = 100.0
SIDE_GAP = 1.2  # m between the original rig and the zero-gravity rig
CAPTURED_VISUALS = ("dynamics", "contact", "model markers")
CAPTURED_ACTION_PROP = "mocap_captured_action"


def _sideways(positions: np.ndarray) -> np.ndarray:
    """A horizontal unit vector perpendicular to the subject's main direction of travel (Y if it hardly moves)."""
    travel = np.nan_to_num(positions[-1, :2] - positions[0, :2])
    if np.linalg.norm(travel) < 0.2:
        return np.array([0.0, 1.0, 0.0])
    travel /= np.linalg.norm(travel)
    return np.array([-travel[1], travel[0], 0.0])


def _second_rig(context: bpy.types.Context, collection: bpy.types.Collection, rig: bpy.types.Object,
                name: str) -> bpy.types.Object:
    """A rig sharing ``rig``'s armature and body mesh, in ``collection`` (emptied by the caller)."""
    twin = bpy.data.objects.new(name, rig.data)
    collection.objects.link(twin)
    context.view_layer.update()  # an armature object gets its pose when the depsgraph first evaluates it
    for bone in twin.pose.bones:
        bone.rotation_mode = "QUATERNION"
    body = next((ob for ob in rig.children if ob.get(BODY_PROP)), None)
    if body is not None:
        twin_body = bpy.data.objects.new(f"{name} body", body.data)
        twin_body[BODY_PROP] = True
        twin_body.parent = twin
        collection.objects.link(twin_body)
        twin_body.modifiers.new("Armature", "ARMATURE").object = twin
    return twin


def _captured_visuals(trial_collection: bpy.types.Collection, shown: bool) -> None:
    prefixes = tuple(f"{trial_name(trial_collection)} {kind}" for kind in CAPTURED_VISUALS)
    for child in trial_collection.children:
        if child.name.startswith(prefixes):
            child.hide_viewport = child.hide_render = not shown


def show_captured(trial_collection: bpy.types.Collection, rig: bpy.types.Object) -> None:
    """Give ``rig`` its captured motion back (if a zero-gravity action took its place) and show its visuals."""
    action = bpy.data.actions.get(rig.get(CAPTURED_ACTION_PROP, ""))
    if action is not None:
        assign_action(rig, action)
        del rig[CAPTURED_ACTION_PROP]
    _captured_visuals(trial_collection, True)


def drop_zero_gravity_visuals(trial_collection: bpy.types.Collection) -> None:
    """Remove the twin and its visuals (a run without zero gravity leaves none of an earlier one); the
    simulations' actions stay, as every simulation's does."""
    remove_child_collection(trial_collection, f"{trial_name(trial_collection)} zero gravity")


def _new_action(rig: bpy.types.Object, name: str) -> None:
    """Detach ``rig``'s current action (kept with a fake user) and drop an older action ``name``, so the next
    keys start a new action of that name."""
    anim = rig.animation_data
    if anim is not None and anim.action is not None:
        anim.action.use_fake_user = True
        if anim.action.name != name and CAPTURED_ACTION_PROP not in rig:
            rig[CAPTURED_ACTION_PROP] = anim.action.name
        anim.action = None
    old = bpy.data.actions.get(name)
    if old is not None:
        bpy.data.actions.remove(old)


def _moved(motion: Motion, place: np.ndarray) -> Motion:
    """``motion`` translated by ``place`` [m]."""
    q = motion.q.copy()
    q[:, :3] += place
    return replace(motion, q=q, positions=motion.positions + place)


def key_zero_gravity(context: bpy.types.Context, zerog: ZeroGravity, trial_collection: bpy.types.Collection,
                     rig: bpy.types.Object, frames: np.ndarray, name: str, beside: bool = True,
                     place: np.ndarray = np.zeros(3)) -> bpy.types.Object:
    """Key ``zerog``, moved by ``place`` [m], as the action ``"<trial> <name>"``; return the rig that plays it.

    ``beside``: on a second rig offset sideways from the captured motion
    (with torque disks and the angular-momentum arrow); otherwise on ``rig``
    itself, where the new action becomes active. ``place`` puts a manoeuvre
    (simulated about the origin) where the subject stood.
    """
    trial = trial_name(trial_collection)
    collection = child_collection(trial_collection, f"{trial} zero gravity")
    motion = _moved(zerog.motion, place)
    if beside:
        target = _second_rig(context, collection, rig, f"{trial} {name} rig")
        target.location = SIDE_GAP * _sideways(motion.positions[:, 0])
        offset = place + np.array(target.location)
    else:
        target, offset = rig, place
        _captured_visuals(trial_collection, False)
    action_name = f"{trial} {name}"
    _new_action(target, action_name)
    key_motion(target, motion, frames, action_name=action_name)
    target.animation_data.action.use_fake_user = True
    build_dynamics_visuals(context, zerog.dynamics, collection, target, frames,
                           collection_name=f"{trial} {name} torques", offset=offset)
    centre = zerog.motion.model.body_com(zerog.motion.q) + offset
    arrow = create_arrow(f"{name} angular momentum", collection, "angular_momentum", context.scene)
    key_arrow(arrow, frames, centre, MOMENTUM_ARROW_SCALE * zerog.angular_momentum)
    arrow["kg_m2_per_s_drawn_as_N"] = MOMENTUM_ARROW_SCALE
    return target
