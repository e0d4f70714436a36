"""Constraint residuals of a set of body states, every frame at once (the quantities of Figs. 8.34-8.37, 9.6-9.10).

States are world-frame arrays (T, n, ...): rotations ``R``, CM positions ``r``, velocities ``ṙ`` and
accelerations ``r̈``, angular velocities ``ω`` and accelerations ``α``.
"""

from __future__ import annotations

import numpy as np

from .bodies import Bodies


def world_arms(bodies: Bodies, rotations: np.ndarray) -> np.ndarray:
    """``R_i L_ij`` of both sides of every joint point (T, E, 2, 3)."""
    rot = rotations[:, bodies.joint_bodies]  # (T, E, 2, 3, 3)
    return np.einsum("tesij,esj->tesi", rot, bodies.joint_arms)


def _gap(bodies: Bodies, per_side: np.ndarray) -> np.ndarray:
    return np.linalg.norm(per_side[:, :, 0] - per_side[:, :, 1], axis=-1)


def joint_position_gaps(bodies: Bodies, rotations, coms) -> np.ndarray:
    """|r_ci + R_i L_ij - r_cj - R_j L_ji| (T, E), eq. 4.5 [m]."""
    return _gap(bodies, coms[:, bodies.joint_bodies] + world_arms(bodies, rotations))


def joint_velocity_gaps(bodies: Bodies, rotations, velocities, omega) -> np.ndarray:
    """Eq. 4.6 residuals (T, E) [m/s], with ``Ṙ L = ω × R L`` (4.8)."""
    arms = world_arms(bodies, rotations)
    return _gap(bodies, velocities[:, bodies.joint_bodies] + np.cross(omega[:, bodies.joint_bodies], arms))


def joint_acceleration_gaps(bodies: Bodies, rotations, accelerations, omega, alpha) -> np.ndarray:
    """Eq. 4.7 residuals (T, E) [m/s²], with ``R̈ L = α × R L + ω × (ω × R L)`` (4.10)."""
    arms = world_arms(bodies, rotations)
    w = omega[:, bodies.joint_bodies]
    return _gap(bodies, accelerations[:, bodies.joint_bodies] + np.cross(alpha[:, bodies.joint_bodies], arms)
                + np.cross(w, np.cross(w, arms)))


def system_cm(bodies: Bodies, values: np.ndarray) -> np.ndarray:
    """Mass-weighted mean (T, 3) of per-body CM positions, velocities or accelerations (eq. 4.12-4.14)."""
    return np.einsum("b,tbi->ti", bodies.mass, values) / bodies.mass.sum()


def world_inertia(bodies: Bodies, rotations) -> np.ndarray:
    """``J_i = R_i (J_i)_i R_iᵀ`` (T, n, 3, 3), eq. E.16."""
    return np.einsum("tbij,bjk,tblk->tbil", rotations, bodies.inertia, rotations)


def angular_momentum(bodies: Bodies, rotations, coms, velocities, omega, cm=None, cm_velocity=None) -> np.ndarray:
    """``H_o = Σ ρ_ci × m_i ρ̇_ci + J_i ω_i`` (T, 3) about the system CM (eq. 4.15; the states' own CM unless
    ``cm``, ``cm_velocity`` are given)."""
    cm = system_cm(bodies, coms) if cm is None else cm
    cm_velocity = system_cm(bodies, velocities) if cm_velocity is None else cm_velocity
    rho, rho_dot = coms - cm[:, None], velocities - cm_velocity[:, None]
    spin = np.einsum("tbij,tbj->tbi", world_inertia(bodies, rotations), omega)
    return np.einsum("b,tbi->ti", bodies.mass, np.cross(rho, rho_dot)) + spin.sum(1)


def momentum_rate(bodies: Bodies, rotations, coms, accelerations, omega, alpha) -> np.ndarray:
    """``Ḣ_o = Σ ρ_ci × m_i ρ̈_ci + J̇_i ω_i + J_i α_i`` (T, 3), eq. 4.16 with ``J̇ω = ω × Jω`` (notes §2)."""
    rho = coms - system_cm(bodies, coms)[:, None]
    rho_ddot = accelerations - system_cm(bodies, accelerations)[:, None]
    inertia = world_inertia(bodies, rotations)
    spin = np.einsum("tbij,tbj->tbi", inertia, omega)
    return (np.einsum("b,tbi->ti", bodies.mass, np.cross(rho, rho_ddot))
            + (np.cross(omega, spin) + np.einsum("tbij,tbj->tbi", inertia, alpha)).sum(1))
