"""A marker-less head held level (``model.level_head``, ``kinematics.held_joints``): the rule in closed form, the
calibration and the reconstructions that use it, and the held joint's rates against differences of its pose."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.dynamics.derivatives import central_differences
from mocap_dynamics.solver.kinematics import Motion, reconstruct
from mocap_dynamics.solver.kinematics.held_joints import set_held_joints
from mocap_dynamics.solver.kinematics.synthetic import smooth_motion
from mocap_dynamics.solver.model.serialize import model_to_dict
from mocap_dynamics.solver.model.held import tracked_coordinates, tracked_model
from mocap_dynamics.solver.model.level_head import NECK_RANGE, level_joint
from mocap_dynamics.solver.rotations import quat_from_axis_angle, quat_to_matrix


def turn(axis, degrees) -> np.ndarray:
    return quat_to_matrix(quat_from_axis_angle(np.asarray(axis, float), np.radians(degrees)))


@pytest.mark.parametrize("lean", [0.0, 20.0, 45.0, -30.0, 70.0, -120.0])
def test_a_leaning_torso_bends_the_neck_back_by_its_lean_up_to_the_neck_range(lean):
    """A torso facing 60° left and leaning ``lean`` degrees forward (negative: back): the neck turns the head back
    about the torso's own Y by the lean, at most ``NECK_RANGE``; the head still faces where the torso faces."""
    torso = turn([0, 0, 1], 60) @ turn([0, 1, 0], lean)
    quat = level_joint(torso)
    bent = min(abs(lean), np.degrees(NECK_RANGE))
    np.testing.assert_allclose(quat_to_matrix(quat), turn([0, 1, 0], -np.sign(lean) * bent), atol=1e-12)
    head = torso @ quat_to_matrix(quat)
    assert np.degrees(np.arccos(head[2, 2])) == pytest.approx(abs(lean) - bent, abs=1e-9)
    facing = head[:2, 0] / np.linalg.norm(head[:2, 0])
    np.testing.assert_allclose(facing, [np.cos(np.radians(60)), np.sin(np.radians(60))], atol=1e-12)


def test_a_sideways_lean_is_undone_without_twisting_the_head():
    """Leaning 25° to the side and 15° forward at once: the head is upright and its face (X) stays in the
    plane of the torso's X and Z (a swing, no twist about the torso's long axis)."""
    torso = turn([1, 0, 0], 25) @ turn([0, 1, 0], 15)
    head = torso @ quat_to_matrix(level_joint(torso))
    np.testing.assert_allclose(head[:, 2], [0, 0, 1], atol=1e-12)
    assert abs(head[:, 0] @ torso[:, 1]) < 0.2 and abs(quat_to_rotvec_about_z(torso, head)) < 1e-12


def quat_to_rotvec_about_z(torso, head) -> float:
    """The component along the torso's Z of the rotation from the torso to the head (its twist)."""
    relative = torso.T @ head
    return float(relative[0, 1] - relative[1, 0])


def test_calibration_holds_a_marker_less_head_level_and_welds_it_when_asked(walking_full15, shared_data,
                                                                             subject4_static):
    """Subject 4 has no head markers: the head hangs on a ball neck held level (reported, and its neck angles
    said to be assumed); ``head="welded"`` gives the papers' rigid upper body, the model OTM solves."""
    from mocap_dynamics.solver.io import load_trial
    from mocap_dynamics.solver.model import calibrate

    head = walking_full15.segments[walking_full15.index("head")]
    cal = walking_full15.metadata["calibration"]
    assert head.joint == "ball" and head.held == "level" and cal.held == {"head": "level"} and "head" not in cal.welded
    assert any("held level" in note and "assumed" in note for note in cal.notes)
    welded = calibrate(load_trial(shared_data / "subject4_walking1.trc"), static=subject4_static, head="welded")
    assert welded.segments[welded.index("head")].joint == "weld" and "head" in welded.metadata["calibration"].welded
    assert model_to_dict(tracked_model(walking_full15))["segments"] == model_to_dict(welded)["segments"]
    assert np.allclose(tracked_coordinates(walking_full15, cal.initial_q), welded.metadata["calibration"].initial_q)


