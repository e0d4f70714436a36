"""Inverse dynamics against closed forms: a single and a double pendulum hanging from a base held still.

The base is the free root (held at rest, so the root wrench is what holds it); the links swing about
hinges along +Y, in the X-Z plane, with diagonal inertias. Joint torques come from Lagrange's equations
written out below; sign: torque applied by the parent on the child.
"""

import numpy as np

from mocap_dynamics.solver.dynamics import rnea
from mocap_dynamics.solver.model.body import BodyModel, Segment

G = 9.81
BASE_MASS = 2.0


def base():
    return Segment("base", -1, "free", (0, 0, 0), (), (0, 0, 0.1), BASE_MASS, (0, 0, 0), np.diag([0.1, 0.2, 0.3]))


def link(name, parent, offset, mass, com_distance, inertia):
    """A link hanging along -Z from its hinge (axis +Y), centre of mass ``com_distance`` below it."""
    return Segment(name, parent, "hinge", offset, ((0, 1, 0),), (0, 0, -0.5), mass, (0, 0, -com_distance),
                   np.diag(inertia))


def trajectory(times, amplitude, frequency, offset):
    """θ, θ̇, θ̈ of θ = offset + amplitude sin(ω t)."""
    w = 2 * np.pi * frequency
    return (offset + amplitude * np.sin(w * times), amplitude * w * np.cos(w * times),
            -amplitude * w ** 2 * np.sin(w * times))


def held_base(model, times, angles, rates, accelerations):
    """q, v, a with the base at rest at (0, 0, 1) and the given hinge angles."""
    n = len(times)
    q = np.tile(model.neutral_q(), (n, 1))
    q[:, 2] = 1.0
    q[:, 7:] = angles
    v, a = np.zeros((n, model.nv)), np.zeros((n, model.nv))
    v[:, 6:], a[:, 6:] = rates, accelerations
    return q, v, a


def test_single_pendulum():
    m, l, inertia = 3.0, 0.4, (0.05, 0.07, 0.02)
    model = BodyModel((base(), link("arm", 0, (0, 0, 0), m, l, inertia)))
    times = np.linspace(0, 2, 201)
    theta, rate, acc = trajectory(times, 1.2, 0.7, 0.3)
    dyn = rnea(model, times, *held_base(model, times, theta[:, None], rate[:, None], acc[:, None]))

    tau = (inertia[1] + m * l ** 2) * acc + m * G * l * np.sin(theta)
    np.testing.assert_allclose(dyn.generalized_forces[:, 6], tau, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dyn.axis_torques[:, 1, 0], tau, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dyn.joint_torque_world[:, 1], np.c_[0 * tau, tau, 0 * tau], atol=1e-12)
    np.testing.assert_allclose(dyn.joint_power[:, 1], tau * rate, rtol=1e-12, atol=1e-12)

    # The base is held: the root force is the total momentum rate minus gravity, the root torque
    # about the pivot is the joint torque (the base's weight acts at the pivot).
    com_acc = np.c_[-l * (np.cos(theta) * acc - np.sin(theta) * rate ** 2), 0 * theta,
                    l * (np.sin(theta) * acc + np.cos(theta) * rate ** 2)]
    force = m * com_acc + (m + BASE_MASS) * G * np.array([0, 0, 1.0])
    np.testing.assert_allclose(dyn.root_wrench[:, :3], force, rtol=1e-12, atol=1e-11)
    np.testing.assert_allclose(dyn.root_wrench[:, 3:], np.c_[0 * tau, tau, 0 * tau], atol=1e-11)


def test_a_horizontal_arm_is_held_up_by_a_positive_torque():
    """Sign convention: the parent pushes the child up against gravity (θ = +90°: arm along -X)."""
    m, l = 2.0, 0.3
    model = BodyModel((base(), link("arm", 0, (0, 0, 0), m, l, (0.01, 0.01, 0.01))))
    dyn = rnea(model, [0.0], *held_base(model, [0.0], [[np.pi / 2]], [[0.0]], [[0.0]]))
    assert abs(dyn.generalized_forces[0, 6] - m * G * l) < 1e-12


def test_double_pendulum_against_lagranges_equations():
    m1, m2, L1, c1, c2 = 2.5, 1.5, 0.45, 0.2, 0.25
    i1, i2 = (0.04, 0.06, 0.01), (0.02, 0.03, 0.005)
    model = BodyModel((base(), link("upper", 0, (0, 0, 0), m1, c1, i1), link("lower", 1, (0, 0, -L1), m2, c2, i2)))
    times = np.linspace(0, 3, 301)
    t1, w1, a1 = trajectory(times, 1.0, 0.5, 0.2)
    t2, w2, a2 = trajectory(times, 1.4, 0.9, -0.4)
    dyn = rnea(model, times, *held_base(model, times, np.c_[t1, t2], np.c_[w1, w2], np.c_[a1, a2]))

    # Lagrange: M(θ) θ̈ + C(θ, θ̇) + G(θ) = τ for absolute θ1 and relative θ2.
    I1, I2 = i1[1], i2[1]
    h = m2 * L1 * c2 * np.sin(t2)
    m11 = I1 + m1 * c1 ** 2 + I2 + m2 * (L1 ** 2 + c2 ** 2 + 2 * L1 * c2 * np.cos(t2))
    m12 = I2 + m2 * (c2 ** 2 + L1 * c2 * np.cos(t2))
    m22 = I2 + m2 * c2 ** 2
    tau1 = m11 * a1 + m12 * a2 - h * (2 * w1 * w2 + w2 ** 2) + (m1 * c1 + m2 * L1) * G * np.sin(t1) \
        + m2 * c2 * G * np.sin(t1 + t2)
    tau2 = m12 * a1 + m22 * a2 + h * w1 ** 2 + m2 * c2 * G * np.sin(t1 + t2)
    np.testing.assert_allclose(dyn.generalized_forces[:, 6], tau1, rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(dyn.generalized_forces[:, 7], tau2, rtol=1e-11, atol=1e-11)
    # In the parent frame the hinge torque is along the (parent-frame) axis +Y.
    np.testing.assert_allclose(dyn.joint_torque_parent[:, 2], np.c_[0 * tau2, tau2, 0 * tau2], atol=1e-11)
