"""The tree of rigid clusters: which clusters share a joint, and where the joint is.

Kirk, O'Brien & Forsyth 2005 join clusters by the minimum
spanning tree of their joint-fit costs. So does ``grow_tree`` (Kruskal), the
cost being the RMS residual of the functional joint (``functional_joints``):
SCoRE when both clusters have three markers or more, else a sphere fit in the
frame of the one that has a frame (the other's points move on spheres about
the joint centre). A joint whose centre lies farther than ``REACH`` from
either cluster's markers is implausible and not used. Clusters that stand still in the world
(``still_clusters``: planted feet) fit any joint with each other and share every moving cluster's joint
with the world, so two still clusters are never joined, a joint with a still cluster must lie nearer
its markers than any other still cluster's (a shank joins its own foot), and no joint links two still
clusters by a chain of clusters all lower than ``ROOT_HEIGHT`` of the highest: two planted feet meet at
the pelvis (in a symmetric squat a left shank turns about the right shank, or foot, as well as about its
own thigh). A joint centre is fixed
in both clusters, so it joins both as a virtual point: a cluster of one or two
markers then gets a frame from its markers and its joint centres, and the
clusters still apart are joined, best joint first, with those points (Kirk et
al. fit such clusters without frames; this is ours). The tree is rooted at the
cluster nearest the body's vertical centre line (``central_cluster``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from .functional_joints import Frames, JointFit, cluster_shape, fit_in_parent, rigid_frames, score
from .still_clusters import gap, is_still

#: A joint centre must lie within this distance [m] (median over frames) of a marker of each cluster.
REACH = 0.45
#: Joints fitted up to this RMS residual [m] are taken first, best first (Kruskal).
GOOD_RMS = 0.006
#: The root is a cluster above this fraction of the highest cluster's median height.
ROOT_HEIGHT = 0.4


@dataclass(frozen=True)
class TreeJoint:
    """The joint between ``parent`` and ``child`` (cluster indices). ``fit`` was made in the frame of
    ``frame_of`` (parent or child; SCoRE when both have their own frame); ``world`` ``(T, 3)`` is the
    centre per frame, ``axis`` ``(T, 3)`` the rotation axis in the world; ``spread`` [rad] the RMS angle
    the moving side's markers sweep about the centre (how much the joint moved)."""

    parent: int
    child: int
    frame_of: int
    fit: JointFit
    axis: np.ndarray
    spread: float

    @property
    def world(self) -> np.ndarray:
        return self.fit.world


@dataclass
class ClusterTree:
    """``parent[k]`` of each cluster (-1: the root), the joints by child index, the root."""

    root: int
    parent: list
    joints: dict = field(default_factory=dict)

    def children(self, k: int) -> list:
        return [c for c, p in enumerate(self.parent) if p == k]

    def path_to_root(self, k: int) -> list:
        path = [k]
        while self.parent[path[-1]] >= 0:
            path.append(self.parent[path[-1]])
        return path

    def subtree(self, k: int) -> list:
        out, todo = [], [k]
        while todo:
            node = todo.pop()
            out.append(node)
            todo.extend(self.children(node))
        return out


class _Cluster:
    """A cluster's points: its markers ``(T, K, 3)`` and the joint centres found so far."""

    def __init__(self, points: np.ndarray, still: bool):
        self.markers = points
        self.still = still
        self.extra: list[np.ndarray] = []
        self._frames: Frames | None = None

    @property
    def points(self) -> np.ndarray:
        return np.concatenate([self.markers] + [e[:, None] for e in self.extra], axis=1)

    @property
    def framed(self) -> bool:
        return self.points.shape[1] >= 3

    @property
    def frames(self) -> Frames:
        if self._frames is None:
            pts = self.points
            self._frames = rigid_frames(pts, cluster_shape(pts))
        return self._frames

    def add(self, centre: np.ndarray) -> None:
        self.extra.append(centre)
        self._frames = None


def _near(centre: np.ndarray, markers: np.ndarray) -> bool:
    return bool(gap(markers, centre[:, None])[0] < REACH)


def _spread(frames: Frames, moving: np.ndarray, centre: np.ndarray) -> float:
    """RMS angle [rad] the points ``moving`` (world) sweep in ``frames`` about the local point ``centre``."""
    local = frames.to_local(moving)
    with np.errstate(invalid="ignore"):
        offset = local - np.nanmean(local, axis=0)
        radius = np.linalg.norm(np.nanmean(local, axis=0) - centre, axis=-1)
        angle = np.linalg.norm(offset, axis=-1) / np.maximum(radius, 1e-3)
    return float(np.sqrt(np.nanmean(angle ** 2)))


def _own_still(centre: np.ndarray, still: _Cluster, others: list) -> bool:
    """Whether the joint ``centre`` lies nearer the still cluster ``still`` than every other one (median
    over frames of the distance to the nearest marker)."""
    own = gap(still.markers, centre[:, None])[0]
    return all(own < gap(c.markers, centre[:, None])[0] for c in others if c is not still)


def _fit(a: _Cluster, b: _Cluster, ia: int, ib: int, still: list) -> tuple[float, int, JointFit] | None:
    """Best plausible joint between clusters a and b: (rms, index of the cluster whose frame holds it, fit);
    ``still`` the clusters that stand still."""
    if a.still and b.still:
        return None
    if a.markers.shape[1] >= 3 and b.markers.shape[1] >= 3:
        candidates = [(ia, score(a.frames, b.frames))]
    else:
        candidates = [(owner_index, fit_in_parent(owner.frames, other.points))
                      for owner_index, owner, other in ((ia, a, b), (ib, b, a)) if owner.framed]
    plausible = [(fit.rms, owner, fit) for owner, fit in candidates
                 if fit is not None and _near(fit.world, a.markers) and _near(fit.world, b.markers)
                 and all(_own_still(fit.world, c, still) for c in (a, b) if c.still)]
    return min(plausible, key=lambda c: c[0]) if plausible else None


