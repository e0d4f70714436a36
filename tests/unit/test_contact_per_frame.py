"""Per-frame contact forces (``solver.contact.per_frame``): the NNLS kernel against scipy, the forces of a
simulated landing recovered from its motion, the friction cones, and real walking against its force plates."""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pytest
from scipy.optimize import nnls

from mocap_dynamics.solver.contact import PerFrameOptions, compare_with_plates, estimate_contact
from mocap_dynamics.solver.contact.nnls import nnls_tikhonov, nnls_work_size
from mocap_dynamics.solver.contact.pyramids import cone_edges, facing_direction
from mocap_dynamics.solver.dynamics import inverse_dynamics
from mocap_dynamics.solver.errors import SolverError
from tests.unit.test_contact_plate_under_box import drop_jump  # noqa: F401  (fixture)
from tests.unit.test_contact_real import with_plates
from tests.unit.test_contact_synthetic import landing, model, tilted_plane  # noqa: F401  (fixture)


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_nnls_matches_scipy(smoothing):
    """Six weighted wrench rows and a Tikhonov diagonal, as the per-frame problem, from cold and warm free sets;
    with the smoothing prior (***) toward a previous solution ``c⁻`` too: ``s |x - c⁻|²`` is the linear term
    ``-2 s c⁻ x`` over the diagonal ``penalty + s``, i.e. the rows ``sqrt(p + s) x = s c⁻ / sqrt(p + s)``."""
    rng = np.random.default_rng(3)
    for case in range(300):
        columns = rng.integers(2, 60)
        m = rng.normal(size=(6, columns))
        penalty = 10 ** rng.uniform(-4, 0, columns) + smoothing
        linear = smoothing * np.where(rng.random(columns) < 0.5, rng.uniform(0, 2, columns), 0.0)
        b = rng.normal(size=6)
        expected, _ = nnls(np.vstack([m, np.diag(np.sqrt(penalty))]), np.concatenate([b, linear / np.sqrt(penalty)]))
        passive = rng.random(columns) < (0.5 if case % 2 else 0.0)  # a guessed free set, or none
        x = np.empty(columns)
        nnls_tikhonov(m, penalty, b, passive, x, linear, np.empty(nnls_work_size(6, columns)))
        np.testing.assert_allclose(x, expected, atol=1e-9 * max(1.0, expected.max()))
        np.testing.assert_array_equal(passive, x > 0)


@pytest.fixture(scope="module")
def landed(model):  # noqa: F811
    truth = tilted_plane()
    simulation = landing(model, truth)
    # the simulator integrates by explicit Euler: its forces are exact with the paper's forward differences
    return simulation, estimate_contact(dynamics=inverse_dynamics(simulation.motion), forces="per_frame",
                                        surfaces="plane")


def test_a_simulated_landing_is_recovered(landed, model):  # noqa: F811
    """The simulator's spring forces are not the per-frame solution point by point, but their total force and
    centre of pressure are: the motion determines the total contact wrench."""
    simulation, contact = landed
    weight = model.total_mass * 9.81
    true_total = simulation.point_forces[:len(contact.times)].sum(1)
    assert contact.force_model == "per_frame" and contact.summary()["forces"] == "per_frame"
    assert true_total[:, 2].max() > 2 * weight
    np.testing.assert_allclose(contact.total_force, true_total, atol=0.02 * weight)
    assert np.abs(contact.root_wrench[:, :3]).max() < 0.02 * weight
    assert contact.explained_force > 0.98
    assert contact.warnings and "filter" in contact.summary()["warnings"][0]  # unfiltered forward differences


def test_forces_push_within_the_friction_cones(landed):
    _, contact = landed
    n = contact.plane.normal
    normal = contact.point_forces @ n
    tangential = np.linalg.norm(contact.point_forces - normal[..., None] * n, axis=-1)
    assert normal.min() > -1e-9
    assert np.all(tangential <= PerFrameOptions().friction * normal + 1e-9)
    far = contact.plane.distance(contact.point_positions) > 0.2
    assert far.any() and np.all(np.linalg.norm(contact.point_forces[far], axis=-1) == 0.0)


