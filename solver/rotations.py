"""Rotations: Hamilton quaternions (w, x, y, z), matrices, and Wahba's problem.

Convention (as Blender's mathutils): scalar first, Hamilton product, and a unit
quaternion ``q`` maps body coordinates to world coordinates, ``v_w = R(q) v_b``.
All functions are vectorized over any leading axes: ``(..., 4)``, ``(..., 3, 3)``.

The Lee thesis uses scalar-last quaternions with Shuster's product; its
``q_thesis = [-x, -y, -z, w]`` for the same body->world rotation (implementer's
notes §9). Convert with ``from_lee`` / ``to_lee`` at the boundary, nowhere else.
"""

from __future__ import annotations

import numpy as np

#: The largest rotation [rad] of a segment between two frames taken as motion (a quarter turn in a hundredth of a
#: second: 9000°/s); a farther one is an orientation that flipped.
MAX_TURN_PER_FRAME = np.pi / 2


def skew(v: np.ndarray) -> np.ndarray:
    """Cross-product matrix ``[[v]]`` with ``[[v]] u = v x u``; ``(..., 3) -> (..., 3, 3)``."""
    v = np.asarray(v, dtype=float)
    out = np.zeros(v.shape[:-1] + (3, 3))
    out[..., 0, 1], out[..., 0, 2] = -v[..., 2], v[..., 1]
    out[..., 1, 0], out[..., 1, 2] = v[..., 2], -v[..., 0]
    out[..., 2, 0], out[..., 2, 1] = -v[..., 1], v[..., 0]
    return out


def unit_or_zero(v: np.ndarray) -> np.ndarray:
    """``v`` ``(..., 3)`` scaled to unit length; zero where it is (nearly) zero."""
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 1e-12, v / n, 0.0)


