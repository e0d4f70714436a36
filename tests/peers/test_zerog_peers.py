"""Self-orientation against Pinocchio: the same joint path on the exported MJCF, with the base integrated
from Pinocchio's equations of motion instead of our momentum equation.

Pinocchio route (the issue's check): with the joints prescribed, the base acceleration solves
``M_bb a_b = -M_bj a_j - h_b`` (``pin.crba`` for ``M``, ``pin.rnea`` with ``a_b = 0`` for ``M_bj a_j + h_b``);
the base state (pose and velocity, Pinocchio's local free-flyer layout) is integrated by classical
Runge-Kutta at 1 kHz, ten times our rate. The torso's orientation must agree to 0.1° at every frame.
"""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.model import calibrate, write_mjcf
from mocap_dynamics.solver.rotations import matrix_to_quat, quat_mul, quat_to_matrix, quat_to_rotvec
from mocap_dynamics.solver.sample import make_sample
from mocap_dynamics.solver.zerog import posture_sequence, self_orientation
from mocap_dynamics.solver.zerog.manoeuvres import limb_posture
from tests.peers.test_dynamics_peers import to_pinocchio

pin = pytest.importorskip("pinocchio")

FINE_RATE = 1000.0


def base_rate(model, pm, data, state, q, v, a):
    """Time derivative of the Pinocchio base state ``(p, quat xyzw, v_local, ω)`` with the joints at q, v, a."""
    pq, pv, pa = to_pinocchio(model, pm, q, v, a)
    pq[:7], pv[:6], pa[:6] = state[:7], state[7:], 0.0
    bias = pin.rnea(pm, data, pq, pv, pa)[:6]
    mass = pin.crba(pm, data, pq)
    mass = np.triu(mass) + np.triu(mass, 1).T
    acceleration = np.linalg.solve(mass[:6, :6], -bias)
    rot = pin.Quaternion(state[3:7]).toRotationMatrix()
    w = state[10:13]
    x, y, z, s = state[3:7]
    quat_rate = 0.5 * quat_mul(np.array([s, x, y, z]), np.r_[0.0, w])  # w x y z
    return np.r_[rot @ state[7:10], quat_rate[1:], quat_rate[0], acceleration]


@pytest.mark.parametrize("manoeuvre", ["sequence", "leg_twisting"])
def test_self_orientation_matches_pinocchio(manoeuvre, tmp_path):
    model = calibrate(make_sample().trial, "full15")
    pm = pin.buildModelFromMJCF(str(write_mjcf(model, tmp_path / "model.xml")))
    data = pm.createData()
    ours = self_orientation(model, manoeuvre, angle_deg=60, duration_s=1.0, rate_hz=100)

    standing, lifted, twisted = model.neutral_q(), limb_posture(model, 90, 0), limb_posture(model, 90, 60)
    postures = {"sequence": [standing, lifted, twisted, standing], "leg_twisting": [lifted, twisted]}[manoeuvre]
    path = posture_sequence(model, postures, 1.0, FINE_RATE)
    state = np.r_[postures[0][:3], postures[0][4:7], postures[0][3], np.zeros(6)]
    orientations = [state[3:7].copy()]
    dt = 1.0 / FINE_RATE
    for n in range(len(path.times) - 1):
        k = []
        for stage, (row, h) in enumerate(((2 * n, 0.0), (2 * n + 1, dt / 2), (2 * n + 1, dt / 2), (2 * n + 2, dt))):
            x = state + h * k[-1] if stage else state.copy()
            x[3:7] /= np.linalg.norm(x[3:7])
            k.append(base_rate(model, pm, data, x, path.q[row], path.v[row], path.a[row]))
        state = state + dt / 6 * (k[0] + 2 * k[1] + 2 * k[2] + k[3])
        state[3:7] /= np.linalg.norm(state[3:7])
        orientations.append(state[3:7].copy())
    theirs = np.array(orientations)[::int(FINE_RATE / 100)]
    theirs = np.c_[theirs[:, 3], theirs[:, :3]]  # w x y z
    difference = quat_to_rotvec(quat_mul(matrix_to_quat(ours.motion.rotations[:, 0]), theirs * [1, -1, -1, -1]))
    error_deg = np.degrees(np.linalg.norm(difference, axis=1)).max()
    print(f"{manoeuvre}: largest torso orientation difference {error_deg:.2e} deg")
    assert error_deg < 0.1, error_deg
    assert ours.torso_reorientation[0] > 5.0
    turn = quat_to_matrix(theirs[-1]) @ quat_to_matrix(theirs[0]).T
    assert np.degrees(np.linalg.norm(quat_to_rotvec(matrix_to_quat(turn)))) == pytest.approx(
        ours.torso_reorientation[0], abs=0.1)