def test_bad_options_are_refused(landed):
    simulation, _ = landed
    with pytest.raises(SolverError, match="force model"):
        estimate_contact(simulation.motion, forces="magic")
    with pytest.raises(SolverError, match="friction"):
        PerFrameOptions(friction=0.0)


@pytest.fixture(scope="module")
def walking(shared_data):
    """subject4_walking1 with its plates, dynamics filtered at 8 Hz, contact with both force models."""
    from mocap_dynamics.solver.kinematics import reconstruct
    from mocap_dynamics.solver.model import calibrate
    trial = with_plates(shared_data, "subject4_walking1")
    model = calibrate(trial, "full15", static=with_plates(shared_data, "subject4_static1"))
    dynamics = inverse_dynamics(reconstruct(trial, model), cutoff=8.0)
    return trial, {forces: estimate_contact(dynamics=dynamics, forces=forces) for forces in ("spring", "per_frame")}


def test_real_walking_follows_the_plates(walking):
    """Sanity bounds, not tuned: the root force itself (the best any contact model can do with this motion)
    is within about 8 % body weight of the plates; springs of eqs. 4-7 about 14 %, with no fore-aft force."""
    trial, contacts = walking
    spring, per_frame = (compare_with_plates(contacts[f], trial) for f in ("spring", "per_frame"))
    assert per_frame.covered.mean() > 0.5
    assert per_frame.rmse_vertical < 12.0 and per_frame.correlation_vertical > 0.9
    assert per_frame.rmse_horizontal < 8.0 and per_frame.correlation_anteroposterior > 0.8
    assert per_frame.rmse_vertical < spring.rmse_vertical and per_frame.rmse_horizontal < spring.rmse_horizontal
    assert {contacts["per_frame"].feet[e.foot] for e in per_frame.events} == {"foot_l", "foot_r"}
    assert np.all(np.abs(per_frame.onset_errors) < 0.1)
    assert contacts["per_frame"].warnings == contacts["spring"].warnings == ()


def test_two_feet_share_a_vertical_load_leaning_toward_the_centre_of_mass():
    """Two feet 60 cm apart under a centre of mass 1 m above their midpoint carry its weight: the equations
    split the vertical load by the lever rule and leave the horizontal split free. Without the prior the feet
    push straight up; with it the front foot brakes and the back one propels, equal and opposite."""
    from mocap_dynamics.solver.contact import Surface
    from mocap_dynamics.solver.contact.per_frame import per_frame_forces
    corners = np.array([[dx, dy, 0.0] for dx in (-0.1, 0.1) for dy in (-0.04, 0.04)])
    points = np.concatenate([corners + [-0.3, 0.0, 0.0], corners + [0.3, 0.0, 0.0]])[None]
    root, centre = np.array([[0.0, 0.0, 1.0]]), np.array([[0.0, 0.0, 1.0]])
    weight = 600.0
    wrench = np.array([[0.0, 0.0, weight, 0.0, 0.0, 0.0]])  # about the root, which is the centre of mass
    for gain in (0.0, 2.0):
        forces = per_frame_forces(wrench, root, points, (Surface.floor(0.0),), weight,
                                  options=PerFrameOptions(toward_centre_of_mass=gain), centre_of_mass=centre)[0, 0]
        back, front = forces[:4].sum(0), forces[4:].sum(0)
        np.testing.assert_allclose(back + front, [0.0, 0.0, weight], atol=1e-3 * weight)
        np.testing.assert_allclose([back[2], front[2]], [weight / 2, weight / 2], atol=0.01 * weight)
        if gain == 0.0:
            assert abs(back[0]) < 1e-6 * weight and abs(front[0]) < 1e-6 * weight
        else:
            assert back[0] > 0.02 * weight and front[0] == pytest.approx(-back[0], abs=1e-3 * weight)
    with pytest.raises(SolverError, match="toward_centre_of_mass"):
        PerFrameOptions(toward_centre_of_mass=-1.0)


