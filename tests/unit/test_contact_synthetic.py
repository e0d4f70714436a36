"""Ground truth: a body model simulated landing and standing on known surfaces; the estimate recovers them.

The simulation (``simulate_contact``, explicit Euler at 2 kHz) and the estimate's forward differences are
consistent, so the estimate is held to the issue's tolerances on the kinematics alone: plane height within
1 cm, angle within 0.5°, κ_N, δ_N, δ_T within 10 %, and the forces.
"""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.contact import (
    Bounds, Material, Plane, PoseController, Surface, estimate_contact, resting_distance,
    simulate_contact,
)
from mocap_dynamics.solver.contact.result import foot_segments
from mocap_dynamics.solver.contact.model import ContactPoints
from mocap_dynamics.solver.dynamics import ExternalForces, inverse_dynamics
from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.model import calibrate
from mocap_dynamics.solver.rotations import quat_to_matrix

RATE = 2000.0
TRUTH = Material(stiffness=6.0, normal_damping=4.0, tangential_damping=3.0)


@pytest.fixture(scope="module")
def model(sample_walk):
    """``brubaker12`` calibrated from the project's sample walk, 70 kg, the paper's contact points."""
    return calibrate(sample_walk.trial, "brubaker12", mass=70.0)


def foot_points(model, q):
    points = ContactPoints.of(model)
    rot, pos = model.forward_kinematics(q)
    world = pos[points.segments] + np.einsum("kij,kj->ki", rot[points.segments], points.local)
    return world[np.isin(points.segments, foot_segments(model))]


def dropped(model, surface: Surface, clearance: float, q: np.ndarray) -> np.ndarray:
    """Pose ``q`` raised so that its lowest sole point is ``clearance`` above ``surface``."""
    q = q.copy()
    lowest = surface.distance(foot_points(model, q)).min()
    q[2] += (clearance - lowest) / surface.top.normal[2]
    return q


def landing(model, surface, *, clearance=0.05, velocity=(0.1, -0.05), duration=1.0, q=None, **options):
    """Drop the body (joints held at its pose) with a horizontal velocity; it lands, slides and stands."""
    ground = surface if isinstance(surface, Surface) else surface[-1]
    q0 = dropped(model, ground, clearance, stance(model, ground.top) if q is None else q)
    v0 = np.zeros(model.nv)
    v0[:2] = velocity
    return simulate_contact(model, q0, v0, surface, duration=duration, rate=RATE, controller=PoseController(q0),
                            **options)


def tilted_plane(material=TRUTH) -> Surface:
    tilt, azimuth = np.radians(3.0), 0.5
    normal = (np.sin(tilt) * np.cos(azimuth), np.sin(tilt) * np.sin(azimuth), np.cos(tilt))
    return Surface((Plane.through((0.2, -0.1, 0.04), normal),), material)


@pytest.fixture(scope="module")
def tilted_landing(model):
    truth = tilted_plane()
    simulation = landing(model, truth)
    return truth, simulation, estimate_contact(simulation.motion, forces="spring")


def assert_recovered(found: Surface, truth: Surface, at):
    assert abs(found.top.height_at(*at) - truth.top.height_at(*at)) < 0.01
    angle = np.degrees(np.arccos(np.clip(found.top.normal @ truth.top.normal, -1, 1)))
    assert angle < 0.5
    np.testing.assert_allclose(found.material.array(), truth.material.array(), rtol=0.10)


def test_landing_on_a_tilted_plane_recovers_the_plane_and_springs(tilted_landing):
    truth, simulation, contact = tilted_landing
    z = simulation.motion.q[:, 2]
    assert z.min() < z[0] - 0.05  # it fell, landed ...
    upright = quat_to_matrix(simulation.motion.q[-1, 3:7])[2, 2]
    assert upright > np.cos(np.radians(3.0)) and np.linalg.norm(simulation.v[-1, :3]) < 0.2  # ... and stands
    assert_recovered(contact.surfaces[0], truth, contact.location)
    assert abs(contact.plane_angle - truth.top.angle) < 0.5
    assert contact.explained_force > 0.99 and contact.explained_torque > 0.99


def test_landing_forces_are_recovered(tilted_landing, model):
    truth, simulation, contact = tilted_landing
    weight = model.total_mass * 9.81
    frames = len(contact.times)
    true_total = simulation.point_forces[:frames].sum(1)
    assert true_total[:, 2].max() > 2 * weight  # a real landing transient
    np.testing.assert_allclose(contact.total_force, true_total, atol=0.01 * weight)
    np.testing.assert_allclose(contact.point_forces, simulation.point_forces[:frames], atol=0.01 * weight)
    # joint torques recomputed with the contact forces are the controller's; the root wrench vanishes
    np.testing.assert_allclose(contact.dynamics.generalized_forces[:, 6:], simulation.generalized_forces[:frames, 6:],
                               atol=0.01 * weight)
    assert np.abs(contact.root_wrench[:, :3]).max() < 0.01 * weight


