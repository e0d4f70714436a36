"""Arms: the chains of clusters hanging from the trunk, and their upper arm, forearm and hand.

1. An arm is a chain of clusters off the body's midline (``MIDLINE``), on one
   side, hanging from the trunk (or, when the tree joined them so, from the
   other arm) and reaching farther than ``ARM_REACH`` × leg length from its
   first joint, the shoulder.
2. Along the chain, the joints that moved (``MOVED``) are the elbow and wrist
   (the one nearest de Leva's upper-arm length from the shoulder is the
   elbow). A "wrist" whose distal markers do not lie beyond it is the wrist
   markers' own cluster: they stay on the forearm.
3. Where the motion found no elbow (a whole arm moving as one cluster), the
   arm's markers are split where a SCoRE joint explains their relative motion
   best (``split_at_joint``), else at de Leva's proportions scaled by the leg
   length. Markers at the shoulder centre (acromion) go to the torso, and so
   does a chain's first cluster when it lies there (a scapula moving on its
   own: the arm starts at the next cluster).
4. Without a moving wrist, hand markers are those beyond the wrist markers
   along the forearm (``HAND_GAP``), else beyond de Leva's forearm length
   (scaled by the subject's upper arm) from the elbow.
"""

from __future__ import annotations

import numpy as np

from .functional_joints import rigid_frames, score
from .identification import FOREARM, JOINT_ZONE, MOVED, UPPER_ARM, Joint, tree_joint
from .joint_markers import move_joint_markers

#: Clusters whose centroid is farther than this [m] from the body's vertical midline are limbs.
MIDLINE = 0.1
#: A chain off the trunk reaching farther than this fraction of the leg length is an arm: it reaches the
#: elbow (de Leva's upper arm), whatever the elbow's flexion (a sitting subject's forearms come back
#: towards the shoulder).
ARM_REACH = UPPER_ARM
#: Upper-arm markers less than this [m] down the arm from the shoulder centre are on the acromion (torso).
ACROMION_DEPTH = 0.04
#: An acromion lies this close [m] to the shoulder centre (3-5 cm; a marker on the humerus lies 10 cm or more).
GIRDLE_REACH = 0.07
#: Hand markers lie this far [m] (along the forearm) beyond the wrist markers ...
HAND_GAP = 0.03
#: ... which lie deeper than this fraction of the forearm's expected length.
WRIST_FRACTION = 0.6
#: A split of one cluster at a joint needs the distal part to sweep more than this RMS angle [rad].
MIN_SPLIT_SPREAD = np.radians(3.0)


def find_arms(markers, members, tree, trunk, mid_hip, ident, leg_length) -> dict:
    """The arm chains (cluster lists, shoulder side first) by side: chains of clusters off the midline, on
    one side, hanging from the trunk (or the other side's limb) and reaching farther than ``ARM_REACH`` ×
    leg length from their first joint, the shoulder."""
    def lateral(k):
        with np.errstate(invalid="ignore"):
            rel = np.nanmean(markers[:, list(members[k])], axis=1) - mid_hip
        return float(np.nanmedian(np.sum(rel * ident.left, axis=1)))
    side_of = {k: "l" if lateral(k) > 0 else "r" for k in trunk if abs(lateral(k)) > MIDLINE}
    chains = {}
    for k, side in sorted(side_of.items()):
        if side_of.get(tree.parent[k]) == side or tree.parent[k] < 0:
            continue
        chain, todo = [], [k]
        while todo:
            node = todo.pop(0)
            chain.append(node)
            todo += [c for c in tree.children(node) if side_of.get(c) == side]
        shoulder = tree.joints[k].world
        with np.errstate(invalid="ignore"):
            reach = max(np.nanmedian(np.linalg.norm(markers[:, i] - shoulder, axis=1))
                        for c in chain for i in members[c])
        if reach >= ARM_REACH * leg_length and (side not in chains or len(chain) > len(chains[side])):
            chains[side] = chain
    for side in "lr":
        if side not in chains:
            ident.missing += [f"upper_arm_{side}", f"forearm_{side}", f"hand_{side}"]
    return chains


