"""The Blender half: operators, sidebar, keying and visuals. It converts solver results to Blender data and back."""

from . import first_use, importer, mapping, panels, properties, render_operator, session, steps

_MODULES = (properties, session, mapping, importer, steps, render_operator, panels, first_use)


def register():
    for module in _MODULES:
        module.register()


def unregister():
    for module in reversed(_MODULES):
        module.unregister()
