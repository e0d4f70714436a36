"""A marker set found from the motion, for trials whose labels say nothing (numbers, unknown names).

``discover_markerset(trial)`` runs, on the markers alone (Z up, as every
imported trial is):

1. rigid clusters (``rigid_clusters``, Kirk, O'Brien & Forsyth 2005);
2. the tree of functional joints between them (``cluster_tree``: sphere fit,
   SCoRE, SARA), a marker on a joint's axis taking part in both clusters'
   frames and then given to the proximal one (``bridging_markers``);
3. the humanoid template recognized on the tree and by geometry
   (``identify_segments``);
4. anatomical landmarks from the segments' geometry, or virtual markers from
   the functional joints where no marker shows one (``discovered_landmarks``).

The result is a ``MarkerSet`` that ``calibrate`` takes like any other, plus the
virtual markers it names (``Discovery.with_virtual_markers`` adds them to a
trial) and a report: the clusters, which segment each marker was given and
how, a confidence per segment, the joints and how each landmark was found.
A trial whose markers do not make a body raises ``ModelError`` saying how many
rigid clusters were found, which segments are missing and what would work.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np

from ..errors import ModelError, option
from ..io.trial import Trial
from .bridging_markers import shared_markers, to_proximal
from .cluster_tree import ClusterTree, central_cluster, grow_tree
from .discovered_landmarks import infer_landmarks
from .identify_segments import Identification, NoBody, identify
from .markersets import MarkerSet, Point
from .rigid_clusters import RigidClusters, rigid_clusters
from .still_clusters import is_still, nearest_still
from .templates import ANATOMY
from ..report_schema import DiscoverySummary

#: Segments calibration cannot do without (head, hands are welded to their parents when missing).
REQUIRED = ("pelvis", "torso", "upper_arm_l", "forearm_l", "upper_arm_r", "forearm_r", "thigh_l", "shank_l",
            "foot_l", "thigh_r", "shank_r", "foot_r")
#: Fewer markers than this cannot make the required segments.
MIN_MARKERS = 3 + 4 * 2 + 6 * 2


def _how_to() -> str:
    """What to do when the motion makes no body, naming the marker-set option as the caller spells it."""
    return (f"label the markers (a marker-set TOML file, format: solver/model/markersets/cmu41.toml, and pass it "
            f"as {option('markerset', hint='path')}), or use a trial in which the subject walks or moves every limb "
            "(a range-of-motion trial) with three markers or more on the pelvis and on each thigh, shank and "
            "foot, and markers on the torso and on each upper arm and forearm")


@dataclass(frozen=True)
class Discovery:
    """What the motion showed: the ``markerset`` for calibration, the ``virtual`` markers it names
    (label -> ``(T, 3)`` on the discovered trial), and the report fields (see ``summary``)."""

    markerset: MarkerSet
    virtual: dict
    clusters: tuple
    threshold: float
    segments: dict
    methods: dict
    confidence: dict
    joints: dict
    landmarks: dict
    ignored: tuple = ()
    notes: tuple = ()

    def with_virtual_markers(self, trial: Trial) -> Trial:
        """``trial`` (the one discovered on) with the virtual markers appended."""
        if not self.virtual:
            return trial
        labels = tuple(self.virtual)
        extra = np.stack([self.virtual[label] for label in labels], axis=1)
        return replace(trial, labels=trial.labels + labels, markers=np.concatenate([trial.markers, extra], axis=1))

    def summary(self) -> DiscoverySummary:
        """A JSON-ready report of the discovery."""
        return {
            "method": "rigid clusters (Kirk et al. 2005), functional joints (sphere fit, SCoRE, SARA), "
                      "humanoid template by tree and geometry",
            "rigid_clusters": [list(c) for c in self.clusters],
            "cluster_threshold_mm": 1000 * self.threshold,
            "segments": {s: list(m) for s, m in self.segments.items()},
            "confidence": dict(self.confidence),
            "marker_methods": dict(self.methods),
            "joints": dict(self.joints),
            "landmarks": dict(self.landmarks),
            "ignored": list(self.ignored),
            "notes": list(self.notes),
        }


def discover_markerset(trial: Trial) -> Discovery:
    """Find the segments and landmarks of ``trial``'s markers from their motion (see the module docstring)."""
    with warnings.catch_warnings():  # statistics over frames where a marker is unseen are NaN, and ignored
        warnings.simplefilter("ignore", RuntimeWarning)
        return _discover(trial)


