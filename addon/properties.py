"""Scene settings of the add-on (``scene.mocap_dynamics``)."""

from __future__ import annotations

import bpy
from bpy.props import PointerProperty

from .trial_scene import META_PROP


def _is_trial(self, collection: bpy.types.Collection) -> bool:
    return META_PROP in collection


class MocapDynamicsSettings(bpy.types.PropertyGroup):
    active_trial: PointerProperty(type=bpy.types.Collection, name="Trial", poll=_is_trial,
                                  description="The imported trial the sidebar works on")


def register():
    bpy.utils.register_class(MocapDynamicsSettings)
    bpy.types.Scene.mocap_dynamics = PointerProperty(type=MocapDynamicsSettings)


def unregister():
    del bpy.types.Scene.mocap_dynamics
    bpy.utils.unregister_class(MocapDynamicsSettings)
