"""The "Mocap Dynamics" sidebar tab (3D View > N): the workflow from top to bottom.

Steps that are not built yet are shown disabled with one line saying what they
will do — never a button that does nothing.
"""

from __future__ import annotations

import bpy

from .arrows import FORCE_SCALE_PROP
from .body_model import MOCAP_DYNAMICS_OT_build_armature, active_trial
from .importer import MOCAP_DYNAMICS_OT_import_markers
from .trial_scene import trial_metadata

CATEGORY = "Mocap Dynamics"


class _Step:
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = CATEGORY


class MOCAP_DYNAMICS_PT_main(_Step, bpy.types.Panel):
    bl_idname = "MOCAP_DYNAMICS_PT_main"
    bl_label = "Mocap Dynamics"

    def draw(self, context):
        self.layout.label(text="Motion capture to physics, step by step.")


class _SubStep(_Step):
    bl_parent_id = MOCAP_DYNAMICS_PT_main.bl_idname


class MOCAP_DYNAMICS_PT_import(_SubStep, bpy.types.Panel):
    bl_label = "1. Import"

    def draw(self, context):
        layout = self.layout
        layout.operator(MOCAP_DYNAMICS_OT_import_markers.bl_idname, icon="IMPORT")
        settings = context.scene.mocap_dynamics
        layout.prop(settings, "active_trial")
        meta = trial_metadata(settings.active_trial)
        if meta is None:
            layout.label(text="Import a .c3d or .trc file, or drop one here.")
            return
        trial = meta.get("trial", {})
        box = layout.box()
        col = box.column(align=True)
        col.label(text=bpy.path.basename(meta.get("source", "")), icon="FILE")
        col.label(text=f"{trial.get('markers', 0)} markers, {trial.get('frames', 0)} frames at "
                       f"{trial.get('rate_hz', 0):g} Hz ({trial.get('duration_s', 0):.2f} s)")
        col.label(text=f"{trial.get('force_plates', 0)} force plates")
        gaps = trial.get("markers_with_gaps", {})
        col.label(text=f"{len(gaps)} markers with gaps, {trial.get('missing_samples_percent', 0):.1f} % samples missing")
        if "body_weight_n" in trial:
            col.label(text=f"Quiet standing: {trial['body_weight_n']:.0f} N "
                           f"({trial['body_mass_kg_from_plates']:.1f} kg)")
        for line in trial.get("conversions", []):
            box.label(text=line, icon="INFO")
        for line in trial.get("warnings", []):
            box.label(text=line, icon="ERROR")


class MOCAP_DYNAMICS_PT_body_model(_SubStep, bpy.types.Panel):
    bl_label = "2. Body Model"

    def draw(self, context):
        layout = self.layout
        layout.operator(MOCAP_DYNAMICS_OT_build_armature.bl_idname, icon="ARMATURE_DATA")
        model = (active_trial(context)[1] or {}).get("model")
        if model is None:
            layout.label(text="Calibrate a subject-scaled armature from the markers.")
            return
        box = layout.box().column(align=True)
        box.label(text=f"{model['template']}: {model['segments']} segments, {model['dof']} DoF")
        box.label(text=f"Mass {model['mass_kg']:.1f} kg: {model['mass_source']}",
                  icon="ERROR" if model["mass_assumed"] else "CHECKMARK")
        for name, length in model["segment_lengths_m"].items():
            box.label(text=f"{name}: {100 * length:.1f} cm")
        box.label(text="Least rigid marker clusters:")
        worst = sorted(model["cluster_residuals_m"].items(), key=lambda kv: -kv[1])[:3]
        for name, residual in worst:
            box.label(text=f"  {name}: {1000 * residual:.1f} mm RMS")
        for line in model.get("warnings", []):
            box.label(text=line, icon="ERROR")


def _planned(label: str, what: str):
    """A disabled step with one line saying what it will do."""

    def draw(self, context):
        row = self.layout.row()
        row.enabled = False
        row.label(text=what)

    return type(f"MOCAP_DYNAMICS_PT_{label.split('. ')[1].lower().replace(' ', '_')}", (_SubStep, bpy.types.Panel),
                {"bl_label": label, "draw": draw, "bl_options": {"DEFAULT_CLOSED"}})


class MOCAP_DYNAMICS_PT_visuals(_SubStep, bpy.types.Panel):
    bl_label = "7. Visuals"

    def draw(self, context):
        scene = context.scene
        if FORCE_SCALE_PROP in scene:
            self.layout.prop(scene, f'["{FORCE_SCALE_PROP}"]', text="Force Arrow Scale (m/N)")
        else:
            self.layout.label(text="Force arrows appear with force plates or estimated contact.")


CLASSES = (
    MOCAP_DYNAMICS_PT_main,
    MOCAP_DYNAMICS_PT_import,
    MOCAP_DYNAMICS_PT_body_model,
    _planned("3. Reconstruct", "Will reconstruct the motion with the Optimal Tracking Method."),
    _planned("4. Dynamics", "Will compute joint torques and residual root forces."),
    _planned("5. Contact", "Will estimate ground contact forces from the motion alone."),
    _planned("6. Zero Gravity", "Will simulate the motion free-floating, in orbit."),
    MOCAP_DYNAMICS_PT_visuals,
    _planned("8. Export", "Will export torques, forces and angles as OpenSim .sto and CSV."),
)


register, unregister = bpy.utils.register_classes_factory(CLASSES)
