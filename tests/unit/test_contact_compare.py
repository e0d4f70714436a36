"""Estimated vs measured ground reaction forces: synthetic plates made from the simulation's true forces."""

from __future__ import annotations

import sys
from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.contact import compare_with_plates, estimate_contact, point_motion
from mocap_dynamics.solver.plots import plot_grf
from mocap_dynamics.solver.runs import runs
from mocap_dynamics.solver.contact.result import centre_of_pressure
from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.io.trial import ForcePlate, PlateSamples, Trial
from tests.unit.test_contact_synthetic import RATE, landing, model, tilted_plane  # noqa: F401  (fixture)


@pytest.fixture(scope="module")
def scene(model):  # noqa: F811
    """A landing, its estimate, and a trial whose plates record each foot's true force (one plate per foot)."""
    truth = tilted_plane()
    simulation = landing(model, truth, duration=0.8)
    motion = simulation.motion
    n = len(motion.times) - 1
    positions, _ = point_motion(model, motion.q[:n], simulation.v[:n])
    plates = []
    for name in ("foot_l", "foot_r"):
        mine = simulation.point_segments == model.index(name)
        force = np.zeros((len(motion.times), 3))
        force[:n] = simulation.point_forces[:, mine].sum(1)
        cop = np.full((len(motion.times), 3), np.nan)
        cop[:n] = centre_of_pressure(truth.top, positions[:, mine], simulation.point_forces[:, mine])
        plates.append(ForcePlate(name=f"under {name}", corners=np.full((4, 3), np.nan), rate=RATE, start_time=0.0,
                                 force=force, cop=cop, free_moment=np.zeros_like(force)))
    samples = PlateSamples(force=np.stack([p.force for p in plates], 1), cop=np.stack([p.cop for p in plates], 1),
                           free_moment=np.zeros((len(motion.times), 2, 3)))
    trial = Trial(source="simulated landing", labels=(), markers=np.zeros((len(motion.times), 0, 3)), rate=RATE,
                  plates=tuple(plates), plate_samples=samples)
    return simulation, estimate_contact(motion, forces="spring"), trial


def test_estimate_agrees_with_true_plates(scene):
    _, contact, trial = scene
    comparison = compare_with_plates(contact, trial)
    assert comparison.covered.all()
    assert comparison.rmse_vertical < 1.0 and comparison.rmse_horizontal < 1.0  # % body weight
    assert comparison.correlation_vertical > 0.999
    assert len(comparison.events) == 2
    assert {(e.plate, contact.feet[e.foot]) for e in comparison.events} == {(0, "foot_l"), (1, "foot_r")}
    assert np.all(np.abs(comparison.onset_errors) <= 2 / RATE)
    assert len(comparison.offset_errors) == 0  # still standing at the end: offsets cut off
    summary = comparison.summary()
    assert summary["contacts"] == 2 and summary["frames_compared"] == len(contact.times)


def test_a_plate_load_that_dips_under_the_threshold_for_a_moment_is_one_contact(scene):
    """The left plate's load cut for five frames mid-stance (a seated foot's load flickering about the
    threshold) while the estimate's stays: still one contact per foot, timed by its first onset and last offset,
    not a second one timed by the estimate's onset, 0.38 s before its own."""
    _, contact, trial = scene
    force = trial.plate_samples.force.copy()
    loaded = np.flatnonzero(force[:, 0, 2] > 0.05 * contact.body_weight)
    middle = loaded[len(loaded) // 2]
    force[middle:middle + 5, 0] = 0.0
    dipped = replace(trial, plate_samples=replace(trial.plate_samples, force=force))
    comparison = compare_with_plates(contact, dipped)
    assert len(comparison.events) == 2
    assert np.all(np.abs(comparison.onset_errors) <= 2 / RATE)


def test_a_foot_off_the_plates_is_not_compared(scene):
    _, contact, trial = scene
    only_left = replace(trial, plates=trial.plates[:1], plate_samples=PlateSamples(
        force=trial.plate_samples.force[:, :1], cop=trial.plate_samples.cop[:, :1],
        free_moment=trial.plate_samples.free_moment[:, :1]))
    comparison = compare_with_plates(contact, only_left)
    right = contact.foot_force[:, contact.feet.index("foot_r"), 2] > comparison.threshold
    assert right.any() and not comparison.covered[right].any()
    assert comparison.covered[~right].all()


def test_frames_must_belong_to_the_trial(scene):
    _, contact, trial = scene
    with pytest.raises(SolverError, match="not frames of this trial"):
        compare_with_plates(contact, replace(trial, start_time=0.3))
    with pytest.raises(SolverError, match="no force plates"):
        compare_with_plates(contact, replace(trial, plates=(), plate_samples=None))


def test_plot_is_written(scene, tmp_path, monkeypatch):
    _, contact, trial = scene
    comparison = compare_with_plates(contact, trial)
    path = plot_grf(contact, comparison, tmp_path / "grf.png", title="simulated landing")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["grf.png"]
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(SolverError, match="matplotlib"):
        plot_grf(contact, comparison, tmp_path / "again.png")
    assert not (tmp_path / "again.png").exists()


def test_runs():
    assert runs(np.array([False, True, True, False, True])) == [(1, 3), (4, 5)]
    assert runs(np.zeros(3, bool)) == []
