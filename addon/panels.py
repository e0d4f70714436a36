"""The "Mocap Dynamics" sidebar tab (3D View > N): the workflow from top to bottom.

Each step shows its button, its settings, and the figures of its last run.
"""

from __future__ import annotations

import bpy

from .arrows import FORCE_SCALE_PROP
from .dynamics_visuals import TORQUE_SCALE_PROP
from .steps import (MOCAP_DYNAMICS_OT_build_armature, MOCAP_DYNAMICS_OT_estimate_contact,
                    MOCAP_DYNAMICS_OT_export_results, MOCAP_DYNAMICS_OT_inverse_dynamics, MOCAP_DYNAMICS_OT_reconstruct,
                    MOCAP_DYNAMICS_OT_run_all, MOCAP_DYNAMICS_OT_zero_gravity, active_trial)
from .importer import MOCAP_DYNAMICS_OT_import_markers
from .jobs import running
from .mapping import MOCAP_DYNAMICS_OT_read_marker_labels, MOCAP_DYNAMICS_OT_save_marker_set
from .render_operator import MOCAP_DYNAMICS_OT_render_overlay
from .retarget import ACTION_PROP, MOCAP_DYNAMICS_OT_retarget
from .retarget_events import read_floor_velocity
from .retarget_source import trial_rigs
from ..solver.report import figure, filter_text, joint_moments_figures, shoes_text
from ..solver.report_schema import (ContactSummary, DynamicsSummary, ModelSummary, ReconstructionSummary,
                                     TrialSummary)
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
        self.layout.operator(MOCAP_DYNAMICS_OT_run_all.bl_idname, icon="PLAY")
        job = running()
        if job is not None:
            box = self.layout.box()
            box.label(text=f"{job.label} (Esc: cancel)", icon="SORTTIME")
            box.progress(factor=job.fraction, type="BAR", text=job.message)


class _SubStep(_Step):
    bl_parent_id = MOCAP_DYNAMICS_PT_main.bl_idname


def _step(layout, context, operator, icon: str, key: str, hint: str):
    """The step's button, then a box (column) for the active trial's figures of step ``key`` (its section of
    the report, ``report_schema``) and the figures; or ``hint`` and None when the step has not run."""
    layout.operator(operator.bl_idname, icon=icon)
    figures = (active_trial(context)[1] or {}).get(key)
    if figures is None:
        layout.label(text=hint)
        return None, None
    return layout.box().column(align=True), figures


def _peaks(box, peaks: dict, count: int, digits: int) -> None:
    """The ``count`` largest peak joint torques, one line each."""
    for name, peak in sorted(peaks.items(), key=lambda kv: -kv[1])[:count]:
        box.label(text=f"  peak {name}: {peak:.{digits}f} N·m")


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
        trial: TrialSummary = meta.get("trial", {})
        box = layout.box()
        col = box.column(align=True)
        col.label(text=bpy.path.basename(meta.get("source", "")), icon="FILE")
        col.label(text=f"{trial.get('markers', 0)} markers, {trial.get('frames', 0)} frames at "
                       f"{trial.get('rate_hz', 0):g} Hz ({trial.get('duration_s', 0):.2f} s)")
        col.label(text=f"{trial.get('force_plates', 0)} force plates")
        gaps = trial.get("markers_with_gaps", {})
        col.label(text=f"{len(gaps)} marker{'' if len(gaps) == 1 else 's'} with gaps, "
                       f"{trial.get('missing_samples_percent', 0):.1f} % samples missing")
        if trial.get("body_weight_n") is not None:
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
        model: ModelSummary
        box, model = _step(layout, context, MOCAP_DYNAMICS_OT_build_armature, "ARMATURE_DATA", "model",
                           "Calibrate a subject-scaled armature from the markers.")
        if box is None:
            return
        box.label(text=f"{model['template']}: {model['segments']} segments, {model['dof']} DoF")
        box.label(text=f"Mass {model['mass_kg']:.1f} kg: {model['mass_source']}",
                  icon="ERROR" if model["mass_assumed"] else "CHECKMARK")
        box.label(text=f"Shoe Mass: {shoes_text(model.get('shoes_kg')) or 'barefoot'}")
        for name, length in model["segment_lengths_m"].items():
            box.label(text=f"{name}: {100 * length:.1f} cm")
        box.label(text="Least rigid marker clusters:")
        worst = sorted(model["cluster_residuals_m"].items(), key=lambda kv: -kv[1])[:3]
        for name, residual in worst:
            box.label(text=f"  {name}: {1000 * residual:.1f} mm RMS")
        for line in model.get("warnings", []):
            box.label(text=line, icon="ERROR")


