"""The Blender half: operators, sidebar, keying and visuals. It converts solver results to Blender data and back."""

from . import first_use, importer, mapping, panels, properties, render_operator, retarget, retarget_export, \
    retarget_mapping, session, steps

_MODULES = (properties, session, mapping, importer, steps, render_operator, retarget_mapping, retarget, retarget_export,
            panels, first_use)


def register():
    for module in _MODULES:
        module.register()


def unregister():
    for module in reversed(_MODULES):
        module.unregister()
