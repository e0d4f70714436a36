"""File > Import > Motion capture (.c3d, .trc), and drag-and-drop of those files into the 3D View.

The files are read in the background (``jobs``: a status line, Esc cancels and nothing is imported); each
trial's collection is then built on the main thread.
"""

from __future__ import annotations

from pathlib import Path

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ImportHelper, poll_file_object_drop

from ..solver.errors import MocapError
from ..solver.io import ImportOptions
from ..solver.pipeline import PipelineOptions, run
from .first_use import warm_up
from .jobs import Job, JobOperator, busy
from .process import build_scene
from .paths import PATH_OPTIONS
from .trial_scene import SceneOptions

EXTENSIONS = (".c3d", ".trc")


def import_job(paths: list[Path], options: PipelineOptions, scene_options: SceneOptions) -> Job:
    """Read every file in the background (a file that cannot be read is reported, the others imported); build
    their collections on the main thread, the last one becoming the active trial. The job's result is
    ``(imported, problems)``: ``(path, PipelineResult)`` pairs and one line per file that failed."""

    def compute(progress):
        read = []
        for path in paths:
            try:
                read.append((path, run(path, options, lambda f, text: progress(f, f"{path.name}: {text}"))))
            except MocapError as error:
                read.append((path, error))
        return read

    def apply(read):
        imported, problems = [], []
        for path, outcome in read:
            try:
                if isinstance(outcome, MocapError):
                    raise outcome
                collection = build_scene(bpy.context, outcome, scene_options)
            except MocapError as error:
                problems.append(f"{path.name}: {error.one_line()}")
                continue
            bpy.context.scene.mocap_dynamics.active_trial = collection
            imported.append((path, outcome))
        return imported, problems

    label = paths[0].name if len(paths) == 1 else f"{len(paths)} files"
    return Job(f"Importing {label}", compute, apply)


class MOCAP_DYNAMICS_OT_import_markers(JobOperator, bpy.types.Operator, ImportHelper):
    """Import a motion-capture recording: markers as animated empties, force plates with GRF arrows"""

    bl_idname = "mocap_dynamics.import_markers"
    bl_label = "Import Motion Capture"
    bl_options = {"UNDO", "PRESET"}

    filter_glob: StringProperty(default="*.c3d;*.trc", options={"HIDDEN"})
    directory: StringProperty(subtype="DIR_PATH", options={"SKIP_SAVE", "HIDDEN"} | PATH_OPTIONS)
    files: CollectionProperty(type=bpy.types.OperatorFileListElement, options={"SKIP_SAVE", "HIDDEN"})

    units: EnumProperty(name="Units", description="Length unit of the file's coordinates",
                        items=[("FILE", "From File", "Use the unit the file declares"),
                               ("m", "Metres", ""), ("cm", "Centimetres", ""), ("mm", "Millimetres", "")])
    up_axis: EnumProperty(name="Up Axis", description="Which axis of the file points up (converted to Blender's Z)",
                          items=[("FILE", "From File", "Use the file's convention (OpenSim files are Y up), "
                                                       "unless its markers stand clearly taller along the other axis"),
                                 ("Z", "Z", ""), ("Y", "Y", "")])
    strip_prefix: BoolProperty(name="Strip Label Prefixes", default=True,
                               description="Remove subject prefixes from marker labels (Subject:LFHD -> LFHD)")
    subject: StringProperty(name="Subject", description="The subject to read from a file that holds several "
                                                        "(A of A:LASI and B:LASI; empty: the one with most markers)")
    plate_delay: FloatProperty(name="Plate Delay", default=0.0, min=-0.5, max=0.5, step=0.1, precision=3,
                               unit="TIME_ABSOLUTE", description="How late the force plates run behind the markers "
                                                                 "(they are moved that much earlier)")
    grf_filepath: StringProperty(name="GRF File", subtype="FILE_PATH", options=PATH_OPTIONS,
                                 description="Optional OpenSim .mot with ground reaction forces for this trial "
                                             "(default: NAME_grf.mot next to a NAME.trc, if there is one)")
    timing: EnumProperty(name="Timing", items=[
        ("TRIAL", "Use Trial Rate", "Set the scene's frame rate and range to the trial (one key per sample)"),
        ("KEEP", "Keep Scene Rate", "Keep the scene's frame rate and resample the trial to it")])
    start_frame: IntProperty(name="Start Frame", default=1, description="Frame of the trial's first sample")
    marker_size: FloatProperty(name="Marker Size", default=0.015, min=0.001, soft_max=0.1, unit="LENGTH")
    marker_display: EnumProperty(name="Marker Display", default="SPHERE", items=[
        ("SPHERE", "Sphere", ""), ("PLAIN_AXES", "Plain Axes", ""), ("CUBE", "Cube", ""), ("ARROWS", "Arrows", "")])

    @classmethod
    def poll(cls, context):
        return not busy()

    def invoke(self, context, event):
        if self.directory and self.files:  # dropped onto the 3D View: ask for options, then import
            return self.invoke_popup(context)
        return ImportHelper.invoke(self, context, event)

    def _paths(self) -> list[Path]:
        if self.directory and self.files:
            return [Path(self.directory) / f.name for f in self.files]
        return [Path(self.filepath)]

    def _options(self) -> tuple[PipelineOptions, SceneOptions]:
        imp = ImportOptions(units=None if self.units == "FILE" else self.units,
                            up_axis=None if self.up_axis == "FILE" else self.up_axis,
                            strip_prefix=self.strip_prefix, subject=self.subject or None,
                            plate_delay=self.plate_delay)
        pipeline = PipelineOptions(import_options=imp, grf=bpy.path.abspath(self.grf_filepath) or "auto",
                                   until="import")
        scene = SceneOptions(timing=self.timing, start_frame=self.start_frame, marker_size=self.marker_size,
                             marker_display=self.marker_display)
        return pipeline, scene

    def job(self, context):
        warm_up()  # the kernels compile meanwhile, unless the extension did it when it was enabled
        return import_job(self._paths(), *self._options())

    def finished(self, context, outcome):
        imported, problems = outcome
        for problem in problems:
            self.report({"ERROR"}, problem)
        for path, result in imported:
            for warning in result.trial.warnings:
                self.report({"WARNING"}, f"{path.name}: {warning}")
        if not imported:
            return {"CANCELLED"}
        self.report({"INFO"}, f"Imported {len(imported)} trial(s)")
        return {"FINISHED"}

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        for name in ("units", "up_axis", "strip_prefix", "subject", "grf_filepath", "plate_delay", "timing",
                     "start_frame", "marker_size", "marker_display"):
            layout.prop(self, name)


class MOCAP_DYNAMICS_FH_import(bpy.types.FileHandler):
    bl_idname = "MOCAP_DYNAMICS_FH_import"
    bl_label = "Motion capture"
    bl_import_operator = MOCAP_DYNAMICS_OT_import_markers.bl_idname
    bl_file_extensions = ";".join(EXTENSIONS)

    @classmethod
    def poll_drop(cls, context):
        return poll_file_object_drop(context)


def menu_import(self, context):
    self.layout.operator(MOCAP_DYNAMICS_OT_import_markers.bl_idname, text="Motion Capture (.c3d, .trc)")


CLASSES = (MOCAP_DYNAMICS_OT_import_markers, MOCAP_DYNAMICS_FH_import)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)


def unregister():
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
