"""Which contact points a surface makes active: eq. 4's distance sigmoid of Brubaker, Sigal & Fleet (2009),

    h(-G_d d),   h(x) = (1 + tanh x) / 2,

with ``d`` a point's signed distance from the surface nearest it (a convex solid's: the largest of its faces'
planes), beyond the paper less the point's soft-tissue padding, and the points that may come within reach at
all (so that the rest need not be measured). The per-frame contact forces load a point in proportion to its
activation (``per_frame``); the estimate also finds by it the frames near a raised surface (``estimate``), and the
flight check the frames with no point in reach (``result.Contact.flight``).
"""

from __future__ import annotations

import numpy as np

from .model import ContactConstants, SurfaceArrays

#: A face whose normal's vertical component is below this is an underside (of a box, a seat) and pushes no point:
#: a point sunk into a slab nearer its underside than its top (a heel 3 cm into a 5 cm box top as it rolls off
#: the edge) is pushed out through the top or a side, not pulled down through the slab.
UNDERSIDE = -0.5


def activations(points: np.ndarray, arrays: SurfaceArrays, constants: ContactConstants,
                padding: np.ndarray | None = None, floor_only: np.ndarray | None = None, least: float = 0.0):
    """Each point's activation ``h(-G_d (d_S - a))`` (T, K) on the surface that makes it most active (eq. 4's
    distance sigmoid; beyond the paper, ``a`` the point's ``padding`` (K,) [m]: soft tissue that touches that
    far out, ``ContactPoints.padding``; the points ``floor_only`` (K,) touch only the first surface, the
    floor), that surface (T, K) and the face of it the point is nearest (T, K) among those that push (not an
    underside, ``UNDERSIDE``). With ``least`` > 0 only the points that ``might_reach`` an activation above it in
    some frame are measured; the others get 0 on the first face."""
    n_points = points.shape[1]
    padding = np.zeros(n_points) if padding is None else np.asarray(padding, dtype=float)
    floor_only = np.zeros(n_points, bool) if floor_only is None else np.asarray(floor_only, dtype=bool)
    if least > 0:
        measured = np.flatnonzero(might_reach(points, arrays, padding, floor_only, reach_distance(least, constants)))
        found = activations(points[:, measured], arrays, constants, padding[measured], floor_only[measured])
        out = (np.zeros(points.shape[:2]), np.zeros(points.shape[:2], np.int64), np.zeros(points.shape[:2], np.int64))
        for whole, part in zip(out, found):
            whole[:, measured] = part
        return out
    distance = points @ arrays.normals.T - arrays.offsets  # (T, K, F)
    by_surface = [distance[..., a:b] for a, b in zip(arrays.first_face[:-1], arrays.first_face[1:])]
    surface_distance = np.stack([d.max(-1) for d in by_surface], axis=-1)  # (T, K, S)
    surface_distance[:, floor_only, 1:] = np.inf
    surface = np.argmin(np.nan_to_num(surface_distance, nan=np.inf), axis=-1)
    distance[..., arrays.normals[:, 2] <= UNDERSIDE] = -np.inf  # the solids are measured: now the faces that push
    face = np.stack([a + d.argmax(-1) for a, d in zip(arrays.first_face[:-1], by_surface)], axis=-1)
    face = np.take_along_axis(face, surface[..., None], -1)[..., 0]
    nearest = np.take_along_axis(surface_distance, surface[..., None], -1)[..., 0] - padding
    return 0.5 * (1.0 + np.tanh(-constants.distance_gain * nearest)), surface, face


def reach_distance(least: float, constants: ContactConstants) -> float:
    """How far [m] outside a surface (padding included) a point is still more active than ``least``: eq. 4's
    distance sigmoid inverted, ``h(-G_d d) = least``."""
    return float(np.arctanh(1.0 - 2.0 * least) / constants.distance_gain)


def might_reach(points: np.ndarray, arrays: SurfaceArrays, padding: np.ndarray, floor_only: np.ndarray,
                distance: float) -> np.ndarray:
    """(K,) the points that come within ``distance`` [m] (plus ``padding`` (K,), and a millimetre for rounding) of
    some surface in some frame, or might: a point's distance from a convex solid, its largest signed distance
    from the faces' planes, is at least that from the top face's plane, so a point farther than ``distance`` above
    every top in every frame is never in reach. Only top planes are measured: (T, K, S) instead of (T, K, F)."""
    tops = [a + int(np.argmax(arrays.normals[a:b, 2])) for a, b in zip(arrays.first_face[:-1], arrays.first_face[1:])]
    above = points @ arrays.normals[tops].T - arrays.offsets[tops]  # (T, K, S)
    above[:, floor_only, 1:] = np.inf
    with np.errstate(invalid="ignore"):
        return (above.min(-1) - padding < distance + 1e-3).any(0)
