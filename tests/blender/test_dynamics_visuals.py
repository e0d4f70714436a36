"""Torque disks, root residual arrow and Graph Editor curves show what inverse dynamics computed."""

from __future__ import annotations

import importlib

import bpy
import numpy as np
import pytest


@pytest.fixture
def walk_dynamics(package):
    """Inverse dynamics of a smooth synthetic motion of the sample subject's calibrated model."""
    sample = importlib.import_module(f"{package.__name__}.solver.sample").make_sample()
    model = importlib.import_module(f"{package.__name__}.solver.model").calibrate(sample.trial, mass=sample.mass)
    motion_type = importlib.import_module(f"{package.__name__}.solver.kinematics.motion").Motion
    times = np.arange(60) / 100.0
    q = np.tile(model.neutral_q(), (len(times), 1))
    q[:, :3] = [0.0, 0.0, 0.9] + np.outer(times, [1.2, 0.0, 0.0])
    for seg, start in zip(model.segments, model.q_starts):
        if seg.joint == "hinge":
            q[:, start] = 0.6 + 0.5 * np.sin(2 * np.pi * 1.5 * times)
    motion = motion_type.from_q(model, times, q, method="synthetic")
    dynamics = importlib.import_module(f"{package.__name__}.solver.dynamics").inverse_dynamics(motion)
    return model, dynamics


def test_disks_arrow_and_curves_follow_the_dynamics(scene, package, walk_dynamics):
    model, dynamics = walk_dynamics
    armature = importlib.import_module(f"{package.__name__}.addon.armature")
    visuals = importlib.import_module(f"{package.__name__}.addon.dynamics_visuals")
    trial = bpy.data.collections.new("trial")
    scene.collection.children.link(trial)
    rig = armature.build_armature(bpy.context, model, trial, "rig")
    frames = 1.0 + np.arange(len(dynamics.times))
    visuals.build_dynamics_visuals(bpy.context, dynamics, trial, rig, frames)
    scale = scene[visuals.TORQUE_SCALE_PROP]
    knee = model.index("shank_l")
    rotations, positions = model.forward_kinematics(dynamics.q)
    torque = np.linalg.norm(dynamics.joint_torque_world[:, knee], axis=1)
    checked = 0
    for t in (5, 20, 40):
        scene.frame_set(int(frames[t]))
        disk = bpy.data.objects["shank_l torque"]
        generating, absorbing = (bpy.data.objects[f"shank_l torque {kind}"] for kind in ("generating", "absorbing"))
        np.testing.assert_allclose(disk.matrix_world.translation[:], positions[t, knee], atol=1e-5)
        normal = np.array(disk.matrix_world.to_3x3().col[2][:])
        assert abs(normal @ dynamics.joint_torque_world[t, knee]) == pytest.approx(torque[t], rel=1e-4)
        shown, hidden = (generating, absorbing) if dynamics.joint_power[t, knee] > 0 else (absorbing, generating)
        assert shown.scale[0] == pytest.approx(torque[t] * scale, rel=1e-4) and hidden.scale[0] == 0.0
        assert rig["torque shank_l"] == pytest.approx(torque[t], rel=1e-4)
        assert rig["knee_l_flexion_moment"] == pytest.approx(dynamics.axis_torques[t, knee, 0], rel=1e-4, abs=1e-3)
        residual = np.linalg.norm(dynamics.root_wrench[t, :3])
        assert bpy.data.objects["pelvis residual force"]["force_N"] == pytest.approx(residual, rel=1e-4)
        assert rig["root residual force"] == pytest.approx(residual, rel=1e-4)
        checked += 1
    assert checked == 3
    assert dynamics.joint_power[:, knee].min() < 0 < dynamics.joint_power[:, knee].max(), "both colours used"


def test_disks_sit_on_the_rigs_joints_when_the_dynamics_are_filtered(scene, package):
    """The default dynamics differentiate filtered coordinates, the rig plays the reconstructed motion: the disks
    and the residual arrow sit at the rig's joints, not at the filtered ones (here 1 cm of 12 Hz sway of the
    root that a 4 Hz filter takes out)."""
    solver = importlib.import_module(f"{package.__name__}.solver")
    sample = solver.sample.make_sample()
    model = solver.model.calibrate(sample.trial, mass=sample.mass)
    times = np.arange(80) / 100.0
    q = np.tile(model.neutral_q(), (len(times), 1))
    q[:, :3] = [0.0, 0.0, 0.9] + np.outer(times, [1.2, 0.0, 0.0])
    q[:, 0] += 0.01 * np.sin(2 * np.pi * 12 * times)
    motion = solver.kinematics.motion.Motion.from_q(model, times, q, method="synthetic")
    dynamics = solver.dynamics.inverse_dynamics(motion, cutoff=4.0, scheme="central")
    armature = importlib.import_module(f"{package.__name__}.addon.armature")
    visuals = importlib.import_module(f"{package.__name__}.addon.dynamics_visuals")
    trial = bpy.data.collections.new("trial")
    scene.collection.children.link(trial)
    rig = armature.build_armature(bpy.context, model, trial, "rig")
    frames = 1.0 + np.searchsorted(times, dynamics.times - 1e-9)
    visuals.build_dynamics_visuals(bpy.context, dynamics, trial, rig, frames, motion=motion)
    knee = model.index("shank_l")
    _, filtered = model.forward_kinematics(dynamics.q)
    apart = 0.0
    for t in (10, 30, 50):
        scene.frame_set(int(frames[t]))
        at = int(frames[t]) - 1
        np.testing.assert_allclose(bpy.data.objects["shank_l torque"].matrix_world.translation[:],
                                   motion.positions[at, knee], atol=1e-5)
        np.testing.assert_allclose(bpy.data.objects["pelvis residual force"].matrix_world.translation[:],
                                   motion.positions[at, 0], atol=1e-5)
        apart = max(apart, np.linalg.norm(filtered[t, knee] - motion.positions[at, knee]))
    assert apart > 0.003, "the filtered joints lie elsewhere"