def central_cluster(markers: np.ndarray, members) -> int:
    """The root: among clusters of three markers or more whose median height is above ``ROOT_HEIGHT`` of
    the highest cluster's, the one nearest (horizontally, median over frames) the centroid of all markers:
    the pelvis or the torso."""
    with warnings.catch_warnings():  # frames in which a cluster is unseen are NaN, and ignored
        warnings.simplefilter("ignore", RuntimeWarning)
        centre = np.nanmean(markers, axis=1)
        heights = [np.nanmedian(markers[:, list(m), 2]) for m in members]
        offsets = [np.nanmedian(np.linalg.norm((np.nanmean(markers[:, list(m)], axis=1) - centre)[:, :2], axis=1))
                   for m in members]
    top = max(heights)
    candidates = [k for k, m in enumerate(members) if len(m) >= 3 and heights[k] > ROOT_HEIGHT * top]
    if not candidates:
        candidates = [k for k, m in enumerate(members) if len(m) >= 3] or [0]
    return min(candidates, key=lambda k: offsets[k])


def grow_tree(markers: np.ndarray, members, root: int, shared=None, still=None) -> ClusterTree:
    """The tree of the clusters (``members``: marker indices per cluster), rooted at ``root``; ``shared`` per
    cluster the markers of other clusters that take part in its frame too (``bridging_markers``); ``still``
    per cluster whether it stands still in the world (``still_clusters.is_still``; computed when None).

    Kruskal's algorithm first, on the joints each cluster's own markers can fit with an RMS residual up to
    ``GOOD_RMS`` (so a cluster waits for its true neighbour rather than taking a poor joint); then the
    remaining components are joined by their best joints, now with the joint centres found as extra points.
    Clusters that no plausible joint reaches stay unattached (parent -2)."""
    shared = shared or [()] * len(members)
    still = [is_still(markers, m) for m in members] if still is None else still
    clusters = [_Cluster(markers[:, list(m) + list(s)], k) for m, s, k in zip(members, shared, still)]
    component = list(range(len(members)))
    edges: dict = {}
    planted = [c for c in clusters if c.still]

    def find(k):
        while component[k] != k:
            component[k] = component[component[k]]
            k = component[k]
        return k

    with np.errstate(invalid="ignore"):
        heights = [np.nanmedian(markers[:, list(m), 2]) for m in members]
    high = [h > ROOT_HEIGHT * max(heights) for h in heights]

    def path(u, v):  # the clusters on the way from u to v along the joints so far
        way, todo = {u: None}, [u]
        while todo:
            node = todo.pop()
            for pair in edges:
                if node in pair and (other := sum(pair) - node) not in way:
                    way[other] = node
                    todo.append(other)
        out = [v]
        while out[-1] != u:
            out.append(way[out[-1]])
        return out

    def links_feet_low(a, b):  # whether joint a-b would link two still clusters by a chain below the pelvis
        feet = [[k for k, c in enumerate(clusters) if c.still and find(k) == find(end)] for end in (a, b)]
        return any(not any(high[k] for k in path(s, a) + path(b, t)) for s in feet[0] for t in feet[1])

    def join(a, b, owner, fit):
        frames = clusters[owner].frames
        moving = clusters[b if owner == a else a]
        edges[(a, b)] = (owner, fit, np.einsum("tij,j->ti", frames.rot, fit.axis),
                         _spread(frames, moving.markers, fit.centre))
        component[find(a)] = find(b)
        clusters[a].add(fit.world)
        clusters[b].add(fit.world)

    candidates = []
    for a in range(len(members)):
        for b in range(a + 1, len(members)):
            found = _fit(clusters[a], clusters[b], a, b, planted)
            if found is not None and found[0] <= GOOD_RMS:
                candidates.append((found[0], a, b, found[1], found[2]))
    for _, a, b, owner, fit in sorted(candidates, key=lambda c: c[0]):
        if find(a) != find(b) and not links_feet_low(a, b):
            join(a, b, owner, fit)
    cache: dict = {}
    while True:
        best = None
        for a in range(len(members)):
            for b in range(a + 1, len(members)):
                if find(a) == find(b) or links_feet_low(a, b):
                    continue
                key = (a, b, len(clusters[a].extra), len(clusters[b].extra))
                if key not in cache:
                    cache[key] = _fit(clusters[a], clusters[b], a, b, planted)
                found = cache[key]
                if found is not None and (best is None or found[0] < best[0]):
                    best = (found[0], a, b, found[1], found[2])
        if best is None:
            break
        join(*best[1:])
    return _rooted(edges, len(members), root)


def _rooted(edges: dict, n: int, root: int) -> ClusterTree:
    """Orient the undirected joints away from ``root``."""
    tree = ClusterTree(root, [-2] * n)
    tree.parent[root] = -1
    todo = [root]
    while todo:
        node = todo.pop()
        for (a, b), (owner, fit, axis, spread) in edges.items():
            if node in (a, b):
                other = b if node == a else a
                if tree.parent[other] == -2:
                    tree.parent[other] = node
                    tree.joints[other] = TreeJoint(node, other, owner, fit, axis, spread)
                    todo.append(other)
    return tree
