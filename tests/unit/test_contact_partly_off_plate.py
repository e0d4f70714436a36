"""A foot that stands partly off the plate of its stance (a C3D gives the plates' outlines): the real sprint, its
clean strikes as recorded and one plate's outline moved so that the forefoot lies off it."""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.contact.plate_feet import outside
from mocap_dynamics.solver.io import load_trial, write_c3d
from mocap_dynamics.solver.pipeline import PipelineOptions, run


def test_outside_a_plate_is_beyond_its_outline_by_the_margin_whichever_way_its_corners_turn():
    square = np.array([[0.0, 0.0, 0.0], [0.6, 0.0, 0.0], [0.6, 0.4, 0.0], [0.0, 0.4, 0.0]])
    points = np.array([[0.3, 0.2], [0.61, 0.2], [0.63, 0.2], [0.3, -0.03], [np.nan, 0.0]])
    for corners in (square, square[::-1]):
        assert outside(corners, points, 0.02).tolist() == [False, False, True, True, False]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division by a zero edge
        assert not outside(np.zeros((4, 3)), points, 0.02).any(), "corners written as zeros make no outline"


@pytest.fixture(scope="module")
def sprint(shared_data):
    path = shared_data / "sprint_forceplates_JA1Gait35.c3d"
    return path, run(path, PipelineOptions(until="contact"))


def test_the_sprints_clean_strikes_are_all_on_their_plates(sprint):
    _, result = sprint
    assert not [w for w in result.plate_comparison.warnings if "partly off" in w]


def first_stance(result):
    """The first plate stance the estimate has on a plate: the plate, its frames, the foot, the foot's middle
    (horizontal, over the stance) and the running direction."""
    comparison, contact = result.plate_comparison, result.contact
    p = next(p for p in range(len(comparison.plate_names)) if comparison.measured_plates[:, p, 2].max() > 0
             and comparison.estimated_plates[:, p, 2].max() > 0)
    stance = comparison.measured_plates[:, p, 2] > comparison.threshold
    foot = int(np.argmax(np.nansum(comparison.measured_feet[stance, :, 2], axis=0)))
    sole = contact.point_segments == contact.model.index(contact.feet[foot])
    return p, stance, foot, np.nanmean(contact.point_positions[stance][:, sole, :2], axis=(0, 1)), \
        comparison.forward[:2]


def behind(corners: np.ndarray, middle: np.ndarray, forward: np.ndarray) -> np.ndarray:
    """The plate's outline moved back along ``forward`` until its front edge crosses ``middle``."""
    moved = corners.copy()
    moved[:, :2] -= ((corners[:, :2] - middle) @ forward).max() * forward
    return moved


def rerun(path, plates, tmp_path):
    """The sprint with these plates, through a C3D."""
    trial = load_trial(path)
    return run(write_c3d(replace(trial, plates=plates, plate_samples=None), tmp_path / path.name),
               PipelineOptions(until="contact")).plate_comparison


def test_a_forefoot_off_its_plate_is_told_and_not_compared(sprint, tmp_path):
    """The plate under the first stance moved back (its outline only; its forces and centre of pressure stay
    where they were measured) until its front edge crosses the foot's middle: the sprinter's forefoot, which
    carries most of the load, is off it. That stance (as the plate measures it and as the estimate loads the
    foot) is warned of and left out of the comparison; the other strikes stay as they were."""
    path, result = sprint
    comparison, contact = result.plate_comparison, result.contact
    p, stance, foot, middle, forward = first_stance(result)
    plates = load_trial(path).plates
    moved = rerun(path, tuple(replace(plate, corners=behind(plate.corners, middle, forward)) if k == p else plate
                              for k, plate in enumerate(plates)), tmp_path)
    [warning] = [w for w in moved.warnings if "partly off" in w]
    assert warning.startswith(f"{contact.feet[foot]} stands partly off force plate {comparison.plate_names[p]!r}")
    assert int(warning.split(" % of its estimated load")[0].split("(")[-1]) > 50, warning
    assert not moved.covered[stance].any() and comparison.covered[stance].all()
    changed = moved.covered != comparison.covered
    loaded = comparison.estimated_feet[:, foot, 2] > comparison.threshold
    assert not (changed & ~stance & ~loaded).any(), "only that stance (as measured and as estimated) is left out"


def test_a_foot_across_two_plates_is_measured(sprint, tmp_path):
    """The first stance's plate made two, side by side along the run, the foot's heel half on the one and its
    forefoot on the other, each measuring half the force: no warning, the stance compared as before."""
    path, result = sprint
    comparison = result.plate_comparison
    p, stance, foot, middle, forward = first_stance(result)
    plates = list(load_trial(path).plates)
    rear = behind(plates[p].corners, middle, forward)
    front = rear.copy()
    front[:, :2] += np.ptp((rear[:, :2] - middle) @ forward) * forward
    halves = [replace(plates[p], name=name, corners=corners, force=plates[p].force / 2,
                      free_moment=plates[p].free_moment / 2) for name, corners in (("rear", rear), ("front", front))]
    split = rerun(path, tuple(plates[:p] + halves + plates[p + 1:]), tmp_path)
    assert not [w for w in split.warnings if "partly off" in w]
    assert split.covered[stance].all()
    np.testing.assert_allclose(split.measured[stance], comparison.measured[stance], rtol=1e-4, atol=0.5)
