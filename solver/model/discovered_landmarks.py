"""Anatomical landmarks of identified segments, for calibration (``markersets.LANDMARKS``).

A landmark is a marker where the segment's geometry shows one, in the body
frame of the identification (X forward, Y left, Z up; medians over frames):

- pelvis: ASIS = the most anterior pelvis marker on each side; PSIS = the
  markers of the posterior half (their mean).
- torso: C7 = the highest posterior marker near the midline; jugular notch
  (``supr``) = the highest anterior marker near the midline (with its
  mirror image on the other side, their mean); acromion = the most lateral
  upper torso marker on each side.
- head (three markers or more): left / right / front / back halves.
- elbow, knee, ankle, wrist: the joint markers of the proximal segment (the
  markers within ``NEAR_JOINT`` of the joint centre; two give lateral and
  medial, the lateral one farther from the midline); the wrist markers are
  the most distal forearm markers. Hand tip: the hand's markers.
- heel and toe: the foot markers farthest back and forward.

Where no marker shows a landmark, a *virtual marker* is made from the
functional joints (``identify_segments``): a lateral/medial pair on the
joint's axis ``VIRTUAL_HALF_WIDTH`` either side of its centre; the hip centre
as ``hjc``; ASIS and PSIS around the hip centres; acromion above the shoulder
centre, C7 and jugular notch behind and in front of the mid-shoulder. Their
labels start with ``VIRTUAL_PREFIX`` and they are landmarks only (never
attached to a segment). ``Landmarks.methods`` says, per landmark, which.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .identify_segments import Identification

#: Joint markers lie within this distance [m] of the joint centre.
NEAR_JOINT = 0.11
#: Markers within this distance [m] of the body's (or head's) midline count as on it.
MIDLINE = 0.05
#: Markers within this distance [m] of the most distal forearm marker are wrist markers.
WRIST_BAND = 0.04
#: Virtual lateral and medial markers lie this far [m] either side of a joint centre on its axis.
VIRTUAL_HALF_WIDTH = 0.04
VIRTUAL_PREFIX = "DISCOVERED_"


@dataclass
class Landmarks:
    """Landmark name -> marker labels (their mean is the landmark); virtual markers label -> ``(T, 3)``;
    per landmark how it was found; landmarks that could not be made."""

    landmarks: dict = field(default_factory=dict)
    virtual: dict = field(default_factory=dict)
    methods: dict = field(default_factory=dict)
    missing: list = field(default_factory=list)


class _Body:
    """Median marker coordinates in the body frame (forward, left, up) relative to a per-frame origin."""

    def __init__(self, markers: np.ndarray, ident: Identification):
        self.markers, self.ident = markers, ident

    def coords(self, idx, origin: np.ndarray) -> np.ndarray:
        rel = self.markers[:, list(idx)] - origin[:, None]
        with np.errstate(invalid="ignore"):
            return np.stack([np.nanmedian(np.sum(rel * self.ident.forward[:, None], -1), axis=0),
                             np.nanmedian(np.sum(rel * self.ident.left[:, None], -1), axis=0),
                             np.nanmedian(rel[..., 2], axis=0)], axis=1)

    def centroid(self, idx) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.nanmean(self.markers[:, list(idx)], axis=1)


def infer_landmarks(markers: np.ndarray, labels, ident: Identification) -> Landmarks:
    """The landmarks of the identified segments (see the module docstring)."""
    body = _Body(markers, ident)
    out = Landmarks()
    names = list(labels)

    def put(name, idx, how="marker"):
        out.landmarks[name] = tuple(names[i] for i in idx)
        out.methods[name] = how

    def virtual(name, trajectory, how):
        label = f"{VIRTUAL_PREFIX}{name.upper()}"
        out.virtual[label] = trajectory
        out.landmarks[name] = (label,)
        out.methods[name] = f"virtual: {how}"

    _pelvis(body, ident, put, virtual)
    _torso(body, ident, put, virtual)
    _head(body, ident, put)
    for side in "lr":
        for proximal, distal, joint in (("upper_arm", "forearm", "elbow"), ("thigh", "shank", "knee"),
                                        ("shank", "foot", "ankle")):
            _lateral_medial(body, ident, side, proximal, joint, put, virtual, out)
        _wrist(body, ident, side, put, out)
        _foot(body, ident, side, put, out)
    return out


def _pelvis(body, ident, put, virtual) -> None:
    pelvis = ident.markers_of("pelvis")
    hips = [ident.joints.get(f"hip_{s}") for s in "lr"]
    mid_hip = 0.5 * (hips[0].centre + hips[1].centre)
    xyz = body.coords(pelvis, mid_hip) if pelvis else np.zeros((0, 3))
    asis = {}
    for side, sign in (("l", 1), ("r", -1)):
        lateral = [k for k in range(len(pelvis)) if sign * xyz[k, 1] > MIDLINE]
        if lateral:
            asis[side] = max(lateral, key=lambda k: xyz[k, 0])
    if len(asis) == 2:
        front = max(xyz[asis["l"], 0], xyz[asis["r"], 0])
        back = xyz[:, 0].min()
        posterior = [k for k in range(len(pelvis)) if xyz[k, 0] < 0.5 * (front + back)]
        if posterior and front - back > 0.05:
            put("asis_l", [pelvis[asis["l"]]])
            put("asis_r", [pelvis[asis["r"]]])
            put("psis", [pelvis[k] for k in posterior])
            return
    up = np.array([0.0, 0.0, 1.0])
    for side, hip in zip("lr", hips):  # a pelvis frame around the functional hip centres
        virtual(f"hjc_{side}", hip.centre, "functional hip centre")
        virtual(f"asis_{side}", hip.centre + 0.06 * ident.forward + 0.08 * up, "in front of the hip centre")
    virtual("psis", mid_hip - 0.1 * ident.forward + 0.1 * up, "behind the mid-hip")


def _torso(body, ident, put, virtual) -> None:
    torso = ident.markers_of("torso")
    shoulders = {s: ident.joints[f"shoulder_{s}"].centre for s in "lr" if f"shoulder_{s}" in ident.joints}
    origin = body.centroid(torso) if torso else None
    xyz = body.coords(torso, origin) if torso else np.zeros((0, 3))
    upper = [k for k in range(len(torso)) if xyz[k, 2] > 0]
    up = np.array([0.0, 0.0, 1.0])
    for side, sign in (("l", 1), ("r", -1)):
        lateral = [k for k in upper if sign * xyz[k, 1] > 2 * MIDLINE]
        if lateral:
            put(f"acromion_{side}", [torso[max(lateral, key=lambda k: sign * xyz[k, 1])]])
        elif side in shoulders:
            virtual(f"acromion_{side}", shoulders[side] + 0.05 * up, "above the functional shoulder centre")
    central = [k for k in range(len(torso)) if abs(xyz[k, 1]) < 2 * MIDLINE]
    back = [k for k in central if xyz[k, 0] < 0]
    front = [k for k in central if xyz[k, 0] > 0]
    if back:
        put("c7", [torso[max(back, key=lambda k: xyz[k, 2])]])
    if front:
        top = max(front, key=lambda k: xyz[k, 2])
        pair = [k for k in front if k != top and abs(xyz[k, 2] - xyz[top, 2]) < 0.03
                and xyz[k, 1] * xyz[top, 1] < 0]
        put("supr", [torso[top]] + [torso[k] for k in pair[:1]])
    if (not back or not front) and len(shoulders) == 2:
        neck = 0.5 * (shoulders["l"] + shoulders["r"]) + 0.05 * up
        if not back:
            virtual("c7", neck - 0.06 * ident.forward, "behind the mid-shoulder")
        if not front:
            virtual("supr", neck + 0.06 * ident.forward - 0.03 * up, "in front of the mid-shoulder")


def _head(body, ident, put) -> None:
    head = ident.markers_of("head")
    if len(head) < 3:
        return
    xyz = body.coords(head, body.centroid(head))
    for name, axis, sign in (("head_l", 1, 1), ("head_r", 1, -1), ("head_front", 0, 1), ("head_back", 0, -1)):
        side = [head[k] for k in range(len(head)) if sign * xyz[k, axis] > 0.02]
        if side:
            put(name, side)
    top = int(np.argmax(xyz[:, 2]))
    others = np.delete(xyz[:, 2], top)
    if abs(xyz[top, 1]) < 0.03 and xyz[top, 2] - others.max() > 0.03:
        put("vertex", [head[top]])


def _lateral_medial(body, ident, side, proximal, joint, put, virtual, out) -> None:
    """Lateral and medial markers of a joint: the proximal segment's markers near its centre, else a virtual
    pair on its functional axis."""
    name = f"{joint}_{side}"
    if name not in ident.joints:
        if joint != "ankle" or not _low_shank(body, ident, side, put):
            out.missing.append(f"{joint}_lat_{side}")
        return
    centre = ident.joints[name].centre
    with np.errstate(invalid="ignore"):
        near = [i for i in ident.markers_of(f"{proximal}_{side}")
                if np.nanmedian(np.linalg.norm(body.markers[:, i] - centre, axis=1)) < NEAR_JOINT]
    sign = 1.0 if side == "l" else -1.0
    if near:
        lateral = sign * body.coords(near, centre)[:, 1]
        order = [near[k] for k in np.argsort(-lateral)]
        put(f"{joint}_lat_{side}", order[:1])
        if len(order) > 1 and lateral.max() - lateral.min() > 0.03:
            put(f"{joint}_med_{side}", order[-1:])
        return
    axis = ident.joints[name].axis
    if axis is None:
        out.missing.append(f"{joint}_lat_{side}")
        return
    with np.errstate(invalid="ignore"):
        outward = np.sign(np.nanmedian(np.sum(axis * ident.left, axis=1))) * sign
    for which, direction in (("lat", outward), ("med", -outward)):
        virtual(f"{joint}_{which}_{side}", centre + direction * VIRTUAL_HALF_WIDTH * axis,
                f"on the functional {joint} axis")


def _low_shank(body, ident, side, put) -> bool:
    """Without an ankle joint: the shank's lowest marker(s) are the malleoli."""
    shank = ident.markers_of(f"shank_{side}")
    if not shank:
        return False
    with np.errstate(invalid="ignore"):
        heights = [float(np.nanmedian(body.markers[:, i, 2])) for i in shank]
    low = [i for i, h in zip(shank, heights) if h < min(heights) + 0.03]
    put(f"ankle_lat_{side}", low[:1])
    return True


