"""Functional joints against known answers: a simulated two-segment linkage with a ball joint or a hinge.

The parent segment moves freely (random smooth rotation and translation); the child turns about a
joint centre fixed in the parent, in every direction (ball) or about one axis (hinge). Markers carry
1 mm Gaussian noise and gaps.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mocap_dynamics.solver.model.functional_joints import fit_in_parent, rigid_frames, score, sphere_fit

FRAMES = 400
PARENT = np.array([[0.05, 0.0, 0.10], [-0.05, 0.02, 0.15], [0.0, -0.05, 0.20], [0.03, 0.04, 0.05]])
CHILD = np.array([[0.04, 0.0, -0.15], [-0.03, 0.03, -0.25], [0.01, -0.04, -0.35]])
CENTRE = np.array([0.02, -0.01, -0.05])  # the joint, in the parent's marker coordinates
AXIS = np.array([0.2, 1.0, 0.1]) / np.linalg.norm([0.2, 1.0, 0.1])


def linkage(kind: str, noise: float = 0.001, seed: int = 0):
    """World markers of the parent ``(T, 4, 3)`` and child ``(T, 3, 3)``, and the joint centre ``(T, 3)``."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 1.0, FRAMES)
    parent_rot = Rotation.from_rotvec(np.stack([0.3 * np.sin(5 * t), 0.4 * np.sin(3 * t + 1), 0.5 * t], axis=1))
    parent_pos = np.stack([0.8 * t, 0.1 * np.sin(4 * t), 0.9 + 0.05 * t], axis=1)
    if kind == "ball":
        relative = Rotation.from_rotvec(np.stack([0.6 * np.sin(6 * t), 0.5 * np.cos(9 * t), 0.3 * np.sin(4 * t)], 1))
    else:
        relative = Rotation.from_rotvec(AXIS[None] * (0.7 + 0.7 * np.sin(6 * t))[:, None])
    centre = parent_pos + parent_rot.apply(CENTRE)
    parent = parent_pos[:, None] + np.einsum("tij,mj->tmi", parent_rot.as_matrix(), PARENT)
    child = centre[:, None] + np.einsum("tij,mj->tmi", (parent_rot * relative).as_matrix(), CHILD - CENTRE)
    parent = parent + rng.normal(scale=noise, size=parent.shape)
    child = child + rng.normal(scale=noise, size=child.shape)
    parent[20:40, 1] = np.nan  # gaps
    child[100:130, 0] = np.nan
    return parent, child, centre, parent_rot


def distance_to_line(point, line_point, direction):
    rel = point - line_point
    return np.linalg.norm(rel - np.sum(rel * direction, axis=-1, keepdims=True) * direction, axis=-1)


def test_sphere_fit_finds_a_ball_joint_centre():
    parent, child, centre, _ = linkage("ball")
    fit = fit_in_parent(rigid_frames(parent), child)
    error = np.linalg.norm(fit.world - centre, axis=1)
    assert np.nanmedian(error) < 0.003
    assert fit.rms < 0.002 and not fit.hinge


def test_sphere_fit_on_exact_spheres_is_exact():
    rng = np.random.default_rng(3)
    directions = rng.normal(size=(200, 2, 3))
    directions /= np.linalg.norm(directions, axis=-1, keepdims=True)
    points = np.array([0.1, -0.2, 0.3]) + directions * np.array([0.2, 0.35])[None, :, None]
    centre, rms, conditioning, _ = sphere_fit(points, damping=0.0)
    np.testing.assert_allclose(centre, [0.1, -0.2, 0.3], atol=1e-9)
    assert rms < 1e-9 and conditioning > 0.5
    damped, _, _, _ = sphere_fit(points)  # the default damping moves a well-determined centre by micrometres
    np.testing.assert_allclose(damped, [0.1, -0.2, 0.3], atol=1e-5)


def test_score_finds_a_ball_joint_centre_in_both_frames():
    parent, child, centre, _ = linkage("ball")
    fit = score(rigid_frames(parent), rigid_frames(child))
    assert np.nanmedian(np.linalg.norm(fit.world - centre, axis=1)) < 0.003
    assert fit.rms < 0.002


def test_score_damping_zero_is_the_papers_least_squares():
    parent, child, centre, _ = linkage("ball", noise=0.0005)
    frames = rigid_frames(parent), rigid_frames(child)
    undamped, damped = score(*frames, damping=0.0), score(*frames)
    assert np.nanmedian(np.linalg.norm(undamped.world - centre, axis=1)) < 0.002
    assert np.nanmedian(np.linalg.norm(undamped.world - damped.world, axis=1)) < 0.002


def test_scores_sara_axis_finds_a_hinge_and_the_centre_lies_on_it():
    parent, child, centre, parent_rot = linkage("hinge")
    parent_frames, child_frames = rigid_frames(parent), rigid_frames(child)
    fit = score(parent_frames, child_frames)
    world_axis = np.einsum("tij,j->ti", parent_frames.rot, fit.axis)
    true_axis = parent_rot.apply(AXIS)
    angle = np.degrees(np.arccos(np.clip(np.abs(np.sum(world_axis * true_axis, axis=1)), 0, 1)))
    assert np.nanmedian(angle) < 2.0
    assert fit.hinge
    assert np.nanmedian(distance_to_line(fit.world, centre, true_axis)) < 0.003


@pytest.mark.parametrize("kind", ["ball", "hinge"])
def test_a_child_of_one_marker_still_gives_the_centre_or_its_axis(kind):
    parent, child, centre, parent_rot = linkage(kind)
    fit = fit_in_parent(rigid_frames(parent), child[:, :1])
    if kind == "ball":
        assert np.nanmedian(np.linalg.norm(fit.world - centre, axis=1)) < 0.01
    else:  # one marker on a circle: the centre is somewhere on the axis
        assert np.nanmedian(distance_to_line(fit.world, centre, parent_rot.apply(AXIS))) < 0.005


def test_too_few_samples_give_no_fit():
    parent, child, _, _ = linkage("ball")
    child[10:] = np.nan
    assert fit_in_parent(rigid_frames(parent), child) is None
