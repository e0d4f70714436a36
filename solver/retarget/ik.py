"""Analytic two-bone IK (hip-knee-ankle), vectorised over frames.

With the hip at ``h``, segment lengths ``l1`` (thigh) and ``l2`` (shank) and
the goal ``g`` at distance ``d`` (clamped to what the leg can reach), the law
of cosines gives the angle at the hip between the thigh and the hip-goal line,

    cos α = (l1² + d² − l2²) / (2 l1 d),

and the knee lies in the plane of that line and the pole direction ``p``
(where the knee points): ``k = h + l1 (cos α u + sin α v)``, ``u`` the unit
hip-goal direction and ``v`` the unit part of ``p`` perpendicular to it.
"""

from __future__ import annotations

import numpy as np


def two_bone_ik(hip: np.ndarray, goal: np.ndarray, l1: float, l2: float, pole: np.ndarray,
                reach: float = 0.999) -> tuple[np.ndarray, np.ndarray]:
    """Knee and ankle positions ``(T, 3)`` putting the ankle at ``goal``, or as near as a leg straightened to
    ``reach`` of its length (or bent to its shortest) gets along the hip-goal line."""
    d = goal - hip
    dist = np.linalg.norm(d, axis=-1, keepdims=True)
    u = np.where(dist > 1e-12, d / np.maximum(dist, 1e-12), [0.0, 0.0, -1.0])
    dist = np.clip(dist, abs(l1 - l2) * 1.001 + 1e-9, reach * (l1 + l2))
    cos_a = np.clip((l1 ** 2 + dist ** 2 - l2 ** 2) / (2.0 * l1 * dist), -1.0, 1.0)
    v = pole - np.sum(pole * u, axis=-1, keepdims=True) * u
    v_norm = np.linalg.norm(v, axis=-1, keepdims=True)
    v = np.where(v_norm > 1e-9, v / np.maximum(v_norm, 1e-12), _perpendicular(u))
    knee = hip + l1 * (cos_a * u + np.sqrt(1.0 - cos_a ** 2) * v)
    return knee, hip + dist * u


def _perpendicular(u: np.ndarray) -> np.ndarray:
    """A unit vector perpendicular to each unit ``u`` (for a pole along the leg, which callers avoid)."""
    other = np.where(np.abs(u[..., :1]) < 0.9, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    v = np.cross(u, other)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)
