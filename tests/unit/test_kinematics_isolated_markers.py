"""A marker that leaves its segment while the segment's other markers stay on it weighs less in the
reconstruction (``kinematics.isolated_markers``); a whole segment off the model keeps its weights."""

from __future__ import annotations

import shutil
from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.errors import InputError
from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.io.trc import write_trc
from mocap_dynamics.solver.kinematics.isolated_markers import HUBER_M, isolated_marker_weights
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
    """walking1 as recorded, and with one thigh marker wandering 12 cm off (a Hann bump) and back, reconstructed
    with the default weights and with the paper's equal ones."""
    folder = tmp_path_factory.mktemp("wandering")
    trial = load_trial(shared_data / f"{TRIAL}.trc")
    markers = trial.markers.copy()
    bump = np.hanning(EXCURSION.stop - EXCURSION.start)
    markers[EXCURSION, trial.labels.index(MARKER), 0] += OFF * bump
    write_trc(replace(trial, markers=markers), folder / f"{TRIAL}.trc")
    shutil.copy(shared_data / f"{TRIAL}_grf.mot", folder)
    options = PipelineOptions(until="reconstruct")
    return (run(shared_data / f"{TRIAL}.trc", options), run(folder / f"{TRIAL}.trc", options),
            run(folder / f"{TRIAL}.trc", replace(options, marker_weights="equal")))


def test_a_wandering_marker_turns_its_segment_less(runs):
    clean, isolated, equal = runs
    k = clean.model.names.index(SEGMENT)
    equal_turn = _turn_deg(clean.motion.rotations[:, k], equal.motion.rotations[:, k])[EXCURSION].max()
    isolated_turn = _turn_deg(clean.motion.rotations[:, k], isolated.motion.rotations[:, k])[EXCURSION].max()
    assert equal_turn > 4.0  # 4.9 deg
    assert isolated_turn < 0.7 * equal_turn  # 3.0 deg: Huber's weight, not a cut
    lighter = isolated.report()["reconstruction"]["samples_down_weighted"]
    assert list(lighter) == [MARKER] and 5 <= lighter[MARKER] <= EXCURSION.stop - EXCURSION.start


def test_markers_that_stay_on_their_segments_keep_the_paper_s_weights(runs):
    clean = runs[0]
    assert clean.report()["reconstruction"]["samples_down_weighted"] == {}
    assert clean.motion.info["weights"] == "default"


def test_a_whole_segment_off_keeps_its_weights(runs):
    model = runs[0].model
    errors = np.full((3, len(model.marker_labels)), 0.005)
    columns = [model.marker_labels.index(label) for label in model.segments[model.names.index(SEGMENT)].markers]
    errors[1, columns] = 0.06  # every thigh marker 6 cm off: the model, not a marker
    assert isolated_marker_weights(model, errors) is None
    errors[2, columns[0]] = 0.06 + 3 * HUBER_M  # one marker alone, far off
    weights = isolated_marker_weights(model, errors)
    assert weights[2, columns[0]] < 0.5 and np.count_nonzero(weights < 1) == 1
    errors[2, columns[1:len(columns) - 2]] = np.nan  # three of the thigh's markers left: too few to judge one
    assert isolated_marker_weights(model, errors) is None


def test_unknown_marker_weights_are_refused_naming_the_option():
    with pytest.raises(InputError, match="marker_weights"):
        PipelineOptions(marker_weights="robust")
