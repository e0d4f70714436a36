"""Segments found from the motion of a simulated humanoid (the project's sample walk, its labels replaced by
shuffled numbers), and the clear message for markers that do not make a body."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mocap_dynamics.solver import cli
from mocap_dynamics.solver.errors import ModelError
from mocap_dynamics.solver.io import write_trc
from mocap_dynamics.solver.io.trial import Trial
from mocap_dynamics.solver.model import calibrate
from mocap_dynamics.solver.model.discovery import REQUIRED, discover_markerset
from mocap_dynamics.solver.model.markersets import BUILTIN
from mocap_dynamics.solver.pipeline import PipelineOptions, run


def numbered(trial: Trial, seed: int) -> tuple[Trial, dict]:
    """The trial with its markers shuffled and labelled 1, 2, ...; the original label of each number."""
    order = np.random.default_rng(seed).permutation(trial.n_markers)
    names = tuple(str(k + 1) for k in range(trial.n_markers))
    return replace(trial, labels=names, markers=trial.markers[:, order]), {n: trial.labels[o] for n, o in
                                                                             zip(names, order)}


def agreement(discovery, original: dict, builtin: str) -> float:
    """Share of the markers the built-in set attaches that the discovery put on the same segment."""
    truth = {label: s for s, labels in BUILTIN[builtin].segments.items() for label in labels}
    found = {label: s for s, labels in discovery.segments.items() for label in labels}
    scored = [n for n, o in original.items() if o in truth]
    return sum(found.get(n) == truth[original[n]] for n in scored) / len(scored)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_simulated_walk_is_recognized_marker_by_marker(sample_walk, seed):
    anonymous, original = numbered(sample_walk.trial, seed)
    discovery = discover_markerset(anonymous)
    assert agreement(discovery, original, "cmu41") >= 0.95
    assert set(REQUIRED) <= set(discovery.segments)
    assert discovery.markerset.name == "discovered"
    # landmarks are markers where the set has them: heel and toe as the CMU set names them
    landmarks = {k: tuple(original.get(n, n) for n in v[0].labels) for k, v in discovery.markerset.landmarks.items()}
    assert landmarks["heel_l"] == ("LHEE",) and landmarks["toe_r"] == ("RTOE",)
    assert landmarks["asis_l"] == ("LFWT",) and set(landmarks["psis"]) == {"LBWT", "RBWT"}


def test_the_discovered_set_calibrates_like_the_labelled_one(sample_walk):
    anonymous, _ = numbered(sample_walk.trial, 0)
    discovery = discover_markerset(anonymous)
    found = calibrate(discovery.with_virtual_markers(anonymous), markerset=discovery.markerset).metadata
    labelled = calibrate(sample_walk.trial).metadata
    for segment in ("thigh_l", "shank_r", "foot_l", "upper_arm_r", "torso"):
        assert found["calibration"].lengths[segment] == pytest.approx(labelled["calibration"].lengths[segment],
                                                                       abs=0.01), segment


def four_markers() -> Trial:
    """One rigid body of four markers, moving: a wand, not a body."""
    t = np.linspace(0.0, 2.0, 200)
    rot = Rotation.from_rotvec(np.stack([np.sin(3 * t), np.cos(2 * t), t], axis=1))
    local = np.array([[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.15, 0.0], [0.0, 0.0, 0.2]])
    markers = np.array([0.0, 0.0, 1.0]) + np.einsum("tij,mj->tmi", rot.as_matrix(), local)
    return Trial(source="wand.trc", labels=("1", "2", "3", "4"), markers=markers, rate=100.0)


def test_four_markers_on_one_body_say_what_was_found_and_what_would_work():
    with pytest.raises(ModelError) as error:
        discover_markerset(four_markers())
    message = error.value.one_line()
    assert "1 rigid cluster of markers (4 (1 2 3 4))" in message
    assert "Segments missing: pelvis, torso, upper_arm_l" in message
    assert "label the markers" in message.lower() and "three markers or more on the pelvis" in message


def test_the_pipeline_tries_the_motion_then_fails_with_one_line(tmp_path, capsys):
    path = write_trc(four_markers(), tmp_path / "wand.trc")
    with pytest.raises(ModelError) as error:
        run(path, PipelineOptions(until="calibrate"))
    message = error.value.one_line()
    assert message.startswith("These markers cannot form a body") and "does not show a body: 1 rigid cluster" in message
    code = cli.main([str(path), "--out", str(tmp_path / "out"), "--until", "calibrate"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: These markers cannot form a body")
    assert not (tmp_path / "out" / "report.json").exists()
