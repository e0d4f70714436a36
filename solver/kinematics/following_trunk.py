"""A lower-body marker set's head, arms and trunk (Winter's HAT) following the pelvis's slow motion.

Beyond the papers. A lower-body marker set says nothing of the trunk: ``templates.with_hat`` makes the head,
arms and trunk one segment, the HAT, about 60 % of the body mass, and welded to the pelvis (``head="welded"``)
it copies every turn of the pelvis. But in gait the pelvis tilts, drops and turns by some 5-10° at the step and
stride frequencies (1-2 Hz) while the trunk above stays upright and counter-rotates; only slow turns, the lean
of a squat or of rising from a chair, carry the trunk along. So the HAT's world orientation is the pelvis's
low-passed at ``FOLLOW_HZ`` (its quaternion's components through Winter's zero-lag second-order Butterworth
filter, ``lowpass``, then normalised), and its joint rotation is ``R_pelvisᵀ R_slow``: at rest, welded.

Measured on the ten full-body trials of ``../shared/data`` (the torso's long axis predicted from the pelvis
alone, RMS angle over each trial, the pelvis-to-torso offset at the trial's median): walks 4.9-6.1° welded ->
3.3-4.5°, the sprint 16.8 -> 7.9°, the drop jumps and sit-to-stand 10.0-11.5 -> 10.4-12.5°, the squat 26.7 ->
26.8° (held upright, as the head is: 17-26° there; at 0.5 Hz the walks gain another degree and the leaning
trials lose 2-4°). Contact from motion alone with only the lower-body markers kept (README).
"""

from __future__ import annotations

import numpy as np

from ..lowpass import butter2, filtfilt, pad_length
from ..rotations import matrix_to_quat, quat_continuity, quat_to_matrix

#: The cutoff [Hz] below which the HAT follows the pelvis's turns (module docstring).
FOLLOW_HZ = 1.0


def following_joint(parent_rotation: np.ndarray, times: np.ndarray | None) -> np.ndarray:
    """The HAT's joint quaternions (child -> parent) ``(T, 4)`` under a pelvis of world rotations ``(T, 3, 3)``
    at ``times`` [s]: ``R_pᵀ R_slow``, ``R_slow`` the pelvis's rotations low-passed at ``FOLLOW_HZ``. Without
    times, or with fewer than three frames, welded (the identity)."""
    parent_rotation = np.asarray(parent_rotation, dtype=float)
    welded = np.tile([1.0, 0.0, 0.0, 0.0], (len(parent_rotation), 1))
    if times is None or len(times) < 3:
        return welded
    valid = np.isfinite(parent_rotation).all(axis=(1, 2))
    if valid.sum() < 3:
        return welded
    quats = quat_continuity(matrix_to_quat(parent_rotation[valid]))  # gaps bridged linearly, then filtered
    filled = np.array([np.interp(times, times[valid], quats[:, i]) for i in range(4)]).T
    rate = 1.0 / float(np.median(np.diff(times)))
    cutoff = min(FOLLOW_HZ, 0.4 * rate)  # below Nyquist even for a few frames a second
    slow = filtfilt(*butter2(cutoff, rate), filled, pad_length(cutoff, rate, len(filled)))
    slow /= np.linalg.norm(slow, axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        joint = matrix_to_quat(np.swapaxes(parent_rotation, -1, -2) @ quat_to_matrix(slow))
    joint[~valid] = np.nan
    return joint