def test_outputs_are_consistent(tilted_landing, model):
    _, _, contact = tilted_landing
    np.testing.assert_allclose(contact.segment_force.sum(1), contact.total_force, atol=1e-9)
    np.testing.assert_allclose(contact.foot_force.sum(1)[:, 2], contact.total_force[:, 2], rtol=0.02, atol=1.0)
    assert contact.feet == ("foot_l", "foot_r")
    loaded = contact.total_force @ contact.plane.normal > 100
    on_plane = contact.plane.distance(contact.total_cop[loaded])
    np.testing.assert_allclose(on_plane, 0.0, atol=1e-9)
    feet = contact.point_positions[:, np.isin(contact.point_segments, foot_segments(model))]
    low, high = feet[loaded].min(1), feet[loaded].max(1)
    assert np.all(contact.total_cop[loaded][:, :2] > low[:, :2] - 0.02)  # under the feet
    assert np.all(contact.total_cop[loaded][:, :2] < high[:, :2] + 0.02)
    record = contact.optimisation
    assert len(record.starts) == 4 and record.best in range(4) and record.iterations > 0 and record.seconds > 0
    assert all(s.converged for s in record.starts)
    summary = contact.summary()
    assert summary["plane_angle_deg"] == contact.plane_angle and summary["starts"] == 4


def test_resting_height_is_where_a_motionless_subject_stands(model):
    """Stood on a level floor at rest, the sole points settle at the resting distance of eq. 4-5 (§5.1)."""
    material = Material(8.0, 6.0, 6.0)
    floor = Surface.floor(0.02, material=material)
    gap = resting_distance(material, 8, 9.81)
    simulation = landing(model, floor, clearance=gap, velocity=(0.0, 0.0), duration=1.0)
    soles = floor.distance(foot_points(model, simulation.motion.q[-1]))
    assert np.abs(simulation.v[-1]).max() < 1e-3  # motionless
    assert abs(soles.mean() - gap) < 0.002
    # standing still only tells where the soles rest, not the plane and stiffness apart: every start lands
    # somewhere else on that valley, all with the resting height of the simulation
    contact = estimate_contact(simulation.motion, forces="spring")
    for start in contact.optimisation.starts:
        plane, material = start.final[0].top, start.final[0].material
        assert plane.offset + resting_distance(material, 8, 9.81) == pytest.approx(0.02 + soles.mean(), abs=0.001)
    assert contact.resting_height == pytest.approx(0.02 + soles.mean(), abs=0.001)


def test_several_planes_a_foot_on_a_step(model):
    """The left foot lands on a 10 cm step, the right on the floor; both surfaces and springs are found."""
    bent = stance(model, step=0.10)
    floor = Surface.floor(0.0, material=TRUTH)
    step = Surface.step(0.10, edge=(0.0, 0.0, 0.0), outward=(0.0, -1.0, 0.0),
                        material=Material(12.0, 8.0, 5.0))  # occupies y > 0: under the left foot
    simulation = landing(model, (step, floor), q=bent, velocity=(0.1, 0.0), duration=0.7)
    guess = (Surface.step(0.12, edge=(0.0, 0.02, 0.0), outward=(0.0, -1.0, 0.0)), Surface.floor(-0.015))
    contact = estimate_contact(simulation.motion, surfaces=guess, starts=1, forces="spring")
    location = contact.location
    left = contact.point_positions[:, contact.point_segments == model.index("foot_l")].reshape(-1, 3)
    assert_recovered(contact.surfaces[0], step, left[:, :2].mean(0))
    assert_recovered(contact.surfaces[1], floor, location)
    assert contact.explained_force > 0.99


def sole(model, q, foot):
    """World positions of the contact points of segment ``foot`` in pose ``q``."""
    points = ContactPoints.of(model)
    rot, pos = model.forward_kinematics(q)
    mine = points.segments == model.index(foot)
    return pos[model.index(foot)] + points.local[mine] @ rot[model.index(foot)].T


