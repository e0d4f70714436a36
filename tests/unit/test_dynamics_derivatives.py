"""Forward differences consistent with Euler integration (Brubaker §4.2, App. A), smoothing, and their errors."""

import numpy as np
import pytest

from mocap_dynamics.solver.dynamics import butterworth, central_differences, forward_differences, motion_derivatives, \
    residual_cutoff
from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.kinematics.motion import Motion
from mocap_dynamics.solver.rotations import quat_conj, quat_from_axis_angle, quat_mul
from tests.unit.test_dynamics_models import chain, humanoid, smooth_motion

DT = 0.01


def quaternion_columns(model):
    """(start in q, start in v) of the root quaternion and every ball joint."""
    return [(qs + 3 * (s.joint == "free"), vs + 3 * (s.joint == "free"))
            for s, qs, vs in zip(model.segments, model.q_starts, model.v_starts) if s.joint in ("free", "ball")]


def euler_replay(model, q0, v, a, dt):
    """Brubaker's Euler scheme written out here, independently of ``solver.dynamics.forward``:
    q_{t+1} = q_t + Δ q̇_t and q̇_{t+1} = q̇_t + Δ q̈_t, with quaternions as 4-vectors
    (q̇ = ½ q ⊗ ω, q̈ = ½ (q̇ ⊗ ω + q ⊗ ω̇)) normalised and their rates projected after each step."""
    quats = quaternion_columns(model)
    plain_q = np.setdiff1d(np.arange(model.nq), [i for qs, _ in quats for i in range(qs, qs + 4)])
    plain_v = np.setdiff1d(np.arange(model.nv), [i for _, vs in quats for i in range(vs, vs + 3)])
    q, qd = [q0.copy()], {}
    for qs, vs in quats:
        qd[qs] = 0.5 * quat_mul(q0[qs:qs + 4], np.r_[0, v[0, vs:vs + 3]])
    vel = v[0].copy()
    for t in range(len(a)):
        nxt = q[-1].copy()
        nxt[plain_q] += dt * vel[plain_v]
        for qs, vs in quats:
            cur = q[-1][qs:qs + 4]
            w = 2 * quat_mul(quat_conj(cur), qd[qs])
            qdd = 0.5 * (quat_mul(qd[qs], w) + quat_mul(cur, np.r_[0, a[t, vs:vs + 3]]))
            hat = cur + dt * qd[qs]
            nxt[qs:qs + 4] = hat / np.linalg.norm(hat)
            rate = qd[qs] + dt * qdd
            qd[qs] = rate - (nxt[qs:qs + 4] @ rate) * nxt[qs:qs + 4]
        vel[plain_v] += dt * a[t, plain_v]
        q.append(nxt)
    return np.array(q)


def test_plain_coordinates_are_exact_forward_differences():
    model = chain(["hinge", "universal"])
    times = np.arange(6) * DT
    q = np.tile(model.neutral_q(), (6, 1))
    q[:, 0] = 3.0 * times ** 2  # root x
    q[:, 7] = -2.0 * times ** 2 + times  # hinge angle
    t, q_out, v, a = forward_differences(model, times, q)
    np.testing.assert_array_equal(t, times[:4])
    np.testing.assert_allclose(v[:, 0], 3.0 * (2 * times[:4] + DT), rtol=1e-12)
    np.testing.assert_allclose(a[:, 0], 6.0, rtol=1e-9)
    np.testing.assert_allclose(a[:, 6], -4.0, rtol=1e-9)
    np.testing.assert_allclose(v[:, 3:6], 0.0, atol=1e-14)  # root does not turn


def test_euler_integration_of_the_differences_reproduces_the_motion():
    """The paper's consistency claim, with App. A's α and β: all T frames come back to rounding error."""
    model = humanoid()
    q = smooth_motion(model, np.random.default_rng(4), 60, DT, speed=2.0)
    _, q0, v, a = forward_differences(model, np.arange(60) * DT, q)
    replayed = euler_replay(model, q0[0], v, a, DT)
    for qs, _ in quaternion_columns(model):  # q and -q are one rotation
        flip = np.sign(np.sum(replayed[:, qs:qs + 4] * q[:len(replayed), qs:qs + 4], axis=1))
        replayed[:, qs:qs + 4] *= flip[:, None]
    np.testing.assert_allclose(replayed, q[:59], atol=1e-12)


