"""The Blender half: operators, sidebar, keying and visuals. It converts solver results to Blender data and back."""

from . import body_model, importer, panels, properties

_MODULES = (properties, importer, body_model, panels)


def register():
    for module in _MODULES:
        module.register()


def unregister():
    for module in reversed(_MODULES):
        module.unregister()