def _wrist(body, ident, side, put, out) -> None:
    forearm = ident.markers_of(f"forearm_{side}")
    elbow = ident.joints.get(f"elbow_{side}")
    if not forearm or elbow is None:
        out.missing.append(f"wrist_lat_{side}")
        return
    with np.errstate(invalid="ignore"):
        reach = np.array([np.nanmedian(np.linalg.norm(body.markers[:, i] - elbow.centre, axis=1)) for i in forearm])
    distal = [forearm[k] for k in np.flatnonzero(reach > reach.max() - WRIST_BAND)]
    sign = 1.0 if side == "l" else -1.0
    lateral = sign * body.coords(distal, body.centroid(distal))[:, 1]
    order = [distal[k] for k in np.argsort(-lateral)]
    put(f"wrist_lat_{side}", order[:1])
    if len(order) > 1:
        put(f"wrist_med_{side}", order[-1:])
    hand = ident.markers_of(f"hand_{side}")
    if hand:
        put(f"hand_tip_{side}", hand)


def _foot(body, ident, side, put, out) -> None:
    foot = ident.markers_of(f"foot_{side}")
    if len(foot) < 2:
        out.missing += [f"heel_{side}", f"toe_{side}"]
        return
    along = body.coords(foot, body.centroid(foot))[:, 0]
    put(f"heel_{side}", [foot[int(np.argmin(along))]])
    put(f"toe_{side}", [foot[int(np.argmax(along))]])
