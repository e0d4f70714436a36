"""Bridging markers: a marker on a joint's axis is rigid with both segments the joint links.

A point on a hinge axis keeps its distance to every point of both segments
(an epicondyle to the humerus and to the forearm; the acromion, near the
shoulder centre, to the trunk and to an upper arm that swings little), so the
distance spread of ``rigid_clusters`` joins it to either side, whichever is
more rigid in that trial, and the other side is left short of markers (a
humerus marker alone, its epicondyles on the forearm). Such a marker is
*shared*: it takes part in both clusters' frames while the tree of joints is
grown (``cluster_tree.grow_tree``; a point fixed in both frames pins the
joint centre, as SCoRE's own centre is), and is then given to the proximal
one of the two (``to_proximal``), as the common marker sets place joint
markers (epicondyles on the upper arm or thigh, malleoli on the shank, the
acromion on the trunk). (Ours; Kirk et al. 2005 give each marker one cluster.)

A marker of one cluster is shared with another cluster when its distance
spread to *every* marker of it, and to every marker shared with it before
(best first), is within the clustering threshold (rigid with all of them,
not merely on average), and, when that cluster stands still in the world, it
is the still cluster nearest the marker (``still_clusters.nearest_still``: a
malleolus over a planted foot is as rigid with the other planted foot), while
the rest of its own cluster moves relative to the other cluster (mean spread
above ``CONTRAST`` × the threshold): a marker rigid with two pieces of one
segment that soft tissue split bridges no joint.
"""

from __future__ import annotations

import numpy as np

#: The two clusters a marker bridges move relative to each other: their mean distance spread is above this
#: many times the clustering threshold (else they are one segment split by soft tissue or noise).
CONTRAST = 2.0


def shared_markers(spread: np.ndarray, members, threshold: float, still, nearest=None) -> tuple:
    """Per cluster of ``members`` (marker indices), the markers of other clusters rigid with all of its
    markers (``spread`` ``(M, M)`` [m], NaN: unknown, not rigid), best (lowest mean spread) first. Two
    clusters that both stand still in the world (``still[k]``: planted feet) share nothing: their
    rigidity proves nothing (``still_clusters``); a still cluster shares only the markers it is the
    nearest still cluster of (``nearest[i]``, default: every marker's)."""
    rigid = np.nan_to_num(spread, nan=np.inf) <= threshold
    out = []
    for k, own in enumerate(members):
        own = list(own)
        others = [i for j, m in enumerate(members) if j != k and not (still[j] and still[k])
                  for i in m if (nearest is None or not still[k] or nearest[i] == k)
                  and rigid[i, own].all() and apart(spread, [o for o in m if o != i], own, threshold)]
        others.sort(key=lambda i: float(np.mean(spread[i, own])))
        taken: list = []
        for i in others:
            if rigid[i, taken].all():
                taken.append(i)
        out.append(tuple(taken))
    return tuple(out)


def apart(spread: np.ndarray, a: list, b: list, threshold: float) -> bool:
    """Whether the marker groups ``a`` and ``b`` move relative to each other: mean distance spread between
    them above ``CONTRAST`` × ``threshold`` (unknown spreads count as apart)."""
    if not a:
        return True
    block = np.nan_to_num(spread[np.ix_(a, b)], nan=np.inf)
    return bool(np.mean(block) > CONTRAST * threshold)


def to_proximal(members, shared, parent) -> tuple:
    """``members`` with each marker shared with its own cluster's parent cluster (``parent[k]``, the tree's)
    moved to that parent, unless its own cluster would be left empty."""
    out = [list(m) for m in members]
    for k, extra in enumerate(shared):
        for i in extra:
            own = next(j for j, m in enumerate(out) if i in m)
            if parent[own] == k and len(out[own]) > 1:
                out[own].remove(i)
                out[k].append(i)
    return tuple(tuple(sorted(m)) for m in out)
