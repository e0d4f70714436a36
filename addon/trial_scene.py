"""Turn a pipeline result into Blender data: one collection per trial.

The collection holds the marker empties and the force plates, and carries the
trial's metadata (``collection["mocap_dynamics"]``: source, rate, units and
axes conversions, gap statistics, body weight) for the sidebar and for anyone
reading the .blend later.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import bpy
import numpy as np

from ..solver.io.trial import resample
from ..solver.pipeline import PipelineResult
from .force_plates import build_plates
from .markers import build_markers

META_PROP = "mocap_dynamics"


@dataclass(frozen=True)
class SceneOptions:
    """How the trial lands in the scene.

    ``timing``: "TRIAL" sets the scene's frame rate and range to the trial
    (one key per sample); "KEEP" keeps the scene's frame rate and resamples the
    trial to it. ``start_frame`` is the frame of the trial's first sample.
    """

    timing: str = "TRIAL"
    start_frame: int = 1
    marker_size: float = 0.015
    marker_display: str = "SPHERE"


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


def build_trial_scene(context: bpy.types.Context, result: PipelineResult, options: SceneOptions) -> bpy.types.Collection:
    """Create the trial's collection in the active scene and key everything; returns the collection."""
    scene = context.scene
    trial = result.trial
    if options.timing == "TRIAL":
        _set_scene_rate(scene, trial.rate)
    else:
        trial = resample(trial, _scene_rate(scene))
    frames = options.start_frame + np.arange(trial.n_frames, dtype=float)
    if options.timing == "TRIAL":
        scene.frame_start = options.start_frame
        scene.frame_end = options.start_frame + trial.n_frames - 1

    root = bpy.data.collections.new(Path(result.source).stem)
    scene.collection.children.link(root)
    markers = bpy.data.collections.new(f"{root.name} markers")
    root.children.link(markers)
    build_markers(trial, markers, frames, options.marker_size, options.marker_display)
    if trial.plates:
        plates = bpy.data.collections.new(f"{root.name} force plates")
        root.children.link(plates)
        build_plates(trial, plates, frames, scene)

    meta = result.report()
    meta["scene"] = {"start_frame": options.start_frame, "timing": options.timing,
                     "keyed_rate_hz": trial.rate, "keyed_frames": trial.n_frames}
    root[META_PROP] = _id_properties(meta)
    scene.frame_set(options.start_frame)
    return root


def trial_metadata(collection: bpy.types.Collection | None) -> dict | None:
    """The metadata stored on a trial collection, as plain Python, or None."""
    if collection is None or META_PROP not in collection:
        return None
    return collection[META_PROP].to_dict()
