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
"""

from __future__ import annotations

import numpy as np

from .frames import unit

HALF_WIDTH = {"knee": 0.15, "ankle": 0.10, "elbow": 0.13, "wrist": 0.10}
RAB_SHOULDER = 0.17


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