def test_quaternion_rates_converge_to_the_true_angular_velocity():
    """q(t) = exp(½ θ(t) n) with θ = sin t: body rate θ̇ n, acceleration θ̈ n.

    The velocity is that of the midpoint t + Δ/2 to O(Δ²); the acceleration that of t + Δ to O(Δ)
    (the unit-norm projection adds ~|ω|³Δ/8)."""
    model = chain([])
    axis = np.array([1.0, 2.0, 2.0]) / 3
    errors = []
    for dt in (1e-2, 1e-3):
        times = np.arange(0, 1, dt)
        q = np.tile(model.neutral_q(), (len(times), 1))
        q[:, 3:7] = quat_from_axis_angle(axis, np.sin(times))
        t, _, v, a = forward_differences(model, times, q)
        errors.append([np.abs(v[:, 3:6] - np.cos(t + dt / 2)[:, None] * axis).max(),
                       np.abs(a[:, 3:6] + np.sin(t + dt)[:, None] * axis).max()])
    errors = np.array(errors)
    assert errors[1, 0] < 1e-7 and errors[1, 1] < 2e-4
    assert errors[0, 0] / errors[1, 0] > 80 and errors[0, 1] / errors[1, 1] > 8


def test_quaternion_sign_flips_are_ignored():
    model = chain(["ball"])
    q = smooth_motion(model, np.random.default_rng(5), 20, DT)
    flipped = q.copy()
    flipped[5::2, 7:11] *= -1
    _, _, v, a = forward_differences(model, np.arange(20) * DT, q)
    _, _, v2, a2 = forward_differences(model, np.arange(20) * DT, flipped)
    np.testing.assert_allclose(v2, v, atol=1e-12)
    np.testing.assert_allclose(a2, a, atol=1e-9)


def test_consistent_velocities_of_a_motion_are_used_as_they_are():
    model = chain(["hinge"])
    times = np.arange(20) * DT
    q = np.tile(model.neutral_q(), (20, 1))
    v, a = np.ones((20, model.nv)), np.full((20, model.nv), 2.0)
    motion = Motion.from_q(model, times, q, method="lee", v=v, a=a)
    t, _, v_out, a_out, options = motion_derivatives(motion)[:5]
    assert len(t) == 20 and options["derivatives"] == "given by lee"
    np.testing.assert_array_equal(v_out, v)
    np.testing.assert_array_equal(a_out, a)
    t, _, v_out, _, options = motion_derivatives(motion, cutoff=10.0)[:5]  # asking for smoothing differentiates q
    assert len(t) == 18 and options["derivatives"] == "forward differences"
    np.testing.assert_allclose(v_out, 0.0, atol=1e-12)


def test_butterworth_is_zero_lag_and_removes_noise():
    model = chain(["hinge"])
    times = np.arange(400) * DT
    clean = 0.5 * np.sin(2 * np.pi * 1.0 * times)
    q = np.tile(model.neutral_q(), (len(times), 1))
    q[:, 7] = clean + np.random.default_rng(6).normal(0, 0.01, len(times))
    filtered = butterworth(model, times, q, cutoff=6.0)
    inner = slice(50, -50)
    assert np.abs(filtered[inner, 7] - clean[inner]).max() < 0.02
    assert np.std(filtered[inner, 7] - clean[inner]) < 0.5 * 0.01
    lag = np.argmax(np.correlate(filtered[inner, 7], clean[inner], "full")) - (len(clean[inner]) - 1)
    assert lag == 0
    np.testing.assert_allclose(np.linalg.norm(filtered[:, 3:7], axis=1), 1.0, atol=1e-12)


def test_smoothing_option_filters_before_differencing():
    model = chain(["hinge"])
    times = np.arange(200) * DT
    q = np.tile(model.neutral_q(), (len(times), 1))
    q[:, 7] = np.sin(times) + np.random.default_rng(7).normal(0, 1e-4, len(times))
    motion = Motion.from_q(model, times, q, method="otm")
    _, _, _, a_raw, _ = motion_derivatives(motion)[:5]
    t, _, _, a_smooth, options = motion_derivatives(motion, cutoff=5.0)[:5]
    assert options == {"derivatives": "forward differences", "cutoff_hz": 5.0, "first_frame": 0}
    inner = slice(30, -30)
    truth = -np.sin(t[inner] + DT)
    assert np.abs(a_smooth[inner, 6] - truth).max() < 0.1 < 1.0 < np.abs(a_raw[inner, 6] - truth).max()


@pytest.mark.parametrize("case, message", [
    ("two frames", "at least 3 frames"),
    ("uneven", "not uniformly"),
    ("half turn", "turns by more than 90"),
])
def test_unusable_input_is_a_solver_error(case, message):
    model = chain(["ball"])
    times = np.arange(10) * DT
    q = np.tile(model.neutral_q(), (10, 1))
    if case == "two frames":
        times, q = times[:2], q[:2]
    elif case == "uneven":
        times[4] += 0.003
    else:
        q[5:, 7:11] = quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), 2.5)
    with pytest.raises(SolverError, match=message):
        forward_differences(model, times, q)


