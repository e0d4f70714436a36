"""Joint centres from markers, vectorized over frames (``(T, 3)`` arrays, metres, NaN where unseen).

- Hip: a hip-joint-centre marker when the set has one (e.g. OpenCap's virtual
  ``L_HJC``), else Harrington et al. (2007) J Biomech 40:595-602, the
  single-variable regressions on pelvic width PW (inter-ASIS distance) and
  depth PD (mid-ASIS to mid-PSIS), in mm, in the pelvis frame at mid-ASIS
  (X anterior, Y left, Z up): ``x = -0.24 PD - 9.9``, ``y = ±(0.33 PW + 7.3)``
  (+ left), ``z = -0.30 PW - 10.9``.
- Knee, ankle, elbow, wrist: midpoint of the lateral and medial markers; with
  only a lateral marker, the centre lies medially of it by a fraction of the
  segment length (``HALF_WIDTH``), along the pelvis (legs) or torso (arms)
  medio-lateral axis made orthogonal to the segment. The fractions are half the
  lateral-medial marker distance over the segment length on a static trial with
  medial markers (subject4_static1 of the OpenCap validation set: knee 0.154,
  ankle 0.105, elbow 0.13, wrist 0.104).
- Shoulder: below the acromion marker by 17 % of the bi-acromial distance along
  the torso's long axis (Rab, Petuskey & Bagley 2002, Gait Posture 15:113).
- Neck (C7/T1): midpoint of the C7 marker and the jugular notch (suprasternale).
- Lumbar: on the line from the mid-hip to the neck at the omphalion level of de
  Leva (1996), i.e. at the fraction lower-trunk length / trunk length (male
  0.274, female 0.343), fixed in the pelvis frame (median over frames).
- Upper body without markers (a lower-body set): neck, vertex, shoulders,
  elbows, wrists and hand tips placed from the pelvis (``upper_body_from_pelvis``),
  de Leva's mean lengths scaled by the subject's legs. Beyond de Leva (who
  gives no widths): the shoulder centres are ``SHOULDER_WIDTH`` trunk lengths
  apart and ``SHOULDER_DROP`` trunk lengths below the neck, the medians over
  the project's six full-body trials (CMU, squat_gaps, subject4 static and
  walking, the sprint, OpenCap video walking: 0.58-0.73 and 0.04-0.15).
- An arm whose markers cannot make its upper arm and forearm (a lost elbow
  marker, say) hangs straight down from its shoulder centre (``hanging_arm``),
  its parts de Leva's mean lengths scaled by the legs (beyond the papers).
"""

from __future__ import annotations

import numpy as np

from .frames import unit

HALF_WIDTH = {"knee": 0.15, "ankle": 0.10, "elbow": 0.13, "wrist": 0.10}
RAB_SHOULDER = 0.17
SHOULDER_WIDTH, SHOULDER_DROP = 0.63, 0.09
#: The inertia table's rows of an arm's parts, shoulder to hand tip.
ARM_ROWS = ("upper_arm", "forearm", "hand")