def _girdle(markers, members, tree, chain) -> bool:
    """Whether the chain's first cluster is the shoulder girdle: an acromion marker moving with the scapula
    on its own (shrugging, arms overhead), its markers within ``GIRDLE_REACH`` of the joint of the next
    cluster (the shoulder), its only child in the chain, which has a further cluster (the forearm)."""
    if len(chain) < 3 or [c for c in chain if tree.parent[c] == chain[0]] != [chain[1]]:
        return False
    shoulder = tree.joints[chain[1]].world
    with np.errstate(invalid="ignore"):
        reach = np.linalg.norm(markers[:, list(members[chain[0]])] - shoulder[:, None], axis=-1)
        return bool(np.max(np.nanmedian(reach, axis=0)) < GIRDLE_REACH)


def segment_arm(markers, members, tree, chain, side, leg_length, ident) -> None:
    """Upper arm, forearm and hand along one arm chain: at its moving joints, else at the split of its
    markers that a joint explains best (``split_at_joint``), else at de Leva's proportions. The chain's
    markers at the shoulder (acromion), and its first cluster when it lies there (``_girdle``), belong to the
    torso."""
    if _girdle(markers, members, tree, chain):
        for i in members[chain[0]]:
            ident.segment[i] = "torso"
            ident.method[i] = "geometry"
        chain = chain[1:]
    ident.joints[f"shoulder_{side}"] = tree_joint(tree, chain[0])
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
        ident.joints[f"{name}_{side}"] = tree_joint(tree, c)
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
    elbow_markers = move_joint_markers(markers, ident, f"upper_arm_{side}", f"forearm_{side}", f"shoulder_{side}",
                                   f"elbow_{side}")
    if "wrist" not in found:
        forearm = ident.markers_of(f"forearm_{side}")
        if f"elbow_{side}" in ident.joints:  # the forearm is as long as the measured upper arm (de Leva's ratio)
            with np.errstate(invalid="ignore"):
                elbow = (np.nanmean(markers[:, elbow_markers], axis=1) if elbow_markers
                         else ident.joints[f"elbow_{side}"].centre)
            length = FOREARM / UPPER_ARM * reach(elbow)
            if not _hand_beyond_wrist(markers, forearm, elbow, length, f"hand_{side}", ident):
                _split_by_distance(markers, forearm, elbow, length, f"hand_{side}", ident)
        else:
            _split_by_distance(markers, forearm, shoulder, expected["wrist"], f"hand_{side}", ident)


def _hand_beyond_wrist(markers, forearm, elbow, length, hand, ident) -> bool:
    """Hand markers lie beyond the wrist markers: the forearm's most distal markers (along the forearm from
    ``elbow``) go to ``hand`` when ``HAND_GAP`` clear of the next one, itself at the wrist (deeper than
    ``WRIST_FRACTION`` of the forearm ``length``). Returns whether it found such markers."""
    if len(forearm) < 2:
        return False
    with np.errstate(invalid="ignore"):
        u = np.nanmean(markers[:, forearm], axis=1) - elbow
        u = u / np.linalg.norm(u, axis=1, keepdims=True)
        depth = {i: float(np.nanmedian(np.sum((markers[:, i] - elbow) * u, axis=1))) for i in forearm}
    order = sorted(forearm, key=depth.get)
    gap = next((k for k in range(len(order) - 2, -1, -1) if depth[order[k + 1]] - depth[order[k]] > HAND_GAP
                and depth[order[k]] > WRIST_FRACTION * length), None)
    if gap is None:
        return False
    for i in order[gap + 1:]:
        ident.segment[i] = hand
        ident.method[i] = "geometry"
    return True


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
    along the limb (by distance from ``proximal``, the limb's proximal joint centre): the split whose SCoRE
    joint leaves the smallest residual for the motion it explains (RMS residual / RMS angle swept), among
    those whose distal part (three markers or more) moved more than ``MIN_SPLIT_SPREAD`` relative to the
    proximal part and its joint centre. Returns (distal markers, joint)."""
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
        if spread > MIN_SPLIT_SPREAD and (best is None or fit.rms / spread < best[0]):
            axis = np.einsum("tij,j->ti", near_frames.rot, fit.axis)
            best = (fit.rms / spread, order[k:], Joint(fit.world, axis, fit.rms, "functional (split)"))
    return None if best is None else (best[1], best[2])