def _discover(trial: Trial) -> Discovery:
    markers, labels = trial.markers, trial.labels
    seen = np.flatnonzero(~np.isnan(markers).all(axis=(0, 2)))
    if len(seen) < 3:
        raise ModelError(f"Cannot find a body in {trial.source}: it has {len(seen)} markers with data",
                         _how_to())
    clusters = rigid_clusters(markers)
    named = tuple(tuple(labels[i] for i in c) for c in clusters.members)
    try:
        if len(seen) < MIN_MARKERS:
            raise NoBody(f"{len(seen)} markers cannot make the {len(REQUIRED)} segments a body needs")
        if len(clusters.members) < len(REQUIRED) // 2:
            raise NoBody("the markers hardly move relative to each other (a static trial shows no joints)")
        clusters, _, ident = identify_clusters(markers, clusters)
    except NoBody as no_body:
        raise ModelError(_no_body(trial, named, no_body.reason, REQUIRED), _how_to()) from None
    missing = [s for s in REQUIRED if not ident.markers_of(s)]
    if missing:
        raise ModelError(_no_body(trial, named, "the motion shows no " + ", ".join(missing), missing), _how_to())
    thin = [f"{s} ({len(ident.markers_of(s))})" for s in REQUIRED
            if len(ident.markers_of(s)) < (3 if s == "pelvis" else 2)]
    if thin:
        raise ModelError(_no_body(trial, named, "too few markers for a frame on " + ", ".join(thin)
                                  + " (the pelvis needs three, the others two)", [t.split()[0] for t in thin]),
                         _how_to())
    found = infer_landmarks(markers, labels, ident)
    segments = {a.name: tuple(labels[i] for i in sorted(ident.markers_of(a.name))) for a in ANATOMY
                if ident.markers_of(a.name)}
    landmarks = {name: (Point.mean(labels_of),) for name, labels_of in found.landmarks.items()}
    mset = MarkerSet("discovered", "segments and landmarks found from the motion (rigid clusters, functional "
                     "joints, humanoid template)", segments, landmarks, f"discovered from {trial.source}")
    return Discovery(
        markerset=mset, virtual=found.virtual, clusters=named, threshold=clusters.threshold, segments=segments,
        methods={labels[i]: how for i, how in ident.method.items()},
        confidence={s: round(c, 3) for s, c in ident.confidence.items()},
        joints=_joints(ident), landmarks=dict(found.methods),
        ignored=tuple(labels[i] for i in seen if i not in ident.segment),
        notes=tuple(ident.notes) + tuple(f"no landmark {m}" for m in found.missing))


def identify_clusters(markers: np.ndarray, clusters: RigidClusters) -> tuple[RigidClusters, ClusterTree,
                                                                              Identification]:
    """Steps 2-3 on ``clusters``: the tree of joints (markers on a joint's axis shared, then given to the
    proximal cluster) and the segments it shows. Raises ``NoBody``."""
    still = [is_still(markers, m) for m in clusters.members]
    shared = shared_markers(clusters.spread, clusters.members, clusters.threshold, still,
                            nearest_still(markers, clusters.members, still))
    tree = grow_tree(markers, clusters.members, central_cluster(markers, clusters.members), shared, still)
    clusters = replace(clusters, members=to_proximal(clusters.members, shared, tree.parent))
    return clusters, tree, identify(markers, clusters, tree)


def _joints(ident: Identification) -> dict:
    return {name: {"method": j.method, "rms_mm": round(1000 * j.rms, 2)} for name, j in ident.joints.items()}


def _no_body(trial: Trial, clusters: tuple, reason: str, missing) -> str:
    sizes = ", ".join(f"{len(c)} ({' '.join(c[:4])}{' ...' if len(c) > 4 else ''})" for c in clusters[:6])
    more = f" and {len(clusters) - 6} more" if len(clusters) > 6 else ""
    return (f"The motion of {trial.source} does not show a body: {len(clusters)} rigid "
            f"cluster{'s' if len(clusters) != 1 else ''} of markers ({sizes}{more}); {reason}. "
            f"Segments missing: {', '.join(missing)}")
