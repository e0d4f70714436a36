"""Clusters that stand still in the world: their rigidity proves nothing, so they are split by geometry.

Two markers keep their distance because they ride on one bone, or because both
stand still: two feet planted through a whole squat (or standing trial) are as
rigid together as the markers of one foot, and the distance spread of
``rigid_clusters`` cannot tell them apart. A cluster all of whose markers stay
within ``STILL`` of their median position in ``STILL_PERCENTILE`` of the frames
is split by what moves near it: each of its markers joins the group of the
nearest moving cluster (the median over frames of the distance to that
cluster's nearest marker). A planted foot's markers are nearer its own shank
than the other foot's shank (the feet are farther apart than a foot is wide),
so each foot becomes its own cluster. (Ours; Kirk et al. 2005 assume every
segment moves.) For the same reason a marker that hardly moves in the world
(a malleolus over a planted foot) is rigid with every still cluster, so only
the nearest still cluster counts for it (``nearest_still``).
"""

from __future__ import annotations

import warnings

import numpy as np

#: A marker within this distance [m] of its median position ...
STILL = 0.02
#: ... in this percentile of its frames stands still.
STILL_PERCENTILE = 95


def is_still(markers: np.ndarray, idx) -> bool:
    """Whether the markers ``idx`` of ``markers`` ``(T, M, 3)`` all stand still in the world."""
    with np.errstate(invalid="ignore"):
        x = markers[:, list(idx)]
        offset = np.linalg.norm(x - np.nanmedian(x, axis=0), axis=-1)
        return bool(np.all(np.nanpercentile(offset, STILL_PERCENTILE, axis=0) < STILL))


def gap(points: np.ndarray, tracks: np.ndarray) -> np.ndarray:
    """Per track of ``tracks`` ``(T, N, 3)``: the median over frames of its distance to the nearest of
    ``points`` ``(T, K, 3)`` (frames where neither is seen left out; NaN if there are none)."""
    nearest = np.fmin.reduce(np.linalg.norm(tracks[:, :, None] - points[:, None], axis=-1), axis=2)  # NaN quietly
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a track never seen with the points: NaN
        return np.nanmedian(nearest, axis=0)


def split_still(markers: np.ndarray, members: list) -> list:
    """``members`` (tuples of marker indices) with every still cluster split by its nearest moving clusters
    (see the module docstring); a still cluster whose markers all lie nearest one moving cluster stays."""
    still = [k for k, m in enumerate(members) if len(m) > 1 and is_still(markers, m)]
    moving = [k for k in range(len(members)) if k not in still]
    if not still or not moving:
        return members
    out = [m for k, m in enumerate(members) if k not in still]
    for k in still:
        groups: dict = {}
        gaps = np.stack([gap(markers[:, list(members[c])], markers[:, list(members[k])]) for c in moving])
        for i, nearest in zip(members[k], np.nanargmin(gaps, axis=0)):
            groups.setdefault(moving[int(nearest)], []).append(i)
        out += [tuple(g) for g in groups.values()]
    return out


def nearest_still(markers: np.ndarray, members, still) -> np.ndarray:
    """Per marker of ``markers`` ``(T, M, 3)``, the index into ``members`` of the still cluster (``still[k]``)
    nearest it (median over frames of the distance to that cluster's nearest marker); -1 without one."""
    out = np.full(markers.shape[1], -1)
    ks = [k for k, s in enumerate(still) if s]
    if not ks:
        return out
    gaps = np.stack([gap(markers[:, list(members[k])], markers) for k in ks])
    seen = ~np.isnan(gaps).all(axis=0)
    out[seen] = np.asarray(ks)[np.nanargmin(gaps[:, seen], axis=0)]
    return out
