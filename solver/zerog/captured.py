"""A captured motion "in orbit": its joint trajectories replayed on a free-floating body (Badler et al. §4).

The joints follow the reconstruction exactly at every frame; between frames (the Runge-Kutta stages)
and for rates and accelerations they follow a cubic spline through the frames (``scipy.interpolate
.CubicSpline``, not-a-knot ends). Quaternions (ball joints) are splined component-wise after making
their signs continuous and normalised: ``q = p/|p|``, so ``q̇ = ṗ/n - p (p·ṗ)/n³`` and
``q̈ = p̈/n - 2ṗ (p·ṗ)/n³ - p ((ṗ·ṗ + p·p̈)/n³ - 3(p·ṗ)²/n⁵)`` (``n = |p|``), and the body rates
``ω = 2 vec(q* ⊗ q̇)``, ``ω̇ = 2 vec(q* ⊗ q̈)``. The base starts at the captured first-frame pose; no
gravity, no contact. Initial momentum: zero, or the mean momentum of the captured motion (root
included, same splines) over its first 50 ms (``"first_frames"``), so a jump keeps its take-off.
"""

from __future__ import annotations

import numpy as np
from scipy.interpolate import CubicSpline

from ..dynamics.derivatives import body_rate, continuous_quaternions, quaternion_columns, scalar_indices, time_step
from ..dynamics.energy import momentum
from ..errors import SolverError, option
from ..kinematics.motion import Motion
from .free_floating import JointPath, free_floating, half_steps
from .result import ZeroGravity

#: Initial momentum choices of ``simulate_zero_gravity``.
INITIAL_MOMENTUM = ("zero", "first_frames")
#: How much of the start of a captured motion gives its initial momentum [s].
FIRST_FRAMES_S = 0.05


def splined(model, times: np.ndarray, q: np.ndarray, at: np.ndarray):
    """``(q, v, a)`` at times ``at`` in the model layout, from cubic splines through the frames (module doc)."""
    spline = CubicSpline(times, continuous_quaternions(model, q), axis=0)
    p, dp, ddp = spline(at), spline(at, 1), spline(at, 2)
    out_q, out_v, out_a = p.copy(), np.empty((len(at), model.nv)), np.empty((len(at), model.nv))
    plain_q, plain_v = scalar_indices(model)
    out_v[:, plain_v], out_a[:, plain_v] = dp[:, plain_q], ddp[:, plain_q]
    _, iq, iv = quaternion_columns(model)
    p, dp, ddp = p[:, iq], dp[:, iq], ddp[:, iq]
    n = np.linalg.norm(p, axis=-1, keepdims=True)
    pdp = np.sum(p * dp, axis=-1, keepdims=True)
    unit = p / n
    rate = dp / n - p * pdp / n ** 3
    second = ddp / n - 2 * dp * pdp / n ** 3 - p * ((np.sum(dp * dp, -1, keepdims=True)
                                                    + np.sum(p * ddp, -1, keepdims=True)) / n ** 3
                                                   - 3 * pdp ** 2 / n ** 5)
    out_q[:, iq], out_v[:, iv], out_a[:, iv] = unit, body_rate(unit, rate), body_rate(unit, second)
    return out_q, out_v, out_a


def simulate_zero_gravity(motion: Motion, *, initial_momentum: str = "zero") -> ZeroGravity:
    """The joint trajectories of ``motion`` on a free-floating body: base pose from conservation of momentum,
    joint torques without gravity (Badler et al. §4-5). ``initial_momentum``: ``"zero"`` or
    ``"first_frames"`` (the captured momentum over the first 50 ms). Returns a ``ZeroGravity`` whose motion
    has method ``"zero_gravity"`` and the joint angles of ``motion`` at every frame."""
    if initial_momentum not in INITIAL_MOMENTUM:
        raise SolverError(f"Unknown initial momentum {initial_momentum!r}", f"use one of {', '.join(INITIAL_MOMENTUM)}")
    model, times, q = motion.model, np.asarray(motion.times, dtype=float), np.asarray(motion.q, dtype=float)
    if len(times) < 4:
        raise SolverError(f"A zero-gravity simulation needs at least 4 frames; the motion has {len(times)}",
                          "reconstruct a longer stretch of the trial, or simulate none "
                          f"({option('zero_gravity.kind', 'none')})")
    if np.isnan(q).any():
        frames = np.flatnonzero(np.isnan(q).any(axis=1))
        raise SolverError(f"{len(frames)} frames of the motion have no pose (NaN), the first at frame {frames[0]}",
                          "fill the gaps or trim the motion to frames with a pose")
    time_step(times)
    path_q, path_v, path_a = splined(model, times, q, half_steps(times))
    h0 = np.zeros(6)
    if initial_momentum == "first_frames":
        first = max(1, int(np.sum(times - times[0] <= FIRST_FRAMES_S)))
        linear, angular = momentum(model, path_q[0:2 * first:2], path_v[0:2 * first:2])
        h0 = np.r_[linear.mean(0), angular.mean(0)]
    info = {"source_method": motion.method, "initial_momentum_from": initial_momentum}
    return free_floating(model, JointPath(times, path_q, path_v, path_a), initial_momentum=h0, info=info)
