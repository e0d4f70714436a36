"""The analytic gradient of eq. 10 (numba) against finite differences, and eq. 10 against inverse dynamics."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.contact import ContactConstants, Material, Plane, Surface, contact_forces
from mocap_dynamics.solver.contact.paper_fit import Layout, Problem
from mocap_dynamics.solver.contact.gradient import objective_and_gradient
from mocap_dynamics.solver.contact.model import SurfaceArrays
from mocap_dynamics.solver.dynamics import ExternalForces, forward_differences, rnea
from tests.unit.test_dynamics_models import humanoid, smooth_motion

SURFACES = (Surface((Plane((0.05, -0.03, 1.0), 0.002),), Material(6.0, 4.0, 3.0)),
            Surface((Plane((0.0, 0.02, 1.0), 0.03), Plane((1.0, 0.1, 0.0), 0.01)), Material(3.0, 2.0, 7.0)))


@pytest.fixture(scope="module")
def problem():
    """Points scattered within reach of both surfaces, moving every way, with an arbitrary residual wrench."""
    rng = np.random.default_rng(0)
    n_frames, n_points = 60, 10
    points = rng.normal(0.0, 0.03, (n_frames, n_points, 3)) + [0.0, 0.0, 0.01]
    return Problem(residual=rng.normal(0.0, 300.0, (n_frames, 6)), arms=rng.normal(0.0, 0.5, (n_frames, n_points, 3)),
                   points=points, velocities=rng.normal(0.0, 0.5, (n_frames, n_points, 3)), force_scale=60.0,
                   torque_weight=0.7)


def evaluate(problem, normals, offsets, materials):
    first_face = SurfaceArrays(SURFACES).first_face
    return objective_and_gradient(problem.residual, problem.arms, problem.points, problem.velocities, normals,
                                  offsets, first_face, materials, ContactConstants().array(), problem.force_scale,
                                  problem.torque_weight)


def numerical(f, x, step):
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[index] += step
        down[index] -= step
        grad[index] = (f(up) - f(down)) / (2 * step)
    return grad


def test_objective_is_eq10(problem):
    arrays = SurfaceArrays(SURFACES)
    value, *_ = evaluate(problem, arrays.normals, arrays.offsets, arrays.materials)
    forces = problem.force_scale * contact_forces(problem.points, problem.velocities, SURFACES)
    error = problem.residual.copy()
    error[:, :3] -= forces.sum(1)
    error[:, 3:] -= np.cross(problem.arms, forces).sum(1)
    assert value == pytest.approx(np.sum(error[:, :3] ** 2) + 0.7 * np.sum(error[:, 3:] ** 2), rel=1e-12)


def test_kernel_gradient_matches_finite_differences(problem):
    arrays = SurfaceArrays(SURFACES)
    n, c, m = arrays.normals, arrays.offsets, arrays.materials
    _, g_normals, g_offsets, g_materials = evaluate(problem, n, c, m)
    scale = np.abs(g_normals).max()
    np.testing.assert_allclose(numerical(lambda x: evaluate(problem, x, c, m)[0], n, 1e-6), g_normals,
                               atol=1e-7 * scale)
    np.testing.assert_allclose(numerical(lambda x: evaluate(problem, n, x, m)[0], c, 1e-6), g_offsets,
                               atol=1e-7 * np.abs(g_offsets).max())
    np.testing.assert_allclose(numerical(lambda x: evaluate(problem, n, c, x)[0], m, 1e-6), g_materials,
                               atol=1e-7 * np.abs(g_materials).max())


def test_parameter_gradient_matches_finite_differences(problem):
    """Through the estimate's parametrisation (tilt about the anchor, shift along the normal, materials)."""
    layout = Layout(SURFACES, np.array([[0.1, -0.2, 0.0], [0.0, 0.1, 0.02]]))
    x = layout.parameters(SURFACES) + np.random.default_rng(1).normal(0.0, 0.01, 3 * 3 + 6)
    value, grad = layout.objective(x, problem)
    np.testing.assert_allclose(numerical(lambda y: layout.objective(y, problem)[0], x, 1e-7), grad,
                               atol=1e-6 * np.abs(grad).max())
    back = layout.parameters(layout.surfaces(x))
    np.testing.assert_allclose(back, x, atol=1e-12)


def test_eq10_residual_is_the_root_wrench_of_inverse_dynamics():
    """``f_root(θ) = f_root(0) - Σ A_k f_k``: the residual the objective sums is what inverse dynamics leaves
    with the contact forces applied."""
    from mocap_dynamics.solver.model.body import BodyModel, Segment

    model = humanoid()
    model = BodyModel(tuple(Segment(**{**s.__dict__, "contact_points": np.array([[0.0, 0.05, -0.3], [0.04, 0, -0.3]])})
                            for s in model.segments))
    rng = np.random.default_rng(7)
    times, q, v, a = forward_differences(model, np.arange(22) * 0.01, smooth_motion(model, rng, 22, 0.01))
    from mocap_dynamics.solver.contact import point_motion
    from mocap_dynamics.solver.contact.model import ContactPoints

    points = ContactPoints.of(model)
    positions, velocities = point_motion(model, q, v)
    surface = (Surface.floor(float(np.percentile(positions[..., 2], 20)), material=Material(8.0, 3.0, 2.0)),)
    free = rnea(model, times, q, v, a)
    forces = 70.0 * contact_forces(positions, velocities, surface)
    loaded = rnea(model, times, q, v, a, external=ExternalForces(points.segments, positions, forces))
    arrays = SurfaceArrays(surface)
    value, *_ = objective_and_gradient(free.root_wrench, positions - q[:, None, 0:3], positions, velocities,
                                       arrays.normals, arrays.offsets, arrays.first_face, arrays.materials,
                                       ContactConstants().array(), 70.0)
    assert np.abs(forces).max() > 100.0
    assert value == pytest.approx(np.sum(loaded.root_wrench ** 2), rel=1e-10)
