"""Joint markers: a marker on a joint's axis (epicondyle, malleolus) belongs to the proximal segment.

Such a marker is rigid with both segments the joint links, so the motion alone
may put it on either; the common marker sets (Plug-in Gait, CMU, OpenCap, Vicon)
put it on the proximal one (knee markers on the thigh, malleoli on the shank,
epicondyles of the humerus on the upper arm). ``move_joint_markers`` finds them
on the distal segment by geometry and motion together: nearest the proximal
segment, and keeping their distance to it (to its proximal joint centre, or to
its markers: the distance spread of ``rigid_clusters``) far steadier than the
distal segment's other markers do, and rigid with every marker of the proximal
segment (a proximal forearm marker of a flexed elbow that moves little is as
steady as an epicondyle, but not rigid with the humerus).
"""

from __future__ import annotations

import numpy as np

from .bridging_markers import CONTRAST
from .identification import Identification
from .rigid_clusters import distance_spread

#: Joint markers keep their distance to the proximal segment's proximal joint this many times steadier ...
AXIS_RATIO = 2.0
#: ... and lie this far [m] nearer that joint, along the limb, than the segment's other markers ...
JOINT_GAP = 0.025
#: ... and at most this far [m] beyond the joint centre along the limb (when the joint was found).
JOINT_DEPTH = 0.06


def move_joint_markers(markers: np.ndarray, ident: Identification, proximal: str, distal: str, origin_name: str,
                       joint: str) -> list:
    """Joint markers (epicondyles, malleoli) on segment ``distal`` move to ``proximal``: the distal
    segment's markers nearest the proximal segment along the limb, ``JOINT_GAP`` clear of the others and
    at most ``JOINT_DEPTH`` beyond the ``joint`` centre (unless the proximal segment has fewer than two
    markers: a functional centre can be centimetres off), whose distance to the proximal segment's own
    proximal joint (``origin_name``) stays as constant as a bone's (``AXIS_RATIO`` times steadier than the
    other distal markers'). A distal marker nearer the proximal segment than all others is one as well when
    its distance spread to the proximal segment's markers is ``AXIS_RATIO`` times smaller than the other
    distal markers' (a malleolus 2 cm above the heel, which a depth gap cannot tell). When neither finds
    one and the proximal segment has fewer than two markers (it needs a second), the one or two distal
    markers whose distance to the proximal joint is ``AXIS_RATIO`` times steadier than all others'
    (``_steadiest``: a flexed elbow). Returns the markers moved."""
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
    short = len(ident.markers_of(proximal)) < 2  # a segment needs two markers: trust the marker over the centre

    def at_axis(i):
        return at_joint is None or short or depth[i] - at_joint < JOINT_DEPTH
    moved = []
    if first_gap is not None and first_gap <= 1:
        candidates, rest = order[:first_gap + 1], order[first_gap + 1:]
        reference = np.median([steady[i] for i in rest])
        moved = [i for i in candidates if steady[i] * AXIS_RATIO < reference and at_axis(i)
                 and _on_bone(markers, i, ident.markers_of(proximal), ident.threshold)]
    if not moved and _rigid_with(markers, order, ident.markers_of(proximal)) and at_axis(order[0]):
        moved = [order[0]]
    if not moved and short:
        moved = _steadiest(steady)
    for i in moved:
        ident.segment[i] = proximal
        ident.method[i] = "joint marker"
    return moved


def _steadiest(steady: dict) -> list:
    """The one or two distal markers whose distance to the proximal joint is ``AXIS_RATIO`` times steadier
    than every other distal marker's (``steady``: marker -> spread [m]): on the proximal bone, wherever the
    depth puts them (a flexed elbow brings the wrist markers back nearer the shoulder than the epicondyles)."""
    order = sorted(steady, key=steady.get)
    split = next((k for k in range(min(2, len(order) - 1)) if steady[order[k]] * AXIS_RATIO < steady[order[k + 1]]),
                 None)
    return [] if split is None else order[:split + 1]


def _on_bone(markers: np.ndarray, i: int, proximal: list, threshold: float) -> bool:
    """Whether marker ``i`` is rigid with every marker of the ``proximal`` segment: its largest distance
    spread to them within ``CONTRAST`` × the clustering ``threshold`` (``bridging_markers``). A marker on the
    joint's axis rides on the proximal bone; one a few centimetres down the distal bone (a proximal forearm
    marker of a flexed elbow, as steady as the epicondyles when the elbow moves little) does not."""
    if not proximal:
        return True
    spread = distance_spread(markers[:, [i] + list(proximal)])[0, 1:]
    return not np.nanmax(np.nan_to_num(spread, nan=np.inf)) > CONTRAST * threshold


def _rigid_with(markers: np.ndarray, distal: list, proximal: list) -> bool:
    """Whether ``distal[0]`` keeps its distances to the ``proximal`` markers ``AXIS_RATIO`` times steadier
    (mean distance spread) than the other ``distal`` markers do (median over them)."""
    if not proximal or len(distal) < 2:
        return False
    spread = distance_spread(markers[:, list(distal) + list(proximal)])[:len(distal), len(distal):]
    with np.errstate(invalid="ignore"):
        mean = np.nanmean(spread, axis=1)
    return bool(np.isfinite(mean[0]) and mean[0] * AXIS_RATIO < np.nanmedian(mean[1:]))
