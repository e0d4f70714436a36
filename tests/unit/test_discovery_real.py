"""Issue 17's target on real recordings: subject4_walking1 (OpenCap set) and the CMU basketball trial with
their labels replaced by shuffled numbers. The discovered segments must be the labelled ones for at least
95 % of the markers, and the pipeline must run on the numbered copies as on the labelled files."""

from __future__ import annotations

import pytest

from mocap_dynamics.solver.io import load_trial, write_c3d, write_trc
from mocap_dynamics.solver.io.trial import Trial
from mocap_dynamics.solver.model.discovery import discover_markerset
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from tests.unit.test_discovery_identify import agreement, numbered

TRIALS = [("subject4_walking1.trc", "opencap"), ("cmu_dribble_shoot_basketball.c3d", "cmu41")]


@pytest.mark.parametrize("name, builtin", TRIALS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_numbered_real_trials_get_their_labelled_segments(shared_data, name, builtin, seed):
    anonymous, original = numbered(load_trial(shared_data / name), seed)
    discovery = discover_markerset(anonymous)
    assert agreement(discovery, original, builtin) >= 0.95
    summary = discovery.summary()
    assert summary["rigid_clusters"] and set(summary["confidence"]) >= {"pelvis", "thigh_l", "forearm_r"}
    assert all(0.0 < c <= 1.0 for c in summary["confidence"].values())


@pytest.fixture(scope="module")
def walking_runs(shared_data, tmp_path_factory):
    """The labelled walk and a numbered copy (with the static trial numbered alike) up to reconstruction."""
    folder = tmp_path_factory.mktemp("numbered")
    walk, static = (load_trial(shared_data / f"subject4_{n}1.trc") for n in ("walking", "static"))
    anonymous, original = numbered(walk, 0)
    number = {label: n for n, label in original.items()}
    kept = [i for i, label in enumerate(static.labels) if label in number]
    static_copy = Trial(source="static", labels=tuple(number[static.labels[i]] for i in kept),
                        markers=static.markers[:, kept], rate=static.rate)
    options = dict(until="reconstruct", grf=str(shared_data / "subject4_walking1_grf.mot"))
    labelled = run(shared_data / "subject4_walking1.trc",
                   PipelineOptions(static=str(shared_data / "subject4_static1.trc"), **options))
    found = run(write_trc(anonymous, folder / "walk.trc"),
                PipelineOptions(static=str(write_trc(static_copy, folder / "static.trc")), **options))
    return labelled, found


def test_the_pipeline_runs_on_a_numbered_walk_as_on_the_labelled_one(walking_runs):
    labelled, found = walking_runs
    assert found.model.metadata["calibration"].markerset == "discovered" and found.discovery is not None
    assert found.model.metadata["calibration"].static is not None  # same numbers: the static trial is used
    assert found.motion.converged.all() and labelled.motion.converged.all()
    rms = {kind: r.report()["reconstruction"]["marker_rms_m"] for kind, r in (("labelled", labelled),
                                                                               ("found", found))}
    assert rms["found"] < rms["labelled"] + 0.001
    lengths = [r.model.metadata["calibration"].lengths for r in (labelled, found)]
    assert max(abs(lengths[0][s] - lengths[1][s]) for s in lengths[0]) < 0.02


def test_the_report_says_the_segments_were_found_from_the_motion(walking_runs):
    report = walking_runs[1].report()
    assert report["model"]["markerset"] == "discovered"
    assert len(report["discovery"]["rigid_clusters"]) >= 12
    assert report["discovery"]["landmarks"]["heel_l"] == "marker"


def test_a_numbered_c3d_runs_to_reconstruction(shared_data, tmp_path):
    anonymous, _ = numbered(load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d"), 1)
    result = run(write_c3d(anonymous, tmp_path / "cmu.c3d"), PipelineOptions(until="reconstruct"))
    assert result.discovery is not None and result.motion.converged.all()
    assert result.report()["reconstruction"]["marker_rms_m"] < 0.006
