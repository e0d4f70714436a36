"""The friction pyramids of the per-frame contact forces (``per_frame``): each surface face's tangents, set by the
way the subject faces, and the four edges of the pyramid inside its friction cone."""

from __future__ import annotations

import numpy as np


def face_tangents(normals: np.ndarray, facing: np.ndarray | None = None) -> np.ndarray:
    """Two unit tangents (F, 2, 3) of each face with unit normal (F, 3): the first along ``facing`` (3,; the
    subject's, ``facing_direction``; none: the lab's X) within the face (the vertical where the face's normal is
    ``facing`` itself), the second across it."""
    facing = np.array([1.0, 0.0, 0.0]) if facing is None else np.asarray(facing, dtype=float)
    t1 = facing - (normals @ facing)[:, None] * normals
    along = np.linalg.norm(t1, axis=1) < 0.1  # a face turned toward ``facing``: its slants start from the vertical
    t1[along] = [0.0, 0.0, 1.0] - normals[along, 2:3] * normals[along]
    t1 /= np.linalg.norm(t1, axis=1, keepdims=True)
    return np.stack([t1, np.cross(normals, t1)], axis=1)


def edge_slants(friction: float) -> np.ndarray:
    """Each unit edge's components (4, 2) along its face's ``face_tangents``, the same on every face: ±μ / √(1 +
    μ²) along the first tangent, then along the second (``cone_edges``' order)."""
    return friction / np.sqrt(1.0 + friction ** 2) * np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])


def cone_edges(normals: np.ndarray, friction: float, facing: np.ndarray | None = None) -> np.ndarray:
    """The four unit edges (F, 4, 3) ``(n ± μ t) / √(1 + μ²)`` of the friction pyramid about each unit normal
    ``n`` (F, 3), slanting along ``face_tangents`` (its first along ``facing``; ``edge_slants``). A pyramid is not
    the cone: its cost per unit of tangential force, and its friction limit, depend on the force's direction
    against its edges. Set by the subject, the same motion recorded in a lab turned any way gives the same forces;
    set by the lab's axes, it did not (walking1 turned 37° about the vertical: 0.2 % BW RMS, its hip moments
    0.025 N·m/kg)."""
    along = np.einsum("ea,fai->fei", edge_slants(friction), face_tangents(normals, facing))
    return normals[:, None] / np.sqrt(1.0 + friction ** 2) + along


def facing_direction(rotations: np.ndarray) -> np.ndarray | None:
    """The way the subject faces (3,), level: the mean direction of the root's axes (``rotations`` (T, 3, 3),
    body to world) seen from above, taken modulo a quarter turn as the pyramids' symmetry is (a walk there and
    back faces one way; upright, the forward and the lateral axes agree; lying, the long axis and the lateral);
    the first frame's where the frames agree on no direction (half the trial turned by 45°, or turning evenly
    all round); none without a pose."""
    level = np.asarray(rotations, dtype=float)[:, :2, :]  # (T, 2, 3): each axis seen from above
    level = level[np.isfinite(level).all(axis=(1, 2))]
    if not len(level):
        return None
    quarters = (np.hypot(level[:, 0], level[:, 1]) * np.exp(4j * np.arctan2(level[:, 1], level[:, 0]))).sum(-1)
    quarter = quarters.mean() if abs(quarters.mean()) >= 0.1 else quarters[0]
    angle = np.angle(quarter) / 4.0
    return np.array([np.cos(angle), np.sin(angle), 0.0])