class MOCAP_DYNAMICS_PT_marker_mapping(_Step, bpy.types.Panel):
    bl_label = "Marker Mapping"
    bl_parent_id = MOCAP_DYNAMICS_PT_body_model.__name__
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        layout = self.layout
        collection, meta = active_trial(context)
        if meta is None:
            layout.label(text="Import a trial first.")
            return
        rows = collection.mocap_dynamics_markers
        if not rows:
            layout.label(text="Which marker is which landmark, on which segment.")
            layout.operator(MOCAP_DYNAMICS_OT_read_marker_labels.bl_idname, icon="SORTALPHA")
            return
        model = meta.get("model")
        if model:
            layout.label(text=f"Model built with: {model['markerset']}")
        used = sum(1 for r in rows if r.segment or r.landmarks)
        layout.label(text=f"{len(rows)} markers: {used} used, {len(rows) - used} ignored")
        layout.template_list("MOCAP_DYNAMICS_UL_markers", "", collection, "mocap_dynamics_markers", collection,
                             "mocap_dynamics_marker_index", rows=8)
        if 0 <= collection.mocap_dynamics_marker_index < len(rows):
            _marker_details(layout.box(), rows[collection.mocap_dynamics_marker_index], model or {})
        row = layout.row(align=True)
        row.operator(MOCAP_DYNAMICS_OT_read_marker_labels.bl_idname, text="Read Again", icon="FILE_REFRESH")
        row.operator(MOCAP_DYNAMICS_OT_save_marker_set.bl_idname, icon="FILE_TICK")


def _marker_details(box, row, model: dict) -> None:
    """The active marker: what it is (editable), what that makes it, and what the current model does with it."""
    col = box.column(align=True)
    col.label(text=row.label, icon="EMPTY_AXIS")
    col.prop(row, "meaning", text="")
    col.prop(row, "side", text="")
    col.label(text=f"Segment: {row.segment or 'none'}")
    col.label(text=f"Landmarks: {row.landmarks or 'none'}")
    if row.note:
        col.label(text=row.note, icon="INFO")
    in_model = model.get("markers", {}).get(row.label)
    if in_model is not None:
        col.label(text=f"In the model: {in_model.get('segment', 'landmark only')}"
                       + (f" ({', '.join(in_model['landmarks'])})" if in_model.get("landmarks") else ""))
    elif row.label in model.get("ignored_markers", {}):
        col.label(text=f"Not in the model: {model['ignored_markers'][row.label]}")
        if (moving := model.get("markers_moving_with", {}).get(row.label)) is not None:
            col.label(text=f"Moves rigidly with the {moving['segment']} ({1000 * moving['spread_m']:.0f} mm spread)",
                      icon="INFO")


