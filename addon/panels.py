"""The "Mocap Dynamics" sidebar tab (3D View > N): the workflow from top to bottom.

Steps that are not built yet are shown disabled with one line saying what they
will do — never a button that does nothing.
"""

from __future__ import annotations

import bpy

from .arrows import FORCE_SCALE_PROP
from .dynamics_visuals import TORQUE_SCALE_PROP
from .steps import (MOCAP_DYNAMICS_OT_build_armature, MOCAP_DYNAMICS_OT_estimate_contact,
                    MOCAP_DYNAMICS_OT_export_results, MOCAP_DYNAMICS_OT_inverse_dynamics, MOCAP_DYNAMICS_OT_reconstruct,
                    active_trial)
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


class MOCAP_DYNAMICS_PT_reconstruct(_SubStep, bpy.types.Panel):
    bl_label = "3. Reconstruct"

    def draw(self, context):
        layout = self.layout
        layout.operator(MOCAP_DYNAMICS_OT_reconstruct.bl_idname, icon="POSE_HLT")
        rec = (active_trial(context)[1] or {}).get("reconstruction")
        if rec is None:
            layout.label(text="Fit the armature to the markers, joints exact (OTM).")
            return
        box = layout.box().column(align=True)
        complete = rec["frames_converged"] == rec["frames"] - rec["frames_without_data"]
        box.label(text=f"{rec['frames_converged']}/{rec['frames']} frames converged",
                  icon="CHECKMARK" if complete else "ERROR")
        box.label(text=f"Marker RMS {1000 * rec['marker_rms_m']:.1f} mm, "
                       f"{1000 * rec['seconds_per_frame']:.2f} ms per frame")
        box.label(text="Worst markers (median error):")
        for label, error in rec["worst_markers_median_m"].items():
            box.label(text=f"  {label}: {1000 * error:.1f} mm")


class MOCAP_DYNAMICS_PT_dynamics(_SubStep, bpy.types.Panel):
    bl_label = "4. Dynamics"

    def draw(self, context):
        layout = self.layout
        layout.operator(MOCAP_DYNAMICS_OT_inverse_dynamics.bl_idname, icon="FORCE_FORCE")
        dyn = (active_trial(context)[1] or {}).get("dynamics")
        if dyn is None:
            layout.label(text="Joint torques and root residual forces (needs a reconstruction).")
            return
        box = layout.box().column(align=True)
        without = dyn["without_external_forces"]
        box.label(text=f"Root residual without contact: {without['root_force_mean_percent_bw']:.0f} % BW")
        if "with_measured_plates" in dyn:
            box.label(text=f"With measured plates: {dyn['with_measured_plates']['root_force_mean_percent_bw']:.0f} % BW")
        box.label(text=f"Disks show torques with {dyn['torques_with']}")
        peaks = sorted(dyn["peak_joint_torque_nm"].items(), key=lambda kv: -kv[1])[:4]
        for name, peak in peaks:
            box.label(text=f"  peak {name}: {peak:.0f} N·m")


class MOCAP_DYNAMICS_PT_contact(_SubStep, bpy.types.Panel):
    bl_label = "5. Contact"

    def draw(self, context):
        layout = self.layout
        layout.operator(MOCAP_DYNAMICS_OT_estimate_contact.bl_idname, icon="MOD_PHYSICS")
        contact = (active_trial(context)[1] or {}).get("contact")
        if contact is None:
            layout.label(text="Ground forces, plane, stiffness from the motion alone.")
            return
        box = layout.box().column(align=True)
        box.label(text=f"Root force explained: {100 * contact['explained_force']:.0f} %")
        box.label(text=f"Plane: {100 * contact['plane_height_m']:.1f} cm high, tilted {contact['plane_angle_deg']:.2f}°")
        box.label(text=f"Resting height {100 * contact['resting_height_m']:.1f} cm; stiffness {contact['stiffness']:.1f}, "
                       f"damping {contact['normal_damping']:.1f} / {contact['tangential_damping']:.1f}")
        plates = contact.get("plates")
        if plates:
            box.label(text=f"Vertical GRF vs plates: RMSE {plates['rmse_vertical_bw_percent']:.1f} % BW, "
                           f"r = {plates['correlation_vertical']:.2f}")


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
        shown = False
        for prop, text in ((FORCE_SCALE_PROP, "Force Arrow Scale (m/N)"), (TORQUE_SCALE_PROP, "Torque Disk Scale (m/N·m)")):
            if prop in scene:
                self.layout.prop(scene, f'["{prop}"]', text=text)
                shown = True
        if not shown:
            self.layout.label(text="Arrows and disks appear with force plates or dynamics.")


class MOCAP_DYNAMICS_PT_export(_SubStep, bpy.types.Panel):
    bl_label = "8. Export"

    def draw(self, context):
        self.layout.operator(MOCAP_DYNAMICS_OT_export_results.bl_idname, icon="EXPORT")
        self.layout.label(text="Angles (.mot), torques and residuals (.sto), CSV, plots.")


CLASSES = (
    MOCAP_DYNAMICS_PT_main,
    MOCAP_DYNAMICS_PT_import,
    MOCAP_DYNAMICS_PT_body_model,
    MOCAP_DYNAMICS_PT_reconstruct,
    MOCAP_DYNAMICS_PT_dynamics,
    MOCAP_DYNAMICS_PT_contact,
    _planned("6. Zero Gravity", "Will simulate the motion free-floating, in orbit."),
    MOCAP_DYNAMICS_PT_visuals,
    MOCAP_DYNAMICS_PT_export,
)


register, unregister = bpy.utils.register_classes_factory(CLASSES)
