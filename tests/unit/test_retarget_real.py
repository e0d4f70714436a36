"""Retargeting a real walk (subject 4, calibrated on its static trial) onto Mixamo-like characters built in
numpy: rest poses and bone rolls do not matter, the hips follow the subject, feet stay planted, and the
contact events agree with the force plates."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.retarget import RetargetOptions, detect_mapping, foot_contacts, retarget
from mocap_dynamics.solver.runs import runs
from mocap_dynamics.solver.retarget.events import stance_events
from tests.unit.retarget_rigs import mixamo_skeleton, source_from_motion


@pytest.fixture(scope="module")
def walk(shared_data):
    from mocap_dynamics.solver.pipeline import PipelineOptions, run
    return run(shared_data / "subject4_walking1.trc",
               PipelineOptions(static=str(shared_data / "subject4_static1.trc"), until="contact"))


@pytest.fixture(scope="module")
def source(walk):
    contacts = foot_contacts(walk.contact)
    stance = np.zeros((walk.motion.n_frames, 2), bool)
    stance[:len(contacts.times)] = contacts.stance  # the contact frames are the motion's first ones
    return source_from_motion(walk.motion, stance, place=np.array([3.0, -2.0, 0.0]))


def _world(result):
    return result.skeleton.to_world(result.pose)


def _hips(walk):
    model = walk.motion.model
    return 0.5 * (walk.motion.positions[:, model.index("thigh_l")] + walk.motion.positions[:, model.index("thigh_r")])


def test_contact_events_match_the_force_plates(walk):
    contacts = foot_contacts(walk.contact)
    assert contacts.feet == ("foot_l", "foot_r")
    events = {(e.foot, e.kind): [] for e in contacts.events}
    for e in contacts.events:
        events[(e.foot, e.kind)].append(e.time)
    matched = 0
    for plate in walk.plate_comparison.events:
        for kind, measured in (("heel strike", plate.measured_onset), ("toe off", plate.measured_offset)):
            if np.isfinite(measured):
                nearest = min(abs(t - measured) for t in events[(plate.foot, kind)])
                assert nearest <= 0.035, f"{kind} of foot {plate.foot} at {measured} s"
                matched += 1
    assert matched == 4


def test_events_bound_each_stance():
    stance = np.zeros((20, 1), bool)
    stance[:4, 0] = stance[9:15, 0] = True
    events = stance_events(stance, np.arange(20) * 0.01)
    assert [(e.kind, e.time) for e in events] == [("toe off", 0.04), ("heel strike", 0.09), ("toe off", 0.15)]


def test_rest_pose_and_bone_rolls_do_not_change_the_motion(source, walk):
    """Copying joint rotations only (no foot IK), every limb points where the subject's segment points."""
    options = RetargetOptions(foot_lock=False, scaled_feet=False)
    results = []
    for pose, seed in (("T", 0), ("A", 1)):
        character = mixamo_skeleton(pose, seed=seed)
        results.append(retarget(source, character, detect_mapping(character.names, character.parents), options))
    (_, heads_t), (_, heads_a) = _world(results[0]), _world(results[1])
    np.testing.assert_allclose(heads_t, heads_a, atol=1e-9)
    character, result = results[1].skeleton, results[1]
    rotation, heads = _world(result)
    model = walk.motion.model
    for bone, child, segment in (("LeftArm", "LeftForeArm", "upper_arm_l"), ("RightForeArm", "RightHand", "forearm_r"),
                                 ("LeftUpLeg", "LeftLeg", "thigh_l"), ("RightLeg", "RightFoot", "shank_r")):
        k = model.index(segment)
        line = heads[:, character.index(f"mixamorig:{child}")] - heads[:, character.index(f"mixamorig:{bone}")]
        expected = np.einsum("tij,j->ti", walk.motion.rotations[:, k], model.segments[k].tip)
        cos = np.sum(line * expected, 1) / np.linalg.norm(line, axis=1) / np.linalg.norm(expected, axis=1)
        assert np.degrees(np.arccos(np.clip(cos, -1, 1))).max() < 1e-5, segment