class MOCAP_DYNAMICS_PT_reconstruct(_SubStep, bpy.types.Panel):
    bl_label = "3. Reconstruct"

    def draw(self, context):
        layout = self.layout
        rec: ReconstructionSummary
        box, rec = _step(layout, context, MOCAP_DYNAMICS_OT_reconstruct, "POSE_HLT", "reconstruction",
                         "Fit the armature to the markers, joints exact (OTM).")
        if box is None:
            return
        complete = rec["frames_converged"] == rec["frames"] - rec["frames_without_data"]
        box.label(text=f"{rec['frames_converged']}/{rec['frames']} frames converged",
                  icon="CHECKMARK" if complete else "ERROR")
        box.label(text=f"Marker RMS {figure(rec.get('marker_rms_m'), '.1f', 1000)} mm, "
                       f"{figure(rec.get('seconds_per_frame'), '.2f', 1000)} ms per frame")
        if rec["frames_without_data"]:
            box.label(text=f"{rec['frames_without_data']} frames without pelvis markers: pose held, no forces",
                      icon="ERROR")
        for segment, frames in rec.get("frames_held", {}).items():
            box.label(text=f"{segment} held on its parent in {frames} frames (no markers)", icon="ERROR")
        lighter = rec.get("samples_down_weighted", {})
        if lighter:
            box.label(text=f"{len(lighter)} markers weigh less where they left their segment "
                           f"({sum(lighter.values())} samples)")
        box.label(text="Worst markers (median error):")
        for label, error in rec["worst_markers_median_m"].items():
            box.label(text=f"  {label}: {1000 * error:.1f} mm")
        filled = active_trial(context)[1].get("gap_fill")
        if filled:
            box.label(text=f"Gap filling ({filled['options']['method']}): {filled['samples_filled']} samples of "
                           f"{len(filled['markers'])} markers filled (violet), {filled['gaps_left']} gaps left",
                      icon="CHECKMARK" if not filled["gaps_left"] else "INFO")
            for label, entry in sorted(filled["markers"].items(), key=lambda kv: -kv[1]["frames_filled"])[:3]:
                box.label(text=f"  {label}: " + ", ".join(f"{n} frames by {method}"
                                                          for method, n in entry["by_method"].items()))


class MOCAP_DYNAMICS_PT_dynamics(_SubStep, bpy.types.Panel):
    bl_label = "4. Dynamics"

    def draw(self, context):
        layout = self.layout
        dyn: DynamicsSummary
        box, dyn = _step(layout, context, MOCAP_DYNAMICS_OT_inverse_dynamics, "FORCE_FORCE", "dynamics",
                         "Joint torques and root residual forces (needs a reconstruction).")
        if box is None:
            return
        without = dyn["without_external_forces"].get("root_force_mean_percent_bw")
        box.label(text=f"Filter: {filter_text(dyn['derivatives'])}")
        box.label(text=f"Root residual without contact: {figure(without, '.0f')} % BW")
        if "with_measured_plates" in dyn:
            box.label(text=f"With measured plates: "
                           f"{figure(dyn['with_measured_plates'].get('root_force_mean_percent_bw'), '.0f')} % BW")
        if "with_plates_and_estimated_support" in dyn:  # the plates and, where none measures, the estimate
            filled = dyn["with_plates_and_estimated_support"].get("root_force_mean_percent_bw")
            box.label(text=f"With them and the estimate where none measures: {figure(filled, '.0f')} % BW")
        box.label(text=f"Disks show torques with {dyn['torques_with']}")
        _peaks(box, dyn["peak_joint_torque_nm"], 4, 0)


