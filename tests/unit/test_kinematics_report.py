"""Reports of a reconstruction: convergence (Tables 1-4), marker-error boxplot numbers and image (Fig. 2)."""

from __future__ import annotations

import builtins
from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.kinematics import (Motion, convergence_summary, marker_error_stats, marker_rms,
                                              plot_marker_errors, reconstruct)
from mocap_dynamics.solver.kinematics.synthetic import linkage_model, smooth_motion, synthetic_trial


@pytest.fixture(scope="module")
def motion():
    model = linkage_model()
    trial = synthetic_trial(model, smooth_motion(model, 80, seed=7), noise=0.004, seed=8)
    markers = trial.markers.copy()
    markers[10:20, 0] = np.nan
    return reconstruct(replace(trial, markers=markers), model)


def test_convergence_summary(motion):
    summary = convergence_summary(motion)
    assert (summary.frames, summary.converged, summary.rate_percent) == (80, 80, 100.0)
    assert summary.iterations_mean == pytest.approx(motion.iterations.mean())
    assert summary.iterations_max == motion.iterations.max() and summary.no_data_frames == 0
    assert summary.constraint_norm_max < 1e-7 and summary.seconds_per_frame > 0
    assert summary.marker_rms == pytest.approx(np.sqrt(np.nanmean(motion.marker_errors ** 2)))


def test_marker_error_stats_are_tukey_boxplots(motion):
    stats = marker_error_stats(motion)
    assert stats.labels == motion.marker_labels
    assert stats.samples[0] == 70 and (stats.samples[1:] == 80).all()  # missing samples do not count
    assert (stats.lower_whisker <= stats.lower_quartile).all() and (stats.lower_quartile <= stats.median).all()
    assert (stats.median <= stats.upper_quartile).all() and (stats.upper_quartile <= stats.upper_whisker).all()
    assert (stats.upper_whisker <= stats.maximum).all()
    column = motion.marker_errors[:, 3]
    assert stats.median[3] == pytest.approx(np.median(column))
    q1, q3 = np.percentile(column, [25, 75])
    assert stats.upper_whisker[3] == column[column <= q3 + 1.5 * (q3 - q1)].max()
    label, samples, median_mm, *_ = stats.rows()[3]
    assert (label, samples, median_mm) == (motion.marker_labels[3], 80, pytest.approx(1000 * stats.median[3]))


def test_plot_writes_a_png(motion, tmp_path):
    path = tmp_path / "errors.png"
    assert plot_marker_errors(motion, path) == path
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["errors.png"]


def test_plot_without_matplotlib(motion, tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(SolverError, match="matplotlib"):
        plot_marker_errors(motion, tmp_path / "errors.png")
    assert not list(tmp_path.iterdir())


def test_a_motion_without_diagnostics(motion):
    bare = Motion.from_q(motion.model, motion.times, motion.q, "simulation")
    for report in (convergence_summary, marker_error_stats, marker_rms):
        with pytest.raises(SolverError, match="simulation"):
            report(bare)