def test_shear_takes_the_opposed_pull_of_two_feet_away():
    """Two feet 60 cm apart under a centre of mass 1 m above their midpoint carry its weight. The lean toward
    the centre of mass has the front foot brake and the back one propel, equal and opposite: a pair of forces
    the root wrench does not see. The shear term (****) costs the friction each foot holds, so that pair shrinks
    as β grows and vanishes when friction costs as much as a root force; the totals stay exact."""
    from mocap_dynamics.solver.contact import Surface
    from mocap_dynamics.solver.contact.per_frame import per_frame_forces
    corners = np.array([[dx, dy, 0.0] for dx in (-0.1, 0.1) for dy in (-0.04, 0.04)])
    points = np.concatenate([corners + [-0.3, 0.0, 0.0], corners + [0.3, 0.0, 0.0]])[None]
    root = np.array([[0.0, 0.0, 1.0]])
    weight = 600.0
    wrench = np.array([[0.0, 0.0, weight, 0.0, 0.0, 0.0]])
    pulls = []
    for shear in (0.0, PerFrameOptions().shear, 0.05, 1.0):
        forces = per_frame_forces(wrench, root, points, (Surface.floor(0.0),), weight, centre_of_mass=root,
                                  options=PerFrameOptions(shear=shear), bodies=np.repeat([0, 1], 4))[0, 0]
        back, front = forces[:4].sum(0), forces[4:].sum(0)
        np.testing.assert_allclose(back + front, [0.0, 0.0, weight], atol=1e-3 * weight)
        assert front[0] == pytest.approx(-back[0], abs=1e-4 * weight)
        pulls.append(back[0] / weight)
    assert pulls[0] > 0.02 and pulls[0] > pulls[1] > pulls[2] > pulls[3] >= 0.0 and pulls[3] < 0.05 * pulls[0]
    with pytest.raises(SolverError, match="shear"):
        PerFrameOptions(shear=-1.0)


def _seat_and_feet():
    """A seat under the centre of mass (four points about x = 0, on the root) and two feet 40 cm in front,
    carried by a hip joint 40 cm above the seat whose torque without contact is zero; the root wrench is the
    weight of a still body whose centre of mass is over the seat's middle."""
    from mocap_dynamics.solver.contact.per_frame import JointLoads
    seat = np.array([[x, y, 0.0] for x in (-0.15, 0.15) for y in (-0.1, 0.1)])
    feet = np.array([[x, y, 0.0] for x in (0.38, 0.46) for y in (-0.1, 0.1)])
    points = np.concatenate([seat, feet])[None]
    root = np.array([[0.0, 0.0, 1.0]])
    weight = 600.0
    joints = JointLoads(np.zeros((1, 1, 3)), np.array([[[0.0, 0.0, 0.4]]]), np.array([[False]] * 4 + [[True]] * 4))
    return points, root, weight, np.array([[0.0, 0.0, weight, 0.0, 0.0, 0.0]]), joints


def test_effort_keeps_the_load_off_the_feet_of_a_seated_body():
    """Seat and feet can both carry a seated body's weight; the root wrench does not say how. Without the effort
    term the Tikhonov prior spreads the load over every point, feet included (11 % of the weight here), so the
    hip must push the feet down; the effort term spares the hip: the feet carry less, more so as it weighs
    more."""
    from mocap_dynamics.solver.contact import Surface
    from mocap_dynamics.solver.contact.per_frame import per_frame_forces
    points, root, weight, wrench, joints = _seat_and_feet()
    on_feet = {}
    for effort in (0.0, 0.05, 1.0):
        forces = per_frame_forces(wrench, root, points, (Surface.floor(0.0),), weight, joints=joints,
                                  options=PerFrameOptions(effort=effort, toward_centre_of_mass=0.0))[0, 0]
        np.testing.assert_allclose(forces.sum(0), [0.0, 0.0, weight], atol=1e-3 * weight)
        on_feet[effort] = forces[4:, 2].sum()
    assert on_feet[0.0] > 0.1 * weight
    assert on_feet[0.05] < 0.6 * on_feet[0.0] and on_feet[1.0] < 0.5 * on_feet[0.05]
    with pytest.raises(SolverError, match="effort"):
        PerFrameOptions(effort=-1.0)


