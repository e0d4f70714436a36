"""The contact model, eqs. 4-7: every constant's role, units, surfaces, and the points on the body."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.contact import ContactConstants, Material, Plane, Surface, contact_forces, point_motion, \
    resting_distance, segment_wrenches
from mocap_dynamics.solver.contact.model import ContactPoints
from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.model.body import BodyModel, Segment
from tests.unit.test_dynamics_models import analytic_motion, humanoid, smooth_motion

FLOOR = Surface.floor(0.0, material=Material(5.0, 4.0, 3.0))


def force(z, velocity=(0.0, 0.0, 0.0), surface=FLOOR, constants=ContactConstants()):
    """Force per unit mass on one point at height z above the floor."""
    return contact_forces(np.array([[[0.3, -0.2, z]]]), np.array([[velocity]], dtype=float), (surface,),
                          constants)[0, 0]


def h(x):
    return 0.5 * (1 + np.tanh(x))


def test_eq4_to_6_by_hand():
    p, v = np.array([0.1, 0.2, 0.004]), np.array([0.3, -0.4, -0.2])
    kappa, delta_n, delta_t = 5.0, 4.0, 3.0
    d = p[2]
    n_c = -kappa * (d - 1.0) - delta_n * v[2]
    t_c = -delta_t * np.array([v[0], v[1], 0.0])
    expected = h(-60 * d) * h(5 * n_c) * (n_c * np.array([0, 0, 1.0]) + t_c)
    np.testing.assert_allclose(contact_forces(p[None, None], v[None, None], (FLOOR,))[0, 0], expected, rtol=1e-14)


def test_distance_gain_switches_contact_within_a_few_centimetres():
    """G_d = 60 /m: the distance sigmoid is 0.5 on the surface, 0.05/0.95 at ±2.45 cm, nothing at 10 cm."""
    kappa = FLOOR.material.stiffness
    distance_sigmoid = lambda d: force(d)[2] / (kappa * (1.0 - d))  # noqa: E731  (the force sigmoid is ~1)
    assert distance_sigmoid(0.0) == pytest.approx(0.5, rel=1e-9)
    assert distance_sigmoid(0.0245) == pytest.approx(0.05, rel=0.01)
    assert distance_sigmoid(-0.0245) == pytest.approx(0.95, rel=0.01)
    on = force(0.0)[2]
    assert force(0.10)[2] < 1e-4 * on
    # in centimetres the same gain would switch within half a millimetre (a hard contact)
    assert force(0.0005, constants=ContactConstants(distance_gain=6000.0))[2] < 0.05 * on


def test_force_gain_stops_sticky_forces():
    """G_f = 5 per N/kg: a point leaving the surface fast enough to make n_c pull gets no force, and the
    switch is within about half a N/kg of n_c."""
    leaving = force(0.0, (0.0, 0.0, 2.0))  # n_c = κ - δ_N 2 = -3 N/kg: the spring-damper would pull
    assert abs(leaving[2]) < 1e-9  # h(5 n_c) = h(-15)
    without_gate = force(0.0, (0.0, 0.0, 2.0), constants=ContactConstants(force_gain=1e-9))
    assert without_gate[2] < -0.7  # what the gate prevents: the ground pulling the foot back
    n_c_at = {n: 5.0 - 4.0 * w for n, w in (("push", 1.1), ("pull", 1.4))}  # ±0.6 N/kg
    assert h(5 * n_c_at["push"]) > 0.95 and h(5 * n_c_at["pull"]) < 0.05


def test_rest_length_makes_the_spring_preloaded():
    """The "d_S - 1" of eq. 5 with L = 1 m: on the surface the spring pushes with κ_N L, and over the
    distance sigmoid's few centimetres its force is nearly constant (the sigmoid does the springing)."""
    kappa = FLOOR.material.stiffness
    spring = lambda d: -kappa * (d - 1.0)  # noqa: E731
    assert spring(0.0) == kappa
    assert spring(-0.03) / spring(0.03) < 1.07  # the spring hardly changes 3 cm either side ...
    assert h(60 * 0.03) / h(-60 * 0.03) > 30  # ... while the distance sigmoid switches
    stiffness_at_surface = -(force(1e-6)[2] - force(-1e-6)[2]) / 2e-6
    assert stiffness_at_surface == pytest.approx(0.5 * 60 * kappa, rel=0.02)  # ½ G_d κ_N L per point


def test_normal_damping_and_tangential_damping():
    pressing, still = force(0.0, (0.0, 0.0, -0.1)), force(0.0)
    assert pressing[2] > still[2]  # moving into the surface adds δ_N |ṗ_n|
    sliding = force(-0.05, (0.4, -0.2, 0.0))
    gate = h(60 * 0.05) * h(5 * 5.0 * 1.05)
    np.testing.assert_allclose(sliding[:2], -3.0 * gate * np.array([0.4, -0.2]), rtol=1e-12)
    np.testing.assert_allclose(sliding[2], gate * 5.0 * 1.05, rtol=1e-12)


