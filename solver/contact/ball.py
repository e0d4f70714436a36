"""The bouncing ball of Brubaker et al. (2009) §3: a point mass on a plane, its surface found from its motion.

The ball's acceleration minus gravity is the contact force per unit mass
("up to mass"); the contact model (eqs. 4-6, ``model``) with unknown plane,
stiffness and damping is fitted to it by the same L-BFGS-B estimate as the
body (``estimate.fit``): the "root" is the ball, with no torque. The paper
finds κ_N ≈ 24 (table) and 15 (mouse pad) — above the body's bound of 20, so
the ball has its own ``BALL_BOUNDS`` — the mouse pad a little more damped,
and heights "extremely close to ground truth".

``simulate_ball`` integrates ``ẍ = g + f_c(x, ẋ)`` by explicit Euler at the
sampling rate (consistent with the forward differences ``estimate_ball``
takes). With the paper's constants a ball sinks several centimetres into the
surface: over the distance sigmoid's few centimetres the spring force is
nearly ``κ_N L``, a few g, so it needs that long to stop the ball.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..constants import GRAVITY
from ..dynamics.derivatives import time_step
from ..errors import SolverError
from .paper_fit import Bounds, Optimisation, Problem, at_rest, fit, initial_plane, start_materials, support_points
from .model import ContactConstants, Material, Surface, SurfaceArrays, contact_forces, point_force

#: Bounds of the ball's estimate (per unit of the ball's mass).
BALL_BOUNDS = Bounds(stiffness=(1.0, 100.0), normal_damping=(0.1, 50.0), tangential_damping=(0.1, 50.0))
#: Starting materials of the ball's estimate: one point must carry g alone, so stiffer than the body's.
BALL_STARTS = (Material(20.0, 5.0, 5.0), Material(40.0, 2.0, 2.0), Material(12.0, 10.0, 10.0),
               Material(60.0, 20.0, 1.0))


@dataclass(frozen=True)
class BallTrajectory:
    """Times (T,), positions and velocities (T, 3) [m, m/s], and the contact force per unit mass (T - 1, 3)
    [N/kg] applied over each step."""

    times: np.ndarray
    positions: np.ndarray
    velocities: np.ndarray
    forces: np.ndarray


@dataclass(frozen=True)
class BallEstimate:
    """The estimated surface and the fit: times (T - 2,), measured and modelled contact force per unit mass
    (T - 2, 3), the fraction of it explained (1 - mean|residual| / mean|measured|) and the optimiser record."""

    surface: Surface
    times: np.ndarray
    measured: np.ndarray
    modelled: np.ndarray
    explained: float
    optimisation: Optimisation


@njit(cache=True)
def _simulate_ball(x0, v0, n_steps, dt, gravity, normals, offsets, first_face, materials, constants):
    x, v = np.empty((n_steps + 1, 3)), np.empty((n_steps + 1, 3))
    forces = np.empty((n_steps, 3))
    for c in range(3):
        x[0, c], v[0, c] = x0[c], v0[c]
    for t in range(n_steps):
        f = point_force((x[t, 0], x[t, 1], x[t, 2]), (v[t, 0], v[t, 1], v[t, 2]), normals, offsets, first_face,
                        materials, constants)
        for c in range(3):
            forces[t, c] = f[c]
            x[t + 1, c] = x[t, c] + dt * v[t, c]
            v[t + 1, c] = v[t, c] + dt * (gravity[c] + f[c])
    return x, v, forces


def simulate_ball(surface: Surface, *, start=(0.0, 0.0, 0.3), velocity=(0.5, 0.0, 0.0), rate: float = 240.0,
                  duration: float = 3.0, constants: ContactConstants = ContactConstants(),
                  gravity: np.ndarray = GRAVITY) -> BallTrajectory:
    """Drop a ball from ``start`` [m] with ``velocity`` [m/s] onto ``surface``; Euler steps at ``rate`` Hz."""
    arrays = SurfaceArrays((surface,))
    n_steps = int(round(duration * rate))
    if n_steps < 3:
        raise SolverError("The ball needs at least three steps", "give a longer duration or a higher rate")
    x, v, forces = _simulate_ball(np.asarray(start, float), np.asarray(velocity, float), n_steps, 1.0 / rate,
                                  np.asarray(gravity, float), arrays.normals, arrays.offsets, arrays.first_face,
                                  arrays.materials, constants.array())
    if not np.isfinite(x).all():
        raise SolverError("The ball simulation diverged", "raise the rate or the damping")
    return BallTrajectory(times=np.arange(n_steps + 1) / rate, positions=x, velocities=v, forces=forces)


def estimate_ball(times: np.ndarray, positions: np.ndarray, *, gravity: np.ndarray = GRAVITY, starts=BALL_STARTS,
                  bounds: Bounds = BALL_BOUNDS, constants: ContactConstants = ContactConstants()) -> BallEstimate:
    """Plane, stiffness and damping of the surface a ball bounces on, from its positions (T, 3) alone.

    Forward differences give velocities and accelerations (frames 0..T-3); the measured contact force per
    unit mass is ``a - g``; eq. 10 with a ball's "root force" ``a - g - f_c``.
    """
    x = np.asarray(positions, dtype=float)
    if x.ndim != 2 or x.shape[1] != 3 or len(x) != len(times) or len(x) < 4:
        raise SolverError(f"Ball positions must have shape ({len(times)}, 3) with at least 4 frames; got {x.shape}",
                          "pass one position per time")
    dt = time_step(times)
    v = np.diff(x, axis=0) / dt
    a = np.diff(v, axis=0) / dt
    gravity = np.asarray(gravity, dtype=float)
    measured = a - gravity
    p, pd = x[:-2, None], v[:-1, None]
    support = support_points(p, pd, max_speed=None)  # a ball is fastest at the bottom of a bounce
    plane = Surface((initial_plane(support),))
    runs = [(at_rest(plane, m, 1, float(np.linalg.norm(gravity)), constants),) for m in start_materials(starts)]
    problem = Problem(residual=np.c_[measured, np.zeros_like(measured)], arms=np.zeros_like(p), points=p,
                      velocities=pd, force_scale=1.0, constants=constants)
    (surface,), record = fit(problem, runs, support.mean(0)[None], bounds)
    modelled = contact_forces(p, pd, (surface,), constants)[:, 0]
    explained = 1.0 - np.linalg.norm(measured - modelled, axis=1).mean() / np.linalg.norm(measured, axis=1).mean()
    return BallEstimate(surface=surface, times=np.asarray(times, float)[:-2], measured=measured, modelled=modelled,
                        explained=float(explained), optimisation=record)
