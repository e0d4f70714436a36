"""Name the rigid clusters: which anatomical segment (``templates.ANATOMY``) each marker rides on.

Input: the markers (Z up), their rigid clusters (``rigid_clusters``) and the
tree of functional joints between clusters (``cluster_tree``). The humanoid
template is recognized by the tree and by geometry, legs first because every
gait, run, jump or squat moves them:

1. **Feet** are the clusters near the floor (median height below ``GROUND`` of
   the highest cluster's); the **pelvis** is the cluster where the paths from
   the feet to the root meet (their lowest common ancestor), and its two
   children towards the feet are the **legs**. Their joints with the pelvis are
   the hips.
2. **Left and right**: the hip-to-hip line gives the lateral axis; its sign is
   the one that makes the feet point forward (feet markers ahead of the lower
   shank markers). Forward = left × up.
3. **Leg segments** by height, per cluster: above the knee (the leg's
   functional joint that moved nearest ``KNEE_HEIGHT`` × hip height) the thigh;
   below ``ANKLE_LEVEL`` × knee height the foot; the shank between.
4. **Arms**: the other clusters that lie off the body's midline form chains
   hanging from the trunk; a chain reaching farther than ``ARM_REACH`` × leg
   length from its joint with the trunk (the shoulder) is an arm, on the side
   of its centroid. Along the arm, the chain's joints that moved are the elbow
   and wrist (the one nearest de Leva's upper-arm length from the shoulder is
   the elbow); where the motion found no elbow or wrist (a whole arm moving as
   one cluster), markers are split by their distance from the shoulder at de
   Leva's (1996) proportions scaled by the subject's leg length.
5. **Trunk**: the remaining markers by height above the mid-hip, in units of
   the shoulder height above it: below ``PELVIS_LEVEL`` the pelvis, above
   ``HEAD_LEVEL`` the head, the torso between.
6. **Joint markers**: a marker on a joint's axis (epicondyles, malleoli) is
   rigid with both segments; by the convention of the common marker sets it
   belongs to the proximal one. A marker of a distal segment that is nearly as
   rigid with the proximal segment (``AXIS_RATIO``) and near the joint axis
   (``AXIS_DISTANCE``) moves there.

Each marker's assignment records how it was made (``"motion"``, ``"joint
marker"``, ``"geometry"``); a segment's confidence is the fraction of its
markers placed by motion or as joint markers, times the fit quality of its
proximal joint (``exp(-rms / JOINT_RMS)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .cluster_tree import ClusterTree
from .functional_joints import rigid_frames, score
from .inertia import DE_LEVA
from .rigid_clusters import RigidClusters

#: Feet: clusters whose median height is below this fraction of the highest cluster's.
GROUND = 0.12
#: The knee is expected at this fraction of the hip height (de Leva: (shank + foot height) / leg height).
KNEE_HEIGHT = 0.54
#: Markers below this fraction of the knee height are on the foot.
ANKLE_LEVEL = 0.3
#: A joint moved when the markers beyond it swept more than this RMS angle [rad].
MOVED = np.radians(6.0)
#: Clusters whose centroid is farther than this [m] from the body's vertical midline are limbs.
MIDLINE = 0.1
#: A chain off the trunk reaching farther than this fraction of the leg length is an arm.
ARM_REACH = 0.45
#: Trunk markers below / above these heights (in shoulder heights above the mid-hip) are pelvis / head.
PELVIS_LEVEL = 0.42
HEAD_LEVEL = 1.35
#: The shoulders are about this fraction of the hip height above the mid-hip (when no arm shows them).
SHOULDER_HEIGHT = 0.58
#: Joint markers keep their distance to the proximal segment's proximal joint this many times steadier ...
AXIS_RATIO = 2.0
#: ... and lie this far [m] nearer that joint, along the limb, than the segment's other markers.
JOINT_GAP = 0.025
#: ... and lie at most this far [m] beyond the joint centre along the limb (when the joint was found).
JOINT_DEPTH = 0.06
#: Upper-arm markers less than this [m] down the arm from the shoulder centre are on the acromion (torso).
ACROMION_DEPTH = 0.04
#: Markers within this distance [m] beyond a joint placed by proportions still count as the proximal segment's
#: (the proportions are good to a few centimetres; a hand marker close to the wrist stays on the forearm).
JOINT_ZONE = 0.05
#: A split of one cluster at a joint needs the distal part to sweep more than this RMS angle [rad].
MIN_SPLIT_SPREAD = np.radians(3.0)
#: Leg length (hip-knee-ankle) over hip height when no knee or ankle was found.
LEG_OVER_HIP = 0.9
#: A marker seen in fewer frames than the clustering needs is placed if seen with a segment in this many.
SPARSE_FRAMES = 5
#: A joint fitted with this RMS residual [m] gives a confidence of 1/e.
JOINT_RMS = 0.01
_LIMB = {"upper_arm": ("forearm", "hand"), "thigh": ("shank", "foot")}
_ROWS = DE_LEVA["male"]
#: de Leva's upper arm and forearm lengths over thigh + shank.
UPPER_ARM = _ROWS["upper_arm"].length / (_ROWS["thigh"].length + _ROWS["shank"].length)
FOREARM = _ROWS["forearm"].length / (_ROWS["thigh"].length + _ROWS["shank"].length)


class NoBody(Exception):
    """The clusters do not form a humanoid body; ``found`` says what was recognized."""

    def __init__(self, reason: str, found: dict):
        super().__init__(reason)
        self.reason, self.found = reason, found


@dataclass(frozen=True)
class Joint:
    """A joint between two identified segments: centre ``(T, 3)`` and rotation axis ``(T, 3)`` in the world
    (NaN where unseen), the RMS residual of its fit [m] and how it was found (``"functional"`` or
    ``"proportions"``)."""

    centre: np.ndarray
    axis: np.ndarray | None
    rms: float
    method: str


@dataclass
class Identification:
    """Per marker index: its segment and how it was assigned; per segment: confidence; joints by name
    (``hip_l``, ``knee_l``, ``ankle_l``, ``shoulder_l``, ``elbow_l``, ``wrist_l``, ...); the body axes
    ``left``/``forward`` ``(T, 3)``; what could not be found."""

    segment: dict = field(default_factory=dict)
    method: dict = field(default_factory=dict)
    confidence: dict = field(default_factory=dict)
    joints: dict = field(default_factory=dict)
    left: np.ndarray | None = None
    forward: np.ndarray | None = None
    missing: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def markers_of(self, segment: str) -> list:
        return [m for m, s in self.segment.items() if s == segment]


def _median_height(markers: np.ndarray, idx) -> float:
    with np.errstate(invalid="ignore"):
        return float(np.nanmedian(markers[:, list(idx), 2]))


def _joint(tree: ClusterTree, child: int, method: str = "functional") -> Joint:
    j = tree.joints[child]
    return Joint(j.world, j.axis, j.fit.rms, method)


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
    heights = {k: _median_height(lifted, members[k]) for k in attached}
    top = max(heights.values())
    ground = [k for k in attached if heights[k] < GROUND * top]
    if not ground:
        raise NoBody("no cluster moves near the floor (no feet)", {})
    pelvis = _common_ancestor(tree, ground)
    legs = _legs(tree, pelvis, ground, heights, members)
    if len(legs) < 2 or heights[pelvis] < 2 * GROUND * top:
        raise NoBody("the feet do not hang from one pelvis by two legs", {})
    ident = Identification()
    hips = [tree.joints[c].world for c in legs]
    mid_hip = 0.5 * (hips[0] + hips[1])
    hip_height = float(np.nanmedian(mid_hip[:, 2] - floor))
    knees = [_knee(lifted, members, tree, leg, floor, hip_height) for leg in legs]
    left = _left_leg(markers, members, tree, legs, knees, ground)
    lateral = hips[left] - hips[1 - left]
    lateral[:, 2] = 0.0
    with np.errstate(invalid="ignore"):
        ident.left = lateral / np.linalg.norm(lateral, axis=1, keepdims=True)
    ident.forward = np.cross(ident.left, [0.0, 0.0, 1.0])
    lengths = []
    for k, leg in enumerate(legs):
        side = "l" if k == left else "r"
        ident.joints[f"hip_{side}"] = _joint(tree, leg)
        length = _segment_leg(lifted, members, tree, leg, knees[k], side, floor, ident)
        lengths += [length] if length else []
    leg_length = float(np.mean(lengths)) if lengths else LEG_OVER_HIP * hip_height
    trunk = [k for k in attached if not any(k in tree.subtree(leg) for leg in legs)]
    arms = _arms(markers, members, tree, trunk, mid_hip, ident, leg_length)
    for side, chain in arms.items():
        _segment_arm(markers, members, tree, chain, side, leg_length, ident)
    in_arms = {c for chain in arms.values() for c in chain}
    _split_trunk(markers, [i for k in trunk if k not in in_arms for i in members[k]], mid_hip, hip_height, ident)
    for s in "lr":
        for proximal, distal, origin, joint in (("thigh", "shank", "hip", "knee"), ("shank", "foot", "knee", "ankle"),
                                                ("forearm", "hand", "elbow", "wrist")):
            _joint_markers(markers, ident, f"{proximal}_{s}", f"{distal}_{s}", f"{origin}_{s}", f"{joint}_{s}")
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


def _legs(tree, pelvis, ground, heights, members) -> list:
    """The two leg roots below the pelvis: for each child of the pelvis leading to feet, the first cluster
    on the way down whose subtree holds nothing higher than the pelvis (clusters rigid with the pelvis,
    or the trunk, may hang between). Most feet markers first."""
    roots = []
    for child in tree.children(pelvis):
        if not set(tree.subtree(child)) & set(ground):
            continue
        while any(heights[c] > heights[pelvis] for c in tree.subtree(child)):
            below = [c for c in tree.children(child) if set(tree.subtree(c)) & set(ground)]
            if len(below) != 1:
                break
            child = below[0]
        roots.append(child)
    return sorted(roots, key=lambda c: -sum(len(members[g]) for g in set(tree.subtree(c)) & set(ground)))[:2]


def _knee(lifted, members, tree, leg, floor, hip_height) -> int | None:
    """The cluster below the knee: of the leg's moving joints to a cluster above the ankle level, the one
    nearest ``KNEE_HEIGHT`` × hip height (heights above the per-frame ``floor``)."""
    target = KNEE_HEIGHT * hip_height
    moved = [c for c in tree.subtree(leg) if c != leg and tree.joints[c].spread > MOVED
             and _median_height(lifted, members[c]) > ANKLE_LEVEL * target]
    return min(moved, key=lambda c: abs(np.nanmedian(tree.joints[c].world[:, 2] - floor) - target), default=None)


def _left_leg(markers, members, tree, legs, knees, ground) -> int:
    """Which of the two legs is the left one. Knees bend forward of the hip-to-foot line; without knees,
    the direction of travel, else the feet pointing ahead of the lower shanks."""
    hips = [tree.joints[leg].world for leg in legs]
    forward = np.cross(hips[1] - hips[0], [0.0, 0.0, 1.0])  # forward if legs[1] is the left leg
    forward[:, 2] = 0.0
    votes = []
    for leg, knee in zip(legs, knees):
        if knee is None:
            continue
        feet = [i for g in tree.subtree(leg) if g in ground for i in members[g]]
        with np.errstate(invalid="ignore"):
            foot = np.nanmean(markers[:, feet], axis=1)
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
    """Thigh, shank and foot of one leg, marker by marker by height above the per-frame ``floor``: above the
    knee, below the ankle level, between. Returns the leg length (hip-knee-ankle) [m] if both were found."""
    subtree = tree.subtree(leg)
    hip = ident.joints[f"hip_{side}"].centre
    knee_height = KNEE_HEIGHT * float(np.nanmedian(hip[:, 2] - floor))
    if knee is not None:
        knee_height = float(np.nanmedian(tree.joints[knee].world[:, 2] - floor))
        ident.joints[f"knee_{side}"] = _joint(tree, knee)
    for i in (i for c in subtree for i in members[c]):
        h = _median_height(lifted, [i])
        segment = "thigh" if h > knee_height else "shank" if h > ANKLE_LEVEL * knee_height else "foot"
        ident.segment[i] = f"{segment}_{side}"
        ident.method[i] = "motion"
    foot = f"foot_{side}"
    ankles = [c for c in subtree if c not in (leg, knee) and tree.joints[c].spread > MOVED
              and ident.segment[members[c][0]] == foot and ident.segment[members[tree.parent[c]][0]] != foot
              and np.nanmedian(tree.joints[c].world[:, 2] - floor) < ANKLE_LEVEL * knee_height]
    if ankles:
        ident.joints[f"ankle_{side}"] = _joint(tree, min(ankles, key=lambda c: tree.joints[c].fit.rms))
    if knee is None or not ankles:
        return None
    knee_c, ankle_c = ident.joints[f"knee_{side}"].centre, ident.joints[f"ankle_{side}"].centre
    return float(np.nanmedian(np.linalg.norm(hip - knee_c, axis=1))
                 + np.nanmedian(np.linalg.norm(knee_c - ankle_c, axis=1)))


def _arms(markers, members, tree, trunk, mid_hip, ident, leg_length) -> dict:
    """The arm chains (cluster lists, shoulder side first) by side: chains of clusters off the midline
    hanging from the trunk and reaching farther than ``ARM_REACH`` × leg length."""
    def lateral(k):
        with np.errstate(invalid="ignore"):
            rel = np.nanmean(markers[:, list(members[k])], axis=1) - mid_hip
        return float(np.nanmedian(np.sum(rel * ident.left, axis=1)))
    limb = {k for k in trunk if abs(lateral(k)) > MIDLINE}
    chains = {}
    for k in sorted(limb):
        if tree.parent[k] in limb or tree.parent[k] < 0:
            continue
        chain = [c for c in tree.subtree(k) if c in limb]
        shoulder = tree.joints[k].world
        with np.errstate(invalid="ignore"):
            reach = max(np.nanmedian(np.linalg.norm(markers[:, i] - shoulder, axis=1))
                        for c in chain for i in members[c])
        if reach < ARM_REACH * leg_length:
            continue
        side = "l" if np.median([lateral(c) for c in chain]) > 0 else "r"
        if side not in chains or len(chain) > len(chains[side]):
            chains[side] = chain
    for side in "lr":
        if side not in chains:
            ident.missing += [f"upper_arm_{side}", f"forearm_{side}", f"hand_{side}"]
    return chains


def _segment_arm(markers, members, tree, chain, side, leg_length, ident) -> None:
    """Upper arm, forearm and hand along one arm chain: at its moving joints, else at the split of its
    markers that a joint explains best (``split_at_joint``), else at de Leva's proportions. The chain's
    markers at the shoulder (acromion) belong to the torso."""
    ident.joints[f"shoulder_{side}"] = _joint(tree, chain[0])
    shoulder = ident.joints[f"shoulder_{side}"].centre
    expected = {"elbow": UPPER_ARM * leg_length, "wrist": (UPPER_ARM + FOREARM) * leg_length}

    def reach(centre):
        return float(np.nanmedian(np.linalg.norm(centre - shoulder, axis=1)))
    moved = [c for c in chain[1:] if tree.joints[c].spread > MOVED]
    found = {}
    for name in ("elbow", "wrist"):
        near = [c for c in moved if c not in found.values()
                and abs(reach(tree.joints[c].world) - expected[name]) < 0.5 * expected["elbow"]]
        if near:
            found[name] = min(near, key=lambda c: abs(reach(tree.joints[c].world) - expected[name]))
    if "wrist" in found and not _beyond(markers, [i for c in tree.subtree(found["wrist"]) for i in members[c]],
                                        shoulder, tree.joints[found["wrist"]].world):
        del found["wrist"]  # the markers at the "wrist" are the wrist markers themselves: forearm
    for name, c in found.items():
        ident.joints[f"{name}_{side}"] = _joint(tree, c)
    for c in chain:
        above = tree.path_to_root(c)
        segment = ("hand" if "wrist" in found and found["wrist"] in above else
                   "forearm" if "elbow" in found and found["elbow"] in above else "upper_arm")
        for i in members[c]:
            ident.segment[i] = f"{segment}_{side}"
            ident.method[i] = "motion"
    _acromion(markers, ident.markers_of(f"upper_arm_{side}"), shoulder, ident)
    if "elbow" not in found:
        upper = ident.markers_of(f"upper_arm_{side}")
        split = split_at_joint(markers, upper, shoulder)
        if split is not None:
            distal, joint = split
            for i in distal:
                ident.segment[i] = f"forearm_{side}"
            ident.joints[f"elbow_{side}"] = joint
            ident.notes.append(f"elbow_{side}: the arm's markers split where a joint explains their motion best")
        else:
            _split_by_distance(markers, upper, shoulder, expected["elbow"], f"forearm_{side}", ident)
            ident.notes.append(f"elbow_{side}: no moving elbow, markers split at de Leva's proportions")
    elbow_markers = _joint_markers(markers, ident, f"upper_arm_{side}", f"forearm_{side}", f"shoulder_{side}",
                                   f"elbow_{side}")
    if "wrist" not in found:
        forearm = ident.markers_of(f"forearm_{side}")
        if f"elbow_{side}" in ident.joints:  # the forearm is as long as the measured upper arm (de Leva's ratio)
            with np.errstate(invalid="ignore"):
                elbow = (np.nanmean(markers[:, elbow_markers], axis=1) if elbow_markers
                         else ident.joints[f"elbow_{side}"].centre)
            _split_by_distance(markers, forearm, elbow, FOREARM / UPPER_ARM * reach(elbow), f"hand_{side}", ident)
        else:
            _split_by_distance(markers, forearm, shoulder, expected["wrist"], f"hand_{side}", ident)


def _beyond(markers, distal, proximal, joint) -> bool:
    """Whether the markers ``distal`` lie farther than ``JOINT_ZONE`` beyond ``joint`` along the limb from
    ``proximal`` (median over frames and markers)."""
    with np.errstate(invalid="ignore"):
        u = joint - proximal
        u = u / np.linalg.norm(u, axis=1, keepdims=True)
        depth = np.sum((markers[:, distal] - joint[:, None]) * u[:, None], axis=-1)
        return bool(np.nanmedian(depth) > JOINT_ZONE)


def _acromion(markers, upper, shoulder, ident) -> None:
    """Markers of the upper arm no farther than ``ACROMION_DEPTH`` down the arm from the shoulder centre are
    on the shoulder girdle (acromion): torso."""
    if not upper:
        return
    with np.errstate(invalid="ignore"):
        u = np.nanmean(markers[:, upper], axis=1) - shoulder
        u = u / np.linalg.norm(u, axis=1, keepdims=True)
        for i in upper:
            if np.nanmedian(np.sum((markers[:, i] - shoulder) * u, axis=1)) < ACROMION_DEPTH:
                ident.segment[i] = "torso"
                ident.method[i] = "geometry"


def _split_by_distance(markers, span, origin, boundary, distal, ident) -> None:
    """Markers of ``span`` farther than ``boundary`` + ``JOINT_ZONE`` from ``origin`` go to ``distal``."""
    for i in span:
        with np.errstate(invalid="ignore"):
            far = np.nanmedian(np.linalg.norm(markers[:, i] - origin, axis=1)) > boundary + JOINT_ZONE
        if far:
            ident.segment[i] = distal
        ident.method[i] = "geometry"


def split_at_joint(markers, span, proximal) -> tuple[list, Joint] | None:
    """The best split of the markers ``span`` (one rigid-looking cluster) into a proximal and a distal part
    along the limb (by distance from ``proximal``, the limb's proximal joint centre): the split whose
    SCoRE joint fits best, among those whose distal part (three markers or more) moved more than
    ``MIN_SPLIT_SPREAD`` relative to the proximal part and its joint centre. Returns (distal markers, joint)."""
    with np.errstate(invalid="ignore"):
        order = sorted(span, key=lambda i: np.nanmedian(np.linalg.norm(markers[:, i] - proximal, axis=1)))
    best = None
    for k in range(2, len(order) - 2):
        near = np.concatenate([markers[:, order[:k]], proximal[:, None]], axis=1)
        far = markers[:, order[k:]]
        near_frames, far_frames = rigid_frames(near), rigid_frames(far)
        fit = score(near_frames, far_frames)
        if fit is None:
            continue
        local = near_frames.to_local(far)
        with np.errstate(invalid="ignore"):
            mean = np.nanmean(local, axis=0)
            angle = np.linalg.norm(local - mean, axis=-1) / np.linalg.norm(mean - fit.centre, axis=-1)
            spread = float(np.sqrt(np.nanmean(angle ** 2)))
        if spread > MIN_SPLIT_SPREAD and (best is None or fit.rms < best[0]):
            axis = np.einsum("tij,j->ti", near_frames.rot, fit.axis)
            best = (fit.rms, order[k:], Joint(fit.world, axis, fit.rms, "functional (split)"))
    return None if best is None else (best[1], best[2])


def _split_trunk(markers, trunk_markers, mid_hip, hip_height, ident) -> None:
    """Pelvis, torso and head by height above the mid-hip, in shoulder heights."""
    shoulders = [ident.joints[f"shoulder_{s}"].centre for s in "lr" if f"shoulder_{s}" in ident.joints]
    span = SHOULDER_HEIGHT * hip_height
    if shoulders:
        measured = float(np.nanmedian(np.mean([s[:, 2] for s in shoulders], axis=0) - mid_hip[:, 2]))
        if 0.7 * span < measured < 1.4 * span:
            span = measured
    for i in trunk_markers:
        u = float(np.nanmedian(markers[:, i, 2] - mid_hip[:, 2])) / span
        ident.segment[i] = "pelvis" if u < PELVIS_LEVEL else "head" if u > HEAD_LEVEL else "torso"
        ident.method[i] = "geometry"


def _joint_markers(markers, ident, proximal, distal, origin_name, joint) -> list:
    """Joint markers (epicondyles, malleoli) on segment ``distal`` move to ``proximal``: the distal
    segment's markers nearest the proximal segment along the limb, ``JOINT_GAP`` clear of the others and
    at most ``JOINT_DEPTH`` beyond the ``joint`` centre, whose distance to the proximal segment's own
    proximal joint (``origin_name``) stays as constant as a bone's (``AXIS_RATIO`` times steadier than the
    other distal markers'). Returns the markers moved."""
    own = ident.markers_of(distal)
    if origin_name not in ident.joints or len(own) < 2:
        return []
    origin = ident.joints[origin_name].centre
    with np.errstate(invalid="ignore"):
        centroid = np.nanmean(markers[:, own], axis=1)
        u = (centroid - origin) / np.linalg.norm(centroid - origin, axis=1, keepdims=True)
        depth = {i: float(np.nanmedian(np.sum((markers[:, i] - origin) * u, axis=1))) for i in own}
        steady = {i: float(np.nanstd(np.linalg.norm(markers[:, i] - origin, axis=1))) for i in own}
        at_joint = (float(np.nanmedian(np.sum((ident.joints[joint].centre - origin) * u, axis=1)))
                    if joint in ident.joints else None)
    order = sorted(own, key=depth.get)
    gaps = [depth[b] - depth[a] for a, b in zip(order, order[1:])]
    first_gap = next((k for k, g in enumerate(gaps) if g > JOINT_GAP), None)
    if first_gap is None or first_gap > 1:
        return []
    candidates, rest = order[:first_gap + 1], order[first_gap + 1:]
    reference = np.median([steady[i] for i in rest])
    moved = [i for i in candidates if steady[i] * AXIS_RATIO < reference
             and (at_joint is None or depth[i] - at_joint < JOINT_DEPTH)]
    for i in moved:
        ident.segment[i] = proximal
        ident.method[i] = "joint marker"
    return moved


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
