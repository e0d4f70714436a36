"""What segment identification produces (``identify_segments``, ``arm_segments``), and shared helpers.

Proportions: de Leva (1996, male) upper-arm and forearm lengths over his thigh
+ shank length, to place the elbow and wrist from the subject's legs where the
motion shows neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .cluster_tree import ClusterTree
from .inertia import DE_LEVA

#: A joint moved when the markers beyond it swept more than this RMS angle [rad].
MOVED = np.radians(6.0)
#: Markers within this distance [m] beyond a joint placed by proportions still count as the proximal segment's
#: (the proportions are good to a few centimetres; a hand marker close to the wrist stays on the forearm).
JOINT_ZONE = 0.05
_ROWS = DE_LEVA["male"]
#: de Leva's upper arm and forearm lengths over thigh + shank.
UPPER_ARM = _ROWS["upper_arm"].length / (_ROWS["thigh"].length + _ROWS["shank"].length)
FOREARM = _ROWS["forearm"].length / (_ROWS["thigh"].length + _ROWS["shank"].length)


class NoBody(Exception):
    """The clusters do not form a humanoid body; ``reason`` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Joint:
    """A joint between two identified segments: centre ``(T, 3)`` and rotation axis ``(T, 3)`` in the world
    (NaN where unseen), the RMS residual of its fit [m] and how it was found (``"functional"``: a joint of the
    cluster tree; ``"functional (split)"``: where one cluster was split, ``arm_segments.split_at_joint``)."""

    centre: np.ndarray
    axis: np.ndarray | None
    rms: float
    method: str


@dataclass
class Identification:
    """Per marker index: its segment and how it was assigned; per segment: confidence; joints by name
    (``hip_l``, ``knee_l``, ``ankle_l``, ``shoulder_l``, ``elbow_l``, ``wrist_l``, ...); the body axes
    ``left``/``forward`` ``(T, 3)``; what could not be found; the clustering ``threshold`` [m] (the distance
    spread of markers on one bone, ``rigid_clusters``)."""

    segment: dict = field(default_factory=dict)
    method: dict = field(default_factory=dict)
    confidence: dict = field(default_factory=dict)
    joints: dict = field(default_factory=dict)
    left: np.ndarray | None = None
    forward: np.ndarray | None = None
    missing: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    threshold: float = float("inf")

    def markers_of(self, segment: str) -> list:
        return [m for m, s in self.segment.items() if s == segment]


def median_height(markers: np.ndarray, idx) -> float:
    with np.errstate(invalid="ignore"):
        return float(np.nanmedian(markers[:, list(idx), 2]))


def tree_joint(tree: ClusterTree, child: int, method: str = "functional") -> Joint:
    j = tree.joints[child]
    return Joint(j.world, j.axis, j.fit.rms, method)
