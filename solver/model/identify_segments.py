"""Name the rigid clusters: which anatomical segment (``templates.ANATOMY``) each marker rides on.

Input: the markers (Z up), their rigid clusters (``rigid_clusters``) and the
tree of functional joints between clusters (``cluster_tree``). The humanoid
template is recognized by the tree and by geometry, legs first because every
gait, run, jump or squat moves them. Heights are above the lowest marker of
each frame (a foot), so a trial on a box or a jump does not matter.

1. **Feet** are the clusters that touch the floor: their lowest marker is, in
   some frames (``CONTACT_PERCENTILE``), within ``CONTACT`` of the lowest marker
   of the frame (so running feet, in the air half the time, count); the **pelvis** is the cluster where the paths from
   the feet to the root meet (their lowest common ancestor), and its two
   branches towards the feet are the **legs** (clusters on the way that do not
   move relative to the pelvis, pieces of it that soft tissue split, or hold
   the trunk, are skipped). Their joints with the
   cluster above are the hips. A branch of a leg standing wholly above the
   pelvis is re-attached to the pelvis first (``_trunk_off_legs``).
2. **Left and right**: the hip-to-hip line gives the lateral axis, its sign
   the knees: they bend forward of the hip-to-ankle line (else the direction
   of travel). Forward = left × up.
3. **Leg segments**, marker by marker, by height: above the knee (the leg's
   moving joint nearest ``KNEE_HEIGHT`` × hip height) the thigh, below
   ``ANKLE_LEVEL`` × knee height (when on the floor) the foot, the shank between.
4. **Arms** (``arm_segments``): the chains hanging off the trunk on either side.
5. **Trunk**: the remaining markers by height above the mid-hip, in units of
   the shoulder height above it: the pelvis below ``PELVIS_LEVEL``, the head
   above the highest wide gap between markers near the top (``HEAD_GAP``),
   the torso between.
6. **Joint markers** (``joint_markers``) move to the proximal segment, as the
   common marker sets have them; markers seen in too few frames to cluster
   join the segment of their nearest marker.

Each marker's assignment records how it was made (``"motion"``: its cluster's
place in the tree; ``"joint marker"``; ``"geometry"``: heights or proportions
alone); a segment's confidence is the fraction of its markers placed by the
motion (at least 0.5) times the fit quality of its proximal joint
(``exp(-rms / JOINT_RMS)``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .arm_segments import find_arms, segment_arm
from .bridging_markers import apart
from .cluster_tree import ClusterTree
from .identification import MOVED, Identification, NoBody, median_height, tree_joint
from .joint_markers import move_joint_markers
from .rigid_clusters import RigidClusters

#: Feet: clusters whose lowest marker comes within this distance [m] of the frame's lowest marker ...
CONTACT = 0.02
#: ... in this percentile of the frames.
CONTACT_PERCENTILE = 5
#: The pelvis is above this fraction of the highest cluster's median height.
PELVIS_ABOVE = 0.25
#: The knee is expected at this fraction of the hip height (de Leva: (shank + foot height) / leg height).
KNEE_HEIGHT = 0.54
#: Markers below this fraction of the knee height are on the foot.
ANKLE_LEVEL = 0.3
#: A leg marker is on the foot if it is below the ankle level in this percentile of the frames.
FOOT_PERCENTILE = 10
#: Trunk markers below this height (in shoulder heights above the mid-hip) are on the pelvis; the head's
#: are above the highest vertical gap of ``HEAD_GAP`` [m] between trunk markers higher than ``HEAD_LEVEL``.
PELVIS_LEVEL = 0.42
HEAD_LEVEL = 0.8
HEAD_GAP = 0.07
#: The shoulders are about this fraction of the hip height above the mid-hip (when no arm shows them).
SHOULDER_HEIGHT = 0.58
#: Leg length (hip-knee-ankle) over hip height when no knee or ankle was found.
LEG_OVER_HIP = 0.9
#: A marker seen in fewer frames than the clustering needs is placed if seen with a segment in this many.
SPARSE_FRAMES = 5
#: A joint fitted with this RMS residual [m] gives a confidence of 1/e.
JOINT_RMS = 0.01


def _common_ancestor(tree: ClusterTree, nodes: list) -> int:
    paths = [tree.path_to_root(n)[::-1] for n in nodes]
    common = paths[0][0]
    for level in zip(*paths):
        if len(set(level)) > 1:
            break
        common = level[0]
    return common


def identify(markers: np.ndarray, clusters: RigidClusters, tree: ClusterTree) -> Identification:
    """Assign the markers of ``clusters`` to anatomical segments (see the module docstring)."""
    members = clusters.members
    with np.errstate(invalid="ignore"):
        floor = np.nanmin(markers[..., 2], axis=1)  # per frame: the lowest marker, a foot
    lifted = markers.copy()
    lifted[..., 2] -= floor[:, None]
    attached = [k for k, p in enumerate(tree.parent) if p != -2]
    heights = {k: median_height(lifted, members[k]) for k in attached}
    top = max(heights.values())
    with np.errstate(invalid="ignore"):
        lowest = {k: np.nanpercentile(np.nanmin(lifted[:, list(members[k]), 2], axis=1), CONTACT_PERCENTILE)
                  for k in attached}
    ground = [k for k in attached if lowest[k] < CONTACT]
    if not ground:
        raise NoBody("no cluster touches the floor (no feet)")
    pelvis = _common_ancestor(tree, ground)
    _trunk_off_legs(tree, pelvis, ground, heights)
    legs = _legs(tree, pelvis, ground, heights, clusters)
    if len(legs) < 2 or heights[pelvis] < PELVIS_ABOVE * top:
        raise NoBody("the feet do not hang from one pelvis by two legs")
    ident = Identification(threshold=clusters.threshold)
    hips = [tree.joints[c].world for c in legs]
    mid_hip = 0.5 * (hips[0] + hips[1])
    hip_height = float(np.nanmedian(mid_hip[:, 2] - floor))
    knees = [_knee(tree, leg, floor, hip_height) for leg in legs]
    left = _left_leg(markers, members, tree, legs, knees, ground)
    lateral = hips[left] - hips[1 - left]
    lateral[:, 2] = 0.0
    with np.errstate(invalid="ignore"):
        ident.left = lateral / np.linalg.norm(lateral, axis=1, keepdims=True)
    ident.forward = np.cross(ident.left, [0.0, 0.0, 1.0])
    lengths = []
    for k, leg in enumerate(legs):
        side = "l" if k == left else "r"
        ident.joints[f"hip_{side}"] = tree_joint(tree, leg)
        length = _segment_leg(lifted, members, tree, leg, knees[k], side, floor, ident)
        lengths += [length] if length else []
    leg_length = float(np.mean(lengths)) if lengths else LEG_OVER_HIP * hip_height
    trunk = [k for k in attached if not any(k in tree.subtree(leg) for leg in legs)]
    arms = find_arms(markers, members, tree, trunk, mid_hip, ident, leg_length)
    for side, chain in arms.items():
        segment_arm(markers, members, tree, chain, side, leg_length, ident)
    in_arms = {c for chain in arms.values() for c in chain}
    _split_trunk(markers, [i for k in trunk if k not in in_arms for i in members[k]], mid_hip, hip_height, ident)
    for s in "lr":
        for proximal, distal, origin, joint in (("thigh", "shank", "hip", "knee"), ("shank", "foot", "knee", "ankle"),
                                                ("forearm", "hand", "elbow", "wrist")):
            move_joint_markers(markers, ident, f"{proximal}_{s}", f"{distal}_{s}", f"{origin}_{s}", f"{joint}_{s}")
    _sparse_markers(markers, clusters.unused, ident)
    _confidence(ident)
    return ident


def _sparse_markers(markers, unused, ident) -> None:
    """Markers seen too rarely to be clustered join the segment of their nearest placed marker (median
    distance over at least ``SPARSE_FRAMES`` shared frames): too few frames to judge rigidity."""
    placed = np.array(sorted(ident.segment))
    for m in unused:
        with np.errstate(invalid="ignore"):
            d = np.linalg.norm(markers[:, placed] - markers[:, [m]], axis=-1)
        shared = np.sum(~np.isnan(d), axis=0) >= SPARSE_FRAMES
        if shared.any():
            nearest = placed[shared][int(np.argmin(np.nanmedian(d[:, shared], axis=0)))]
            ident.segment[m] = ident.segment[nearest]
            ident.method[m] = "nearest marker (seen in few frames)"


def _trunk_off_legs(tree, pelvis, ground, heights) -> None:
    """Re-attach to the pelvis every branch hanging from a leg whose clusters all stand higher than the
    pelvis: nothing above the pelvis hangs from a leg. (A trunk piece moves with the pelvis, so it fits a
    joint through the hip in the thigh's frame as well as the pelvis does; in a squat, whose trunk flexion
    splits the trunk into pieces, that joint can come first.) The branch keeps its fitted joint."""
    for child in tree.children(pelvis):
        if not set(tree.subtree(child)) & set(ground):
            continue
        todo = list(tree.children(child))
        while todo:
            node = todo.pop()
            if all(heights[c] > heights[pelvis] for c in tree.subtree(node)):
                tree.parent[node] = pelvis
                tree.joints[node] = replace(tree.joints[node], parent=pelvis)
            else:
                todo.extend(tree.children(node))


def _legs(tree, pelvis, ground, heights, clusters) -> list:
    """The two leg roots below the pelvis: for each child of the pelvis leading to feet, the first cluster
    on the way down that moves relative to the pelvis (``bridging_markers.apart``: a pelvis that soft tissue
    split into pieces, a sitting subject's skin over the seat, stays one segment) and whose subtree holds
    nothing higher than the pelvis (the trunk may hang between). Most feet markers first."""
    members = clusters.members
    roots = []
    for child in tree.children(pelvis):
        if not set(tree.subtree(child)) & set(ground):
            continue
        pelvis_markers = list(members[pelvis])
        while (any(heights[c] > heights[pelvis] for c in tree.subtree(child))
               or not apart(clusters.spread, list(members[child]), pelvis_markers, clusters.threshold)):
            pelvis_markers += members[child]
            below = [c for c in tree.children(child) if set(tree.subtree(c)) & set(ground)]
            if len(below) != 1:
                break
            child = below[0]
        roots.append(child)
    return sorted(roots, key=lambda c: -sum(len(members[g]) for g in set(tree.subtree(c)) & set(ground)))[:2]


def _knee(tree, leg, floor, hip_height) -> int | None:
    """The cluster below the knee: of the leg's moving joints above the ankle level, the one nearest
    ``KNEE_HEIGHT`` × hip height (joint centre heights above the per-frame ``floor``; a shank cluster's
    markers may all sit low, a malleolus and a marker on the lower shin)."""
    target = KNEE_HEIGHT * hip_height
    height = {c: np.nanmedian(tree.joints[c].world[:, 2] - floor) for c in tree.subtree(leg) if c != leg}
    moved = [c for c in height if tree.joints[c].spread > MOVED and height[c] > ANKLE_LEVEL * target]
    return min(moved, key=lambda c: abs(height[c] - target), default=None)


def _left_leg(markers, members, tree, legs, knees, ground) -> int:
    """Which of the two legs is the left one. Knees bend forward of the hip-to-ankle line (the joint into
    the foot; a straight leg's knee lies behind the line to the mid-foot, as in a squat's standing frames),
    else of the hip-to-foot line; without knees,
    the direction of travel, else the feet pointing ahead of the lower shanks."""
    hips = [tree.joints[leg].world for leg in legs]
    forward = np.cross(hips[1] - hips[0], [0.0, 0.0, 1.0])  # forward if legs[1] is the left leg
    forward[:, 2] = 0.0
    votes = []
    for leg, knee in zip(legs, knees):
        if knee is None:
            continue
        feet = [g for g in tree.subtree(leg) if g in ground]
        ankles = [tree.joints[g].world for g in feet if g != leg and tree.parent[g] not in ground]
        with np.errstate(invalid="ignore"):
            foot = (np.nanmean(ankles, axis=0) if ankles
                    else np.nanmean(markers[:, [i for g in feet for i in members[g]]], axis=1))
            hip, centre = tree.joints[leg].world, tree.joints[knee].world
            u = (foot - hip) / np.linalg.norm(foot - hip, axis=1, keepdims=True)
            bend = centre - hip - np.sum((centre - hip) * u, axis=1, keepdims=True) * u
            votes.append(np.nanmean(np.sum(bend * forward, axis=1)))
    if votes:
        return 1 if np.sum(votes) > 0 else 0
    with np.errstate(invalid="ignore"):
        mid = 0.5 * (hips[0] + hips[1])
        seen = np.flatnonzero(~np.isnan(mid).any(axis=1))
        travel = mid[seen[-1]] - mid[seen[0]]
    return 1 if travel @ np.nanmedian(forward, axis=0) > 0 else 0


def _segment_leg(lifted, members, tree, leg, knee, side, floor, ident) -> float | None:
    """Thigh, shank and foot of one leg, marker by marker, by height above the per-frame ``floor``: the thigh
    above the knee (median height), the foot below the ankle level when on the floor (``FOOT_PERCENTILE``
    of its heights: a runner's foot is in the air half the time), the shank between. Returns the leg length
    (hip-knee-ankle) [m] if both joints were found."""
    subtree = tree.subtree(leg)
    hip = ident.joints[f"hip_{side}"].centre
    knee_height = KNEE_HEIGHT * float(np.nanmedian(hip[:, 2] - floor))
    if knee is not None:
        knee_height = float(np.nanmedian(tree.joints[knee].world[:, 2] - floor))
        ident.joints[f"knee_{side}"] = tree_joint(tree, knee)
    ankle_height = ANKLE_LEVEL * knee_height
    for i in (i for c in subtree for i in members[c]):
        with np.errstate(invalid="ignore"):
            low = float(np.nanpercentile(lifted[:, i, 2], FOOT_PERCENTILE))
        segment = ("thigh" if median_height(lifted, [i]) > knee_height else "foot" if low < ankle_height
                   else "shank")
        ident.segment[i] = f"{segment}_{side}"
        ident.method[i] = "motion"
    foot = f"foot_{side}"
    ankles = [c for c in subtree if c not in (leg, knee) and tree.joints[c].spread > MOVED
              and ident.segment[members[c][0]] == foot and ident.segment[members[tree.parent[c]][0]] != foot
              and np.nanmedian(tree.joints[c].world[:, 2] - floor) < ANKLE_LEVEL * knee_height]
    if ankles:
        ident.joints[f"ankle_{side}"] = tree_joint(tree, min(ankles, key=lambda c: tree.joints[c].fit.rms))
    if knee is None or not ankles:
        return None
    knee_c, ankle_c = ident.joints[f"knee_{side}"].centre, ident.joints[f"ankle_{side}"].centre
    return float(np.nanmedian(np.linalg.norm(hip - knee_c, axis=1))
                 + np.nanmedian(np.linalg.norm(knee_c - ankle_c, axis=1)))


def _split_trunk(markers, trunk_markers, mid_hip, hip_height, ident) -> None:
    """Pelvis, torso and head by height above the mid-hip: below ``PELVIS_LEVEL`` shoulder heights the
    pelvis; the markers (two or more) above the highest vertical gap wider than ``HEAD_GAP`` above
    ``HEAD_LEVEL`` shoulder heights the head; the torso between."""
    shoulders = [ident.joints[f"shoulder_{s}"].centre for s in "lr" if f"shoulder_{s}" in ident.joints]
    span = SHOULDER_HEIGHT * hip_height
    if shoulders:
        measured = float(np.nanmedian(np.mean([s[:, 2] for s in shoulders], axis=0) - mid_hip[:, 2]))
        if 0.7 * span < measured < 1.4 * span:
            span = measured
    with np.errstate(invalid="ignore"):
        height = {i: float(np.nanmedian(markers[:, i, 2] - mid_hip[:, 2])) for i in trunk_markers}
    order = sorted(trunk_markers, key=height.get)
    head_from = next((k + 1 for k in range(len(order) - 3, -1, -1) if height[order[k]] > HEAD_LEVEL * span
                      and height[order[k + 1]] - height[order[k]] > HEAD_GAP), len(order))
    for k, i in enumerate(order):
        ident.segment[i] = "head" if k >= head_from else "pelvis" if height[i] < PELVIS_LEVEL * span else "torso"
        ident.method[i] = "geometry"


def _confidence(ident) -> None:
    for segment in sorted(set(ident.segment.values())):
        markers = ident.markers_of(segment)
        by_motion = np.mean([ident.method[m] != "geometry" for m in markers])
        side = segment[-1] if segment[-2:] in ("_l", "_r") else ""
        proximal = {"thigh": "hip", "shank": "knee", "foot": "ankle", "upper_arm": "shoulder", "forearm": "elbow",
                    "hand": "wrist"}.get(segment[:-2] if side else segment)
        joint = ident.joints.get(f"{proximal}_{side}") if proximal else None
        quality = np.exp(-joint.rms / JOINT_RMS) if joint is not None else 1.0
        ident.confidence[segment] = float(max(by_motion, 0.5) * quality)