class MOCAP_DYNAMICS_PT_contact(_SubStep, bpy.types.Panel):
    bl_label = "5. Contact"

    def draw(self, context):
        layout = self.layout
        contact: ContactSummary
        box, contact = _step(layout, context, MOCAP_DYNAMICS_OT_estimate_contact, "MOD_PHYSICS", "contact",
                             "Surfaces and ground forces from the motion alone.")
        if box is None:
            return
        box.label(text=f"Forces: {'per frame' if contact.get('forces') == 'per_frame' else 'springs (paper)'}; "
                       f"root force explained {figure(contact.get('explained_force'), '.0f', 100)} %")
        if not contact["surfaces"]:
            box.label(text="No support found: nothing rests on a surface", icon="INFO")
        for surface in contact["surfaces"]:
            above = f" ({100 * surface['height_above_floor_m']:.1f} over the floor)" \
                if "height_above_floor_m" in surface else ""
            box.label(text=f"{surface['name'].capitalize()}: {100 * surface['height_m']:.1f} cm high{above}, "
                           f"tilted {surface['tilt_deg']:.1f}°, {len(surface['load_intervals_s'])} loaded intervals")
        if (flown := contact.get("flight")) is not None:
            box.label(text=f"In flight {flown['seconds']:.2f} s: root force {flown['root_force_rms_percent_bw']:.0f} "
                           "% BW RMS (0 if exact)")
            if "explained_force_in_reach" in flown:  # not in the figures a .blend saved before 2026-12-07 keeps
                box.label(text=f"Root force explained near a surface: "
                               f"{figure(flown['explained_force_in_reach'], '.0f', 100)} %")
        if "resting_height_m" in contact:
            box.label(text=f"Resting height {100 * contact['resting_height_m']:.1f} cm; stiffness "
                           f"{contact['stiffness']:.1f}, damping {contact['normal_damping']:.1f} / "
                           f"{contact['tangential_damping']:.1f}")
        plates = contact.get("plates")
        if plates and plates["frames_compared"] == 0:
            box.label(text="Plates: no frame to compare (no loaded foot on a plate with data)")
        elif plates:
            box.label(text=f"Vertical GRF vs plates: RMSE {figure(plates.get('rmse_vertical_bw_percent'), '.1f')} "
                           f"% BW, r = {figure(plates.get('correlation_vertical'), '.2f')}")
            if (found := joint_moments_figures(plates)) is not None:
                moments, where = found
                box.label(text=f"Joint moments vs plates ({where}): r {figure(moments.get('mean_r'), '.2f')}, "
                               f"RMSE {figure(moments.get('mean_rmse_nm_per_kg'), '.2f')} N·m/kg")
        for lines in (contact.get("warnings", []), plates.get("warnings", []) if plates else []):
            for line in lines:  # a trial ending mid-impact; the plates out of time, or giving another body mass
                box.label(text=line, icon="ERROR")


class MOCAP_DYNAMICS_PT_zero_gravity(_SubStep, bpy.types.Panel):
    bl_label = "6. Zero Gravity"

    def draw(self, context):
        layout = self.layout
        settings = context.scene.mocap_dynamics
        col = layout.column(align=True)
        col.prop(settings, "zero_gravity")
        kind = settings.zero_gravity
        if kind == "captured":
            col.prop(settings, "zero_gravity_momentum")
        else:
            if kind != "ladder":
                col.prop(settings, "zero_gravity_limbs")
            col.prop(settings, "zero_gravity_angle")
            if kind in ("sequence", "leg_twisting", "leg_closing"):
                col.prop(settings, "zero_gravity_lift")
            col.prop(settings, "zero_gravity_duration")
            if kind == "ladder":
                col.prop(settings, "zero_gravity_rungs")
            elif kind != "minimum_torque":
                col.prop(settings, "zero_gravity_v_max")
        col.prop(settings, "zero_gravity_beside")
        box, zerog = _step(layout, context, MOCAP_DYNAMICS_OT_zero_gravity, "WORLD", "zero_gravity",
                           "The subject free-floating, in orbit: a new action.")
        if box is None:
            return
        box.label(text=f"{zerog['method'].replace('_', ' ')}: {zerog['frames']} frames, {zerog['duration_s']:.2f} s")
        box.label(text=f"Torso turns {zerog['torso_reorientation_deg']:.1f}°")
        _peaks(box, zerog["peak_joint_torque_nm"], 3, 1)


class MOCAP_DYNAMICS_PT_visuals(_SubStep, bpy.types.Panel):
    bl_label = "7. Visuals"

    def draw(self, context):
        scene = context.scene
        shown = False
        for prop, text in ((FORCE_SCALE_PROP, "Force Arrow Scale (m/N)"),
                           (TORQUE_SCALE_PROP, "Torque Disk Scale (m/N·m)")):
            if prop in scene:
                self.layout.prop(scene, f'["{prop}"]', text=text)
                shown = True
        if not shown:
            self.layout.label(text="Arrows and disks appear with force plates or dynamics.")
        self.layout.label(text="Render Overlay (for slides):")
        row = self.layout.row(align=True)
        for output, text, icon in (("STILL", "Still", "RENDER_STILL"), ("SEQUENCE", "PNG Sequence", "SEQUENCE"),
                                   ("MOVIE", "MP4", "RENDER_ANIMATION")):
            row.operator(MOCAP_DYNAMICS_OT_render_overlay.bl_idname, text=text, icon=icon).output = output


