"""Forward dynamics: mass matrix, accelerations from forces, Euler replay (Brubaker §4.2), conservation."""

from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.dynamics import (
    forward_differences, forward_dynamics, inverse_dynamics, mass_matrix, momentum, replay,
    rnea, simulate,
)
from mocap_dynamics.solver.dynamics.derivatives import continuous_quaternions
from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.kinematics.motion import Motion
from mocap_dynamics.solver.model.body import BodyModel
from mocap_dynamics.solver.rotations import quat_from_axis_angle, quat_mul, quat_to_matrix, skew
from tests.unit.test_dynamics_models import chain, humanoid, smooth_motion

DT = 0.01


def test_mass_matrix_of_one_rigid_body():
    """Kinetic energy ½ m |v + R(ω × c)|² + ½ ωᵀ I ω in our layout (v world, ω body):
    M = [[m 1, -m R [c]], [m [c] Rᵀ, I + m [c]ᵀ[c]]]."""
    model = chain([])
    body = model.segments[0]
    q = smooth_motion(model, np.random.default_rng(1), 1, DT)
    rot, c, m = quat_to_matrix(q[0, 3:7]), skew(body.com), body.mass
    expected = np.block([[m * np.eye(3), -m * rot @ c], [m * c @ rot.T, body.inertia + m * c.T @ c]])
    np.testing.assert_allclose(mass_matrix(model, q)[0], expected, rtol=1e-13, atol=1e-14)