def swing(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The shortest-arc rotations ``(..., 3, 3)`` taking directions ``a`` onto ``b`` ``(..., 3)``
    (Rodrigues: ``I + [v] + [v]²/(1 + c)`` with ``v = a x b``, ``c = a·b``); half a turn about an axis
    perpendicular to ``a`` where they are opposite."""
    a, b = unit_or_zero(np.asarray(a, float)), unit_or_zero(np.asarray(b, float))
    c = np.sum(a * b, axis=-1)
    k = skew(np.cross(a, b))
    opposite = c < -1.0 + 1e-9
    out = np.eye(3) + k + (k @ k) / np.where(opposite, 1.0, 1.0 + c)[..., None, None]
    if np.any(opposite):
        other = np.where(np.abs(a[..., :1]) < 0.9, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
        n = unit_or_zero(np.cross(a, other))
        half_turn = 2.0 * n[..., :, None] * n[..., None, :] - np.eye(3)
        out = np.where(opposite[..., None, None], half_turn, out)
    return out


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product ``a ⊗ b`` (apply ``b`` first, then ``a``)."""
    aw, av = a[..., :1], a[..., 1:]
    bw, bv = b[..., :1], b[..., 1:]
    w = aw * bw - np.sum(av * bv, axis=-1, keepdims=True)
    v = aw * bv + bw * av + np.cross(av, bv)
    return np.concatenate([w, v], axis=-1)


def quat_conj(q: np.ndarray) -> np.ndarray:
    """Conjugate (the inverse of a unit quaternion)."""
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def body_rate(quat: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """``2 vec(q* ⊗ q̇)``: the body-frame angular velocity of a unit quaternion ``q`` with rate ``q̇``
    (``q̇ᵀ q = 0``), or the angular acceleration when given ``q̈`` (``q̈ᵀ q = -|q̇|²``); ``(..., 4) -> (..., 3)``."""
    return 2 * quat_mul(quat_conj(quat), rate)[..., 1:]


def quat_normalize(q: np.ndarray) -> np.ndarray:
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrix of a unit quaternion; ``(..., 4) -> (..., 3, 3)``."""
    w, x, y, z = np.moveaxis(np.asarray(q, dtype=float), -1, 0)
    out = np.empty(w.shape + (3, 3))
    out[..., 0, 0] = 1 - 2 * (y * y + z * z)
    out[..., 0, 1] = 2 * (x * y - w * z)
    out[..., 0, 2] = 2 * (x * z + w * y)
    out[..., 1, 0] = 2 * (x * y + w * z)
    out[..., 1, 1] = 1 - 2 * (x * x + z * z)
    out[..., 1, 2] = 2 * (y * z - w * x)
    out[..., 2, 0] = 2 * (x * z - w * y)
    out[..., 2, 1] = 2 * (y * z + w * x)
    out[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return out


def matrix_to_quat(m: np.ndarray) -> np.ndarray:
    """Unit quaternion (w >= 0) of a rotation matrix; ``(..., 3, 3) -> (..., 4)``.

    Uses the largest of the four squared components (Shepperd's method), so it
    is accurate for every rotation.
    """
    m = np.asarray(m, dtype=float)
    tr = np.trace(m, axis1=-2, axis2=-1)
    d = np.stack([tr, m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]], axis=-1)
    k = np.argmax(d, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):  # the cases not chosen may divide by zero
        s = np.sqrt(np.maximum(1.0 + tr, 0.0)) * 2  # case 0: w largest
        cand = [np.stack([0.25 * s, (m[..., 2, 1] - m[..., 1, 2]) / s, (m[..., 0, 2] - m[..., 2, 0]) / s,
                          (m[..., 1, 0] - m[..., 0, 1]) / s], axis=-1)]
        for i, (j, l) in enumerate(((1, 2), (2, 0), (0, 1))):
            s = np.sqrt(np.maximum(1.0 + 2 * m[..., i, i] - tr, 0.0)) * 2
            c = np.empty(m.shape[:-2] + (4,))
            c[..., 0] = (m[..., l, j] - m[..., j, l]) / s
            c[..., 1 + i] = 0.25 * s
            c[..., 1 + j] = (m[..., j, i] + m[..., i, j]) / s
            c[..., 1 + l] = (m[..., l, i] + m[..., i, l]) / s
            cand.append(c)
    cand = np.stack(cand, axis=-2)  # (..., 4 cases, 4)
    q = np.take_along_axis(cand, k[..., None, None], axis=-2)[..., 0, :]
    q = np.where(q[..., :1] < 0, -q, q)
    return quat_normalize(q)


def quat_from_axis_angle(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Quaternion rotating by ``angle`` [rad] about unit ``axis``; broadcasts."""
    axis = np.asarray(axis, dtype=float)
    half = 0.5 * np.asarray(angle, dtype=float)[..., None]
    return np.concatenate([np.cos(half), np.sin(half) * axis], axis=-1)


def quat_to_rotvec(q: np.ndarray) -> np.ndarray:
    """Rotation vector (axis * angle, angle in [0, pi]) of a unit quaternion."""
    q = np.where(q[..., :1] < 0, -q, q)
    v = q[..., 1:]
    s = np.linalg.norm(v, axis=-1, keepdims=True)
    angle = 2 * np.arctan2(s, q[..., :1])
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = np.where(s > 1e-12, angle / s, 2.0)
    return v * scale


def quat_continuity(q: np.ndarray, axis: int = 0) -> np.ndarray:
    """Flip signs along ``axis`` (time) so consecutive quaternions have a positive dot product."""
    q = np.moveaxis(np.array(q, dtype=float), axis, 0)
    dots = np.sum(q[1:] * q[:-1], axis=-1)
    flips = np.cumprod(np.where(dots < 0, -1.0, 1.0), axis=0)
    q[1:] *= flips[..., None]
    return np.moveaxis(q, 0, axis)


def from_lee(q_lee: np.ndarray) -> np.ndarray:
    """Lee thesis scalar-last (Shuster) quaternion -> Hamilton (w, x, y, z); notes §9."""
    return np.concatenate([q_lee[..., 3:], -q_lee[..., :3]], axis=-1)


def to_lee(q: np.ndarray) -> np.ndarray:
    """Hamilton (w, x, y, z) -> Lee thesis scalar-last (Shuster) quaternion; notes §9."""
    return np.concatenate([-q[..., 1:], q[..., :1]], axis=-1)


def davenport_matrix(b: np.ndarray, a: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Davenport's K for Wahba's problem ``min_R Σ w_s |b_s - R a_s|²`` in Hamilton form.

    ``b`` (..., S, 3) observed (world) vectors, ``a`` (..., S, 3) reference
    (body) vectors. With ``B = Σ w_s b_s a_sᵀ``, ``σ = tr B``, ``z`` the
    vector of ``B - Bᵀ``: ``K = [[σ, zᵀ], [z, B + Bᵀ - σ I]]``; the optimal
    ``q = (w, x, y, z)`` is the eigenvector of K's largest eigenvalue
    (Davenport's q-method; Lee 2009 §2.2, eq. 2.9 with the S = W + Wᵀ erratum
    fixed). NaN vectors contribute nothing.
    """
    if weights is None:
        weights = np.ones(b.shape[:-1])
    valid = ~(np.isnan(b).any(-1) | np.isnan(a).any(-1))
    w = np.where(valid, weights, 0.0)[..., None]
    bb = np.where(valid[..., None], b, 0.0)
    aa = np.where(valid[..., None], a, 0.0)
    B = np.einsum("...si,...sj->...ij", w * bb, aa)
    sigma = np.trace(B, axis1=-2, axis2=-1)
    z = np.stack([B[..., 2, 1] - B[..., 1, 2], B[..., 0, 2] - B[..., 2, 0], B[..., 1, 0] - B[..., 0, 1]], axis=-1)
    K = np.zeros(B.shape[:-2] + (4, 4))
    K[..., 0, 0] = sigma
    K[..., 0, 1:] = z
    K[..., 1:, 0] = z
    K[..., 1:, 1:] = B + np.swapaxes(B, -1, -2) - sigma[..., None, None] * np.eye(3)
    return K


def wahba(b: np.ndarray, a: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Optimal rotation quaternion(s) for Wahba's problem by the q-method; see ``davenport_matrix``."""
    _, vecs = np.linalg.eigh(davenport_matrix(b, a, weights))
    q = vecs[..., :, -1]
    return np.where(q[..., :1] < 0, -q, q)


def fit_rigid(points: np.ndarray, local: np.ndarray, weights: np.ndarray | None = None):
    """Least-squares rigid pose ``p_s ≈ r + R a_s`` of a marker cluster (Lee 2009 §5.1).

    ``points`` (..., S, 3) world marker positions (NaN = missing), ``local``
    (S, 3) the same markers in the body frame. Vectors are centred on the
    weighted centroid of the markers present in each frame, so translation and
    rotation decouple. Returns ``(q, r)``: quaternions (..., 4) and the body
    origin (..., 3). Frames with fewer than three present markers return NaN.
    """
    points = np.asarray(points, dtype=float)
    local = np.broadcast_to(np.asarray(local, dtype=float), points.shape)
    valid = ~np.isnan(points).any(-1)
    w = valid.astype(float) if weights is None else np.where(valid, weights, 0.0)
    wsum = w.sum(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        cp = np.einsum("...s,...si->...i", w, np.where(valid[..., None], points, 0.0)) / wsum
        cl = np.einsum("...s,...si->...i", w, local) / wsum
    q = wahba(points - cp[..., None, :], local - cl[..., None, :], w)
    r = cp - np.einsum("...ij,...j->...i", quat_to_matrix(q), cl)
    bad = valid.sum(-1) < 3
    q[bad] = np.nan
    r[bad] = np.nan
    return q, r


def quat_z_to(direction: np.ndarray) -> np.ndarray:
    """Shortest-arc quaternion turning +Z onto ``direction`` ``(..., 3)`` (any length; zero -> identity).

    Used to orient arrows. For a direction opposite to +Z it turns about X.
    """
    d = np.asarray(direction, dtype=float)
    n = np.linalg.norm(d, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        u = np.where(n > 0, d / n, [0.0, 0.0, 1.0])
    q = np.stack([1.0 + u[..., 2], -u[..., 1], u[..., 0], np.zeros_like(u[..., 0])], axis=-1)
    opposite = q[..., 0] < 1e-12
    q[opposite] = [0.0, 1.0, 0.0, 0.0]
    return quat_normalize(q)
