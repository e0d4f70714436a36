"""The Blender half: operators, sidebar, keying and visuals. It converts solver results to Blender data and back."""

from . import importer, mapping, panels, properties, render_operator, retarget, retarget_export, retarget_mapping, \
    steps

_MODULES = (properties, mapping, importer, steps, render_operator, retarget_mapping, retarget, retarget_export, panels)


def register():
    for module in _MODULES:
        module.register()


def unregister():
    for module in reversed(_MODULES):
        module.unregister()