def harrington_hips(asis_l: np.ndarray, asis_r: np.ndarray, psis: np.ndarray,
                    pelvis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Left and right hip joint centres; ``pelvis`` is the pelvis frame ``(T, 3, 3)`` (X ant., Y left, Z up)."""
    mid_asis = 0.5 * (asis_l + asis_r)
    pw = 1000 * np.linalg.norm(asis_l - asis_r, axis=-1)
    pd = 1000 * np.linalg.norm(mid_asis - psis, axis=-1)
    x, y, z = -0.24 * pd - 9.9, 0.33 * pw + 7.3, -0.30 * pw - 10.9
    local = np.stack([x, y, z], axis=-1) / 1000
    mirror = np.array([1.0, -1.0, 1.0])
    return (mid_asis + np.einsum("...ij,...j->...i", pelvis, local),
            mid_asis + np.einsum("...ij,...j->...i", pelvis, local * mirror))


def condyle_centre(lateral: np.ndarray, medial: np.ndarray | None, proximal: np.ndarray,
                   medial_direction: np.ndarray, joint: str) -> np.ndarray:
    """Midpoint of lateral and medial markers, or (no medial marker) the lateral marker moved medially.

    ``medial_direction`` ``(T, 3)`` points from the lateral to the medial side;
    ``proximal`` is the segment's proximal joint centre (for its length and axis).
    """
    if medial is not None:
        return 0.5 * (lateral + medial)
    along = unit(proximal - lateral)
    m = unit(medial_direction - np.sum(medial_direction * along, axis=-1, keepdims=True) * along)
    length = np.linalg.norm(proximal - lateral, axis=-1, keepdims=True)
    return lateral + HALF_WIDTH[joint] * length * m


def rab_shoulder(acromion: np.ndarray, other_acromion: np.ndarray, torso: np.ndarray) -> np.ndarray:
    """Shoulder centre 17 % of the bi-acromial distance below the acromion along the torso Z axis."""
    width = np.linalg.norm(acromion - other_acromion, axis=-1, keepdims=True)
    return acromion - RAB_SHOULDER * width * torso[..., :, 2]


def lumbar_offset(mid_hip: np.ndarray, neck: np.ndarray, pelvis: np.ndarray, fraction: float) -> np.ndarray:
    """Lumbar joint centre in the pelvis frame (median over frames)."""
    local = np.einsum("...ji,...j->...i", pelvis, fraction * (neck - mid_hip))
    return np.nanmedian(local, axis=0)



def upper_body_from_pelvis(mid_hip: np.ndarray, pelvis: np.ndarray, scale: float,
                           rows: dict) -> tuple[dict[str, np.ndarray], str]:
    """Neck, vertex and per side shoulder, elbow, wrist and hand-tip centres ``(T, 3)`` of a subject whose
    upper body has no markers, and how they were placed.

    The trunk stands along the world vertical as the pelvis frame ``(T, 3, 3)`` sees it on average (the
    median over frames: upright on average); lengths are de Leva's (``rows``: trunk SUPR-MIDH from the
    mid-hip, head, upper arm, forearm, hand) times ``scale``; the arms hang straight down from the
    shoulders (module docstring), beside the trunk.
    """
    up = unit(np.nanmedian(pelvis[..., 2, :], axis=0))  # world Z in the pelvis frame
    lateral = unit(np.array([0.0, 1.0, 0.0]) - up[1] * up)

    def length(row: str) -> float:
        return scale * rows[row].length / 1000

    trunk = length("trunk")
    local = {"neck": trunk * up, "vertex": (trunk + length("head")) * up}
    for side, sign in (("l", 1.0), ("r", -1.0)):
        shoulder = (1 - SHOULDER_DROP) * trunk * up + sign * SHOULDER_WIDTH * trunk / 2 * lateral
        local[f"shoulder_{side}"] = shoulder
        local.update(hanging_arm(shoulder, -up, [length(row) for row in ARM_ROWS], side))
    tilt = np.degrees(np.arccos(np.clip(up[2], -1.0, 1.0)))
    method = (f"placed from the pelvis (no upper-body markers): trunk upright, {tilt:.0f} deg from the pelvis "
              f"Z axis; de Leva lengths x {scale:.2f} (from the legs)")
    return {name: mid_hip + pelvis @ point for name, point in local.items()}, method


def hanging_arm(shoulder: np.ndarray, down: np.ndarray, lengths, side: str) -> dict[str, np.ndarray]:
    """Elbow, wrist and hand-tip centres of an arm hanging straight along the unit vector ``down`` from
    ``shoulder`` (any frame, ``(3,)`` or ``(T, 3)``), its parts ``lengths`` [m] long (``ARM_ROWS``)."""
    elbow = shoulder + lengths[0] * down
    wrist = elbow + lengths[1] * down
    return {f"elbow_{side}": elbow, f"wrist_{side}": wrist, f"hand_tip_{side}": wrist + lengths[2] * down}
