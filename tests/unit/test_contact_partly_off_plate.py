"""A foot that stands partly off the plate of its stance (a C3D gives the plates' outlines): the real sprint, its
clean strikes as recorded and one plate's outline moved so that the forefoot lies off it."""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.contact.compare import _outside
from mocap_dynamics.solver.io import load_trial, write_c3d
from mocap_dynamics.solver.pipeline import PipelineOptions, run


def test_outside_a_plate_is_beyond_its_outline_by_the_margin_whichever_way_its_corners_turn():
    square = np.array([[0.0, 0.0, 0.0], [0.6, 0.0, 0.0], [0.6, 0.4, 0.0], [0.0, 0.4, 0.0]])
    points = np.array([[0.3, 0.2], [0.61, 0.2], [0.63, 0.2], [0.3, -0.03], [np.nan, 0.0]])
    for corners in (square, square[::-1]):
        assert _outside(corners, points, 0.02).tolist() == [False, False, True, True, False]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division by a zero edge
        assert not _outside(np.zeros((4, 3)), points, 0.02).any(), "corners written as zeros make no outline"


@pytest.fixture(scope="module")
def sprint(shared_data):
    path = shared_data / "sprint_forceplates_JA1Gait35.c3d"
    return path, run(path, PipelineOptions(until="contact"))


def test_the_sprints_clean_strikes_are_all_on_their_plates(sprint):
    _, result = sprint
    assert not [w for w in result.plate_comparison.warnings if "partly off" in w]


def test_a_forefoot_off_its_plate_is_told_and_not_compared(sprint, tmp_path):
    """The plate under the first stance moved back (its outline only; its forces and centre of pressure stay
    where they were measured) until its front edge crosses the foot's middle: the sprinter's forefoot, which
    carries most of the load, is off it. That stance (as the plate measures it and as the estimate loads the
    foot) is warned of and left out of the comparison; the other strikes stay as they were."""
    path, result = sprint
    comparison, contact = result.plate_comparison, result.contact
    p = next(p for p in range(len(comparison.plate_names)) if comparison.measured_plates[:, p, 2].max() > 0
             and comparison.estimated_plates[:, p, 2].max() > 0)
    stance = comparison.measured_plates[:, p, 2] > comparison.threshold
    foot = int(np.argmax(np.nansum(comparison.measured_feet[stance, :, 2], axis=0)))
    sole = contact.point_segments == contact.model.index(contact.feet[foot])
    middle = np.nanmean(contact.point_positions[stance][:, sole, :2], axis=(0, 1))
    trial = load_trial(path)
    corners = trial.plates[p].corners.copy()
    forward = comparison.forward[:2]
    along = (corners[:, :2] - middle) @ forward
    corners[:, :2] -= along.max() * forward  # the front edge at the foot's middle
    plates = tuple(replace(plate, corners=corners) if k == p else plate for k, plate in enumerate(trial.plates))
    moved = run(write_c3d(replace(trial, plates=plates, plate_samples=None), tmp_path / path.name),
                PipelineOptions(until="contact")).plate_comparison
    [warning] = [w for w in moved.warnings if "partly off" in w]
    assert warning.startswith(f"{contact.feet[foot]} stands partly off force plate {comparison.plate_names[p]!r}")
    assert int(warning.split(" % of its estimated load")[0].split("(")[-1]) > 50, warning
    assert not moved.covered[stance].any() and comparison.covered[stance].all()
    changed = moved.covered != comparison.covered
    loaded = comparison.estimated_feet[:, foot, 2] > comparison.threshold
    assert not (changed & ~stance & ~loaded).any(), "only that stance (as measured and as estimated) is left out"
