"""The plots written next to a report: each one when its data exists, in the Blender visuals' colours."""

from __future__ import annotations

import os
import signal
import sys
from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.kinematics import Motion
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.dynamics import dynamics_table
from mocap_dynamics.solver.plots import joint_moment_curves, plot_root_force_distribution, srgb
from mocap_dynamics.solver.cli import Interrupted, interruptible
from mocap_dynamics.solver.results import write_plots, write_results
from mocap_dynamics.solver.sample import MASS, write_sample

PNG = b"\x89PNG\r\n\x1a\n"
PLOTS = {"marker_errors", "convergence", "torques", "grf"}


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    """The project's sample walk (C3D with two force plates) through every stage."""
    c3d = write_sample(tmp_path_factory.mktemp("sample"))["c3d"]
    return run(c3d, PipelineOptions(mass=MASS))


def _pngs(folder) -> dict:
    return {p.stem.removeprefix("sample_walk_"): p for p in folder.glob("*.png")}


def test_every_plot_is_written_when_every_stage_ran(walk, tmp_path):
    written, notes = write_results(walk, tmp_path, plots=True)
    pngs = _pngs(tmp_path)
    assert set(pngs) == PLOTS and notes == []
    assert set(pngs.values()) <= set(written)
    for path in pngs.values():
        assert path.read_bytes()[:8] == PNG and path.stat().st_size > 10_000
    assert not list(tmp_path.glob(".*partial*")), "no temporary files left"


def test_plots_are_drawn_only_when_asked_for(walk, tmp_path):
    written, notes = write_results(walk, tmp_path)
    assert _pngs(tmp_path) == {} and notes == [] and written, "tables only, by default"
    written, _ = write_results(walk, tmp_path, plots=False)
    assert _pngs(tmp_path) == {}
    written, _ = write_results(replace(walk, options=replace(walk.options, plots=True)), tmp_path)
    assert set(_pngs(tmp_path)) == PLOTS, "the run's own plots option"


def test_grf_plot_shows_measured_orange_and_estimated_green(walk, tmp_path):
    from matplotlib.image import imread

    write_results(walk, tmp_path, plots=True)
    pixels = imread(_pngs(tmp_path)["grf"])[..., :3].reshape(-1, 3)
    for kind in ("force_measured", "force_estimated"):
        close = np.abs(pixels - srgb(kind)).max(axis=1) < 0.02
        assert close.sum() > 500, f"{kind} curves drawn in the Blender colour"
    assert srgb("force_measured") == pytest.approx((1.0, 0.63, 0.15), abs=0.01)  # linear (1, 0.35, 0.02) as sRGB


def test_plots_need_their_stage(walk, tmp_path):
    stopped = replace(walk, options=replace(walk.options, until="dynamics"), contact=None, plate_comparison=None)
    _, notes = write_results(stopped, tmp_path, plots=True)
    assert set(_pngs(tmp_path)) == PLOTS - {"grf"}
    assert notes == ["grf plot not written: the contact stage was not run (the run stopped after dynamics)"]


def test_plots_only_from_data_the_motion_has(walk, tmp_path):
    bare = Motion.from_q(walk.model, walk.motion.times, walk.motion.q, "simulation")  # no OTM record
    _, notes = write_results(replace(walk, motion=bare), tmp_path, plots=True)
    assert set(_pngs(tmp_path)) == {"torques", "grf"}
    assert any(n.startswith("marker_errors plot not written") and "no marker errors" in n for n in notes)
    assert any(n.startswith("convergence plot not written") and "simulation" in n for n in notes)


def test_without_plates_the_grf_plot_shows_the_estimate(walk, tmp_path):
    _, notes = write_results(replace(walk, plate_comparison=None), tmp_path, plots=True)
    assert "grf" in _pngs(tmp_path)
    assert notes == ["grf plot shows the estimate only: the trial has no force plates"]


def test_the_torque_plot_draws_the_tables_sagittal_moments_per_kg(walk):
    """The curves are the torques table's ``<joint>_<side>_<component>_moment`` columns per kg (the plates'
    torques solid, the motion alone's dashed), signed as the angles: the push-off's ankle moment plantarflexes
    (about -1.5 N·m/kg in walking, Winter 2009), the swing's shows nothing alike."""
    best, alone = walk.best_dynamics, walk.contact.dynamics
    rows = joint_moment_curves(best, alone)
    assert [(joint, component) for joint, component, _ in rows] == [
        ("hip", "flexion"), ("knee", "flexion"), ("ankle", "dorsiflexion"), ("shoulder", "flexion"),
        ("elbow", "flexion")]
    for dynamics, dashed in ((best, False), (alone, True)):
        table = dynamics_table(dynamics, per_kg=True)
        for joint, component, curves in rows:
            drawn = {label.split(",")[0]: values for label, _, is_dashed, _, values in curves if is_dashed == dashed}
            for side, name in (("l", "left"), ("r", "right")):
                column = table.data[:, table.columns.index(f"{joint}_{side}_{component}_moment")]
                np.testing.assert_allclose(drawn[name], column, atol=1e-12)
    ankle = rows[2][2][0][4]
    assert -2.0 < ankle.min() < -1.0 and ankle.max() < 0.5, (ankle.min(), ankle.max())
    assert all(not dashed for _, _, curves in joint_moment_curves(walk.dynamics) for _, _, dashed, _, _ in curves)


def test_without_matplotlib_the_tables_are_still_written(walk, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    written, notes = write_results(walk, tmp_path, plots=True)
    assert not _pngs(tmp_path) and len(notes) == 1 and "matplotlib" in notes[0]
    assert {p.suffix for p in written} == {".mot", ".csv", ".sto", ".trc"}


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_a_plot_is_drawn_stops_the_run_after_that_plot(walk, tmp_path, monkeypatch, number):
    """Ctrl-C or SIGTERM arriving inside matplotlib's renderer (here: as it draws the first curve) acts once the plot
    is whole. Raised inside the renderer, it broke it at random (a ValueError, a segmentation fault in CI)."""
    from matplotlib.lines import Line2D

    draw = Line2D.draw

    def draw_and_signal(line, renderer):
        if not sent:
            sent.append(number)
            os.kill(os.getpid(), number)
        return draw(line, renderer)

    sent = []
    monkeypatch.setattr(Line2D, "draw", draw_and_signal)
    # Ctrl-C as in a terminal: a suite run as a background job starts with it ignored
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises((KeyboardInterrupt, Interrupted)) as stopped, interruptible():
            write_plots(walk, tmp_path, "sample_walk")
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler, "the handlers are back"
    finally:
        signal.signal(signal.SIGINT, before)
    assert getattr(stopped.value, "signum", signal.SIGINT) == number and sent == [number]
    assert set(_pngs(tmp_path)) == {"marker_errors"}, "the plot being drawn is finished, no other one is begun"
    assert not list(tmp_path.glob(".*partial*"))


def test_root_force_distribution_leaves_out_missing_figures(tmp_path):
    path = plot_root_force_distribution([110.0, 95.0, np.nan], [20.0, np.nan, np.nan], [10.0, 12.0, np.nan],
                                        tmp_path / "fig6.png")
    assert path.read_bytes()[:8] == PNG
