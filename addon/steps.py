"""Sidebar step 2: calibrate the subject's body model and build its armature."""

from __future__ import annotations

import bpy
from bpy.props import EnumProperty, FloatProperty, StringProperty

from ..solver.errors import MocapError
from ..solver.io import ImportOptions
from ..solver.model import TEMPLATES
from ..solver.pipeline import PipelineOptions
from .process import process_trial
from .progress import ProgressReporter
from .trial_scene import trial_metadata


def active_trial(context: bpy.types.Context):
    """The trial collection the sidebar works on, and its metadata (or ``(None, None)``)."""
    collection = context.scene.mocap_dynamics.active_trial
    return collection, trial_metadata(collection)


def stored_options(meta: dict, **changes) -> PipelineOptions:
    """The pipeline options a trial was imported with (as stored on its collection), with ``changes``."""
    stored = meta.get("options", {})
    imp = ImportOptions(**stored.get("import_options", {}))
    keep = {k: stored[k] for k in ("grf", "template", "mass", "static", "markerset", "sex") if k in stored}
    return PipelineOptions(import_options=imp, **{**keep, **changes})


TEMPLATE_ITEMS = [(name, name, template.description) for name, template in TEMPLATES.items()]


class MOCAP_DYNAMICS_OT_build_armature(bpy.types.Operator):
    """Calibrate the subject's body model from the active trial's markers and build (or rebuild) its armature"""

    bl_idname = "mocap_dynamics.build_armature"
    bl_label = "Build Armature"
    bl_options = {"REGISTER", "UNDO"}

    template: EnumProperty(name="Model", items=TEMPLATE_ITEMS)
    mass: FloatProperty(name="Body Mass", default=0.0, min=0.0, soft_max=200.0, unit="MASS",
                        description="Subject mass in kg; 0 = from quiet standing on force plates, else 70 kg (flagged)")
    sex: EnumProperty(name="Inertia Table", items=[("male", "de Leva (male)", ""), ("female", "de Leva (female)", "")])
    static_filepath: StringProperty(name="Static Trial", subtype="FILE_PATH",
                                    description="Optional static trial of the same subject for calibration")
    markerset_filepath: StringProperty(name="Marker Set", subtype="FILE_PATH",
                                       description="Optional TOML mapping of markers to segments")

    @classmethod
    def poll(cls, context):
        return active_trial(context)[1] is not None

    def invoke(self, context, event):
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context):
        collection, meta = active_trial(context)
        options = stored_options(meta, until="calibrate", template=self.template, mass=self.mass or None,
                                 sex=self.sex, static=bpy.path.abspath(self.static_filepath) or None,
                                 markerset=bpy.path.abspath(self.markerset_filepath) or None)
        try:
            with ProgressReporter(context) as progress:
                result, _ = process_trial(context, meta["source"], options, progress=progress, collection=collection)
        except MocapError as error:
            self.report({"ERROR"}, error.one_line())
            return {"CANCELLED"}
        model = result.model
        for warning in model.metadata["calibration"].warnings:
            self.report({"WARNING"}, warning)
        self.report({"INFO"}, f"{model.metadata['calibration'].template}: {len(model.segments)} segments, "
                              f"{model.total_mass:.1f} kg ({model.mass_source})")
        return {"FINISHED"}


CLASSES = (MOCAP_DYNAMICS_OT_build_armature,)


register, unregister = bpy.utils.register_classes_factory(CLASSES)
