"""The sidebar's "Render Overlay": a still of the current frame, a PNG sequence or an MP4 of the active trial.

The three sidebar buttons open the folder browser with the same options as
``scripts/render_overlay.py`` (camera, plots and their joint, twin,
background, see-through body, engine, view, size), shown beside the folder.
The render is a background job (``jobs.SteppedJob``): one frame per timer tick, the status bar shows the
progress, Esc stops between two frames and leaves the scene and the folder as they were.
"""

from __future__ import annotations

import bpy
from bpy.props import BoolProperty, EnumProperty, IntProperty, StringProperty

from ..solver.errors import MocapError
from .jobs import JobOperator, SteppedJob, busy
from .render import BACKGROUNDS, CAMERAS, VIEWS, RenderOptions, check, render_steps
from .render_plots import DEFAULT_JOINT, TORQUE_PLOTS
from .paths import PATH_OPTIONS, output_path
from .steps import active_trial

OUTPUTS = [("STILL", "Still", "A PNG of the current frame, the subject framed at that frame"),
           ("SEQUENCE", "PNG Sequence", "A PNG per frame of the scene's frame range"),
           ("MOVIE", "MP4", "An H.264 movie of the scene's frame range")]


def _items(names, descriptions=None) -> list[tuple[str, str, str]]:
    return [(name, name.replace("_", " ").title(), (descriptions or {}).get(name, "")) for name in names]


def render_job(context: bpy.types.Context, folder: str, options: RenderOptions) -> SteppedJob:
    """The job that renders the active trial into ``folder`` (checked first: bad options are a ``MocapError`` at
    once); its result is the files written."""
    scene, collection = context.scene, active_trial(context)[0]
    check(scene, options, collection)
    return SteppedJob("Render Overlay", lambda: render_steps(scene, collection, folder, options))


class MOCAP_DYNAMICS_OT_render_overlay(JobOperator, bpy.types.Operator):
    """Render the active trial with its force overlays, legend and optional plot panel into a folder"""

    bl_idname = "mocap_dynamics.render_overlay"
    bl_label = "Render Overlay"
    bl_options = {"UNDO"}

    directory: StringProperty(name="Folder", subtype="DIR_PATH", options=PATH_OPTIONS)
    output: EnumProperty(name="Output", items=OUTPUTS)
    engine: EnumProperty(name="Engine", items=[("WORKBENCH", "Workbench", "Fast, studio light, outlines"),
                                               ("EEVEE", "EEVEE", "A sun, soft shadows and a ground; slower")])
    view: EnumProperty(name="View", items=_items(VIEWS))
    camera: EnumProperty(name="Camera", items=_items(CAMERAS, {
        "follow": "Follow the subject (a still frames its frame)", "fixed": "One wide shot of every frame"}))
    background: EnumProperty(name="Background", items=_items(BACKGROUNDS))
    width: IntProperty(name="Width", default=1280, min=16, soft_max=3840, subtype="PIXEL")
    height: IntProperty(name="Height", default=720, min=16, soft_max=2160, subtype="PIXEL")
    plots: BoolProperty(name="Plot Panel", description="Vertical GRF and a joint torque beside the render, "
                                                       "with a cursor at the frame")
    joint: StringProperty(name="Joint", default=DEFAULT_JOINT, description="The joint whose torque is plotted")
    torque_plot: EnumProperty(name="Torque Plot", items=_items(TORQUE_PLOTS, {
        "moment": "The joint's flexion (or dorsiflexion) moment, signed as its angle",
        "magnitude": "The torque's magnitude, as the disk's radius shows it"}))
    twin: BoolProperty(name="Zero-Gravity Twin", description="Show the zero-gravity twin beside the subject")
    transparent_body: BoolProperty(name="See-Through Body", description="See the arrows through the body")
    plates: BoolProperty(name="Measured Plate Arrows", default=True,
                         description="Show the measured force-plate arrows beside the estimated ones")
    contact_points: BoolProperty(name="Contact Point Arrows",
                                 description="An arrow per loaded contact point beside each foot's estimated GRF")

    @classmethod
    def poll(cls, context):
        return not busy() and active_trial(context)[1] is not None

    def invoke(self, context, event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def draw(self, context):
        layout = self.layout
        layout.prop(self, "output")
        for name in ("engine", "view", "camera", "background", "width", "height"):
            layout.prop(self, name)
        layout.prop(self, "plots")
        row = layout.row()
        row.enabled = self.plots
        row.prop(self, "joint")
        row = layout.row()
        row.enabled = self.plots
        row.prop(self, "torque_plot")
        for name in ("twin", "transparent_body", "plates", "contact_points"):
            layout.prop(self, name)

    def job(self, context):
        scene = context.scene
        options = RenderOptions(engine=self.engine, resolution=(self.width, self.height), view=self.view,
                                camera=self.camera, still=scene.frame_current if self.output == "STILL" else None,
                                sequence=self.output == "SEQUENCE", movie=self.output == "MOVIE",
                                plates=self.plates, contact_points=self.contact_points, twin=self.twin,
                                plots=self.plots, joint=self.joint, torque_plot=self.torque_plot,
                                background=self.background,
                                transparent_body=self.transparent_body)
        try:
            return render_job(context, output_path(self.directory, '"Folder"'), options)
        except MocapError as error:
            self.report({"ERROR"}, error.one_line())
            return None

    def finished(self, context, written):
        shown = written[0].name if len(written) == 1 else f"{len(written)} files"
        self.report({"INFO"}, f"Rendered {shown} to {written[0].parent}")
        return {"FINISHED"}


register, unregister = bpy.utils.register_classes_factory((MOCAP_DYNAMICS_OT_render_overlay,))
