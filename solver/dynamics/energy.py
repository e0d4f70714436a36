"""Energy and effort measures of a motion and its joint torques (Badler et al., §7).

Badler et al. measure the energy expenditure of a movement by

a) the weighted sum of the absolute joint torques, negative work counting
   one third (eccentric work is about three times as efficient):
   ``ρ_i = |τ_i|`` if ``τ_i · ω_i ≥ 0``, else ``|τ_i| / 3``;
b) the total mechanical energy ``E = Σ_i (TKE_i + RKE_i)`` and its change
   (we add the potential energy ``-m g · c`` when gravity is on);
c) the mechanical power generated or absorbed at the joints
   ``P = Σ_i τ_i (ω_{i+1} - ω_i)``;
d) the "power transferred" ``P = Σ_i p_i``, ``p_i = τ_i · ω_i`` if ``≥ 0``,
   else ``|τ_i · ω_i| / 3``;
e) the jerk ``A = Σ_i |J_i|``, ``J_i`` the time derivative of the joint acceleration.

Here ``τ_i`` is joint ``i``'s generalized force (``Dynamics.generalized_forces``:
the torque vector of a ball joint, the axis torques of a hinge or universal
joint) and ``ω_i`` its rates, so ``τ_i · ω_i`` is the joint power
``Dynamics.joint_power`` (relative angular velocity ``ω_{i+1} - ω_i`` of child
and parent). The root is not a joint: its columns are NaN and it is left out
of the sums (its residual power is ``Dynamics.joint_power[:, 0]``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..algorithms.kinematics import frame_kinematics, make_data
from ..kernels import add, cross, matvec, put, put2, row, sub, tmatvec
from ..model.body import BodyModel
from .derivatives import time_step
from .inverse import Dynamics

#: Weight of negative (eccentric) work against positive work (Badler et al. §7, after Williams & Cavanagh).
NEGATIVE_WORK_WEIGHT = 1.0 / 3.0


@njit(cache=True, nogil=True)
def _segment_motion(tree, q, v):
    """Centre of mass, its velocity, angular momentum about it (world) and kinetic energy of every segment
    (frames one after the other, as ``inverse._rnea_frames``)."""
    n_frames, n_seg = len(q), len(tree.parent)
    com = np.empty((n_frames, n_seg, 3))
    com_velocity = np.empty((n_frames, n_seg, 3))
    spin = np.empty((n_frames, n_seg, 3))
    kinetic = np.empty((n_frames, n_seg))
    data = make_data(tree)
    q_t, v_t, zero, no_gravity = np.empty(tree.nq), np.empty(tree.nv), np.zeros(tree.nv), np.zeros(3)
    velocity = np.empty((n_seg, 3))  # of each segment origin
    for t in range(n_frames):
        for k in range(tree.nq):
            q_t[k] = q[t, k]
        for k in range(tree.nv):
            v_t[k] = v[t, k]
        frame_kinematics(tree, q_t, v_t, zero, no_gravity, data)
        for i in range(n_seg):
            p = tree.parent[i]
            w = row(data.omega, i)
            if p < 0:
                vel = (v_t[tree.v_start[i]], v_t[tree.v_start[i] + 1], v_t[tree.v_start[i] + 2])
            else:
                vel = add(row(velocity, p), cross(row(data.omega, p), sub(row(data.origin, i), row(data.origin, p))))
            put(velocity, i, vel)
            arm = matvec(data.rot, i, row(tree.com, i))
            v_c = add(vel, cross(w, arm))
            w_b = tmatvec(data.rot, i, w)
            spin_b = matvec(tree.inertia, i, w_b)
            put2(com, t, i, add(row(data.origin, i), arm))
            put2(com_velocity, t, i, v_c)
            put2(spin, t, i, matvec(data.rot, i, spin_b))
            kinetic[t, i] = 0.5 * (tree.mass[i] * (v_c[0] ** 2 + v_c[1] ** 2 + v_c[2] ** 2)
                                   + w_b[0] * spin_b[0] + w_b[1] * spin_b[1] + w_b[2] * spin_b[2])
    return com, com_velocity, spin, kinetic


def segment_motion(model: BodyModel, q: np.ndarray, v: np.ndarray):
    """Per segment (T, S, ...): centre of mass [m], its velocity [m/s], angular momentum about it [kg m²/s]
    (all world frame) and kinetic energy ``½ m |v_c|² + ½ ωᵀ I ω`` [J]."""
    q = np.ascontiguousarray(np.atleast_2d(q), dtype=float)
    v = np.ascontiguousarray(np.atleast_2d(v), dtype=float)
    return _segment_motion(model.tree, q, v)


def segment_momenta(model: BodyModel, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each segment's linear momentum [kg m/s] and angular momentum about the world origin [kg m²/s], world
    frame, (T, S, 3) each."""
    com, com_velocity, spin, _ = segment_motion(model, q, v)
    linear = np.array([s.mass for s in model.segments])[:, None] * com_velocity
    return linear, np.cross(com, linear) + spin


