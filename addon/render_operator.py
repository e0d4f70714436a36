"""The sidebar's "Render Overlay": a still of the current frame and/or an MP4 of the active trial, into a folder."""

from __future__ import annotations

import bpy
from bpy.props import BoolProperty, EnumProperty, IntProperty, StringProperty

from ..solver.errors import MocapError
from .messages import sidebar_messages
from .progress import ProgressReporter
from .render import VIEWS, RenderOptions, render_overlay
from .steps import active_trial


class MOCAP_DYNAMICS_OT_render_overlay(bpy.types.Operator):
    """Render the active trial with its force overlays, legend and centre-of-mass trail into a folder"""

    bl_idname = "mocap_dynamics.render_overlay"
    bl_label = "Render Overlay"
    bl_options = {"REGISTER", "UNDO"}

    directory: StringProperty(name="Folder", subtype="DIR_PATH")
    still: BoolProperty(name="Still (Current Frame)", default=True, description="A PNG of the current frame")
    movie: BoolProperty(name="Movie (MP4)", description="An H.264 movie of the whole trial")
    engine: EnumProperty(name="Engine", items=[("WORKBENCH", "Workbench", "Fast, studio lighting"),
                                               ("EEVEE", "EEVEE", "Lit by a sun, slower")])
    view: EnumProperty(name="View", items=[(view, view.replace("_", " ").title(), "") for view in VIEWS])
    width: IntProperty(name="Width", default=1280, min=16, soft_max=3840, subtype="PIXEL")
    height: IntProperty(name="Height", default=720, min=16, soft_max=2160, subtype="PIXEL")
    plates: BoolProperty(name="Measured Plate Arrows", default=True,
                         description="Show the measured force-plate arrows beside the estimated ones")

    @classmethod
    def poll(cls, context):
        return active_trial(context)[1] is not None

    def invoke(self, context, event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        if not (self.still or self.movie):
            self.report({"ERROR"}, "Nothing to render. Tick Still, Movie or both.")
            return {"CANCELLED"}
        scene = context.scene
        options = RenderOptions(engine=self.engine, resolution=(self.width, self.height), view=self.view,
                                still=scene.frame_current if self.still else None, movie=self.movie,
                                plates=self.plates)
        try:
            with ProgressReporter(context) as progress, sidebar_messages():
                written = render_overlay(scene, active_trial(context)[0], bpy.path.abspath(self.directory),
                                         options, progress)
        except MocapError as error:
            self.report({"ERROR"}, error.one_line())
            return {"CANCELLED"}
        self.report({"INFO"}, f"Rendered {', '.join(path.name for path in written)} to {self.directory}")
        return {"FINISHED"}


register, unregister = bpy.utils.register_classes_factory((MOCAP_DYNAMICS_OT_render_overlay,))
