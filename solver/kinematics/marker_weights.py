"""OTM's marker weights, beyond the paper: the pelvis's markers weigh more, and a marker that leaves its segment on its
own weighs less.

OTM (Ausejo et al. 2011, eq. 13) tracks every marker with the same weight by default (its weight matrix W is the
caller's choice). Two rules set it here (``marker_weights="weighted"``, the default; ``"equal"`` is the paper's).

**The pelvis's markers weigh ``ROOT_WEIGHT``** (``root_weights``). The joints are exact, so the root segment's pose
is a compromise between its own markers and every marker of the segments hanging from it: the pelvis's four
bony-landmark markers (ASIS, PSIS) against the thighs' ten or so, which ride on soft tissue and pull the pelvis with
it through the hips. The pelvis carries the head, arms and trunk, so its pose sets much of the whole body's
dynamics, and a wrong one shows as a root moment the plates do not give. Checked against the force plates, which the
weights did not come from (``scripts/compare_opensim_id.py``, 2026-12-06: the moment the motion needs about the
plates' centre of pressure beyond what they give, RMS in N·m/kg, where the plates see all and away from touch-downs;
walking1, walking4, DJ3, STS1, video DJ4, video walk): weight 1 0.164 / 0.199 / 0.696 / 0.318 / 1.259 / 0.265; 2:
0.138 / 0.161 / 0.653 / 0.305 / 0.865 / 0.234; 3: 0.131 / 0.147 / 0.671 / 0.304 / 0.801 / 0.221; 5: 0.126 / 0.136 /
0.725 / 0.311 / 0.953 / 0.207; 10: 0.125 / 0.130 / 0.812 / 0.328 / 1.315 / 0.195. The hip, knee and ankle moments
from motion alone follow OpenSim's where the plates see all at mean r 0.958 / 0.952 / 0.863 / 0.934 / 0.845 / 0.919
with weight 1 and 0.959 / 0.957 / 0.880 / 0.950 / 0.863 / 0.924 with 3 (2: 0.959 / 0.955 / 0.877 / 0.947 / 0.858 /
0.922; 10: 0.957 / 0.957 / 0.871 / 0.943 / 0.868 / 0.928), and the ground reaction forces from motion alone the
plates' closer on every trial but DJ3's fore-aft force (README). The sprint (another lab's marker set, at 9 m/s; no
OpenSim reference, so not in the sweep above) agrees: its vertical GRF from motion alone 26.3 -> 25.1 % BW, and its
root force in flight, where exact kinematics give zero, 43.0 -> 36.5 % BW RMS. Tracking the OpenCap set's virtual
hip joint centres (L_HJC, R_HJC) as two more pelvis markers did the same as a weight of 1.5 (they stay within 1-3 mm
of the pelvis's markers).

**A marker that leaves its segment on its own weighs less** (``isolated_marker_weights``). With fixed weights a
marker's pull on its segment grows with the square of its distance. Markers from video keypoints (OpenCap's marker
augmenter) and markers pushed about on the skin sometimes wander off their segment by several centimetres for a
tenth of a second while the segment's other markers stay on it: in ``opencap_video_walking3`` L_thigh2 goes 103 mm
off for 0.17 s and L_shank_antsup 84 mm for 0.08 s, where the thigh's and shank's other markers are 5-29 mm off. The
fit turns the swing thigh toward them: in late swing its angular acceleration in the sagittal plane was +1360 deg/s²
where OpenSim's inverse kinematics of the same markers has -1235 (+690 with these weights), and from motion alone
such accelerations become contact force under the other foot.

The weights (``isolated_marker_weights``): after a first reconstruction with the root's weights, each marker's
distance from the model ``e`` beyond ``ISOLATION`` times the median distance of its segment's markers in that frame,
``x = max(0, e - ISOLATION median)``, gets Huber's (1964) iteratively reweighted least-squares weight ``min(1,
HUBER_M / x)``, and the trial is reconstructed once more with them (``stages``). Only segments with at least
``MIN_MARKERS`` markers are judged: with three, one marker off turns the fit so far that the median follows it (with
three, the video drop jump's upper-arm markers were down-weighted in 16-31 frames and its vertical GRF from motion
alone missed the plates by 15.1 % BW instead of 14.4). A whole segment off the model keeps its weights, since its
median rises with it: the drop jumps' shoulder markers, 30-120 mm off when an arm's elevation moves the shoulder
girdle that a rigid thorax cannot follow, say how the upper body moved. Down-weighting every large distance instead
(Huber's weight at 2 cm on ``e`` itself) left the moment the motion needs about the plates' centre of pressure at
0.78 N·m/kg RMS on DJ3 instead of 0.70, and 1.67 on the video drop jump instead of 1.26.

On the six trials with OpenSim references (``scripts/compare_opensim_id.py``, 2026-12-06, every marker's weight 1
otherwise): only the video walk changes (L_thigh2 down-weighted in 17 frames, L_shank_antsup in 4): its hip, knee
and ankle moments from motion alone where the plates see all follow OpenSim's at mean r 0.919 instead of 0.903, the
moment its motion needs about the plates' centre of pressure is 0.27 N·m/kg RMS instead of 0.36, and its ground
reaction force from motion alone misses the plates by 4.1 % BW vertically (4.3) and 3.2 fore-aft (4.0). Tried and
not kept (session patches, the first three with segments of three markers judged too): ``HUBER_M`` 1 cm (the video
walk 0.922, DJ3 0.860 instead of 0.863), ``ISOLATION`` 4 (0.916), Cauchy's weight ``1 / (1 + (x / 2 cm)²)`` twice
(0.923, DJ3 0.855, sit-to-stand 0.930), and each marker judged by where its segment's other markers alone put it,
against its own median distance from there (0.919-0.922, but it down-weights the drop jumps' shoulder markers and
the squat's spine markers too). A trial in which no marker leaves its segment is reconstructed once.
``marker_weights="equal"`` keeps the paper's weights.
"""

