"""Scene settings of the add-on (``scene.mocap_dynamics``)."""

from __future__ import annotations

import bpy
from bpy.app.handlers import persistent
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, PointerProperty

from ..solver.zerog import ZeroGravityOptions
from .collections import META_PROP

_ZERO_G = ZeroGravityOptions()
ZERO_GRAVITY_ITEMS = [
    ("captured", "Captured Motion", "The trial's joint motion on a free-floating body (Badler et al. §4)"),
    ("sequence", "Self-Orientation", "Lift, twist and close the legs: the body turns with zero momentum (§4)"),
    ("leg_lifting", "Leg Lifting", "Flex both hips by the angle (§4)"),
    ("leg_twisting", "Leg Twisting", "Swing the lifted legs sideways by the angle (§4)"),
    ("leg_closing", "Leg Closing", "Bring the swung legs back to standing (§4)"),
    ("ladder", "Ladder Traversal", "Hand over hand along a ladder, with the energy measures (§5, §7)"),
    ("minimum_torque", "Minimum-Torque Leg Lift", "The leg lift that minimises the summed squared torques (§6)"),
]


def _is_trial(self, collection: bpy.types.Collection) -> bool:
    return META_PROP in collection


class MocapDynamicsSettings(bpy.types.PropertyGroup):
    active_trial: PointerProperty(type=bpy.types.Collection, name="Trial", poll=_is_trial,
                                  description="The imported trial the sidebar works on")
    zero_gravity: EnumProperty(name="Simulation", items=ZERO_GRAVITY_ITEMS, description="What to simulate in orbit")
    zero_gravity_momentum: EnumProperty(name="Initial Momentum", items=[
        ("zero", "Zero", "The body starts at rest: its centre of mass stays put"),
        ("first_frames", "From the Capture", "The captured momentum of the first 50 ms: a jump keeps its take-off")])
    zero_gravity_limbs: EnumProperty(name="Limbs", items=[
        ("legs", "Legs", "Both hips, as in the paper"), ("left_leg", "Left Leg", "The left hip only"),
        ("right_leg", "Right Leg", "The right hip only"), ("arms", "Arms", "Both shoulders"),
        ("arms_and_legs", "Arms and Legs", "Both shoulders and both hips together")],
        description="Which limbs make the manoeuvre")
    zero_gravity_angle: FloatProperty(name="Angle", default=_ZERO_G.angle_deg, min=0.0, max=150.0,
                                      description="Manoeuvre angle in degrees: hip flexion (lifting, minimum "
                                                  "torque) or sideways swing (twisting, closing, self-orientation)")
    zero_gravity_lift: FloatProperty(name="Leg Lift", default=_ZERO_G.lift_deg, min=0.0, max=150.0,
                                     description="Hip flexion in degrees before the legs twist")
    zero_gravity_duration: FloatProperty(name="Duration", default=_ZERO_G.duration_s, min=0.05, soft_max=10.0,
                                         unit="TIME_ABSOLUTE", description="Seconds per manoeuvre step or rung")
    zero_gravity_v_max: FloatProperty(name="Max Joint Speed", default=0.0, min=0.0, soft_max=720.0,
                                      description="Joint speed cap in deg/s (three-phase motion function); "
                                                  "0 = none, the quintic")
    zero_gravity_rungs: IntProperty(name="Rungs", default=_ZERO_G.rungs, min=2, soft_max=12,
                                    description="Ladder periods (rungs climbed)")
    zero_gravity_beside: BoolProperty(name="Beside the Original", default=True,
                                      description="Play the simulation on a second rig beside the captured one; "
                                                  "off: it becomes the rig's active action")


@persistent
def _the_only_trial_active(*args) -> None:
    """A file opened with no trial active in a scene that holds one (saved by a script, ``process_trial.py``,
    which does not register these settings) opens with that trial active: the sidebar is ready for its next step."""
    for scene in bpy.data.scenes:
        trials = [c for c in scene.collection.children_recursive if META_PROP in c]
        if scene.mocap_dynamics.active_trial is None and len(trials) == 1:
            scene.mocap_dynamics.active_trial = trials[0]


def register():
    bpy.utils.register_class(MocapDynamicsSettings)
    bpy.types.Scene.mocap_dynamics = PointerProperty(type=MocapDynamicsSettings)
    bpy.app.handlers.load_post.append(_the_only_trial_active)


def unregister():
    bpy.app.handlers.load_post.remove(_the_only_trial_active)
    del bpy.types.Scene.mocap_dynamics
    bpy.utils.unregister_class(MocapDynamicsSettings)
