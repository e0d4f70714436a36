"""Forward simulation of a body model on contact surfaces (eqs. 4-7) with joint torques holding a pose.

Ground truth for contact estimation, and the generator of synthetic
recordings: the body falls, lands and stands on known surfaces with known
springs. Each step of ``Δ = 1/rate``:

1. contact points' positions and velocities from ``(q, v)`` (``model.frame_point_motion``),
2. contact forces ``m f_c`` at every point (eq. 4 summed over surfaces, eq. 7),
3. joint torques of a PD controller holding ``PoseController.target``
   (the root gets none: it is free),
4. forward dynamics (CRBA + Cholesky, ``dynamics.forward``) and one explicit
   Euler step (Brubaker §4.2, quaternions per App. A).

Explicit Euler at the sampling rate is what forward differences are
consistent with: inverse dynamics of the sampled ``q`` recovers this ``v``,
these accelerations and so exactly these contact forces — so an estimate from
the kinematics alone can be held to the ground truth exactly. The contact
dampers act on light feet (a foot's rotation about the ankle has an inertia
of a few g·m²), which explicit Euler only keeps stable at about 2 kHz or more.

PD controller: for a hinge or universal angle ``τ = τ₀ - k_p (θ - θ*) - k_d θ̇``;
for a ball joint, in the child frame, ``τ = τ₀ - k_p e - k_d ω`` with ``e`` the
rotation vector of ``q*⁻¹ q`` (target to current). ``k_p = stiffness · m g ·
1 m`` per radian (``m`` the body mass: a stiffness of 1 lets the body's weight
acting 1 m from a joint bend it by a radian) and ``k_d = 2 ζ √(k_p I)`` with
``I = 1/(M⁻¹)_jj`` the inertia entry ``j`` moves with while every other
coordinate is free (``M`` the mass matrix at the target pose): each entry is
critically damped for ``ζ = 1`` in the free-floating body, and a ball joint's
three child-frame axes each get their own (little damping about a limb's long
axis); with the diagonal ``M_jj`` instead, coupled modes are unstable under
explicit Euler. ``τ₀`` (``holding_torques``) holds the target pose still with
the weight on the feet, so the pose does not sag.

Standing on eqs. 4-5 is only just stable: a point's local stiffness is about
``2 G_d`` times its load whatever κ_N, so feet 22 cm long give a body 0.9 m
tall only slightly more rotational stiffness than gravity's toppling
stiffness. A PD-held body stands only with its centre of mass above the
middle of its sole points (the weight spread evenly), and a landing with more
than about 0.2 m/s across the ground tips it over.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..dynamics import ExternalForces, rnea
from ..algorithms.crba import crba_workspace
from ..algorithms.kinematics import make_data
from ..constants import GRAVITY
from ..dynamics.forward import euler_step, frame_forward_dynamics, mass_matrix
from ..kernels import quat, quat_conj, quat_mul
from ..model.tree import BALL, FREE
from ..errors import SolverError
from ..kinematics.motion import Motion
from ..model.body import BodyModel
from .paper_fit import force_scale_of
from .result import foot_segments
from .model import ContactConstants, ContactPoints, Surface, SurfaceArrays, frame_point_motion, point_force, \
    point_motion, point_scratch


@dataclass(frozen=True)
class PoseController:
    """PD joint torques holding the pose ``target`` (nq,); see the module docstring for the gains."""

    target: np.ndarray
    stiffness: float = 2.0
    damping_ratio: float = 1.0
    hold_weight: bool = True

    def gains(self, model: BodyModel, gravity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``k_p`` [N·m/rad] and ``k_d`` [N·m·s/rad] per velocity entry (nv,); zero on the root."""
        kp = np.full(model.nv, self.stiffness * model.total_mass * float(np.linalg.norm(gravity)))
        kp[:6] = 0.0
        inertia = 1.0 / np.diag(np.linalg.inv(mass_matrix(model, np.asarray(self.target, dtype=float))[0]))
        return kp, 2.0 * self.damping_ratio * np.sqrt(kp * inertia)

    def holding_torques(self, model: BodyModel, gravity: np.ndarray) -> np.ndarray:
        """Joint torques (nv,) that hold the target pose still with the weight on the feet (zero on the root).

        The weight is shared by the feet's contact points with the least sum of squares that puts the centre
        of pressure under the centre of mass; the torques are inverse dynamics of the still pose under that
        support. Without feet: zeros (the pose is held by the PD terms alone)."""
        feet = foot_segments(model)
        points = ContactPoints.of(model)
        on_feet = np.isin(points.segments, feet)
        if not self.hold_weight or not on_feet.any():
            return np.zeros(model.nv)
        q = np.asarray(self.target, dtype=float)[None]
        positions, _ = point_motion(model, q, np.zeros((1, model.nv)), points)
        where = positions[0, on_feet]
        weight = model.total_mass * float(np.linalg.norm(gravity))
        com = model.body_com(q[0])
        conditions = np.vstack([np.ones(len(where)), where[:, 0], where[:, 1]])
        share = np.linalg.lstsq(conditions, weight * np.r_[1.0, com[:2]], rcond=None)[0]
        up = -np.asarray(gravity, dtype=float) / np.linalg.norm(gravity)
        support = ExternalForces(points.segments[on_feet], where[None], share[None, :, None] * up)
        zero = np.zeros((1, model.nv))
        tau = rnea(model, np.zeros(1), q, zero, zero, gravity=gravity, external=support).generalized_forces[0]
        tau[:6] = 0.0
        return tau