def test_a_seated_body_rests_its_legs_on_the_seat():
    """The seated body of ``_seat_and_feet`` on a raised seat, the feet 45 cm lower on the floor and the joint
    carrying them at the seat's height (from a joint 40 cm above the seat the feet could push along the line to
    it, sparing it whatever the weight): while the padded points (the ischial tuberosities) touch the seat, the
    effort weighs ``seated_effort`` (0.3) instead of ``effort`` (0.05), and the feet carry less; without padded
    points nothing is known to sit."""
    from mocap_dynamics.solver.contact import Surface
    from mocap_dynamics.solver.contact.model import Plane
    from mocap_dynamics.solver.contact.per_frame import JointLoads, per_frame_forces
    points, root, weight, wrench, joints = _seat_and_feet()
    points[0, 4:, 2] = -0.45
    joints = JointLoads(joints.torque, np.zeros((1, 1, 3)), joints.carries)
    seat = Surface((Plane(np.array([0.0, 0.0, 1.0]), 0.0), Plane(np.array([0.0, 0.0, -1.0]), 0.05),
                    Plane(np.array([1.0, 0.0, 0.0]), 0.3), Plane(np.array([-1.0, 0.0, 0.0]), 0.3),
                    Plane(np.array([0.0, 1.0, 0.0]), 0.3), Plane(np.array([0.0, -1.0, 0.0]), 0.3)))
    padding = np.r_[np.full(4, 0.02), np.zeros(4)]
    on_feet = {}
    walking = PerFrameOptions(seated_effort=PerFrameOptions().effort)
    for name, options, pads in (("seated", PerFrameOptions(), padding), ("as walking", walking, padding),
                                ("no seat points", PerFrameOptions(), None),
                                ("no seat points, walking", walking, None)):
        forces = per_frame_forces(wrench, root, points, (Surface.floor(-0.45), seat), weight, joints=joints,
                                  options=replace(options, toward_centre_of_mass=0.0), padding=pads).sum(0)[0]
        np.testing.assert_allclose(forces.sum(0), [0.0, 0.0, weight], atol=1e-3 * weight)
        on_feet[name] = forces[4:, 2].sum()
    assert on_feet["seated"] < 0.8 * on_feet["as walking"]
    assert on_feet["no seat points"] == pytest.approx(on_feet["no seat points, walking"], rel=1e-9)
    with pytest.raises(SolverError, match="seated_effort"):
        PerFrameOptions(seated_effort=-1.0)


def test_a_point_sliding_fast_along_the_floor_carries_nothing():
    """Three points on the floor share a weight over the middle one; when the middle one slides at 3 m/s (a
    swing foot skimming the floor) the two at rest carry it all. With the sliding term off, all three share. At 27
    m/s (a marker glitch) it carries nothing either, without a numpy warning on the way."""
    from mocap_dynamics.solver.contact import Surface
    from mocap_dynamics.solver.contact.per_frame import per_frame_forces
    points = np.array([[[-0.1, 0.0, 0.0], [0.0, 0.0, 0.0], [0.1, 0.0, 0.0]]])
    velocities = np.zeros_like(points)
    velocities[0, 1] = [3.0, 0.0, 0.0]
    weight = 600.0
    wrench = np.array([[0.0, 0.0, weight, 0.0, 0.0, 0.0]])
    root = np.array([[0.0, 0.0, 1.0]])
    for speed, share in ((1.0, 0.0), (0.0, 1 / 3)):
        forces = per_frame_forces(wrench, root, points, (Surface.floor(0.0),), weight, velocities=velocities,
                                  options=PerFrameOptions(sliding_speed=speed))[0, 0]
        np.testing.assert_allclose(forces.sum(0), [0.0, 0.0, weight], atol=1e-3 * weight)
        assert forces[1, 2] == pytest.approx(share * weight, abs=0.01 * weight)
    velocities[0, 1] = [27.0, 0.0, 0.0]  # a marker glitch: its sliding factor exp(-729) is a denormal, not zero
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy overflow warning for the user
        forces = per_frame_forces(wrench, root, points, (Surface.floor(0.0),), weight, velocities=velocities)[0, 0]
    assert forces[1, 2] == 0.0 and forces[:, 2].sum() == pytest.approx(weight, rel=1e-3)


