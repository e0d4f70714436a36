"""``reconstruct`` on synthetic motions with known poses, in both modes: exact recovery, 1 cm noise,
missing markers, a segment without markers, a frame without data, flags, and bad input."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.kinematics import Motion, joint_angles, reconstruct
from mocap_dynamics.solver.kinematics.held_joints import set_held_joints
from mocap_dynamics.solver.kinematics.natural import natural_model
from mocap_dynamics.solver.kinematics.synthetic import linkage_model, smooth_motion, synthetic_trial
from mocap_dynamics.solver.model.held import tracked_model

PAPER_FRAMES = 8  # the paper mode is the slow reference: a few frames are enough


@pytest.fixture(scope="module")
def linkage():
    model = linkage_model()
    q = smooth_motion(model, 120, seed=1)
    return model, q


def smooth(model, n_frames, seed):
    """A smooth motion of ``model`` whose held joints (a marker-less head held level) follow their rule: the
    markers cannot see them."""
    tracked = tracked_model(model)
    q = smooth_motion(tracked, n_frames, seed=seed)
    return set_held_joints(Motion.from_q(tracked, np.arange(n_frames) / 100.0, q, "truth"), model).q


def poses_close(motion, model, q, atol):
    rot, pos = model.forward_kinematics(q)
    np.testing.assert_allclose(motion.rotations, rot, atol=atol)
    np.testing.assert_allclose(motion.positions, pos, atol=atol)


@pytest.mark.parametrize("name", ["linkage", "walking_full15", "cmu_brubaker12"])
def test_noise_free_recovery_is_exact_in_both_modes(request, name):
    model = linkage_model() if name == "linkage" else request.getfixturevalue(name)
    q = smooth(model, 60, seed=2)
    trial = synthetic_trial(model, q)
    fast = reconstruct(trial, model)
    assert fast.converged.all() and fast.constraint_norm.max() < 1e-12
    poses_close(fast, model, q, 1e-9)
    assert np.nanmax(fast.marker_errors) < 1e-9
    for strategy in ("merit", "maxmin"):
        paper = reconstruct(replace(trial, markers=trial.markers[:PAPER_FRAMES]), model, mode="paper",
                            strategy=strategy)
        assert paper.converged.all() and paper.constraint_norm.max() < 1e-7
        poses_close(paper, model, q[:PAPER_FRAMES], 1e-9)


@pytest.mark.parametrize("name", ["linkage", "walking_full15"])
def test_one_centimetre_noise(request, name, linkage):
    """Marker RMS at the noise level (what nv fitted DoFs leave of it) and joint angles within a few degrees."""
    model = linkage[0] if name == "linkage" else request.getfixturevalue(name)
    q = smooth(model, 120, seed=3)
    noise = 0.01
    motion = reconstruct(synthetic_trial(model, q, noise=noise, seed=4), model)
    assert motion.converged.all()
    expected = noise * np.sqrt(3 * (1 - tracked_model(model).nv / (3 * len(model.marker_labels))))
    assert np.sqrt(np.nanmean(motion.marker_errors ** 2)) == pytest.approx(expected, rel=0.05)
    rot, pos = model.forward_kinematics(q)
    truth = joint_angles(replace(motion, rotations=rot, positions=pos)).degrees
    assert np.sqrt(np.mean((joint_angles(motion).degrees - truth) ** 2)) < 4.0


def test_fast_and_paper_modes_agree_with_noise(linkage):
    model, q = linkage
    trial = synthetic_trial(model, q[:30], noise=0.01, seed=5)
    fast = reconstruct(trial, model)
    for strategy in ("merit", "maxmin"):
        paper = reconstruct(trial, model, mode="paper", strategy=strategy)
        assert paper.converged.all()
        np.testing.assert_allclose(paper.rotations, fast.rotations, atol=1e-6)
        np.testing.assert_allclose(paper.positions, fast.positions, atol=1e-7)
        np.testing.assert_allclose(paper.objective, fast.objective, rtol=1e-6)


def test_a_frame_with_half_the_markers_missing(linkage):
    model, q = linkage
    markers = synthetic_trial(model, q).markers.copy()
    markers[50, ::2] = np.nan
    trial = synthetic_trial(model, q)
    fast = reconstruct(replace(trial, markers=markers), model)
    assert fast.converged[50]
    assert np.isnan(fast.marker_errors[50, ::2]).all() and np.nanmax(fast.marker_errors[50]) < 1e-9
    poses_close(fast, model, q, 1e-9)  # still determined: the start does not matter
    paper = reconstruct(replace(trial, markers=markers[48:53]), model, mode="paper")
    np.testing.assert_allclose(paper.q, fast.q[48:53], atol=1e-9)


def test_a_segment_without_markers_moves_with_its_joints(linkage):
    """While the finger's markers are gone its hinge keeps the last angle (the prior), the joints hold
    exactly, and when they return it is found again."""
    model, q = linkage
    trial = synthetic_trial(model, q)
    markers = trial.markers.copy()
    finger = [model.marker_labels.index(label) for label in ("G1", "G2", "G3")]
    markers[40:80, finger] = np.nan
    motion = reconstruct(replace(trial, markers=markers), model)
    assert motion.converged.all() and motion.constraint_norm.max() < 1e-12
    assert motion.info["prior_frames"] == {"finger": 40}
    angle = motion.q[:, model.q_starts[model.index("finger")]]
    np.testing.assert_allclose(angle[40:80], angle[39], atol=1e-9)
    others = [k for k, s in enumerate(model.segments) if s.name != "finger"]
    rot, pos = model.forward_kinematics(q)
    np.testing.assert_allclose(motion.rotations[:, others], rot[:, others], atol=1e-9)
    poses_close(replace(motion, rotations=motion.rotations[80:], positions=motion.positions[80:]), model, q[80:],
                1e-9)
    paper = reconstruct(replace(trial, markers=markers[38:44]), model, mode="paper")
    assert paper.info["prior_frames"] == {"finger": 4}
    np.testing.assert_allclose(paper.q[2:], motion.q[40:44], atol=1e-9)  # after the same start


def test_a_frame_without_data_is_flagged_and_the_next_restarts(linkage):
    model, q = linkage
    trial = synthetic_trial(model, q)
    markers = trial.markers.copy()
    markers[30] = np.nan
    for mode in ("fast", "paper"):
        frames = slice(0, 120) if mode == "fast" else slice(28, 33)
        motion = reconstruct(replace(trial, markers=markers[frames]), model, mode=mode)
        gap = 30 - frames.start
        assert not motion.converged[gap] and motion.iterations[gap] == 0
        assert motion.info["no_data_frames"] == 1 and motion.info["converged_frames"] == motion.n_frames - 1
        assert motion.info["warnings"] == ["1 frame(s) without enough markers to place the pelvis keep the "
                                           "previous pose (flagged as not converged; no forces or torques there)"]
        np.testing.assert_allclose(motion.q[gap], motion.q[gap - 1])  # kept, never invented
        assert np.flatnonzero(~motion.posed).tolist() == [gap]  # and left out of the dynamics
        assert motion.converged[gap + 1]


@pytest.mark.parametrize("mode", ["fast", "paper"])
def test_frames_that_do_not_converge_are_flagged(linkage, mode):
    model, q = linkage
    trial = synthetic_trial(model, q[:10], noise=0.01)
    motion = reconstruct(trial, model, mode=mode, max_iterations=1)
    assert not motion.converged.any() and (motion.iterations == 1).all()
    assert motion.info["converged_frames"] == 0 and motion.info["convergence_rate_percent"] == 0.0
    assert "10 frame(s) did not converge within 1 iterations" in motion.info["warnings"][0]


def test_weights_by_label_and_missing_markers_are_the_same_thing(linkage):
    model, q = linkage
    trial = synthetic_trial(model, q[:20], noise=0.005)
    weighted = reconstruct(trial, model, weights={"A1": 0.0})
    markers = trial.markers.copy()
    markers[:, model.marker_labels.index("A1")] = np.nan
    missing = reconstruct(replace(trial, markers=markers), model)
    np.testing.assert_allclose(weighted.q, missing.q, atol=1e-8)
    assert weighted.info["weights"] == "given"


def test_exact_markers_in_paper_mode(linkage):
    model, q = linkage
    trial = synthetic_trial(model, q[:4], noise=0.01, seed=6)
    motion = reconstruct(trial, model, mode="paper", weights={"F2": np.inf})
    assert motion.converged.all() and motion.info["exact_markers"] == ["F2"]
    assert motion.marker_errors[:, model.marker_labels.index("F2")].max() < 1e-7
    with pytest.raises(SolverError, match="paper mode"):
        reconstruct(trial, model, weights={"F2": np.inf})


@pytest.mark.parametrize("kwargs, message", [
    ({"method": "lee"}, "method"), ({"mode": "turbo"}, "mode"), ({"strategy": "newton"}, "strategy"),
    ({"tolerance": 0.0}, "tolerance"), ({"max_iterations": 0}, "max_iterations"),
    ({"weights": {"NOPE": 1.0}}, "NOPE"), ({"weights": np.ones(3)}, "shape"), ({"weights": {"A1": -1.0}}, "zero or"),
])
def test_bad_options(linkage, kwargs, message):
    model, q = linkage
    with pytest.raises(SolverError, match=message):
        reconstruct(synthetic_trial(model, q[:2]), model, **kwargs)


def test_a_trial_without_the_models_markers(linkage):
    model, q = linkage
    trial = synthetic_trial(model, q[:2])
    with pytest.raises(SolverError, match="None of the model's markers"):
        reconstruct(replace(trial, labels=tuple(f"X{i}" for i in range(len(trial.labels)))), model)


def test_outputs(linkage):
    model, q = linkage
    motion = reconstruct(synthetic_trial(model, q[:10]), model)
    assert motion.method == "otm" and motion.marker_labels == model.marker_labels
    assert motion.q.shape == (10, model.nq) and motion.marker_errors.shape == (10, len(model.marker_labels))
    nat = natural_model(model)
    assert motion.info["natural_coordinates"] == {"n": nat.n, "m": nat.m, "redundant": nat.redundant}
    np.testing.assert_allclose(np.linalg.norm(motion.q[:, 3:7], axis=1), 1.0)


def test_progress_is_reported(linkage):
    model, q = linkage
    calls = []
    reconstruct(synthetic_trial(model, q[:10]), model, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (10, 10)
