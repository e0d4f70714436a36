"""A pose bone's rotation channels from rotation matrices, in the bone's own rotation mode, continuous in time.

Blender keeps a bone's rotation as a quaternion (w, x, y, z), an axis and
angle (angle, x, y, z), or Euler angles in one of six orders; Euler ``XYZ``
turns about X first, then Y, then Z, all about the parent's fixed axes (the
extrinsic ``xyz`` of ``scipy.spatial.transform.Rotation``). Quaternions keep
one hemisphere from frame to frame and angles are unwrapped, so that the
linear interpolation between keys never takes the long way round.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from ..rotations import matrix_to_quat, quat_continuity

EULER_ORDERS = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")


def rotation_channels(rotations: np.ndarray, mode: str) -> tuple[str, np.ndarray]:
    """The data path's property name and the values ``(T, 4)`` or ``(T, 3)`` of rotations ``(T, 3, 3)`` for
    a pose bone whose ``rotation_mode`` is ``mode``."""
    quats = quat_continuity(matrix_to_quat(rotations))
    if mode == "QUATERNION":
        return "rotation_quaternion", quats
    if mode == "AXIS_ANGLE":  # axis kept on one side from frame to frame, angle unwrapped (may exceed a turn)
        length = np.linalg.norm(quats[:, 1:], axis=1)
        defined = length > 1e-9  # at no rotation the axis is free: keep the nearest defined one
        nearest = np.maximum.accumulate(np.where(defined, np.arange(len(quats)), 0))
        nearest = np.where(defined[nearest], nearest, np.argmax(defined)) if defined.any() else nearest
        axis = quats[nearest, 1:] / np.where(defined.any(), length[nearest], 1.0)[..., None]
        if not defined.any():
            axis[:] = [0.0, 1.0, 0.0]
        axis *= np.cumprod(np.r_[1.0, np.where(np.sum(axis[1:] * axis[:-1], axis=1) < 0, -1.0, 1.0)])[:, None]
        half = np.unwrap(np.arctan2(np.sum(quats[:, 1:] * axis, axis=1), quats[:, 0]))
        return "rotation_axis_angle", np.column_stack([2.0 * half, axis])
    if mode in EULER_ORDERS:
        angles = Rotation.from_matrix(rotations).as_euler(mode.lower())
        return "rotation_euler", np.unwrap(angles, axis=0)
    raise ValueError(f"unknown rotation mode {mode!r}")
