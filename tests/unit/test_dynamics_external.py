"""Root wrench and external forces: free fall, standing on one point, and the linear map contact estimation uses."""

import numpy as np
import pytest

from mocap_dynamics.solver.dynamics import (
    ExternalForces, external_root_wrench, forward_differences, point_force_root_map, rnea,
)
from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.rotations import quat_from_axis_angle, quat_to_matrix
from tests.unit.test_dynamics_models import chain, humanoid, smooth_motion

G = np.array([0.0, 0.0, -9.81])


def frozen(model, n, rng):
    """n frames of one random pose (joints still), root at rest."""
    q = np.tile(smooth_motion(model, rng, 1, 0.01)[0], (n, 1))
    return q, np.zeros((n, model.nv)), np.zeros((n, model.nv))


def test_a_rigid_body_in_free_fall_needs_no_root_wrench():
    model = humanoid()
    times = np.linspace(0, 0.5, 11)
    q, v, a = frozen(model, len(times), np.random.default_rng(1))
    q[:, 0:3] += np.array([0.3, -0.2, 2.0]) * times[:, None] + 0.5 * G * times[:, None] ** 2
    v[:, 0:3] = np.array([0.3, -0.2, 2.0]) + G * times[:, None]
    a[:, 0:3] = G
    dyn = rnea(model, times, q, v, a)
    scale = model.total_mass * 9.81
    np.testing.assert_allclose(dyn.root_wrench, 0.0, atol=1e-12 * scale)


def test_a_spinning_body_in_free_fall_needs_no_root_wrench():
    """Torque-free spin about a principal axis through the centre of mass, which falls; the root origin
    (away from the centre of mass) circles around it."""
    model = chain([])
    body = model.segments[0]
    values, vectors = np.linalg.eigh(body.inertia)
    axis, spin = vectors[:, 0], 7.0
    times = np.linspace(0, 0.3, 16)
    quat = quat_from_axis_angle(axis, spin * times)  # R(t) = exp(spin t [axis]), body rate spin·axis
    rot = quat_to_matrix(quat)
    com = np.array([0.1, 0.0, 1.0]) + 0.5 * G * times[:, None] ** 2
    com_velocity, com_acc = G * times[:, None], np.tile(G, (len(times), 1))
    w = rot @ (spin * axis)  # world angular velocity, constant
    arm = rot @ body.com
    q = np.c_[com - arm, quat]
    v = np.c_[com_velocity - np.cross(w, arm), np.tile(spin * axis, (len(times), 1))]
    a = np.c_[com_acc - np.cross(w, np.cross(w, arm)), np.zeros((len(times), 3))]
    dyn = rnea(model, times, q, v, a)
    np.testing.assert_allclose(dyn.root_wrench, 0.0, atol=1e-11)