class MOCAP_DYNAMICS_PT_retarget(_SubStep, bpy.types.Panel):
    bl_label = "8. Retarget"

    def draw(self, context):
        layout = self.layout
        settings = context.scene.mocap_dynamics_retarget
        col = layout.column(align=True)
        col.prop(settings, "target")
        col.prop(settings, "source")
        row = col.row(align=True)
        row.prop(settings, "foot_lock")
        row.prop(settings, "blend")
        col.prop(settings, "visuals")
        trial = active_trial(context)[0]
        rigs = trial_rigs(trial) if trial is not None else []
        if rigs and read_floor_velocity(rigs[0]).any():  # on a treadmill
            col.prop(settings, "belt_travel", text="Walk On (the Belt's Travel)")
        target = settings.target
        if target is None:
            layout.label(text="Pick your character's armature.")
            return
        row = layout.row(align=True)
        row.operator("mocap_dynamics.detect_mapping", icon="BONE_DATA")
        row.operator("mocap_dynamics.save_mapping_preset", text="", icon="FILE_TICK")
        row = layout.row(align=True)
        row.prop(settings, "preset", text="")
        row.operator("mocap_dynamics.load_mapping_preset", text="", icon="FILE_FOLDER")
        table = settings.table(target) is not None
        if table:
            row = layout.row()
            row.template_list("MOCAP_DYNAMICS_UL_bone_mapping", "", settings, "mapping", settings, "mapping_index",
                              rows=6)
            col = row.column(align=True)
            col.operator("mocap_dynamics.mapping_row", text="", icon="ADD").remove = False
            col.operator("mocap_dynamics.mapping_row", text="", icon="REMOVE").remove = True
        else:
            layout.label(text="Bones are detected when you retarget.")
        op = layout.operator(MOCAP_DYNAMICS_OT_retarget.bl_idname, icon="ARMATURE_DATA")
        op.target, op.source, op.use_table = target.name, settings.source, table
        op.foot_lock, op.blend, op.visuals = settings.foot_lock, settings.blend, settings.visuals
        op.belt_travel = settings.belt_travel
        layout.operator("mocap_dynamics.export_animation", icon="EXPORT").target = target.name
        done = target.get(ACTION_PROP)
        if done:
            box = layout.box().column(align=True)
            box.label(text=f"{done['action']}: {done['frames']} frames, {done['family']}")
            box.label(text=f"Legs x{done['leg_length_ratio']:.2f}; {done['stances']} stances planted")
            box.label(text=f"Contact slide {1000 * done['max_contact_slide_m']:.1f} mm, "
                           f"hips lowered up to {1000 * done['max_hip_drop_m']:.0f} mm")


class MOCAP_DYNAMICS_PT_export(_SubStep, bpy.types.Panel):
    bl_label = "9. Export"

    def draw(self, context):
        self.layout.operator(MOCAP_DYNAMICS_OT_export_results.bl_idname, icon="EXPORT")
        self.layout.label(text="Angles, torques and residuals, estimated GRF (OpenSim, CSV), plots;")
        self.layout.label(text="optionally an OpenSim model with the motion, loads and moments.")


CLASSES = (
    MOCAP_DYNAMICS_PT_main,
    MOCAP_DYNAMICS_PT_import,
    MOCAP_DYNAMICS_PT_body_model,
    MOCAP_DYNAMICS_PT_marker_mapping,
    MOCAP_DYNAMICS_PT_reconstruct,
    MOCAP_DYNAMICS_PT_dynamics,
    MOCAP_DYNAMICS_PT_contact,
    MOCAP_DYNAMICS_PT_zero_gravity,
    MOCAP_DYNAMICS_PT_visuals,
    MOCAP_DYNAMICS_PT_retarget,
    MOCAP_DYNAMICS_PT_export,
)


register, unregister = bpy.utils.register_classes_factory(CLASSES)
