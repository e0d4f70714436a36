"""Test models and smooth motions for the dynamics tests (and a check that they are what they claim).

``humanoid`` is a 15-segment human-like tree (every joint type) with random
but physically valid masses and inertias; ``smooth_motion`` a random smooth
trajectory of any model, ``analytic_motion`` one with exact velocities and
accelerations.
"""

import numpy as np

from mocap_dynamics.solver.model.body import BodyModel, Segment
from mocap_dynamics.solver.rotations import quat_conj, quat_from_axis_angle, quat_mul, quat_normalize

#: name, parent, joint, offset in parent (m), axes
HUMANOID = (
    ("pelvis", -1, "free", (0, 0, 0), ()),
    ("torso", 0, "ball", (0, 0, 0.1), ()),
    ("head", 1, "ball", (0, 0, 0.5), ()),
    ("upper_arm_l", 1, "ball", (0, 0.2, 0.45), ()),
    ("forearm_l", 3, "hinge", (0, 0, -0.3), ((0, 1, 0),)),
    ("hand_l", 4, "universal", (0, 0, -0.27), ((1, 0, 0), (0, 1, 0))),
    ("upper_arm_r", 1, "ball", (0, -0.2, 0.45), ()),
    ("forearm_r", 6, "hinge", (0, 0, -0.3), ((0, 1, 0),)),
    ("hand_r", 7, "universal", (0, 0, -0.27), ((1, 0, 0), (0, 0.6, 0.8))),
    ("thigh_l", 0, "ball", (0, 0.1, -0.05), ()),
    ("shank_l", 9, "hinge", (0, 0, -0.42), ((0, 1, 0),)),
    ("foot_l", 10, "universal", (0, 0, -0.4), ((0, 1, 0), (1, 0, 0))),
    ("thigh_r", 0, "ball", (0, -0.1, -0.05), ()),
    ("shank_r", 12, "hinge", (0, 0, -0.42), ((0.1, 1, 0),)),
    ("foot_r", 13, "universal", (0, 0, -0.4), ((0, 1, 0), (1, 0.2, 0))),
)


def random_inertia(rng, mass, size):
    """A valid inertia tensor (positive principal moments obeying the triangle inequality), randomly rotated."""
    half = rng.uniform(0.3, 1.0, 3) * size / 2
    principal = mass / 5 * np.array([half[1] ** 2 + half[2] ** 2, half[0] ** 2 + half[2] ** 2,
                                     half[0] ** 2 + half[1] ** 2])  # solid ellipsoid
    rot, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return rot @ np.diag(principal) @ rot.T


def humanoid(rng=None, weld_head=False):
    """The 15-segment tree with random masses, centres of mass and inertias."""
    rng = np.random.default_rng(0) if rng is None else rng
    segments = []
    for name, parent, joint, offset, axes in HUMANOID:
        if weld_head and name == "head":
            joint = "weld"
        mass = rng.uniform(0.5, 12.0)
        segments.append(Segment(name=name, parent=parent, joint=joint, joint_offset=offset, axes=axes,
                                tip=(0, 0, -0.3), mass=mass, com=rng.uniform(-0.15, 0.15, 3),
                                inertia=random_inertia(rng, mass, rng.uniform(0.1, 0.5))))
    return BodyModel(tuple(segments))


def chain(joints, rng=None):
    """A serial chain on a free root with the given joint types (random inertial data, random hinge axes)."""
    rng = np.random.default_rng(1) if rng is None else rng
    segments = [Segment("base", -1, "free", (0, 0, 0), (), (0, 0, -0.3), 3.0, (0.01, 0.02, -0.1),
                        random_inertia(rng, 3.0, 0.3))]
    for k, joint in enumerate(joints, start=1):
        axes = rng.normal(size=({"hinge": 1, "universal": 2}.get(joint, 0), 3))
        mass = rng.uniform(0.5, 5.0)
        segments.append(Segment(f"link{k}", k - 1, joint, rng.uniform(-0.3, 0.3, 3), axes, (0, 0, -0.3), mass,
                                rng.uniform(-0.2, 0.2, 3), random_inertia(rng, mass, 0.3)))
    return BodyModel(tuple(segments))


