"""Lee's body states -> the ``BodyModel``'s generalized coordinates, velocities and accelerations.

Layouts as in ``solver.model.body``; the rates match ``algorithms.kinematics.frame_kinematics``:

- root: origin ``o = r_c - R c`` (``c`` the body CM in the root frame), ``ȯ = ṙ_c - ω × R c``,
  ``ö = r̈_c - α × R c - ω × (ω × R c)``; angular velocity ``Rᵀ ω`` and acceleration ``Rᵀ α`` (root frame);
- ball joint between parent ``p`` and child ``s``: the quaternion ``q_p* ⊗ q_s``, ``u = R_sᵀ (ω_s - ω_p)``
  and ``u̇ = R_sᵀ (α_s - α_p - ω_p × ω_s)`` (child frame);
- hinge and universal joints: angles, rates and accelerations by ``joints.joint_rates`` (exact once the
  states were projected, ``joints``); weld: nothing.

Quaternions are made sign-continuous in time (§6.4) and hinge and universal angles unwrapped.
"""

from __future__ import annotations

import numpy as np

from ...model.body import BodyModel
from ...rotations import quat_conj, quat_continuity, quat_mul, quat_to_matrix
from .bodies import Bodies
from .joints import joint_rates


def motion_coordinates(model: BodyModel, bodies: Bodies, quat, com, velocity, omega, acceleration, alpha):
    """``q`` (T, nq), ``v`` (T, nv), ``a`` (T, nv) of body states (T, n, ...) in the world frame."""
    rotations = quat_to_matrix(quat)
    seg_body = bodies.segment_body
    n_frames = len(quat)
    q, v, a = np.zeros((n_frames, model.nq)), np.zeros((n_frames, model.nv)), np.zeros((n_frames, model.nv))

    rot0, w0, dw0 = rotations[:, 0], omega[:, 0], alpha[:, 0]
    arm = np.einsum("tij,j->ti", rot0, bodies.com[0])
    q[:, 0:3], q[:, 3:7] = com[:, 0] - arm, quat_continuity(quat[:, 0])
    v[:, 0:3] = velocity[:, 0] - np.cross(w0, arm)
    v[:, 3:6] = np.einsum("tji,tj->ti", rot0, w0)
    a[:, 0:3] = acceleration[:, 0] - np.cross(dw0, arm) - np.cross(w0, np.cross(w0, arm))
    a[:, 3:6] = np.einsum("tji,tj->ti", rot0, dw0)

    for k, (s, qs, vs) in enumerate(zip(model.segments, model.q_starts, model.v_starts)):
        if k == 0 or s.joint == "weld":
            continue
        p, b = seg_body[s.parent], seg_body[k]
        if s.joint == "ball":
            rot_t = np.swapaxes(rotations[:, b], -1, -2)
            q[:, qs:qs + 4] = quat_continuity(quat_mul(quat_conj(quat[:, p]), quat[:, b]))
            v[:, vs:vs + 3] = np.einsum("tij,tj->ti", rot_t, omega[:, b] - omega[:, p])
            a[:, vs:vs + 3] = np.einsum("tij,tj->ti", rot_t, alpha[:, b] - alpha[:, p]
                                        - np.cross(omega[:, p], omega[:, b]))
            continue
        coords, rates, accel, _ = joint_rates(s, rotations, p, b, omega, alpha)
        q[:, qs:qs + s.nq] = np.unwrap(coords, axis=0)
        v[:, vs:vs + s.nv], a[:, vs:vs + s.nv] = rates, accel
    return q, v, a
