"""Sidebar steps after import: body model, reconstruction, dynamics, export.

Each step runs the one pipeline function on the active trial's source file
with the options stored on its collection (plus the step's own), up to its
stage, resuming from the trial's last result in this session (only what the
step's options change is computed again), in the background with a status
line and Esc to cancel (``jobs``); then it extends the trial's collection
with what it produced.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, StringProperty

from ..solver.errors import MocapError
from ..solver.kinematics.gap_fill import GapFillOptions
from ..solver.kinematics.marker_weights import ROOT_WEIGHT
from ..solver.model import TEMPLATES
from ..solver.model.inertia import SHOE_MASS
from ..solver.pipeline import STAGES, run
from ..solver.results import write_results
from ..solver.zerog import ZeroGravityOptions
from .jobs import Job, JobOperator, busy
from .mapping import fill_rows
from .process import trial_job
from .paths import PATH_OPTIONS, output_path
from .session import collection_of, keep_result, last_result, stored_options, trial_inputs
from .trial_scene import SceneOptions, trial_metadata


def active_trial(context: bpy.types.Context):
    """The trial collection the sidebar works on, and its metadata (or ``(None, None)``)."""
    collection = context.scene.mocap_dynamics.active_trial
    return collection, trial_metadata(collection)


def step_job(context: bpy.types.Context, until: str, label: str, scene_options: SceneOptions = SceneOptions(),
             **changes) -> Job:
    """The job of a sidebar step: the pipeline on the active trial up to ``until`` with the trial's stored
    options and ``changes``, then its collection extended."""
    collection, meta = active_trial(context)
    source, options = trial_inputs(meta, until=until, **changes)
    return trial_job(label, source, options, scene_options, collection)


def report_warnings(operator: bpy.types.Operator, result) -> None:
    for warning in result.model.metadata["calibration"].warnings:
        operator.report({"WARNING"}, warning)


def _typed(value: float) -> float:
    """A float property's value as typed: Blender keeps 32-bit floats (a tolerance of 1e-7 reads back
    1.0000000116860974e-07), which would never equal the stored option and make an unchanged step run again."""
    return float(f"{value:.6g}")


class _Step(JobOperator):
    bl_options = {"UNDO"}

    def step(self, context, until: str, scene_options: SceneOptions = SceneOptions(), **changes) -> Job | None:
        """``step_job`` for this operator; None, with the reason reported, for bad options."""
        try:
            return step_job(context, until, self.bl_label, scene_options, **changes)
        except MocapError as error:
            self.report({"ERROR"}, error.one_line())
            return None

    @classmethod
    def poll(cls, context):
        return not busy() and active_trial(context)[1] is not None

    def invoke(self, context, event):
        return context.window_manager.invoke_props_dialog(self)


TEMPLATE_ITEMS = [(name, name, template.description) for name, template in TEMPLATES.items()]
_GAP_FILL = GapFillOptions()
GAP_FILL_ITEMS = [
    ("auto", "Auto", "Spline for short gaps, the segment's other markers as a rigid body, PCA or two markers (where "
              "tested) for longer ones"),
    ("spline", "Spline", "A spline through the marker's own samples"),
    ("rigid", "Rigid Body", "The other markers of the marker's segment, moving as one rigid body"),
    ("pca", "PCA", "The marker's correlation with all other markers (Gløersen & Federolf 2016)"),
    ("hinge", "Hinge", "Two markers that move with it, the turn about their axis from a third or interpolated"),
    ("none", "Off", "Leave gaps as gaps")]


class MOCAP_DYNAMICS_OT_build_armature(_Step, bpy.types.Operator):
    """Calibrate the subject's body model from the active trial's markers and build (or rebuild) its armature"""

    bl_idname = "mocap_dynamics.build_armature"
    bl_label = "Build Armature"

    template: EnumProperty(name="Model", items=TEMPLATE_ITEMS)
    mass: FloatProperty(name="Body Mass", default=0.0, min=0.0, soft_max=200.0, unit="MASS",
                        description="Subject mass in kg; 0 = from the static trial's quiet standing on force plates "
                                    "unless this trial's plates differ by over 3 %, else from this trial's plates, "
                                    "else 70 kg (flagged)")
    sex: EnumProperty(name="Inertia Table", items=[("male", "de Leva (male)", ""), ("female", "de Leva (female)", "")])
    shoe_mass: FloatProperty(name="Shoe Mass", default=SHOE_MASS, min=0.0, soft_max=1.0, unit="MASS",
                             description="Mass of each shoe, part of the body mass, added to the feet; 0 = barefoot")
    head: EnumProperty(name="Head and Trunk Without Markers", items=[
        ("level", "Held", "A head upright, facing where the torso faces; a lower-body marker set's head, arms "
                          "and trunk following the pelvis's slow motion (their angles are assumed)"),
        ("welded", "Welded", "Riding on their parents at their calibrated postures (the papers' rigid upper "
                             "body)")])
    static_filepath: StringProperty(name="Static Trial", subtype="FILE_PATH", options=PATH_OPTIONS,
                                    description="Optional static trial of the same subject for calibration")
    markerset_filepath: StringProperty(name="Marker Set", subtype="FILE_PATH", options=PATH_OPTIONS,
                                       description="Optional marker-set TOML (e.g. saved from Marker Mapping); "
                                                   "empty: the labels are read by meaning")

    def invoke(self, context, event):
        stored = (active_trial(context)[1] or {}).get("options", {}).get("markerset")
        if stored and not self.markerset_filepath:  # e.g. the one Save Marker Set wrote
            self.markerset_filepath = stored
        return super().invoke(context, event)

    def job(self, context):
        return self.step(context, "calibrate", template=self.template, mass=_typed(self.mass) or None, sex=self.sex,
                         shoe_mass=_typed(self.shoe_mass), head=self.head,
                         static=bpy.path.abspath(self.static_filepath) or None,
                         markerset=bpy.path.abspath(self.markerset_filepath) or None)

    def finished(self, context, outcome):
        result, collection = outcome
        report_warnings(self, result)
        if not collection.mocap_dynamics_markers:
            fill_rows(collection, result.trial.labels, result.trial.metadata.get("point_descriptions"))
        model = result.model
        self.report({"INFO"}, f"{model.metadata['calibration'].template}: {len(model.segments)} segments, "
                              f"{model.total_mass:.1f} kg ({model.mass_source})")
        return {"FINISHED"}


class MOCAP_DYNAMICS_OT_reconstruct(_Step, bpy.types.Operator):
    """Reconstruct the motion (Optimal Tracking Method, or Lee's constraint-consistent estimate) onto the armature"""

    bl_idname = "mocap_dynamics.reconstruct"
    bl_label = "Reconstruct Motion"

    method: EnumProperty(name="Method", items=[
        ("otm", "OTM", "Optimal Tracking Method (Ausejo et al.): joints exact, markers fitted best"),
        ("lee", "Lee (constraint-consistent)", "Lee 2009: positions, velocities and accelerations that satisfy "
                                               "joint, centre-of-mass and flight constraints")])
    mode: EnumProperty(name="OTM Solver", items=[
        ("fast", "Fast", "Tree-structured Gauss-Newton with numba; same answer as the paper's mode"),
        ("paper", "Paper (QR)", "Ausejo et al.'s QR solution of the KKT system, as published (slow)")])
    tolerance: FloatProperty(name="Tolerance", default=1e-7, min=1e-12, max=1e-2, precision=9,
                             description="Convergence tolerance on the norm of the joint constraints")
    marker_weights: EnumProperty(name="Marker Weights", items=[
        ("weighted", "Weighted", f"The pelvis's markers weigh {ROOT_WEIGHT:g}; a marker that leaves its segment "
                                 "while the segment's other markers stay on it weighs less (Huber's weight; a "
                                 "second pass)"),
        ("equal", "Equal", "Every marker weighs the same, as the paper has it")])
    gap_fill: EnumProperty(name="Gap Filling", items=GAP_FILL_ITEMS,
                           description="How missing marker samples are filled before reconstruction; filled "
                                       "samples show a violet sphere on the marker")
    max_gap: FloatProperty(name="Longest Gap", default=_GAP_FILL.max_gap_s, min=0.0, soft_max=5.0,
                           unit="TIME_ABSOLUTE", description="Fill no gap longer than this (0 = no limit)")

    def invoke(self, context, event):
        stored = active_trial(context)[1].get("options", {}).get("gap_fill", {})
        self.gap_fill = stored.get("method", _GAP_FILL.method)
        self.max_gap = stored.get("max_gap_s", _GAP_FILL.max_gap_s)
        return super().invoke(context, event)

    def job(self, context):
        stored = stored_options(active_trial(context)[1]).gap_fill
        gap_fill = replace(stored, method=self.gap_fill, max_gap_s=_typed(self.max_gap))
        return self.step(context, "reconstruct", method=self.method, otm_mode=self.mode,
                         tolerance=_typed(self.tolerance), marker_weights=self.marker_weights, gap_fill=gap_fill)

    def finished(self, context, outcome):
        result, _ = outcome
        report_warnings(self, result)
        filled = result.gap_fill.summary()
        if filled["samples_filled"]:
            self.report({"INFO"}, f"gap filling: {filled['samples_filled']} samples of {len(filled['markers'])} "
                                  f"markers filled, {filled['gaps_left']} gaps left")
        converged = result.motion.converged
        if not converged.all():
            self.report({"WARNING"}, f"{int((~converged).sum())} frames did not converge (flagged in the report)")
        self.report({"INFO"}, f"{int(converged.sum())}/{len(converged)} frames converged")
        return {"FINISHED"}


class MOCAP_DYNAMICS_OT_inverse_dynamics(_Step, bpy.types.Operator):
    """Compute joint torques and root residual forces and show them on the rig"""

    bl_idname = "mocap_dynamics.inverse_dynamics"
    bl_label = "Compute Dynamics"

    filter: EnumProperty(name="Filter", items=[
        ("auto", "Automatic", "Zero-lag Butterworth filter at the cutoff Winter's residual analysis finds for this "
                              "trial where the body lands, 6 Hz for 0.4 s after a hard landing, elsewhere at "
                              "most 8 Hz (more for a runner's short contacts; the validated default)"),
        ("fixed", "Fixed Cutoff", "Zero-lag Butterworth filter at the cutoff below"),
        ("none", "None (paper)", "No filter: the paper's plain differences of the reconstructed motion")])
    cutoff: FloatProperty(name="Cutoff (Hz)", default=8.0, min=0.5, soft_max=30.0,
                          description="Cutoff of the fixed filter, in Hz")
    derivatives: EnumProperty(name="Derivatives", items=[
        ("central", "Central", "Central differences, centred on each frame (the validated default)"),
        ("forward", "Forward (paper)", "The paper's forward differences, consistent with Euler integration")])
    per_kg: BoolProperty(name="Per kg Body Mass", description="Show torque and force curves per kg body mass")

    def job(self, context):
        cutoff = _typed(self.cutoff) if self.filter == "fixed" else self.filter
        return self.step(context, "dynamics", SceneOptions(per_kg=self.per_kg), cutoff=cutoff,
                         derivatives=self.derivatives)

    def finished(self, context, outcome):
        result, _ = outcome
        report_warnings(self, result)
        figures = result.dynamics.residual_summary()  # the report's dynamics/without_external_forces
        self.report({"INFO"}, f"root residual force {figures['root_force_mean_percent_bw']:.0f} "
                              f"% body weight without contact forces")
        return {"FINISHED"}


class MOCAP_DYNAMICS_OT_estimate_contact(_Step, bpy.types.Operator):
    """Estimate the surfaces the subject rests on and the ground reaction forces from the motion alone"""

    bl_idname = "mocap_dynamics.estimate_contact"
    bl_label = "Estimate Contact"

    forces: EnumProperty(name="Forces", items=[
        ("per_frame", "Per frame", "Forces solved frame by frame at the contact points near the surfaces, within "
                                   "friction cones (the validated default)"),
        ("spring", "Springs (paper)", "Brubaker et al.'s damped springs (eqs. 4-7) with the stiffness and damping "
                                      "estimated by eq. 10")])
    surfaces: EnumProperty(name="Surfaces", items=[
        ("auto", "Automatic", "Found from resting points for per-frame forces (floor, boxes, seats); the paper's "
                              "plane for springs"),
        ("detected", "From Resting Points", "The floor and raised surfaces (a box, a step, a seat) found from where "
                                            "body points rest"),
        ("plane", "One Plane (paper)", "One plane fitted to the root forces (eq. 10)")])

    def job(self, context):
        return self.step(context, "contact", contact_forces=self.forces,
                         surfaces=None if self.surfaces == "auto" else self.surfaces)

    def finished(self, context, outcome):
        result, _ = outcome
        report_warnings(self, result)
        for warning in result.contact.warnings:
            self.report({"WARNING"}, warning)
        message = result.contact.headline
        if result.plate_comparison is not None and result.plate_comparison.covered.any():
            message += (f"; vertical GRF vs plates: RMSE {result.plate_comparison.rmse_vertical:.1f} % BW, "
                        f"r = {result.plate_comparison.correlation_vertical:.2f}")
        self.report({"INFO"}, message)
        return {"FINISHED"}


def sidebar_zero_gravity(context: bpy.types.Context) -> tuple[ZeroGravityOptions, SceneOptions]:
    """The zero-gravity simulation the sidebar's settings ask for, and where to key it."""
    s = context.scene.mocap_dynamics
    options = ZeroGravityOptions(kind=s.zero_gravity, momentum=s.zero_gravity_momentum,
                                 limbs=s.zero_gravity_limbs, angle_deg=s.zero_gravity_angle,
                                 lift_deg=s.zero_gravity_lift, duration_s=s.zero_gravity_duration,
                                 v_max_deg_s=s.zero_gravity_v_max or None, rungs=s.zero_gravity_rungs)
    return options, SceneOptions(zero_gravity_beside=s.zero_gravity_beside)


class MOCAP_DYNAMICS_OT_zero_gravity(_Step, bpy.types.Operator):
    """Simulate the subject in zero gravity (the sidebar's settings) and key it as a new action"""

    bl_idname = "mocap_dynamics.zero_gravity"
    bl_label = "Simulate in Zero Gravity"

    def invoke(self, context, event):
        return self.execute(context)  # the settings are in the sidebar

    def job(self, context):
        options, scene_options = sidebar_zero_gravity(context)
        return self.step(context, "zero_gravity", scene_options, zero_gravity=options)

    def finished(self, context, outcome):
        result, _ = outcome
        report_warnings(self, result)
        angle, _ = result.zero_gravity.torso_reorientation
        self.report({"INFO"}, f"{result.zero_gravity.motion.n_frames} frames; the torso turns {angle:.1f}°")
        return {"FINISHED"}


class MOCAP_DYNAMICS_OT_run_all(_Step, bpy.types.Operator):
    """Run every step on the active trial with its stored options and the sidebar's zero-gravity settings"""

    bl_idname = "mocap_dynamics.run_all"
    bl_label = "Run All Steps"

    def invoke(self, context, event):
        return self.execute(context)

    def job(self, context):
        options, scene_options = sidebar_zero_gravity(context)
        return self.step(context, STAGES[-1], scene_options, zero_gravity=options)

    def finished(self, context, outcome):
        result, _ = outcome
        report_warnings(self, result)
        self.report({"INFO"}, "; ".join([f"{stage} {seconds:.1f} s" for stage, seconds in result.timings.items()]
                                        + [f"{stage} reused" for stage in result.reused]))
        return {"FINISHED"}


class MOCAP_DYNAMICS_OT_export_results(_Step, bpy.types.Operator):
    """Write angles (.mot), torques and residuals (.sto), estimated GRF (.mot), CSV and plots of the active trial,
    and optionally the OpenSim model, coordinates, loads and moments"""

    bl_idname = "mocap_dynamics.export_results"
    bl_label = "Export Results"
    bl_options = set()  # the scene does not change

    directory: StringProperty(name="Folder", subtype="DIR_PATH", options=PATH_OPTIONS)
    opensim: BoolProperty(name="OpenSim Files", default=False,
                          description="Also write opensim/: the subject's model (.osim), the motion as its "
                                      "coordinates, the external loads and our moments, for OpenSim's tools")

    def invoke(self, context, event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def job(self, context):
        """The trial's last result (computed again as far as the trial went, if this session has none), written
        into the folder, all in the background."""
        collection, meta = active_trial(context)
        until = next((stage for key, stage in (("contact", "contact"), ("dynamics", "dynamics"),
                                               ("reconstruction", "reconstruct")) if key in meta), None)
        if until is None:
            self.report({"ERROR"}, "Nothing to export yet. Reconstruct the motion (and compute dynamics) first.")
            return None
        try:
            source, options = trial_inputs(meta, until=until)
            folder = output_path(self.directory, '"Folder"')
        except MocapError as error:
            self.report({"ERROR"}, error.one_line())
            return None
        previous, uid, opensim = last_result(collection), collection.session_uid, self.opensim

        def compute(progress):
            result = run(source, options, progress, previous=previous)
            progress(1.0, f"writing the tables to {folder}")
            return result, write_results(result, folder, opensim=opensim, flag='"Folder"')

        def apply(value):
            result, written = value
            trial = collection_of(uid)
            if trial is not None:
                keep_result(trial, result)
            return written

        return Job(self.bl_label, compute, apply)

    def finished(self, context, outcome):
        written, notes = outcome
        for note in notes:
            self.report({"WARNING"}, note)
        self.report({"INFO"}, f"Wrote {len(written)} files to {Path(written[0]).parent if written else self.directory}")
        return {"FINISHED"}


CLASSES = (MOCAP_DYNAMICS_OT_build_armature, MOCAP_DYNAMICS_OT_reconstruct, MOCAP_DYNAMICS_OT_inverse_dynamics,
           MOCAP_DYNAMICS_OT_estimate_contact, MOCAP_DYNAMICS_OT_zero_gravity, MOCAP_DYNAMICS_OT_run_all,
           MOCAP_DYNAMICS_OT_export_results)


register, unregister = bpy.utils.register_classes_factory(CLASSES)