def smooth_motion(model, rng, n_frames, dt, speed=1.0):
    """Random smooth coordinates (T, nq): sinusoids for positions and angles, rotation vectors for quaternions."""
    t = np.arange(n_frames)[:, None] * dt

    def wave(n):
        amp = rng.uniform(0.2, 0.8, (3, n))
        freq = rng.uniform(0.3, 1.5, (3, n)) * speed
        phase = rng.uniform(0, 6, (3, n))
        return sum(amp[k] * np.sin(2 * np.pi * freq[k] * t + phase[k]) for k in range(3))

    def quaternions():
        rotvec = wave(3)
        angle = np.linalg.norm(rotvec, axis=1)
        q = quat_from_axis_angle(rotvec / angle[:, None], angle)
        return quat_normalize(quat_mul(quat_from_axis_angle(rng.normal(size=3) / np.sqrt(3), 1.0), q))

    columns = []
    for s in model.segments:
        if s.joint == "free":
            columns += [wave(3) + np.array([0, 0, 1.0]), quaternions()]
        elif s.joint == "ball":
            columns.append(quaternions())
        elif s.nq:
            columns.append(wave(s.nq))
    return np.hstack(columns)


def analytic_motion(model, rng, times, speed=1.0):
    """Coordinates with exact velocities and accelerations (T, nq), (T, nv), (T, nv).

    Positions and angles are sums of sinusoids; each quaternion turns about a fixed body axis ``n``
    by a sinusoidal angle θ(t) from a random start, ``q = q_0 ⊗ exp(½ θ n)``, so its body-frame rate
    is exactly ``θ̇ n`` and its acceleration ``θ̈ n``.
    """
    t = np.asarray(times, dtype=float)[:, None]

    def waves(n):
        amp = rng.uniform(0.2, 0.8, (3, n))
        freq = rng.uniform(0.3, 1.5, (3, n)) * speed
        phase = rng.uniform(0, 6, (3, n))
        w = 2 * np.pi * freq
        return (sum(amp[k] * np.sin(w[k] * t + phase[k]) for k in range(3)),
                sum(amp[k] * w[k] * np.cos(w[k] * t + phase[k]) for k in range(3)),
                sum(-amp[k] * w[k] ** 2 * np.sin(w[k] * t + phase[k]) for k in range(3)))

    def turning():
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        angle, rate, acc = waves(1)
        start = quat_normalize(rng.normal(size=4))
        return quat_mul(start, quat_from_axis_angle(axis, angle[:, 0])), rate * axis, acc * axis

    q, v, a = [], [], []
    for s in model.segments:
        parts = []
        if s.joint == "free":
            pos, vel, acc = waves(3)
            parts.append((pos + np.array([0, 0, 1.0]), vel, acc))
        if s.joint in ("free", "ball"):
            parts.append(turning())
        elif s.nq:
            parts.append(waves(s.nq))
        for qq, vv, aa in parts:
            q.append(qq)
            v.append(vv)
            a.append(aa)
    return np.hstack(q), np.hstack(v), np.hstack(a)


def test_humanoid_has_fifteen_segments_and_every_joint_type():
    model = humanoid()
    assert len(model.segments) == 15
    assert {s.joint for s in model.segments} == {"free", "ball", "hinge", "universal"}


def test_analytic_motion_derivatives_match_finite_differences():
    """Its v and a are the derivatives of q (checked on a hinge and on a quaternion's body rate)."""
    model = chain(["hinge"])
    h = 1e-6
    times = np.array([0.3 - h, 0.3, 0.3 + h])
    q, v, a = analytic_motion(model, np.random.default_rng(3), times)
    np.testing.assert_allclose((q[2, 7] - q[0, 7]) / (2 * h), v[1, 6], rtol=1e-8)
    np.testing.assert_allclose((v[2, 6] - v[0, 6]) / (2 * h), a[1, 6], rtol=1e-7)
    rate = 2 * quat_mul(quat_conj(q[1, 3:7]), (q[2, 3:7] - q[0, 3:7]) / (2 * h))
    np.testing.assert_allclose(rate, np.r_[0, v[1, 3:6]], atol=1e-8)
    np.testing.assert_allclose((v[2, 3:6] - v[0, 3:6]) / (2 * h), a[1, 3:6], rtol=1e-7, atol=1e-8)


def test_smooth_motion_has_unit_quaternions():
    model = humanoid()
    q = smooth_motion(model, np.random.default_rng(2), 50, 0.01)
    assert q.shape == (50, model.nq)
    for s, start in zip(model.segments, model.q_starts):
        if s.joint in ("free", "ball"):
            i = start + (3 if s.joint == "free" else 0)
            np.testing.assert_allclose(np.linalg.norm(q[:, i:i + 4], axis=1), 1.0, atol=1e-12)
