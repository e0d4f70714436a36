"""Joint angles in a clinical convention, per joint, in degrees.

Every joint angle is a Cardan (Tait–Bryan) decomposition of the rotation of a segment relative to
its parent, ``R_rel = R_parentᵀ R_child``; at anatomical neutral (all segment frames parallel: X
anterior, Y left, Z up, ``solver.model.body``) every angle is zero. The sequence is Y-X-Z, the
joint coordinate system of Grood & Suntay and of the ISB recommendations for the lower limb
(Wu et al. 2002): first about the parent's medio-lateral axis (flexion), then about the floating
anterior axis (ab/adduction), last about the child's long axis (rotation). Signs follow clinical
use, so that a name says which way is positive; the right side mirrors the left:

=========  ========  ===================  =====================  ====================
joint      segment   about Y              about X                about Z
=========  ========  ===================  =====================  ====================
lumbar     torso     flexion              lateral_bending_left   axial_rotation_left
neck       head      flexion              lateral_bending_left   axial_rotation_left
shoulder   upper_arm flexion              abduction              internal_rotation
elbow      forearm   flexion              adduction              internal_rotation
wrist      hand      flexion (palmar)     radial_deviation       pronation
hip        thigh     flexion              adduction              internal_rotation
knee       shank     flexion              adduction (varus)      internal_rotation
ankle      foot      dorsiflexion         inversion              internal_rotation
=========  ========  ===================  =====================  ====================

The pelvis is reported against the world axes (not the walking direction) with Baker's (2001)
sequence Z-X-Y: ``rotation_left``, ``obliquity_left_up``, ``anterior_tilt``. Segments of other
names get the raw right-handed Y-X-Z angles (``about_y``, ``about_x``, ``about_z``). Welded
segments have no joint and no angles; a hinge or universal joint reports all three components
(those it cannot move stay zero). The Y-X-Z shoulder angles are singular at 90° of abduction
(gimbal lock); near it, flexion and rotation trade off. Angles are unwrapped over time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .motion import Motion

_AXIS = {"x": 0, "y": 1, "z": 2}
_MEDIAL = ("flexion", "adduction", "internal_rotation")
#: segment -> (joint name, components about the sequence axes, signs on the left side / unpaired).
CONVENTIONS = {
    "torso": ("lumbar", ("flexion", "lateral_bending_left", "axial_rotation_left"), (1, -1, 1)),
    "head": ("neck", ("flexion", "lateral_bending_left", "axial_rotation_left"), (1, -1, 1)),
    "upper_arm": ("shoulder", ("flexion", "abduction", "internal_rotation"), (-1, 1, -1)),
    "forearm": ("elbow", _MEDIAL, (-1, -1, -1)),
    "hand": ("wrist", ("flexion", "radial_deviation", "pronation"), (-1, 1, -1)),
    "thigh": ("hip", _MEDIAL, (-1, -1, -1)),
    "shank": ("knee", _MEDIAL, (1, -1, -1)),
    "foot": ("ankle", ("dorsiflexion", "inversion", "internal_rotation"), (-1, -1, -1)),
}
PELVIS = ("pelvis", ("rotation_left", "obliquity_left_up", "anterior_tilt"), (1, 1, 1))
JOINT_SEQUENCE, PELVIS_SEQUENCE = "yxz", "zxy"


@dataclass(frozen=True)
class JointAngles:
    """``degrees`` (T, J, 3): for joint ``joints[j]`` (the joint of segment ``segments[j]``), the
    angles named ``components[j]`` about the axes of ``sequences[j]`` (module docstring)."""

    joints: tuple[str, ...]
    segments: tuple[str, ...]
    components: tuple[tuple[str, str, str], ...]
    sequences: tuple[str, ...]
    degrees: np.ndarray

    def angle(self, joint: str, component: str) -> np.ndarray:
        """One angle over time (T,) [deg], e.g. ``angle("knee_l", "flexion")``."""
        j = self.joints.index(joint)
        return self.degrees[:, j, self.components[j].index(component)]


def cardan(rotation: np.ndarray, sequence: str) -> np.ndarray:
    """Angles (..., 3) [rad] with ``rotation = R_a(θ0) R_b(θ1) R_c(θ2)`` for ``sequence = "abc"``
    (three different axes out of x, y, z); the middle angle in [-90°, 90°]."""
    i, j, k = (_AXIS[a] for a in sequence)
    parity = 1.0 if (j - i) % 3 == 1 else -1.0
    r = np.asarray(rotation, dtype=float)
    middle = np.arcsin(np.clip(parity * r[..., i, k], -1.0, 1.0))
    first = np.arctan2(-parity * r[..., j, k], r[..., k, k])
    last = np.arctan2(-parity * r[..., i, j], r[..., i, i])
    return np.stack([first, middle, last], axis=-1)


def _convention(name: str, is_root: bool):
    if is_root:
        return PELVIS, PELVIS_SEQUENCE
    side = name[-2:] if name[-2:] in ("_l", "_r") else ""
    base = name[:-2] if side else name
    if base not in CONVENTIONS:
        return (name, ("about_y", "about_x", "about_z"), (1, 1, 1)), JOINT_SEQUENCE
    joint, components, signs = CONVENTIONS[base]
    if side == "_r":
        signs = (signs[0], -signs[1], -signs[2])
    return (joint + side, components, signs), JOINT_SEQUENCE


def joint_angles(motion: Motion) -> JointAngles:
    """Clinical angles of every joint of ``motion`` (module docstring), from its segment rotations."""
    model, rot = motion.model, motion.rotations
    joints, segments, components, sequences, columns = [], [], [], [], []
    for k, s in enumerate(model.segments):
        if s.joint == "weld":
            continue
        (joint, names, signs), sequence = _convention(s.name, k == 0)
        relative = rot[:, k] if k == 0 else np.swapaxes(rot[:, s.parent], -1, -2) @ rot[:, k]
        angles = cardan(relative, sequence)
        angles[:, [0, 2]] = np.unwrap(angles[:, [0, 2]], axis=0)
        columns.append(np.degrees(angles) * np.asarray(signs, dtype=float))
        joints.append(joint)
        segments.append(s.name)
        components.append(tuple(names))
        sequences.append(sequence)
    degrees = np.stack(columns, axis=1) if columns else np.zeros((motion.n_frames, 0, 3))
    return JointAngles(tuple(joints), tuple(segments), tuple(components), tuple(sequences), degrees)