@pytest.fixture(scope="module")
def walk(shared_data):
    """subject4_walking1 with its plates, reconstructed with its static trial: (trial, motion, default dynamics)."""
    from mocap_dynamics.solver.kinematics import reconstruct
    from mocap_dynamics.solver.model import calibrate
    trial = with_plates(shared_data, "subject4_walking1")
    motion = reconstruct(trial, calibrate(trial, "full15", static=with_plates(shared_data, "subject4_static1")))
    return trial, motion, inverse_dynamics(motion, cutoff="auto", scheme="central")


def _against_plates(walk, options: PerFrameOptions):
    """The walk's contact estimated with ``options``: the mean r of the hip, knee and ankle flexion moments from
    the motion alone against those with the plates (same model and filter) where the plates see every loaded
    foot, and the comparison with the plates."""
    from mocap_dynamics.solver.dynamics import joint_moments
    from mocap_dynamics.solver.dynamics.plates import plate_forces
    trial, motion, dynamics = walk
    plates = joint_moments(inverse_dynamics(motion, cutoff=dynamics.options["cutoff_hz"], scheme="central",
                                            external=plate_forces(trial, motion)))
    contact = estimate_contact(dynamics=dynamics, per_frame=options)
    comparison = compare_with_plates(contact, trial)
    alone, covered = joint_moments(contact.dynamics), comparison.covered
    r = np.mean([np.corrcoef(alone.moment(f"{joint}_{side}", component)[covered],
                             plates.moment(f"{joint}_{side}", component)[covered])[0, 1]
                 for side in "lr" for joint, component in (("hip", "flexion"), ("knee", "flexion"),
                                                           ("ankle", "dorsiflexion"))])
    return r, comparison


def test_smoothing_steadies_the_joint_moments_of_a_real_walk(walk):
    """subject4_walking1 with the default dynamics: the hip, knee and ankle flexion moments from the motion alone
    against those from the plates (same model and filter), where the plates see every loaded foot. Each frame
    re-decides from its noisy root torque how the load is shared (heel and toe, two feet); the smoothing prior
    (***) holds the share steady: r 0.951 without it, 0.974 with a 1 ms memory, 0.978 with the default 2 ms
    (0.913, 0.955 and 0.968 before the shear term (****), which steadies the share between the feet too)."""
    agreement = {smoothing: _against_plates(walk, PerFrameOptions(smoothing=smoothing))[0]
                 for smoothing in (0.0, PerFrameOptions().smoothing)}
    assert agreement[PerFrameOptions().smoothing] > 0.97
    assert agreement[PerFrameOptions().smoothing] > agreement[0.0] + 0.02
    with pytest.raises(SolverError, match="smoothing"):
        PerFrameOptions(smoothing=-1.0)


def test_shear_brings_a_real_walks_feet_nearer_their_plates(walk):
    """subject4_walking1, where both feet stand on the plates in turn: with the shear term (****) each foot's
    horizontal force misses its plate's by 1.74 / 2.05 % BW RMS instead of 1.93 / 2.23, and the hip, knee and
    ankle flexion moments from the motion alone follow those with the plates at mean r 0.978 instead of 0.973
    (where the plates see every loaded foot; 0.967 and 2.04 / 2.29 % BW at β = 0.02, which shares the
    horizontal force evenly between the feet whatever their loads)."""
    found = {}
    for shear in (0.0, PerFrameOptions().shear):
        r, comparison = _against_plates(walk, PerFrameOptions(shear=shear))
        feet = comparison.summary()["feet"]
        found[shear] = r, np.array([feet[f]["rmse_horizontal_bw_percent"] for f in ("foot_l", "foot_r")])
    (r_off, horizontal_off), (r_on, horizontal_on) = found[0.0], found[PerFrameOptions().shear]
    assert r_on > r_off + 0.003
    assert np.all(horizontal_on < horizontal_off - 0.1)


