"""OTM's marker weights (``kinematics.marker_weights``): the pelvis's markers weigh more, which brings the motion
alone closer to the force plates; a marker that leaves its segment while the segment's other markers stay on it
weighs less; a whole segment off the model keeps its weights."""

from __future__ import annotations

import shutil
from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.errors import InputError
from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.io.trc import write_trc
from mocap_dynamics.solver.kinematics.marker_weights import HUBER_M, ROOT_WEIGHT, isolated_marker_weights, \
    root_weights
from mocap_dynamics.solver.pipeline import PipelineOptions, run

TRIAL = "subject4_walking1"
MARKER, SEGMENT = "L_thigh2", "thigh_l"
EXCURSION = slice(40, 60)  # 0.2 s, as the video walk's L_thigh2 (103 mm for 0.17 s)
OFF = 0.12  # [m] at the excursion's top


def _turn_deg(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Angle [deg] of the rotation between rotation matrices ``a`` and ``b`` (..., 3, 3)."""
    cosine = (np.einsum("...ij,...ij->...", a, b) - 1.0) / 2.0
    return np.degrees(np.arccos(np.clip(cosine, -1.0, 1.0)))


@pytest.fixture(scope="module")
def runs(shared_data, tmp_path_factory):
    """walking1 as recorded ("clean") and with one thigh marker wandering 12 cm off (a Hann bump) and back
    ("wandering"), each reconstructed with the default weights and with the paper's equal ones."""
    folder = tmp_path_factory.mktemp("wandering")
    trial = load_trial(shared_data / f"{TRIAL}.trc")
    markers = trial.markers.copy()
    markers[EXCURSION, trial.labels.index(MARKER), 0] += OFF * np.hanning(EXCURSION.stop - EXCURSION.start)
    write_trc(replace(trial, markers=markers), folder / f"{TRIAL}.trc")
    shutil.copy(shared_data / f"{TRIAL}_grf.mot", folder)
    files = {"clean": shared_data / f"{TRIAL}.trc", "wandering": folder / f"{TRIAL}.trc"}
    return {(name, weights): run(path, PipelineOptions(until="reconstruct", marker_weights=weights))
            for name, path in files.items() for weights in ("weighted", "equal")}


def test_the_pelvis_s_markers_weigh_more(runs):
    model = runs["clean", "weighted"].model
    weights = root_weights(model)
    pelvis = [model.marker_labels.index(label) for label in model.segments[0].markers]
    assert len(pelvis) == 4 and (weights[pelvis] == ROOT_WEIGHT).all()
    assert np.count_nonzero(weights != 1.0) == len(pelvis)


def test_a_wandering_marker_turns_its_segment_less(runs):
    k = runs["clean", "weighted"].model.names.index(SEGMENT)

    def turn(weights):
        clean, wandering = runs["clean", weights].motion, runs["wandering", weights].motion
        return _turn_deg(clean.rotations[:, k], wandering.rotations[:, k])[EXCURSION].max()

    assert turn("equal") > 4.0  # 4.9 deg
    assert turn("weighted") < 0.7 * turn("equal")  # 3.0 deg: Huber's weight, not a cut
    lighter = runs["wandering", "weighted"].report()["reconstruction"]["samples_down_weighted"]
    assert list(lighter) == [MARKER] and 5 <= lighter[MARKER] <= EXCURSION.stop - EXCURSION.start


def test_markers_that_stay_on_their_segments_are_not_down_weighted(runs):
    assert runs["clean", "weighted"].report()["reconstruction"]["samples_down_weighted"] == {}
    assert runs["clean", "equal"].motion.info["weights"] == "default"


def test_a_whole_segment_off_keeps_its_weights(runs):
    model = runs["clean", "weighted"].model
    errors = np.full((3, len(model.marker_labels)), 0.005)
    columns = [model.marker_labels.index(label) for label in model.segments[model.names.index(SEGMENT)].markers]
    errors[1, columns] = 0.06  # every thigh marker 6 cm off: the model, not a marker
    assert isolated_marker_weights(model, errors) is None
    errors[2, columns[0]] = 0.06 + 3 * HUBER_M  # one marker alone, far off
    weights = isolated_marker_weights(model, errors)
    assert weights[2, columns[0]] < 0.5 and np.count_nonzero(weights < 1) == 1
    errors[2, columns[1:len(columns) - 2]] = np.nan  # three of the thigh's markers left: too few to judge one
    assert isolated_marker_weights(model, errors) is None


@pytest.mark.parametrize("trial", ["subject4_DJ3", "opencap_video_DJ4"])
def test_the_weighted_pelvis_brings_the_motion_alone_closer_to_the_plates(shared_data, trial):
    """The plates are only compared with: the drop jumps' vertical GRF from motion alone, 12.7 -> 11.8 and 14.4 ->
    13.1 % BW with the pelvis's markers weighing 3 (README: every trial's contact figures)."""
    rmse = {weights: run(shared_data / f"{trial}.trc", PipelineOptions(until="contact", marker_weights=weights))
            .plate_comparison.rmse_vertical for weights in ("weighted", "equal")}
    assert rmse["weighted"] < rmse["equal"] - 0.5


def test_unknown_marker_weights_are_refused_naming_the_option():
    with pytest.raises(InputError, match="marker_weights"):
        PipelineOptions(marker_weights="robust")
