"""Rigid marker clusters: markers whose mutual distances stay constant move as one body.

Kirk, O'Brien & Forsyth 2005 (CVPR, "Skeletal parameter estimation from
optical motion capture data"): markers on one rigid segment keep their
distances, so the standard deviation over frames of the distance between two
markers, ``σᵢⱼ = std_t |xᵢ(t) - xⱼ(t)|``, is small for markers on one segment
and large across a moving joint. Computed over the frames where both markers
are seen, so gaps (NaN) only shorten the sample; a pair seen together in fewer
than ``min_frames`` frames has no ``σ`` (treated as non-rigid).

Two groupings of ``σ``:

- ``"linkage"`` (default): average-linkage agglomeration (UPGMA, scipy), cut
  where the mean ``σ`` between two groups exceeds ``threshold``. It needs no
  number of clusters and is deterministic. ``threshold`` defaults to
  ``max(MIN_THRESHOLD, NOISE_FACTOR × the median over markers of the σ to their
  most rigid partner)``: soft tissue and noise set the scale, so noisy or
  fast trials get a wider tolerance. (Ours, not the paper's.)
- ``"spectral"``: the paper's way, an affinity that falls with ``σ`` (here
  ``Aᵢⱼ = exp(-σᵢⱼ² / 2τ²)``, ``τ`` the threshold) and spectral clustering into
  ``n_clusters`` groups (Ng, Jordan & Weiss 2001: the leading eigenvectors of
  ``D^-½ A D^-½``, rows normalized, k-means). On the real trials of
  ``../shared/data`` it splits low-motion segments less cleanly than the
  linkage (and needs the number of clusters), hence not the default.

Either way, a cluster that stands still in the world (two planted feet) is
then split by the moving clusters near it (``still_clusters``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.cluster.vq import kmeans2
from scipy.spatial.distance import squareform

from ..errors import ModelError
from .still_clusters import split_still

#: Lowest distance-spread threshold [m] between one cluster and the next. The noise sets the threshold above it:
#: a 3 mm floor merged a slowly swinging upper arm (1.5-3 mm spread to the torso in subject4_walking4 and
#: opencap_video_walking3, whose markers are within 1 mm of rigid) with the torso.
MIN_THRESHOLD = 0.001
#: The threshold is at least this many times the typical spread of a marker to its most rigid partner.
NOISE_FACTOR = 3.0
#: A pair of markers needs this many frames seen together for its spread to count.
MIN_FRAMES = 20
#: Stand-in spread [m] for pairs never seen together (no evidence of rigidity).
UNKNOWN_SPREAD = 1.0


@dataclass(frozen=True)
class RigidClusters:
    """Groups of marker indices (into the trial's markers), largest first; ``spread`` ``(M, M)`` the
    distance standard deviations [m] (NaN: seen together in too few frames); ``unused`` markers seen in
    too few frames to take part; ``threshold`` [m] the cut."""

    members: tuple[tuple[int, ...], ...]
    spread: np.ndarray
    threshold: float
    unused: tuple[int, ...] = ()


def distance_spread(markers: np.ndarray, min_frames: int = MIN_FRAMES) -> np.ndarray:
    """``σᵢⱼ`` ``(M, M)`` [m] over the frames where both markers are seen; NaN below ``min_frames``."""
    x = np.asarray(markers, float)
    square = np.einsum("tmi,tmi->tm", x, x)
    gram = np.einsum("tmi,tni->tmn", x, x)
    with np.errstate(invalid="ignore"):
        dist = np.sqrt(np.maximum(square[:, :, None] + square[:, None, :] - 2 * gram, 0.0))
    seen = ~np.isnan(dist)
    counts = seen.sum(axis=0)
    d = np.where(seen, dist, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = d.sum(axis=0) / counts
        var = np.einsum("tmn,tmn->mn", d, d) / counts - mean ** 2
    spread = np.sqrt(np.maximum(var, 0.0))
    spread[counts < min_frames] = np.nan
    np.fill_diagonal(spread, 0.0)
    return spread


def noise_threshold(spread: np.ndarray) -> float:
    """The default cut: ``max(MIN_THRESHOLD, NOISE_FACTOR × median nearest-partner spread)``."""
    off = spread + np.diag(np.full(len(spread), np.inf))
    nearest = np.nanmin(np.where(np.isnan(off), np.inf, off), axis=1)
    nearest = nearest[np.isfinite(nearest)]
    return max(MIN_THRESHOLD, NOISE_FACTOR * float(np.median(nearest))) if nearest.size else MIN_THRESHOLD


def rigid_clusters(markers: np.ndarray, threshold: float | None = None, method: str = "linkage",
                   n_clusters: int | None = None, min_frames: int = MIN_FRAMES) -> RigidClusters:
    """Group the markers ``(T, M, 3)`` into rigid clusters (see the module docstring)."""
    if method not in ("linkage", "spectral"):
        raise ModelError(f"Unknown clustering method {method!r}", "use 'linkage' or 'spectral'")
    if method == "spectral" and not n_clusters:
        raise ModelError("Spectral clustering needs the number of clusters", "pass n_clusters=<k>")
    spread = distance_spread(markers, min_frames)
    seen = np.isfinite(spread).sum(axis=1) > 1
    used = np.flatnonzero(seen)
    unused = tuple(int(i) for i in np.flatnonzero(~seen))
    threshold = noise_threshold(spread[np.ix_(used, used)]) if threshold is None else float(threshold)
    sub = np.nan_to_num(spread[np.ix_(used, used)], nan=UNKNOWN_SPREAD)
    if len(used) < 2:
        groups = np.zeros(len(used), int)
    elif method == "linkage":
        tree = linkage(squareform(sub, checks=False), method="average")
        groups = fcluster(tree, threshold, criterion="distance")
    else:
        groups = _spectral(sub, threshold, min(n_clusters, len(used)))
    members = [tuple(int(used[i]) for i in np.flatnonzero(groups == g)) for g in np.unique(groups)]
    members = split_still(markers, members)
    members.sort(key=lambda m: (-len(m), m))
    return RigidClusters(tuple(members), spread, threshold, unused)


def _spectral(spread: np.ndarray, tau: float, k: int, restarts: int = 10) -> np.ndarray:
    """Ng-Jordan-Weiss spectral clustering of the affinity ``exp(-σ² / 2τ²)`` into ``k`` groups."""
    affinity = np.exp(-0.5 * (spread / tau) ** 2)
    np.fill_diagonal(affinity, 0.0)
    degree = np.maximum(affinity.sum(axis=1), 1e-12)
    _, vectors = np.linalg.eigh(affinity / np.sqrt(np.outer(degree, degree)))
    y = vectors[:, ::-1][:, :k]
    y = y / np.maximum(np.linalg.norm(y, axis=1, keepdims=True), 1e-12)
    best, best_inertia = None, np.inf
    for seed in range(restarts):
        with warnings.catch_warnings():  # a restart that empties a cluster just scores worse
            warnings.simplefilter("ignore", UserWarning)
            centres, groups = kmeans2(y, k, minit="++", seed=seed)
        inertia = float(np.sum((y - centres[groups]) ** 2))
        if inertia < best_inertia:
            best, best_inertia = groups, inertia
    return best