def momentum(model: BodyModel, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Linear momentum [kg m/s] and angular momentum about the world origin [kg m²/s], world frame, (T, 3) each."""
    linear, angular = segment_momenta(model, q, v)
    return linear.sum(1), angular.sum(1)


@dataclass(frozen=True)
class EnergyMeasures:
    """Badler et al. §7 measures, time first; per-joint arrays are (T, S) with a NaN root column."""

    times: np.ndarray
    weighted_torque: np.ndarray  # (T, S) ρ_i [N·m]
    weighted_torque_sum: np.ndarray  # (T,) Σ ρ_i
    effort: float  # ∫ Σ ρ_i dt [N·m·s]
    kinetic_energy: np.ndarray  # (T,) [J]
    potential_energy: np.ndarray  # (T,) [J], zero without gravity
    mechanical_energy: np.ndarray  # (T,) kinetic + potential
    mechanical_energy_change: np.ndarray  # (T,) E - E[0]
    joint_power: np.ndarray  # (T, S) τ_i · ω_i [W]
    power_generated: np.ndarray  # (T,) Σ of the positive joint powers
    power_absorbed: np.ndarray  # (T,) Σ of the negative joint powers (≤ 0)
    weighted_power: np.ndarray  # (T,) Badler's "power transferred": Σ p_i
    jerk: np.ndarray  # (T, S) |J_i|, last frame NaN (forward difference)
    jerk_sum: np.ndarray  # (T,) Σ |J_i|


def energy_measures(dynamics: Dynamics) -> EnergyMeasures:
    """Badler et al. §7 energy-expenditure measures of an inverse-dynamics result."""
    model = dynamics.model
    dt = time_step(dynamics.times)
    joints = [(i, start, s.nv) for i, (s, start) in enumerate(zip(model.segments, model.v_starts)) if i > 0 and s.nv]
    n_frames, n_seg = len(dynamics.times), len(model.segments)

    def per_joint(values):
        out = np.full((n_frames, n_seg), np.nan)
        out[:, 1:] = 0.0
        for i, start, n in joints:
            out[:, i] = values(start, n)
        return out

    tau = dynamics.generalized_forces
    power = np.concatenate([np.full((n_frames, 1), np.nan), dynamics.joint_power[:, 1:]], axis=1)
    magnitude = per_joint(lambda start, n: np.linalg.norm(tau[:, start:start + n], axis=1))
    weighted_torque = np.where(power >= 0, magnitude, NEGATIVE_WORK_WEIGHT * magnitude)
    weighted_torque_sum = np.nansum(weighted_torque, axis=1)

    da = np.diff(dynamics.a, axis=0, append=np.full((1, model.nv), np.nan)) / dt
    jerk = per_joint(lambda start, n: np.linalg.norm(da[:, start:start + n], axis=1))

    com, _, _, kinetic = segment_motion(model, dynamics.q, dynamics.v)
    masses = np.array([s.mass for s in model.segments])
    kinetic_energy = kinetic.sum(1)
    potential_energy = -np.einsum("s,tsi,i->t", masses, com, dynamics.gravity)
    mechanical = kinetic_energy + potential_energy
    joint_powers = power[:, 1:]
    return EnergyMeasures(
        times=dynamics.times, weighted_torque=weighted_torque, weighted_torque_sum=weighted_torque_sum,
        effort=float(weighted_torque_sum.sum() * dt), kinetic_energy=kinetic_energy,
        potential_energy=potential_energy, mechanical_energy=mechanical,
        mechanical_energy_change=mechanical - mechanical[0], joint_power=power,
        power_generated=np.clip(joint_powers, 0, None).sum(1), power_absorbed=np.clip(joint_powers, None, 0).sum(1),
        weighted_power=np.where(joint_powers >= 0, joint_powers, NEGATIVE_WORK_WEIGHT * -joint_powers).sum(1),
        jerk=jerk, jerk_sum=np.sum(jerk[:, 1:], axis=1))
