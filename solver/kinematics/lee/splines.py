"""The spline stages sp_p and sp_v (Lee 2009 §6.5, App. C): derivatives as initial guesses for the next stage.

Cubic interpolating splines (not-a-knot, ``scipy.interpolate.make_interp_spline``) through every frame,
vectorized over everything but time. The thesis does not say which spline it used (notes §10 erratum 8).

Orientation: the thesis splines a three-angle (axis-angle) parameterisation (eq. 6.35-6.36, App. C), which
is singular at zero rotation, where our neutral-pose segment frames spend much of their time, and whose
rate formula C.6 has a sign error (notes §10 erratum 2). We spline the four components of the
sign-continuous quaternion instead and differentiate its normalisation ``q = u/|u|`` exactly; the world
angular velocity and acceleration follow as ``(0, ω) = 2 q̇ ⊗ q*`` and ``(·, α) = 2 q̈ ⊗ q*`` (the Hamilton
form of D.75, ``ω_I = -2 G q̇``, and of its derivative).
"""

from __future__ import annotations

import numpy as np
from scipy.interpolate import make_interp_spline

from ...rotations import quat_conj, quat_mul


def spline_derivatives(times: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and second time derivatives (T, ...) of the cubic spline through ``values`` (T, ...)."""
    spline = make_interp_spline(times, values, k=3, axis=0)
    return spline.derivative(1)(times), spline.derivative(2)(times)


def quaternion_rates(times: np.ndarray, quats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """World angular velocity and acceleration (T, ..., 3) of sign-continuous unit quaternions (T, ..., 4)."""
    spline = make_interp_spline(times, quats, k=3, axis=0)
    u, du, ddu = spline(times), spline.derivative(1)(times), spline.derivative(2)(times)
    norm = np.linalg.norm(u, axis=-1, keepdims=True)
    q = u / norm
    rate_norm = np.sum(q * du, axis=-1, keepdims=True)  # d|u|/dt
    dq = (du - q * rate_norm) / norm
    # d/dt of (u̇ - q (q·u̇)) / |u|
    ddq = (ddu - dq * rate_norm - q * (np.sum(dq * du, axis=-1, keepdims=True)
                                       + np.sum(q * ddu, axis=-1, keepdims=True))) / norm - dq * rate_norm / norm
    omega = 2.0 * quat_mul(dq, quat_conj(q))[..., 1:]
    alpha = 2.0 * quat_mul(ddq, quat_conj(q))[..., 1:]
    return omega, alpha