def test_standing_on_one_point_below_the_centre_of_mass_needs_no_root_wrench():
    model = humanoid()
    q, v, a = frozen(model, 3, np.random.default_rng(2))
    com = model.body_com(q)
    foot = model.index("foot_l")
    point = com + np.array([0.0, 0.0, -1.3])  # on the vertical through the centre of mass
    support = ExternalForces([foot], point[:, None], np.tile(-model.total_mass * G, (3, 1))[:, None])
    free = rnea(model, np.arange(3.0), q, v, a)
    held = rnea(model, np.arange(3.0), q, v, a, external=support)
    np.testing.assert_allclose(free.root_wrench[:, :3], np.tile(-model.total_mass * G, (3, 1)), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(held.root_wrench, 0.0, atol=1e-9)
    # The support loads the joints between the foot and the root, and only those.
    path = {foot}
    while model.segments[min(path)].parent > 0:
        path.add(model.segments[min(path)].parent)
    for k in range(1, len(model.segments)):
        changed = not np.allclose(held.joint_torque_world[:, k], free.joint_torque_world[:, k], atol=1e-9)
        assert changed == (k in path), model.segments[k].name


def test_root_wrench_is_linear_in_point_forces():
    """root_wrench(f) = root_wrench(0) - A f (point_force_root_map): what contact estimation minimises."""
    model = humanoid()
    rng = np.random.default_rng(3)
    n = 40
    times, q, v, a = forward_differences(model, np.arange(n + 2) * 0.01, smooth_motion(model, rng, n + 2, 0.01))
    segments = np.array([model.index(s) for s in ("foot_l", "foot_r", "hand_r", "head")])
    rot, pos = model.forward_kinematics(q)
    local = rng.uniform(-0.1, 0.1, (len(segments), 3))
    points = pos[:, segments] + np.einsum("tkij,kj->tki", rot[:, segments], local)
    forces = rng.normal(0, 300, (n, len(segments), 3))
    free = rnea(model, times, q, v, a)
    loaded = rnea(model, times, q, v, a, external=ExternalForces(segments, points, forces))
    matrix = point_force_root_map(free.root_origin, points)
    predicted = free.root_wrench - np.einsum("tkij,tkj->ti", matrix, forces)
    np.testing.assert_allclose(loaded.root_wrench, predicted, rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(loaded.root_wrench, free.root_wrench - external_root_wrench(
        free.root_origin, ExternalForces(segments, points, forces)), rtol=1e-10, atol=1e-9)
    # Joint torques are linear too: doubling the forces doubles their effect.
    doubled = rnea(model, times, q, v, a, external=ExternalForces(segments, points, 2 * forces))
    np.testing.assert_allclose(doubled.generalized_forces - free.generalized_forces,
                               2 * (loaded.generalized_forces - free.generalized_forces), rtol=1e-9, atol=1e-8)


def test_a_free_moment_adds_to_the_root_torque():
    model = humanoid()
    q, v, a = frozen(model, 2, np.random.default_rng(4))
    moment = np.array([[[1.0, -2.0, 3.0]]] * 2)
    free = rnea(model, np.arange(2.0), q, v, a)
    plate = ExternalForces([model.index("foot_r")], np.zeros((2, 1, 3)), np.zeros((2, 1, 3)), moment)
    loaded = rnea(model, np.arange(2.0), q, v, a, external=plate)
    np.testing.assert_allclose(loaded.root_wrench[:, 3:], free.root_wrench[:, 3:] - moment[:, 0], atol=1e-10)


def test_an_unloaded_plate_without_centre_of_pressure_contributes_nothing():
    model = humanoid()
    q, v, a = frozen(model, 2, np.random.default_rng(5))
    cop = np.array([[[np.nan, np.nan, np.nan]], [[0.1, 0.2, 0.0]]])
    force = np.array([[[0.0, 0.0, 0.0]], [[0.0, 0.0, 500.0]]])
    plate = ExternalForces([model.index("foot_l")], cop, force)
    loaded = rnea(model, np.arange(2.0), q, v, a, external=plate)
    free = rnea(model, np.arange(2.0), q, v, a)
    np.testing.assert_allclose(loaded.root_wrench[0], free.root_wrench[0], atol=1e-12)
    assert np.all(np.isfinite(loaded.generalized_forces))
    assert abs(loaded.root_wrench[1, 2] - (free.root_wrench[1, 2] - 500.0)) < 1e-9


def test_external_forces_must_match_the_frames_and_segments():
    model = chain(["ball"])
    q, v, a = frozen(model, 4, np.random.default_rng(6))
    with pytest.raises(SolverError, match="3 frames, the motion 4"):
        rnea(model, np.arange(4.0), q, v, a, external=ExternalForces([1], np.zeros((3, 1, 3)), np.zeros((3, 1, 3))))
    with pytest.raises(SolverError, match="segment the model does not have"):
        rnea(model, np.arange(4.0), q, v, a, external=ExternalForces([5], np.zeros((4, 1, 3)), np.zeros((4, 1, 3))))
    with pytest.raises(SolverError, match="shape"):
        ExternalForces([0, 1], np.zeros((4, 1, 3)), np.zeros((4, 1, 3)))