from __future__ import annotations

import numpy as np

from ..model import BodyModel

#: A marker is judged against this many times the median distance of its segment's markers in the frame ...
ISOLATION = 3.0
#: ... and beyond it gets Huber's weight with this scale [m].
HUBER_M = 0.02
#: Fewest markers on a segment for its median to judge one of them.
MIN_MARKERS = 4
#: Weight of the root segment's (the pelvis's) markers.
ROOT_WEIGHT = 3.0
#: The reconstruction's marker weights: "weighted" (this module's rules, the default) or "equal" (the paper's).
MARKER_WEIGHTS = ("weighted", "equal")


def root_weights(model: BodyModel) -> np.ndarray:
    """Weights ``(M,)`` in ``model.marker_labels`` order: ``ROOT_WEIGHT`` for the root segment's markers (the
    first segment's, whose markers come first), else 1."""
    weights = np.ones(len(model.marker_labels))
    weights[:len(model.segments[0].markers)] = ROOT_WEIGHT
    return weights


def isolated_marker_weights(model: BodyModel, errors: np.ndarray) -> np.ndarray | None:
    """Per-frame weights ``(T, M)`` in ``model.marker_labels`` order from a reconstruction's marker distances
    ``errors`` ``(T, M)`` [m] (NaN where missing), as the module docstring says; None when every weight is 1. A
    segment is judged only in the frames in which ``MIN_MARKERS`` of its markers are present."""
    errors = np.asarray(errors, dtype=float)
    beyond = np.zeros_like(errors)
    end = 0
    for segment in model.segments:  # ``marker_labels`` runs segment by segment
        columns = slice(end, end + len(segment.markers))
        end = columns.stop
        block = errors[:, columns]
        judged = np.isfinite(block).sum(axis=1) >= MIN_MARKERS
        if judged.any():
            median = np.nanmedian(block[judged], axis=1, keepdims=True)
            beyond[judged, columns] = np.nan_to_num(block[judged] - ISOLATION * median)
    if not (beyond > HUBER_M).any():
        return None
    return np.minimum(1.0, HUBER_M / np.maximum(beyond, HUBER_M))