def test_units_weight_per_kilogram_is_carried_by_a_few_points():
    """Forces are per kg of body mass: eight motionless sole points with κ_N = 5 carry g = 9.81 N/kg about
    9 mm above the surface, and the resting distance solves eq. 4 for it."""
    gap = resting_distance(Material(5.0, 1.0, 1.0), 8, 9.81)
    assert 0.005 < gap < 0.015
    assert 8 * force(gap, surface=Surface.floor(0.0, material=Material(5.0, 1.0, 1.0)))[2] == pytest.approx(9.81)
    stiffer = resting_distance(Material(20.0, 1.0, 1.0), 8, 9.81)
    assert stiffer > gap  # a stiffer spring holds the feet higher
    assert np.isnan(resting_distance(Material(1.0, 1.0, 1.0), 2, 9.81))  # cannot carry it


def test_tilted_plane_pushes_along_its_normal():
    normal = np.array([0.2, -0.1, 1.0]) / np.linalg.norm([0.2, -0.1, 1.0])
    tilted = Surface((Plane.through((0.3, -0.2, 0.05), normal),), FLOOR.material)
    f = force(0.05 - 0.01, surface=tilted)
    np.testing.assert_allclose(f / np.linalg.norm(f), normal, atol=1e-12)
    assert tilted.top.angle == pytest.approx(np.degrees(np.arccos(normal[2])))
    assert tilted.top.height_at(0.3, -0.2) == pytest.approx(0.05)


def test_step_is_a_convex_solid_and_surfaces_add_up():
    step = Surface.step(0.2, edge=(1.0, 0.0, 0.0), outward=(1.0, 0.0, 0.0), material=FLOOR.material)
    np.testing.assert_allclose(step.distance(np.array([[0.5, 0, 0.21], [1.05, 0, 0.1], [0.9, 0, 0.1]])),
                               [0.01, 0.05, -0.1])
    on_top = contact_forces(np.array([[[0.5, 0.0, 0.2]]]), np.zeros((1, 1, 3)), (FLOOR, step))[0, 0]
    assert on_top[2] == pytest.approx(force(0.0)[2], rel=1e-6)  # the floor is 20 cm below: out of reach
    against_side = contact_forces(np.array([[[1.0, 0.0, 0.1]]]), np.zeros((1, 1, 3)), (step,))[0, 0]
    assert against_side[0] > 0 and abs(against_side[2]) < 1e-12
    both = contact_forces(np.array([[[1.5, 0.0, 0.0]]]), np.zeros((1, 1, 3)), (FLOOR, step))[0, 0]
    np.testing.assert_allclose(both, force(0.0), rtol=1e-12)
    with pytest.raises(SolverError, match="at least one face"):
        Surface(())
    with pytest.raises(SolverError, match="non-zero normal"):
        Plane((0, 0, 0), 1.0)


def test_point_velocities_are_those_of_the_generalized_velocities():
    """ṗ from (q, v) is the time derivative of the contact points' positions (exact motion, central difference)."""
    model = humanoid()
    segments = [Segment(**{**s.__dict__, "contact_points": np.array([[0.05, -0.02, -0.3], [0.0, 0.04, 0.1]])})
                for s in model.segments]
    model = BodyModel(tuple(segments))
    step = 1e-6
    times = np.array([0.4 - step, 0.4, 0.4 + step])
    q, v, _ = analytic_motion(model, np.random.default_rng(4), times)
    positions, velocities = point_motion(model, q, v)
    points = ContactPoints.of(model)
    rot, pos = model.forward_kinematics(q)
    expected = pos[:, points.segments] + np.einsum("tkij,kj->tki", rot[:, points.segments], points.local)
    np.testing.assert_allclose(positions, expected, atol=1e-12)
    np.testing.assert_allclose(velocities[1], (positions[2] - positions[0]) / (2 * step), atol=1e-6)


def test_segment_wrench_of_a_point_force():
    model = humanoid()
    q = smooth_motion(model, np.random.default_rng(5), 1, 0.01)
    foot = model.index("foot_l")
    com = model.com_positions(q)[:, foot]
    point, f = com + np.array([[0.1, 0.0, -0.05]]), np.array([[0.0, 0.0, 500.0]])
    force_, torque = segment_wrenches(model, q, np.array([foot]), point[:, None], f[:, None])
    np.testing.assert_allclose(force_[0, foot], f[0])
    np.testing.assert_allclose(torque[0, foot], np.cross([0.1, 0.0, -0.05], f[0]), atol=1e-12)
    assert np.count_nonzero(force_) == 1


def test_a_model_without_contact_points_is_refused():
    with pytest.raises(SolverError, match="no contact points"):
        ContactPoints.of(humanoid())