def test_planted_feet_and_hips_that_follow_the_subject(source, walk):
    character = mixamo_skeleton("A")
    result = retarget(source, character, detect_mapping(character.names, character.parents))
    assert 1.05 < result.scale < 1.2, "the character's legs are longer than the subject's"
    assert len(result.slides) == 4 and result.max_slide < 1e-6, "the pivots stay where they were planted"
    assert result.hip_drop.max() < 0.03
    _, heads = _world(result)
    hips = heads[:, character.index("mixamorig:Hips")]
    assert np.corrcoef(hips[:, 2], _hips(walk)[:, 2])[0, 1] >= 0.9
    assert hips[0, :2] == pytest.approx([0.0, 0.0], abs=0.05), "the character starts where it stands"
    model = walk.motion.model
    origin_s = np.r_[_hips(walk)[0, :2] + [3.0, -2.0], 0.0]
    for bone, segment, tolerance in (("LeftFoot", "foot_l", 0.06), ("RightFoot", "foot_r", 0.06),
                                     ("LeftHand", "hand_l", 0.12), ("RightHand", "hand_r", 0.12)):
        scaled = result.scale * (walk.motion.positions[:, model.index(segment)] + [3.0, -2.0, 0.0] - origin_s)
        path = heads[:, character.index(f"mixamorig:{bone}")]
        gap = np.linalg.norm((path - path.mean(0)) - (scaled - scaled.mean(0)), axis=1)
        assert gap.max() < tolerance, f"{bone} follows the scaled source path"
    for f, stance in enumerate(source.stance.T):
        ball = heads[:, character.index(f"mixamorig:{('Left', 'Right')[f]}ToeBase")]
        for start, end in runs(stance):
            assert ball[end - 1, 2] == pytest.approx(0.02, abs=0.025), "pushing off over the ball, on the floor"
    free = retarget(source, character, result.mapping, RetargetOptions(foot_lock=False))
    _, heads = _world(free)
    for side, s in (("Left", "l"), ("Right", "r")):
        hip, ankle = (heads[:, character.index(f"mixamorig:{side}{b}")] for b in ("UpLeg", "Foot"))
        np.testing.assert_allclose(ankle - hip, result.scale * (walk.motion.positions[:, model.index(f"foot_{s}")]
                                                                - walk.motion.positions[:, model.index(f"thigh_{s}")]),
                                   atol=1e-3,
                                   err_msg="the ankles reach the subject's, scaled (the knee stays bent 0.1 %)")
    without = retarget(source.__class__(source.skeleton, source.pose, source.rate, None), character,
                       result.mapping)
    assert without.slides == () and not without.hip_drop.any(), "no stances: nothing is locked"


def test_on_a_treadmill_the_feet_stay_on_the_belt(source, walk):
    """The walk as on a 1.3 m/s treadmill (every position moved back with the belt, which the contact estimate
    reports: ``Contact.ground_velocity``): the pins travel with the belt, so the character is the overground
    one moved by the belt, bone for bone; pinned in the lab instead, the feet would be dragged off their path.
    With the belt's travel as root motion (``belt_travel``) it is the overground one."""
    character = mixamo_skeleton("A")
    mapping = detect_mapping(character.names, character.parents)
    ground = retarget(source, character, mapping)
    belt = np.array([-1.3, 0.0, 0.0])
    times = np.arange(len(source.pose)) / source.rate
    pose = source.pose.copy()
    pose[:, :, :3, 3] += times[:, None, None] * belt
    on_belt = source.__class__(source.skeleton, pose, source.rate, source.stance, belt)
    treadmill = retarget(on_belt, character, mapping)
    moved = _world(ground)[1] + ground.scale * times[:, None, None] * belt
    np.testing.assert_allclose(_world(treadmill)[1], moved, atol=1e-6)
    assert treadmill.max_slide < 1e-6, "the pivots stay where they were planted on the belt"
    in_the_lab = retarget(source.__class__(source.skeleton, pose, source.rate, source.stance), character, mapping)
    assert np.abs(_world(in_the_lab)[1] - moved).max() > 0.1
    walking_on = retarget(on_belt, character, mapping, RetargetOptions(belt_travel=True))
    np.testing.assert_allclose(_world(walking_on)[1], _world(ground)[1], atol=1e-6,
                               err_msg="the belt's travel as root motion: the overground walk, bone for bone")


def test_an_arm_that_hangs_moves_the_characters_whole_arm(shared_data):
    """The walk without its left elbow markers: the model's left arm is one segment hanging from the shoulder
    (``arm_l``), and the character's upper arm and forearm both point along it (they had no segment to follow)."""
    from dataclasses import replace

    from mocap_dynamics.solver.io import load_trial
    from mocap_dynamics.solver.kinematics import reconstruct
    from mocap_dynamics.solver.model import calibrate
    trial = load_trial(shared_data / "subject4_walking1.trc")
    kept = [i for i, label in enumerate(trial.labels) if not label.startswith("L_elbow")]
    trial = replace(trial, labels=tuple(trial.labels[i] for i in kept), markers=trial.markers[:, kept])
    motion = reconstruct(trial, calibrate(trial))
    character = mixamo_skeleton("T")
    result = retarget(source_from_motion(motion), character, detect_mapping(character.names, character.parents),
                      RetargetOptions(foot_lock=False, scaled_feet=False))
    _, heads = _world(result)
    model = motion.model
    k = model.index("arm_l")
    expected = np.einsum("tij,j->ti", motion.rotations[:, k], model.segments[k].tip)
    for bone, child in (("LeftArm", "LeftForeArm"), ("LeftForeArm", "LeftHand")):
        line = heads[:, character.index(f"mixamorig:{child}")] - heads[:, character.index(f"mixamorig:{bone}")]
        cos = np.sum(line * expected, 1) / np.linalg.norm(line, axis=1) / np.linalg.norm(expected, axis=1)
        assert np.degrees(np.arccos(np.clip(cos, -1, 1))).max() < 1e-5, bone
