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
lumbar     hat       flexion              lateral_bending_left   axial_rotation_left
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

``joint_axes`` gives, per joint and frame, the three axes the named components turn about (the joint
coordinate system: the parent's first axis, the floating second axis, the child's third axis), signed so
that a positive rotation about each axis increases its component. The angular velocity of the child
relative to the parent is ``Σ_i α̇_i n_i``, so a torque ``τ`` does power ``Σ_i (τ·n_i) α̇_i``: ``τ·n_i``
is the generalized force of component ``i``, the joint moment named after it (``solver.dynamics.moments``).
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
    "hat": ("lumbar", ("flexion", "lateral_bending_left", "axial_rotation_left"), (1, -1, 1)),  # lower-body sets
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
class ClinicalJoint:
    """How the joint of segment ``segment`` (an index; 0 is the root, against the world) is reported: its
    name, the components about the axes of ``sequence`` and their signs (module docstring)."""

    segment: int
    joint: str
    components: tuple[str, str, str]
    signs: tuple[float, float, float]
    sequence: str

    def relative(self, model, rotations: np.ndarray) -> np.ndarray:
        """The rotation of the segment in its parent (the root: in the world) ``(T, 3, 3)`` from world
        rotations ``(T, S, 3, 3)``."""
        k = self.segment
        return rotations[:, k] if k == 0 else np.swapaxes(rotations[:, model.segments[k].parent], -1, -2) \
            @ rotations[:, k]


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


def clinical_joints(model) -> tuple[ClinicalJoint, ...]:
    """The reported joints of a ``BodyModel``: every segment but the welded ones, the root first."""
    joints = []
    for k, s in enumerate(model.segments):
        if s.joint != "weld":
            (joint, names, signs), sequence = _convention(s.name, k == 0)
            joints.append(ClinicalJoint(k, joint, tuple(names), tuple(float(x) for x in signs), sequence))
    return tuple(joints)


def joint_axes(model, rotations: np.ndarray) -> np.ndarray:
    """World axes ``(T, J, 3, 3)`` (``[t, j, i]`` is the unit axis of component ``i``) of every joint of
    ``clinical_joints(model)`` for segment rotations ``(T, S, 3, 3)``: for ``R_rel = R_a(θ0) R_b(θ1) R_c(θ2)``
    the parent's ``e_a``, the floating ``R_a(θ0) e_b`` and the child's ``e_c``, each times its sign."""
    rotations = np.asarray(rotations, dtype=float)
    eye = np.eye(3)
    out = np.empty(rotations.shape[:1] + (len(clinical_joints(model)), 3, 3))
    for j, joint in enumerate(clinical_joints(model)):
        a, b, c = (_AXIS[x] for x in joint.sequence)
        parent = np.broadcast_to(eye, rotations.shape[:1] + (3, 3)) if joint.segment == 0 else \
            rotations[:, model.segments[joint.segment].parent]
        first = cardan(joint.relative(model, rotations), joint.sequence)[:, 0]
        floating = np.cos(first)[:, None] * eye[b] + np.sin(first)[:, None] * np.cross(eye[a], eye[b])
        out[:, j, 0] = parent[..., :, a]
        out[:, j, 1] = np.einsum("tij,tj->ti", parent, floating)
        out[:, j, 2] = rotations[:, joint.segment, :, c]
        out[:, j] *= np.asarray(joint.signs)[:, None]
    return out


def joint_angles(motion: Motion) -> JointAngles:
    """Clinical angles of every joint of ``motion`` (module docstring), from its segment rotations."""
    model, joints = motion.model, clinical_joints(motion.model)
    columns = []
    for joint in joints:
        angles = cardan(joint.relative(model, motion.rotations), joint.sequence)
        angles[:, [0, 2]] = np.unwrap(angles[:, [0, 2]], axis=0)
        columns.append(np.degrees(angles) * np.asarray(joint.signs))
    degrees = np.stack(columns, axis=1) if columns else np.zeros((motion.n_frames, 0, 3))
    return JointAngles(tuple(j.joint for j in joints), tuple(model.segments[j.segment].name for j in joints),
                       tuple(j.components for j in joints), tuple(j.sequence for j in joints), degrees)