def place_foot(model, q, side, centre, plane: Plane, height):
    """Put the sole of leg ``side`` (``"l"``/``"r"``) flat on (parallel to) ``plane``, ``height`` [m] from it, its
    contact points centred horizontally at ``centre`` (x, y) [m]: hip flexion and abduction, knee and both ankle
    angles by least squares."""
    from scipy.optimize import least_squares

    from mocap_dynamics.solver.rotations import quat_from_axis_angle, quat_mul

    hip, knee, ankle = (model.q_starts[model.index(f"{n}_{side}")] for n in ("thigh", "shank", "foot"))

    def pose(x):
        out = q.copy()
        out[hip:hip + 4] = quat_mul(quat_from_axis_angle(np.array([1.0, 0.0, 0.0]), x[1]),
                                    quat_from_axis_angle(np.array([0.0, 1.0, 0.0]), -x[0]))
        out[knee], out[ankle], out[ankle + 1] = x[2], x[3], x[4]
        return out

    def residual(x):
        points = sole(model, pose(x), f"foot_{side}")
        return np.r_[plane.distance(points) - height, points[:, :2].mean(0) - centre]

    return pose(least_squares(residual, [0.2, 0.0, 0.4, 0.2, 0.0]).x)


def stance(model, ground: Plane = Plane((0, 0, 1), 0.0), step=0.0):
    """Upright, knees bent, feet 30 cm apart and flat on ``ground`` (the left ``step`` higher), the centre of
    mass right above the middle of their contact points; the root stays at the origin (see ``dropped``).

    The soft sigmoid of eqs. 4-5 gives feet little rotational stiffness: a point's local stiffness is about
    ``2 G_d`` times its load whatever κ_N, and for feet 22 cm long under a centre of mass 0.9 m high that is
    only a little more than gravity's toppling stiffness. So a rigid body stands on this contact only with its
    centre of mass above the middle of the sole points (the weight spread evenly): 1.5 cm off, the tilt needed
    to move the load tips it over. The neutral pose has it above the heels; on a slope, above the downhill toes.
    """
    q = model.neutral_q()
    level = Plane(ground.normal, ground.offset - 0.90)  # 90 cm below the pelvis (the legs are about 92 cm)
    for _ in range(4):  # the centre of mass moves with the legs
        com = model.body_com(q)[:2]
        q = place_foot(model, q, "l", com + (0.0, 0.15), level, step)
        q = place_foot(model, q, "r", com - (0.0, 0.15), level, 0.0)
    return q


def test_stiffness_beyond_its_bound_stops_at_the_bound(model):
    """The paper's bounds (κ_N ≤ 20) hold: a stiffer truth is estimated at the bound."""
    truth = tilted_plane(Material(30.0, 4.0, 3.0))
    contact = estimate_contact(landing(model, truth, duration=0.6).motion, starts=1, forces="spring")
    assert contact.stiffness == pytest.approx(20.0)
    assert contact.explained_force < 0.999
    loose = estimate_contact(landing(model, truth, duration=0.6).motion, starts=1, forces="spring",
                             bounds=Bounds(stiffness=(1.0, 40.0)))
    assert loose.stiffness == pytest.approx(30.0, rel=0.1)


def test_normalisation_in_newtons(model):
    """``normalisation="none"``: forces in N and κ_N in N/m (a different model: the force sigmoid sees N)."""
    truth = tilted_plane(Material(6.0 * 70, 4.0 * 70, 3.0 * 70))
    simulation = landing(model, truth, duration=0.6, normalisation="none")
    assert simulation.force_scale == 1.0
    starts = [Material(350.0, 350.0, 350.0), Material(150.0, 150.0, 150.0)]  # N/m and N·s/m: poorly scaled
    contact = estimate_contact(simulation.motion, forces="spring", normalisation="none", starts=starts,
                               bounds=Bounds((50.0, 1500.0), (5.0, 1500.0), (5.0, 1500.0)))
    assert contact.force_scale == 1.0 and contact.normalisation == "none"
    assert_recovered(contact.surfaces[0], truth, contact.location)


def test_bad_requests_are_refused(tilted_landing, model):
    _, simulation, _ = tilted_landing
    dynamics = inverse_dynamics(simulation.motion)
    with_forces = inverse_dynamics(simulation.motion, external=ExternalForces.none(len(dynamics.times)))
    with pytest.raises(SolverError, match="already include external forces"):
        estimate_contact(dynamics=with_forces)
    with pytest.raises(SolverError, match="normalisation"):
        estimate_contact(dynamics=dynamics, forces="spring", normalisation="per leg")
    with pytest.raises(SolverError, match="Unknown surfaces"):
        estimate_contact(dynamics=dynamics, surfaces="box")
    with pytest.raises(SolverError, match="starts"):
        estimate_contact(dynamics=dynamics, forces="spring", starts=0)
    with pytest.raises(SolverError, match="Nothing to estimate"):
        estimate_contact()
    with pytest.raises(SolverError, match="Spring contact forces cannot act on surfaces found"):
        estimate_contact(dynamics=dynamics, forces="spring", surfaces="detected")