def test_a_heel_that_still_slides_forward_takes_little_load(walk):
    """subject4_walking1's two heel strikes on its plates: in the 0.1 s before a plate feels its foot, the heel
    comes down sliding forward at 2.2 -> 0.2 m/s within 1.5 cm of the floor. The estimate's load on that foot
    there, on average: 6.7 and 7.2 % BW at a sliding speed of 1 m/s, 5.9 and 5.6 at the default 0.7."""
    trial, _, dynamics = walk
    early, default = {}, PerFrameOptions().sliding_speed
    for speed in (1.0, default):
        comparison = compare_with_plates(estimate_contact(dynamics=dynamics,
                                                          per_frame=PerFrameOptions(sliding_speed=speed)), trial)
        loads = [np.mean(comparison.estimated_feet[(comparison.times >= event.measured_onset - 0.1)
                                                   & (comparison.times < event.measured_onset), event.foot, 2])
                 for event in comparison.events if np.isfinite(event.measured_onset)]
        assert len(loads) == 2
        early[speed] = np.mean(loads) / comparison.body_weight
    assert early[default] < 0.062 and early[1.0] > early[default] + 0.008


def test_the_root_torque_weighs_less_where_a_body_lands_hard(drop_jump):  # noqa: F811
    """DJ3's two landings from the box: in the windows where the body lands (``Dynamics.touchdown`` above one
    half) and the plates see every loaded foot, the ankle moments from the motion alone against those with the
    plates (same model and filter). With eq. 10's torque weight there the centre of pressure follows the
    impact's wrong root torque to the heels, and the left ankle's moment turns to dorsiflexion (+0.55 N·m/kg,
    the plates' never do): RMSE 0.35 / 0.28 N·m/kg; with ``landing_torque`` 0.4, 0.27 / 0.20 (+0.26 at most)."""
    from mocap_dynamics.solver.dynamics import joint_moments
    dynamics, mass = drop_jump.dynamics, drop_jump.contact.model.total_mass
    plates = joint_moments(drop_jump.dynamics_with_plates)
    error, peak, default = {}, {}, PerFrameOptions().landing_torque
    for share in (1.0, default):
        contact = estimate_contact(drop_jump.motion, dynamics=dynamics, per_frame=PerFrameOptions(landing_torque=share))
        landing = compare_with_plates(contact, drop_jump.trial).plates_see_all & (dynamics.touchdown > 0.5)
        alone = joint_moments(contact.dynamics)
        gaps = [(alone.moment(ankle, "dorsiflexion") - plates.moment(ankle, "dorsiflexion"))[landing] / mass
                for ankle in ("ankle_l", "ankle_r")]
        error[share] = np.mean([np.sqrt(np.mean(gap ** 2)) for gap in gaps])
        peak[share] = np.max(alone.moment("ankle_l", "dorsiflexion")[landing]) / mass
    assert landing.sum() > 20 and default < 1.0
    assert error[default] < 0.26 and error[1.0] > error[default] + 0.05
    assert peak[1.0] > 0.4 and peak[default] < 0.35
    for wrong in (-0.1, 1.5):
        with pytest.raises(SolverError, match="landing_torque"):
            PerFrameOptions(landing_torque=wrong)


def test_the_feet_share_the_load_as_the_joints_can_while_a_hard_landing_settles(drop_jump):  # noqa: F811
    """DJ3's landings: in the settling after each (``Dynamics.settling`` above one half) where the plates see both
    feet, the difference between the feet's vertical forces against the plates'. The soft tissue still shakes
    there and the root torque's roll swings with it; with the effort at its standing weight there the feet
    trade load the plates do not (9.9 % BW RMS), with ``settling_effort`` less (7.3)."""
    dynamics, default = drop_jump.dynamics, PerFrameOptions()
    miss = {}
    for effort in (default.effort, default.settling_effort):
        comparison = compare_with_plates(estimate_contact(drop_jump.motion, dynamics=dynamics,
                                                          per_frame=PerFrameOptions(settling_effort=effort)),
                                         drop_jump.trial)
        settling = comparison.plates_see_all & (dynamics.settling > 0.5)
        difference = [feet[settling, 0, 2] - feet[settling, 1, 2]
                      for feet in (comparison.estimated_feet, comparison.measured_feet)]
        miss[effort] = np.sqrt(np.mean((difference[0] - difference[1]) ** 2)) / comparison.body_weight
    assert settling.sum() > 30 and default.settling_effort > default.effort
    assert miss[default.settling_effort] < 0.083 and miss[default.effort] > miss[default.settling_effort] + 0.015