def test_a_frame_without_pose_spoils_only_its_neighbours():
    model = chain(["ball", "hinge"])
    times = np.arange(30) * DT
    q = smooth_motion(model, np.random.default_rng(8), 30, DT)
    q[12] = np.nan
    _, _, v, a = forward_differences(model, times, q)
    bad = np.isnan(a).any(axis=1)
    np.testing.assert_array_equal(np.flatnonzero(bad), [10, 11, 12])
    long = np.concatenate([smooth_motion(model, np.random.default_rng(8), 60, DT)] * 2)
    long[58:62] = np.nan  # two runs of 58 frames with a pose: each filtered on its own
    long[70:75] = np.nan  # a run of 8 frames between gaps: too short to filter
    filtered = butterworth(model, np.arange(120) * DT, long, cutoff=6.0)
    np.testing.assert_array_equal(np.flatnonzero(np.isnan(filtered).any(axis=1)),
                                  np.r_[58:62, 62:70, 70:75])


def test_butterworth_rejects_a_cutoff_above_nyquist_and_short_motions():
    model = chain([])
    q = np.tile(model.neutral_q(), (100, 1))
    with pytest.raises(SolverError, match="Nyquist"):
        butterworth(model, np.arange(100) * DT, q, cutoff=60.0)
    with pytest.raises(SolverError, match="more than"):
        butterworth(model, np.arange(8) * DT, q[:8], cutoff=6.0)


def test_central_differences_are_second_order_and_centred():
    """A ball joint turning at a known rate and a root moving on a parabola: central differences give the
    analytic velocity and acceleration at the frame itself (forward ones at the next frame)."""
    model = chain(["ball"])
    times = np.arange(40) * DT
    q = np.tile(model.neutral_q(), (40, 1))
    q[:, 2] = 0.5 * 3.0 * times ** 2
    angle = 0.8 * times ** 2  # about a fixed axis: ω = 1.6 t, ω̇ = 1.6
    axis = np.array([0.0, 0.6, 0.8])
    q[:, 7:11] = quat_from_axis_angle(axis, angle)
    t, _, v, a = central_differences(model, times, q)
    np.testing.assert_allclose(t, times[1:-1])
    np.testing.assert_allclose(v[:, 2], 3.0 * t, atol=1e-9)
    np.testing.assert_allclose(a[:, 2], 3.0, atol=1e-7)
    np.testing.assert_allclose(v[:, 6:9], 1.6 * t[:, None] * axis, atol=1e-4)
    np.testing.assert_allclose(a[:, 6:9], np.broadcast_to(1.6 * axis, (38, 3)), atol=1e-4)
    _, _, v_fwd, _ = forward_differences(model, times, q)
    assert np.abs(v_fwd[:, 2] - 3.0 * times[:-2]).max() > 0.01  # forward: the mid-step velocity, half a frame on


def test_motion_derivatives_auto_cutoff_is_winters_and_recorded():
    model = chain(["hinge"])
    times = np.arange(300) * DT
    q = np.tile(model.neutral_q(), (len(times), 1))
    q[:, 7] = np.sin(2 * np.pi * 1.5 * times) + np.random.default_rng(3).normal(0, 2e-3, len(times))
    motion = Motion.from_q(model, times, q, method="otm")
    t, _, _, a, options = motion_derivatives(motion, cutoff="auto", scheme="central")[:5]
    assert options["cutoff_source"] == "Winter's residual analysis" and options["first_frame"] == 1
    assert 2.0 < options["cutoff_hz"] < 20.0
    truth = -(2 * np.pi * 1.5) ** 2 * np.sin(2 * np.pi * 1.5 * t)
    inner = slice(30, -30)
    assert np.sqrt(np.mean((a[inner, 6] - truth[inner]) ** 2)) < 0.05 * np.abs(truth).max()
    with pytest.raises(SolverError, match="scheme"):
        motion_derivatives(motion, scheme="backward")


def test_residual_cutoff_grows_with_the_signal_band_and_falls_with_noise():
    rate, times = 100.0, np.arange(500) / 100.0
    rng = np.random.default_rng(4)
    slow = np.c_[np.sin(2 * np.pi * 1.0 * times), np.cos(2 * np.pi * 0.7 * times)]
    fast = np.c_[np.sin(2 * np.pi * 6.0 * times), np.cos(2 * np.pi * 5.0 * times)]
    quiet, noisy = rng.normal(0, 1e-4, slow.shape), rng.normal(0, 1e-2, slow.shape)
    assert residual_cutoff(slow + quiet, rate) < residual_cutoff(fast + quiet, rate)
    assert residual_cutoff(slow + noisy, rate) < residual_cutoff(slow + quiet, rate)
    with pytest.raises(SolverError, match="Give the cutoff"):
        residual_cutoff(np.full((100, 2), np.nan), rate)
