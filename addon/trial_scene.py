"""Turn a pipeline result into Blender data: one collection per trial, extended stage by stage.

The collection holds the marker empties, the force plates and (after
calibration) the subject's armature, and carries the latest report
(``collection["mocap_dynamics"]``: source, options, rate, conversions, gap
statistics, body weight, body model figures) for the sidebar and for anyone
reading the .blend later.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import bpy
import numpy as np

from ..solver.io.trial import resample
from ..solver.kinematics.motion import Motion
from ..solver.pipeline import PipelineResult
from ..solver.report_schema import TrialMetadata
from ..solver.kinematics import marker_error_stats
from .armature import build_armature, key_motion
from .collections import META_PROP, child, child_collection, trial_name
from .contact_visuals import build_contact_visuals, drop_contact_visuals
from .dynamics_visuals import build_dynamics_visuals, drop_dynamics_visuals
from .force_plates import build_plates
from .markers import build_markers, show_filled
from .model_markers import build_model_markers, key_marker_errors
from .zero_gravity import drop_zero_gravity_visuals, key_zero_gravity, show_captured

@dataclass(frozen=True)
class SceneOptions:
    """How the trial lands in the scene.

    ``timing``: "TRIAL" sets the scene's frame rate and range to the trial
    (one key per sample); "KEEP" keeps the scene's frame rate and resamples the
    trial to it. ``start_frame`` is the frame of the trial's first sample.
    ``per_kg``: torque and force curves per kg body mass (None: as the trial's rig has them, so a step
    other than Dynamics keeps the Dynamics step's choice; N and N·m on a new rig). ``zero_gravity_beside``:
    the zero-gravity variant plays on a second rig beside the captured one (else it becomes the rig's active
    action).
    """

    timing: str = "TRIAL"
    start_frame: int = 1
    marker_size: float = 0.015
    marker_display: str = "SPHERE"
    per_kg: bool | None = None
    zero_gravity_beside: bool = True


def _set_scene_rate(scene: bpy.types.Scene, rate: float) -> None:
    """Scene fps = rate, using fps_base for non-integer rates (e.g. 59.94 Hz)."""
    fps = max(1, round(rate))
    scene.render.fps = fps
    scene.render.fps_base = fps / rate


def _scene_rate(scene: bpy.types.Scene) -> float:
    return scene.render.fps / scene.render.fps_base


def _id_properties(value):
    """A report value as ID properties: None dropped, tuples as lists, everything else as is."""
    if isinstance(value, dict):
        return {str(k): _id_properties(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_id_properties(v) for v in value]
    return value


def trial_metadata(collection: bpy.types.Collection | None) -> TrialMetadata | None:
    """The metadata stored on a trial collection (the report and the scene timing; keys whose value is None are
    left out), as plain Python, or None."""
    if collection is None or META_PROP not in collection:
        return None
    return collection[META_PROP].to_dict()


def _frames_at(meta: dict, times: np.ndarray) -> np.ndarray:
    """Scene frames of trial times [s] (fractional where the scene keeps its own rate)."""
    scene = meta["scene"]
    return scene["start_frame"] + (np.asarray(times) - scene["start_time_s"]) * scene["keyed_rate_hz"]


def create_trial_collection(context: bpy.types.Context, result: PipelineResult,
                            options: SceneOptions) -> bpy.types.Collection:
    """A new collection for the trial with its markers and force plates, keyed; sets scene timing."""
    scene = context.scene
    trial = result.trial
    if options.timing == "TRIAL":
        _set_scene_rate(scene, trial.rate)
        scene.frame_start = options.start_frame
        scene.frame_end = options.start_frame + trial.n_frames - 1
    else:
        trial = resample(trial, _scene_rate(scene))
    frames = options.start_frame + np.arange(trial.n_frames, dtype=float)
    root = bpy.data.collections.new(Path(result.source).stem)
    scene.collection.children.link(root)
    markers = bpy.data.collections.new(f"{root.name} markers")
    root.children.link(markers)
    build_markers(trial, markers, frames, options.marker_size, options.marker_display)
    if trial.plates:
        plates = bpy.data.collections.new(f"{root.name} force plates")
        root.children.link(plates)
        build_plates(trial, plates, frames, scene)
    root[META_PROP] = {"scene": {"name": root.name, "start_frame": options.start_frame, "timing": options.timing,
                                 "start_time_s": trial.start_time, "keyed_rate_hz": trial.rate,
                                 "keyed_frames": trial.n_frames}}
    scene.frame_set(options.start_frame)
    return root


def add_results(context: bpy.types.Context, result: PipelineResult, collection: bpy.types.Collection,
                options: SceneOptions = SceneOptions()) -> None:
    """Add what the later stages produced to the trial's collection and store the report.

    Calibration: the armature (posed at the calibration's initial frame until a
    motion is keyed). Gap filling: the filled samples keyed on the marker empties and
    marked (``markers.show_filled``). Reconstruction: the motion keyed on it, model markers
    coloured by their median error, per-frame marker errors. Dynamics: torque
    disks, the root residual arrow and magnitude curves (per kg if asked). Contact: the estimated plane,
    GRF arrows and curves. Zero gravity: a new named action (see ``zero_gravity.key_zero_gravity``). The
    dynamics', the contact's and the zero-gravity twin's visuals of an earlier run that ``result`` lacks are
    removed when its last step was computed anew (its options or an earlier step's changed, so they no longer
    match it); after a run that reused its last step (Reconstruct again, unchanged, to bring the captured
    motion back) they stay.
    """
    meta = trial_metadata(collection)
    if result.model is not None:
        name = trial_name(collection)
        rig = build_armature(context, result.model, collection, f"{name} rig")
        show_captured(collection, rig)
        motion = result.motion
        if motion is None:
            calibration = result.model.metadata["calibration"]
            motion = Motion.from_q(result.model, result.trial.times[[calibration.initial_frame]],
                                   np.array([calibration.initial_q]), method="calibration")
        key_motion(rig, motion, _frames_at(meta, motion.times), f"{name} captured")
        errors = {}
        markers = child(collection, f"{name} markers")  # None if the user deleted the empties
        if result.gap_fill is not None and markers is not None:
            show_filled(result.gap_fill, markers, child_collection(collection, f"{name} gap fills"),
                        _frames_at(meta, result.trial.times))
        if result.motion is not None:
            stats = marker_error_stats(result.motion)
            errors = dict(zip(stats.labels, stats.median))
            if markers is not None:
                key_marker_errors(result.motion, markers, _frames_at(meta, result.motion.times))
        build_model_markers(result.model, rig, child_collection(collection, f"{name} model markers"),
                            errors)
        recomputed = bool(result.steps) and list(result.steps)[-1] not in result.reused
        per_kg = options.per_kg if options.per_kg is not None else \
            str(rig.get("dynamics units", "")).startswith("N/kg")
        dynamics = result.best_dynamics
        if dynamics is not None:
            build_dynamics_visuals(context, dynamics, collection, rig, _frames_at(meta, dynamics.times),
                                   per_kg, motion=result.motion)
        elif recomputed:
            drop_dynamics_visuals(collection, rig)
        if result.contact is not None:
            build_contact_visuals(result.contact, result.trial, collection, rig,
                                  _frames_at(meta, result.contact.times), context.scene,
                                  moments_beside=result.motion_alone_dynamics is not None, per_kg=per_kg)
        elif recomputed:
            drop_contact_visuals(collection, rig, context.scene)
        if result.zero_gravity is not None:
            _add_zero_gravity(context, result, collection, rig, meta, options.zero_gravity_beside)
        elif recomputed:
            drop_zero_gravity_visuals(collection)
    stored: TrialMetadata = {**result.report(), "scene": meta["scene"]}
    collection[META_PROP] = _id_properties(stored)


def _add_zero_gravity(context: bpy.types.Context, result: PipelineResult, collection: bpy.types.Collection,
                      rig: bpy.types.Object, meta: dict, beside: bool) -> None:
    """Key the zero-gravity variant: the captured motion's at the trial's frames; a manoeuvre from the first
    frame on (the scene is lengthened if the manoeuvre is longer than the trial), its pelvis where the
    subject's was at the start."""
    zerog = result.zero_gravity
    kind = result.options.zero_gravity.kind
    times, place = zerog.motion.times, np.zeros(3)
    if kind != "captured":
        times = times - times[0] + meta["scene"]["start_time_s"]
        if result.motion is not None:
            place = result.motion.q[0, :3] - zerog.motion.q[0, :3]
    frames = _frames_at(meta, times)
    context.scene.frame_end = max(context.scene.frame_end, int(np.ceil(frames[-1] - 1e-6)))  # 324.00000000000006
    key_zero_gravity(context, zerog, collection, rig, frames, f"zero gravity {kind.replace('_', ' ')}", beside,
                     place)