def test_a_padded_point_touches_from_its_padding_away():
    """``activations``: a point with soft-tissue padding ``a`` is as active at ``a`` above a surface as a bare
    point on it (eq. 4's distance sigmoid shifted by ``a``)."""
    from mocap_dynamics.solver.contact import Surface
    from mocap_dynamics.solver.contact.model import ContactConstants, SurfaceArrays
    from mocap_dynamics.solver.contact.activation import activations
    points = np.array([[[0.0, 0.0, 0.0], [0.3, 0.0, 0.02], [0.6, 0.0, 0.02]]])
    arrays, constants = SurfaceArrays((Surface.floor(0.0),)), ContactConstants()
    bare, _, _ = activations(points, arrays, constants)
    padded, _, _ = activations(points, arrays, constants, np.array([0.0, 0.02, 0.0]))
    np.testing.assert_allclose(padded[0, :2], bare[0, 0], rtol=1e-12)
    np.testing.assert_allclose(padded[0, 2], bare[0, 2], rtol=1e-12)
    assert bare[0, 1] < 0.1 < 0.5 == pytest.approx(padded[0, 1])


def test_a_floor_only_point_is_pushed_by_the_floor_alone():
    """``activations``: a point marked ``floor_only`` on a raised slab is measured from the floor (the first
    surface) under it, not from the slab it touches."""
    from mocap_dynamics.solver.contact import Surface
    from mocap_dynamics.solver.contact.model import ContactConstants, Plane, SurfaceArrays
    from mocap_dynamics.solver.contact.activation import activations
    box = Surface((Plane(np.array([0.0, 0.0, 1.0]), 0.4), Plane(np.array([0.0, 0.0, -1.0]), -0.35),
                   Plane(np.array([1.0, 0.0, 0.0]), 1.0), Plane(np.array([-1.0, 0.0, 0.0]), 1.0),
                   Plane(np.array([0.0, 1.0, 0.0]), 1.0), Plane(np.array([0.0, -1.0, 0.0]), 1.0)))
    points = np.array([[[0.0, 0.0, 0.4], [0.1, 0.0, 0.4], [2.0, 0.0, 0.0]]])
    arrays, constants = SurfaceArrays((Surface.floor(0.0), box)), ContactConstants()
    both, on_both, _ = activations(points, arrays, constants)
    floor, on_floor, _ = activations(points, arrays, constants, floor_only=np.array([False, True, True]))
    np.testing.assert_array_equal(on_both[0], [1, 1, 0])
    np.testing.assert_array_equal(on_floor[0], [1, 0, 0])
    assert both[0, 1] == pytest.approx(0.5) and floor[0, 1] < 1e-9  # 40 cm above the floor: not touching
    np.testing.assert_allclose(floor[0, [0, 2]], both[0, [0, 2]], rtol=1e-12)


def test_a_point_sunk_into_a_box_is_pushed_out_through_its_top():
    """``activations``: a point 4 cm into a box whose slab is 5 cm thick is nearer the underside than the top;
    the underside pushes no point (``UNDERSIDE``), so its face is the top (or a side, when nearer), never the
    underside that would pull it down through the box."""
    from mocap_dynamics.solver.contact import Surface
    from mocap_dynamics.solver.contact.model import ContactConstants, Plane, SurfaceArrays
    from mocap_dynamics.solver.contact.activation import activations
    box = Surface((Plane(np.array([0.0, 0.0, 1.0]), 0.4), Plane(np.array([0.0, 0.0, -1.0]), -0.35),
                   Plane(np.array([1.0, 0.0, 0.0]), 1.0), Plane(np.array([-1.0, 0.0, 0.0]), 1.0),
                   Plane(np.array([0.0, 1.0, 0.0]), 1.0), Plane(np.array([0.0, -1.0, 0.0]), 1.0)))
    points = np.array([[[0.0, 0.0, 0.36], [0.99, 0.0, 0.36], [0.0, 0.0, 0.39], [0.0, 0.0, 0.05]]])
    active, surface, face = activations(points, SurfaceArrays((Surface.floor(0.0), box)), ContactConstants())
    np.testing.assert_array_equal(surface[0], [1, 1, 1, 0])
    np.testing.assert_array_equal(face[0], [1, 3, 1, 0])  # box faces from 1: top, underside, +x side, ...
    assert active[0, :3].min() > 0.5


