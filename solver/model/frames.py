"""Segment frames from landmarks, and the rotation a joint of each type can make (vectorized over frames).

``triad`` builds a right-handed frame from a primary axis and a secondary
axis made orthogonal to it. ``project_joint`` finds, for a relative rotation
``R_rel`` (child in parent), the nearest rotation the joint allows and its
coordinates in the ``BodyModel`` layout:

- free, ball: the rotation itself; coordinates = quaternion (w, x, y, z), w >= 0.
- hinge about ``a``: the angle maximizing ``tr(R(a, θ)ᵀ R_rel)`` (the closest
  rotation in the Frobenius sense), ``θ = atan2(a·vex(R - Rᵀ), tr R - aᵀ R a)``.
- universal ``R(a0, θ0) R(a1, θ1)``: in the basis (a0, a1, a0 × a1) the
  rotation is an X-Y-Z Euler sequence; the first two angles are kept, so the
  third basis axis is matched exactly (for the ankle: the sole normal).
- weld: identity.
"""

from __future__ import annotations

import numpy as np

from ..rotations import matrix_to_quat, quat_from_axis_angle, quat_to_matrix

_AXIS = {"x": 0, "y": 1, "z": 2}


def unit(v: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return v / np.linalg.norm(v, axis=-1, keepdims=True)


def triad(primary: str, u: np.ndarray, secondary: str, v: np.ndarray) -> np.ndarray:
    """Rotation matrices ``(..., 3, 3)`` whose ``primary`` column is along ``u`` and ``secondary`` column
    is ``v`` made orthogonal to ``u``; the third column completes a right-handed frame."""
    i, j = _AXIS[primary], _AXIS[secondary]
    k = 3 - i - j
    e_i = unit(u)
    e_j = unit(v - np.sum(v * e_i, axis=-1, keepdims=True) * e_i)
    cols = [None, None, None]
    cols[i], cols[j] = e_i, e_j
    cols[k] = np.cross(cols[(k + 1) % 3], cols[(k + 2) % 3])  # e.g. x = y × z
    return np.stack(cols, axis=-1)


def axis_rotation(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Rotation matrices about a fixed unit ``axis`` by ``angle`` (...,)."""
    return quat_to_matrix(quat_from_axis_angle(axis, angle))


def project_joint(joint: str, axes: np.ndarray, rel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest rotation the joint allows to ``rel`` ``(..., 3, 3)``, and its coordinates ``(..., n)``."""
    rel = np.asarray(rel, float)
    if joint in ("free", "ball"):
        return rel, matrix_to_quat(rel)
    if joint == "weld":
        return np.broadcast_to(np.eye(3), rel.shape).copy(), np.zeros(rel.shape[:-2] + (0,))
    if joint == "hinge":
        a = axes[0]
        vex = np.stack([rel[..., 2, 1] - rel[..., 1, 2], rel[..., 0, 2] - rel[..., 2, 0],
                        rel[..., 1, 0] - rel[..., 0, 1]], axis=-1)
        theta = np.arctan2(vex @ a, np.trace(rel, axis1=-2, axis2=-1) - np.einsum("i,...ij,j->...", a, rel, a))
        return axis_rotation(a, theta), theta[..., None]
    a0, a1 = axes
    basis = np.column_stack([a0, a1, np.cross(a0, a1)])
    m = basis.T @ rel @ basis
    alpha = np.arctan2(-m[..., 1, 2], m[..., 2, 2])
    beta = np.arctan2(m[..., 0, 2], np.hypot(m[..., 1, 2], m[..., 2, 2]))
    return axis_rotation(a0, alpha) @ axis_rotation(a1, beta), np.stack([alpha, beta], axis=-1)