@dataclass(frozen=True)
class ContactSimulation:
    """A simulated trial: ``motion`` (coordinates only: velocities and accelerations are for the estimator to
    find), the true velocities ``v`` (T, nv), per-point contact forces ``point_forces`` (T - 1, K, 3) [N] and
    joint torques ``generalized_forces`` (T - 1, nv) applied over each step, the ``surfaces`` and force scale."""

    motion: Motion
    v: np.ndarray
    point_segments: np.ndarray
    point_forces: np.ndarray
    generalized_forces: np.ndarray
    surfaces: tuple[Surface, ...]
    constants: ContactConstants
    force_scale: float


@njit(cache=True, inline='always')
def _pd_torques(tree, q, v, target, feedforward, kp, kd, tau):
    """Generalized forces of the PD pose controller (root entries zero)."""
    for i in range(len(tree.parent)):
        qs, vs, joint = tree.q_start[i], tree.v_start[i], tree.joint[i]
        if joint == FREE:
            for k in range(6):
                tau[vs + k] = 0.0
        elif joint == BALL:
            error = quat_mul(quat_conj(quat(target, qs)), quat(q, qs))
            sign = 1.0 if error[0] >= 0.0 else -1.0
            norm = np.sqrt(error[1] ** 2 + error[2] ** 2 + error[3] ** 2)
            angle = 2.0 * np.arctan2(norm, abs(error[0]))
            factor = sign * angle / norm if norm > 1e-12 else 2.0 * sign
            for k in range(3):
                tau[vs + k] = feedforward[vs + k] - kp[vs + k] * factor * error[1 + k] - kd[vs + k] * v[vs + k]
        else:
            for k in range(tree.n_dof[i]):
                tau[vs + k] = feedforward[vs + k] - kp[vs + k] * (q[qs + k] - target[qs + k]) - kd[vs + k] * v[vs + k]


@njit(cache=True)
def _simulate(tree, q0, v0, n_steps, dt, gravity, segments, local, normals, offsets, first_face, materials,
              constants, force_scale, target, feedforward, kp, kd):
    n_points = len(segments)
    q = np.empty((n_steps + 1, tree.nq))
    v = np.empty((n_steps + 1, tree.nv))
    forces = np.empty((n_steps, n_points, 3))
    tau = np.empty((n_steps, tree.nv))
    q[0] = q0
    v[0] = v0
    data, cw, scratch = make_data(tree), crba_workspace(tree), point_scratch(tree)
    positions, velocities = np.empty((n_points, 3)), np.empty((n_points, 3))
    moments, acceleration = np.zeros((n_points, 3)), np.empty(tree.nv)
    for t in range(n_steps):
        frame_point_motion(tree, q[t], v[t], segments, local, data, scratch, positions, velocities)
        for k in range(n_points):
            f = point_force((positions[k, 0], positions[k, 1], positions[k, 2]),
                            (velocities[k, 0], velocities[k, 1], velocities[k, 2]), normals, offsets, first_face,
                            materials, constants)
            for c in range(3):
                forces[t, k, c] = force_scale * f[c]
        _pd_torques(tree, q[t], v[t], target, feedforward, kp, kd, tau[t])
        frame_forward_dynamics(tree, q[t], v[t], tau[t], gravity, segments, positions, forces[t], moments, data, cw,
                               acceleration)
        euler_step(tree, q[t], v[t], acceleration, dt, q[t + 1], v[t + 1])
    return q, v, forces, tau


def simulate_contact(model: BodyModel, q0: np.ndarray, v0: np.ndarray, surfaces, *, duration: float,
                     rate: float = 2000.0, controller: PoseController | None = None, normalisation="body_mass",
                     constants: ContactConstants = ContactConstants(), gravity: np.ndarray = GRAVITY
                     ) -> ContactSimulation:
    """Simulate ``model`` from ``(q0, v0)`` for ``duration`` seconds at ``rate`` Hz on ``surfaces`` (a
    ``Surface`` or several), its joints held at ``controller.target`` (default: ``q0``'s pose); forces in
    newtons are ``force_scale`` (``normalisation`` as in ``estimate_contact``) times eq. 4's."""
    surfaces = (surfaces,) if isinstance(surfaces, Surface) else tuple(surfaces)
    arrays, points = SurfaceArrays(surfaces), ContactPoints.of(model)
    q0 = np.asarray(q0, dtype=float).reshape(model.nq)
    v0 = np.asarray(v0, dtype=float).reshape(model.nv)
    if not rate > 0 or not duration > 0:
        raise SolverError("The simulation needs a positive duration and rate", "e.g. duration=1.5, rate=2000")
    controller = controller or PoseController(q0)
    gravity = np.asarray(gravity, dtype=float).reshape(3)
    kp, kd = controller.gains(model, gravity)
    _, scale = force_scale_of(model, normalisation)
    n_steps = int(round(duration * rate))
    q, v, forces, tau = _simulate(model.tree, q0, v0, n_steps, 1.0 / rate, gravity, points.segments,
                                  points.local, arrays.normals, arrays.offsets, arrays.first_face, arrays.materials,
                                  constants.array(), scale, np.asarray(controller.target, dtype=float),
                                  controller.holding_torques(model, gravity), kp, kd)
    if not (np.isfinite(q).all() and np.isfinite(v).all()):
        raise SolverError("The contact simulation diverged",
                          "raise the rate, or lower the controller stiffness or the surface damping")
    times = np.arange(n_steps + 1) / rate
    motion = Motion.from_q(model, times, q, method="contact simulation",
                           info={"surfaces": surfaces, "rate": rate, "controller_stiffness": controller.stiffness})
    return ContactSimulation(motion=motion, v=v, point_segments=points.segments, point_forces=forces,
                             generalized_forces=tau, surfaces=surfaces, constants=constants, force_scale=scale)