def test_points_never_in_reach_are_skipped_exactly():
    """``activations(..., least)``: the points that ``might_reach`` screens out are never more active than
    ``least`` in any frame, and the points measured keep their activation, surface and face exactly, on random
    points about a floor and a tilted box, padded and floor-only points among them; ``reach_distance`` inverts
    eq. 4's sigmoid."""
    from mocap_dynamics.solver.contact import Surface
    from mocap_dynamics.solver.contact.model import ContactConstants, Plane, SurfaceArrays
    from mocap_dynamics.solver.contact.activation import activations, might_reach, reach_distance
    tilt = np.array([np.sin(0.1), 0.0, np.cos(0.1)])
    box = Surface((Plane(tilt, 0.4), Plane(-tilt, -0.35), Plane(np.array([1.0, 0.0, 0.0]), 0.5),
                   Plane(np.array([-1.0, 0.0, 0.0]), 0.5), Plane(np.array([0.0, 1.0, 0.0]), 0.5),
                   Plane(np.array([0.0, -1.0, 0.0]), 0.5)))
    arrays, constants = SurfaceArrays((Surface.floor(0.0), box)), ContactConstants()
    rng = np.random.default_rng(3)
    points = rng.uniform([-1.0, -1.0, -0.05], [1.0, 1.0, 0.6], (50, 400, 3))
    points[:, :200, 2] += np.linspace(0.0, 0.3, 200)  # half of them drift upward, some out of reach
    points[7, 5] = np.nan
    padding = np.where(rng.random(400) < 0.2, 0.02, 0.0)
    floor_only = rng.random(400) < 0.2
    least = 1e-3
    assert 0.5 * (1 + np.tanh(-constants.distance_gain * reach_distance(least, constants))) == pytest.approx(least)
    full = activations(points, arrays, constants, padding, floor_only)
    screened = activations(points, arrays, constants, padding, floor_only, least)
    kept = might_reach(points, arrays, padding, floor_only, reach_distance(least, constants))
    assert 0 < kept.sum() < 400
    assert not (np.nan_to_num(full[0][:, ~kept]) > least).any()
    for whole, part in zip(full, screened):
        np.testing.assert_array_equal(part[:, kept], whole[:, kept])
    assert not screened[0][:, ~kept].any()


def test_the_pyramids_face_the_way_the_subject_faces():
    """``facing_direction``: the root's axes seen from above, modulo a quarter turn; ``cone_edges`` slant along it."""
    from scipy.spatial.transform import Rotation

    def frames(*zyx_degrees):
        return Rotation.from_euler("ZYX", zyx_degrees, degrees=True).as_matrix()

    heading = lambda f: np.degrees(np.arctan2(f[1], f[0]))  # noqa: E731
    walk = frames(*[(30 + 5 * np.sin(t), 8 * np.cos(t), 4 * np.sin(t)) for t in np.linspace(0, 6, 50)])
    assert heading(facing_direction(walk)) == pytest.approx(30, abs=0.5)  # sway, lean and yaw about 30 degrees
    back = frames(*[(210, 5, 0)] * 50)
    assert heading(facing_direction(np.concatenate([walk, back]))) == pytest.approx(30, abs=0.5)  # there and back
    lying = frames(*[(-20, -90, 0)] * 10)  # lying, its forward axis vertical, its head toward 160 degrees
    assert heading(facing_direction(lying)) % 90 == pytest.approx(70, abs=1e-6)
    evenly = frames(*[(angle, 0, 0) for angle in np.arange(7, 97, 1.0)])  # no mean direction: the first frame's
    assert heading(facing_direction(evenly)) == pytest.approx(7)
    edges = cone_edges(np.array([[0.0, 0.0, 1.0]]), 0.5, facing_direction(walk))[0]
    slants = np.degrees(np.arctan2(edges[:, 1], edges[:, 0]))
    assert np.sort(slants % 360) == pytest.approx([30, 120, 210, 300], abs=0.5)