def test_reconstruction_tracks_the_same_markers_and_holds_the_head_upright(walking_full15, shared_data):
    """OTM on the held model moves every tracked segment exactly as on the welded one; the head stands upright
    (the walk's trunk leans far less than the neck's range)."""
    from mocap_dynamics.solver.io import load_trial

    trial = load_trial(shared_data / "subject4_walking1.trc")
    trial = replace(trial, markers=trial.markers[:120])
    held = reconstruct(trial, walking_full15)
    welded = reconstruct(trial, tracked_model(walking_full15))
    assert held.model is walking_full15 and held.q.shape == (120, walking_full15.nq)
    np.testing.assert_array_equal(tracked_coordinates(walking_full15, held.q), welded.q)
    np.testing.assert_array_equal(held.marker_errors, welded.marker_errors)
    k = walking_full15.index("head")
    np.testing.assert_allclose(held.rotations[:, k, :, 2], np.broadcast_to([0, 0, 1], (120, 3)), atol=1e-12)
    torso = walking_full15.index("torso")
    np.testing.assert_allclose(held.positions[:, k], welded.positions[:, k], atol=1e-12)
    assert np.degrees(np.arccos(welded.rotations[:, torso, 2, 2])).max() > 2.0  # the torso does lean


def test_given_rates_get_the_held_joints_rates_from_its_quaternions(walking_full15):
    """A motion with its own v and a (as Lee's estimator returns): the held neck's angular velocity and
    acceleration match central differences of its poses (a different formula: Brubaker's App. A)."""
    tracked = tracked_model(walking_full15)
    rate = 200.0
    q = smooth_motion(tracked, 200, rate=rate, seed=4, amplitude=0.3)
    times = np.arange(len(q)) / rate
    given = Motion.from_q(tracked, times, q, "lee", v=np.zeros((len(q), tracked.nv)),
                          a=np.zeros((len(q), tracked.nv)))
    held = set_held_joints(given, walking_full15)
    _, _, v, a = central_differences(walking_full15, times, held.q)
    k = walking_full15.index("head")
    cols = slice(walking_full15.v_starts[k], walking_full15.v_starts[k] + 3)
    assert np.abs(held.v[:, cols]).max() > 0.5
    np.testing.assert_allclose(held.v[1:-1, cols], v[:, cols], atol=2e-3 * np.abs(v[:, cols]).max())
    np.testing.assert_allclose(held.a[2:-2, cols], a[1:-1, cols], atol=2e-2 * np.abs(a[:, cols]).max())
    others = np.ones(walking_full15.nv, dtype=bool)
    others[cols] = False
    assert not held.v[:, others].any() and not held.a[:, others].any()


def test_a_level_head_brings_the_sit_to_stands_ankle_moments_nearer_the_plates(shared_data):
    """subject4_STS1 (no head markers; the trunk leans some 45° to rise): the ankle moments from the motion
    alone against ours with the measured plates (which do not depend on the upper body) agree better with the
    head held level than welded to the leaning trunk (r 0.60/0.70 -> 0.72/0.79 when written)."""
    from mocap_dynamics.solver.dynamics import joint_moments
    from mocap_dynamics.solver.pipeline import PipelineOptions, run

    fits = {}
    for head in ("level", "welded"):
        result = run(shared_data / "subject4_STS1.trc", PipelineOptions(until="contact", head=head))
        alone, plates = joint_moments(result.contact.dynamics), joint_moments(result.dynamics_with_plates)
        fits[head] = [(np.corrcoef(alone.moment(ankle, "dorsiflexion"), plates.moment(ankle, "dorsiflexion"))[0, 1],
                       np.sqrt(np.mean((alone.moment(ankle, "dorsiflexion") - plates.moment(ankle, "dorsiflexion"))
                                       ** 2))) for ankle in ("ankle_l", "ankle_r")]
    for (r_level, rmse_level), (r_welded, rmse_welded) in zip(fits["level"], fits["welded"]):
        assert r_level > max(0.7, r_welded + 0.05) and rmse_level < 0.9 * rmse_welded
