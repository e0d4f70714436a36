"""What a hinge or universal joint allows: projected orientations, rate constraints, joint coordinates.

Lee's constraints are joint *points* (``bodies``): a hinge's two points are its position, velocity and
acceleration constraints; a universal joint's one point leaves its rotation free. So after Algo_p the
orientations are projected onto what the joints allow, parents first, and the CM stage re-closes the
joint points (``estimate``); in the rate stages a universal joint adds a linear constraint on the rotation
rates (``universal_constraints``, ``algo_rates``). With ``u = R_sᵀ (ω_s - ω_p)`` the relative angular
velocity in the child frame and ``S`` the joint's motion-subspace columns (hinge ``a``; universal
``s0 = R(a1, θ1)ᵀ a0``, ``s1 = a1``, as ``algorithms.kinematics.joint_frame``):

- orientation: ``R_s ← R_p · project_joint(R_pᵀ R_s)`` (``model.frames``, the nearest allowed rotation);
- rates ``θ̇``: least squares ``S θ̇ ≈ u`` (exact once the rate stages made ``u`` allowed);
- accelerations ``θ̈``: least squares ``S θ̈ ≈ u̇ - ṡ0 θ̇0`` with ``u̇ = R_sᵀ (α_s - α_p - ω_p × ω_s)`` and
  ``ṡ0 = θ̇1 (s0 × s1)`` (universal only).

These are ``algorithms.kinematics.frame_kinematics``'s relations read backwards, so the model's ``q``, ``v``,
``a`` (``joint_rates``, ``assemble``) reproduce the body states exactly.
"""

from __future__ import annotations

import numpy as np

from ...model.body import BodyModel
from ...model.frames import axis_rotation, project_joint
from .bodies import Bodies

PROJECTED = ("hinge", "universal")


def _relative(rotations, parent, child):
    return np.swapaxes(rotations[:, parent], -1, -2) @ rotations[:, child]


def _columns(segment, coords: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Motion-subspace columns ``S`` (T, 3, k) in the child frame and ``s0 × s1`` (T, 3) (zero for a hinge)."""
    if segment.joint == "hinge":
        columns = np.broadcast_to(segment.axes[0][:, None], (len(coords), 3, 1))
        return columns, np.zeros((len(coords), 3))
    a0, a1 = segment.axes
    s0 = np.einsum("tji,j->ti", axis_rotation(a1, coords[:, 1]), a0)
    s1 = np.broadcast_to(a1, s0.shape)
    return np.stack([s0, s1], axis=-1), np.cross(s0, s1)


def _least_squares(columns: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    normal = np.einsum("tki,tkj->tij", columns, columns)
    return np.linalg.solve(normal, np.einsum("tki,tk->ti", columns, rhs)[..., None])[..., 0]


def _joints(model: BodyModel, bodies: Bodies):
    """(segment, parent body, child body) of every hinge and universal joint, parents first."""
    for k, s in enumerate(model.segments):
        if s.joint in PROJECTED:
            yield s, bodies.segment_body[s.parent], bodies.segment_body[k]


def project_rotations(model: BodyModel, bodies: Bodies, rotations: np.ndarray) -> np.ndarray:
    """Body rotations (T, n, 3, 3) with every hinge and universal joint's relative rotation made allowed."""
    rotations = rotations.copy()
    for s, p, b in _joints(model, bodies):
        allowed, _ = project_joint(s.joint, s.axes, _relative(rotations, p, b))
        rotations[:, b] = rotations[:, p] @ allowed
    return rotations


def joint_rates(segment, rotations, parent, child, omega, alpha):
    """``(coords, θ̇, θ̈, s0 × s1)`` of one joint from body states (module docstring); θ̈ None without ``alpha``."""
    _, coords = project_joint(segment.joint, segment.axes, _relative(rotations, parent, child))
    columns, twist = _columns(segment, coords)
    rot_t = np.swapaxes(rotations[:, child], -1, -2)
    u = np.einsum("tij,tj->ti", rot_t, omega[:, child] - omega[:, parent])
    rates = _least_squares(columns, u)
    if alpha is None:
        return coords, rates, None, twist
    w_child = omega[:, parent] + np.einsum("tij,tjk,tk->ti", rotations[:, child], columns, rates)
    du = np.einsum("tij,tj->ti", rot_t, alpha[:, child] - alpha[:, parent] - np.cross(omega[:, parent], w_child))
    carried = twist * (rates[:, :1] * rates[:, -1:]) if segment.joint == "universal" else 0.0  # ṡ0 θ̇0
    return coords, rates, _least_squares(columns, du - carried), twist


def universal_constraints(model: BodyModel, bodies: Bodies, rotations, omega=None):
    """The rotational constraint of every universal joint, linear in the angular rates (``algo_rates``).

    With ``n = s0 × s1`` (child frame) and ``n_w = R_s n``: velocities ``n_w · (ω_s - ω_p) = 0``;
    accelerations (``omega`` given) ``n_w · (α_s - α_p) = n_w · (ω_p × ω_s) + θ̇0 θ̇1 |n|²``.
    Returns ``(bodies (U, 2) parent and child, n_w (T, U, 3), offsets (T, U))``.
    """
    joints = [(s, p, b) for s, p, b in _joints(model, bodies) if s.joint == "universal"]
    n_frames = len(rotations)
    pairs = np.array([(p, b) for _, p, b in joints], dtype=np.int64).reshape(-1, 2)
    normals, offsets = np.zeros((n_frames, len(joints), 3)), np.zeros((n_frames, len(joints)))
    for u, (s, p, b) in enumerate(joints):
        zero = np.zeros((n_frames, bodies.n, 3))
        _, rates, _, twist = joint_rates(s, rotations, p, b, zero if omega is None else omega, None)
        normals[:, u] = np.einsum("tij,tj->ti", rotations[:, b], twist)
        if omega is not None:
            offsets[:, u] = np.einsum("ti,ti->t", normals[:, u], np.cross(omega[:, p], omega[:, b])) \
                + rates[:, 0] * rates[:, 1] * np.einsum("ti,ti->t", twist, twist)
    return pairs, normals, offsets