def test_mass_matrix_is_the_response_to_unit_accelerations():
    """M[:, k] = generalized force for a = e_k without velocity or gravity; symmetric, positive definite."""
    model = humanoid()
    q = smooth_motion(model, np.random.default_rng(2), 3, DT)
    matrices = mass_matrix(model, q)
    for t in range(3):
        columns = rnea(model, np.zeros(model.nv), np.tile(q[t], (model.nv, 1)), np.zeros((model.nv, model.nv)),
                       np.eye(model.nv), gravity=np.zeros(3)).generalized_forces.T
        np.testing.assert_allclose(matrices[t], columns, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(matrices[t], matrices[t].T)
        assert np.linalg.eigvalsh(matrices[t]).min() > 0


def test_forward_dynamics_inverts_inverse_dynamics():
    model = humanoid()
    rng = np.random.default_rng(3)
    q = smooth_motion(model, rng, 20, DT)
    v, a = rng.normal(size=(2, 20, model.nv))
    dyn = rnea(model, np.arange(20) * DT, q, v, a)
    np.testing.assert_allclose(forward_dynamics(model, q, v, dyn.generalized_forces), a, rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_replay_reproduces_the_motion(seed):
    """Brubaker §4.2: torques and root wrench estimated with forward differences, integrated by the same
    Euler scheme, give back the input motion (half a second of the 15-segment tree at human speeds).

    Open-loop replay is unstable (a light segment standing above its joint falls away at ~sqrt(g/d)), so
    rounding errors grow over longer trials; each single step is exact (next test)."""
    model = humanoid()
    times = np.arange(51) * DT
    q = smooth_motion(model, np.random.default_rng(seed), len(times), DT, speed=0.5)
    dyn = inverse_dynamics(Motion.from_q(model, times, q, method="test"))
    again = replay(dyn)
    np.testing.assert_allclose(again.times, times, atol=1e-12)
    np.testing.assert_allclose(again.q, continuous_quaternions(model, q), rtol=0, atol=1e-9)


def test_each_euler_step_is_exact():
    """From the estimated state at t, one step with the estimated forces lands on the state at t + 1."""
    model = humanoid()
    times = np.arange(40) * DT
    q = smooth_motion(model, np.random.default_rng(5), len(times), DT, speed=3.0)
    _, q, v, a = forward_differences(model, times, q)
    dyn = rnea(model, times[:-2], q, v, a)
    for t in range(len(q) - 1):
        q_next, v_next = simulate(model, q[t], v[t], dyn.generalized_forces[t:t + 1], DT)
        np.testing.assert_allclose(q_next[1], q[t + 1], atol=1e-13)
        np.testing.assert_allclose(v_next[1], v[t + 1], atol=1e-10 * np.abs(v).max())


def test_momentum_matches_finite_differences_of_the_kinematics():
    """Σ m v_c and Σ (c × m v_c + R I Rᵀ ω), velocities from central differences of forward kinematics."""
    model = humanoid()
    rng = np.random.default_rng(6)
    q = smooth_motion(model, rng, 1, DT)[0]
    v = rng.normal(size=model.nv)
    h = 1e-6

    def moved(step):
        out = q.copy()
        for s, qs, vs in zip(model.segments, model.q_starts, model.v_starts):
            if s.joint in ("free", "ball"):
                i, j = qs + 3 * (s.joint == "free"), vs + 3 * (s.joint == "free")
                w = v[j:j + 3]
                turn = quat_from_axis_angle(w / np.linalg.norm(w), step * np.linalg.norm(w))
                out[i:i + 4] = quat_mul(q[i:i + 4], turn)
            if s.joint == "free":
                out[qs:qs + 3] += step * v[vs:vs + 3]
            elif s.joint in ("hinge", "universal"):
                out[qs:qs + s.nq] += step * v[vs:vs + s.nv]
        return out

    rot = [model.forward_kinematics(moved(s))[0] for s in (-h, 0, h)]
    com = [model.com_positions(moved(s)) for s in (-h, h)]
    masses = np.array([s.mass for s in model.segments])
    com_velocity = (com[1] - com[0]) / (2 * h)
    omega = np.einsum("sij,skj->sik", (rot[2] - rot[0]) / (2 * h), rot[1])
    omega = np.stack([omega[:, 2, 1], omega[:, 0, 2], omega[:, 1, 0]], axis=1)
    inertia = np.einsum("sij,sjk,slk->sil", rot[1], np.array([s.inertia for s in model.segments]), rot[1])
    linear = masses @ com_velocity
    angular = np.sum(np.cross(model.com_positions(q), masses[:, None] * com_velocity)
                     + np.einsum("sij,sj->si", inertia, omega), axis=0)
    got_linear, got_angular = momentum(model, q, v)
    np.testing.assert_allclose(got_linear[0], linear, rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(got_angular[0], angular, rtol=1e-7, atol=1e-7)


def test_a_free_floating_body_keeps_its_momentum():
    """Zero gravity, zero torques: linear and angular momentum stay constant (RK4, 1 s)."""
    model = humanoid()
    rng = np.random.default_rng(7)
    q0 = smooth_motion(model, rng, 1, DT)[0]
    v0 = rng.normal(scale=1.0, size=model.nv)
    steps = 1000
    q, v = simulate(model, q0, v0, np.zeros((steps, model.nv)), 1e-3, gravity=np.zeros(3), method="rk4")
    linear, angular = momentum(model, q, v)
    np.testing.assert_allclose(linear, np.tile(linear[0], (steps + 1, 1)), rtol=0, atol=1e-9 * np.abs(linear[0]).max())
    np.testing.assert_allclose(angular, np.tile(angular[0], (steps + 1, 1)), rtol=0,
                               atol=1e-9 * np.abs(angular[0]).max())
    assert np.abs(v - v0).max() > 0.1  # the joints did move


def test_integration_keeps_quaternions_unit():
    model = humanoid()
    rng = np.random.default_rng(8)
    q0 = smooth_motion(model, rng, 1, DT)[0]
    for method in ("euler", "rk4"):
        q, _ = simulate(model, q0, rng.normal(size=model.nv), rng.normal(size=(50, model.nv)), DT, method=method)
        for s, qs in zip(model.segments, model.q_starts):
            if s.joint in ("free", "ball"):
                i = qs + 3 * (s.joint == "free")
                np.testing.assert_allclose(np.linalg.norm(q[:, i:i + 4], axis=1), 1.0, atol=1e-14)


def test_a_massless_moving_segment_is_a_solver_error():
    model = chain(["ball"])
    massless = BodyModel((model.segments[0], replace(model.segments[1], mass=0.0, inertia=np.zeros((3, 3)))))
    with pytest.raises(SolverError, match="without mass or inertia"):
        forward_dynamics(massless, massless.neutral_q(), np.zeros(massless.nv), np.zeros(massless.nv))


def test_unknown_integration_method():
    model = chain([])
    with pytest.raises(SolverError, match="integration method"):
        simulate(model, model.neutral_q(), np.zeros(6), np.zeros((1, 6)), DT, method="leapfrog")
