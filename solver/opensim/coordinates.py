"""Our model's joints as OpenSim coordinates, and our motion and moments in those coordinates.

OpenSim's ground is Y up (X forward, Z right); ours is Z up (X forward, Y left). Every vector and tensor
goes through the same rotation ``AXES`` (``solver.io.conventions.from_z_up``: ``(x, y, z) -> (x, z, -y)``),
the world's and each body's alike, so an OpenSim body frame is ours turned like the ground and every
body frame is still parallel to the ground in the neutral pose.

Coordinates are the clinical angles (``solver.kinematics.angles``) wherever a joint's degrees of freedom
are clinical components: the root's three (Baker's Z-X-Y: ``pelvis_rotation_left``, ...) plus its
translations ``pelvis_tx/ty/tz`` (ground axes); a ball joint's three (Y-X-Z: ``hip_l_flexion``,
``hip_l_adduction``, ``hip_l_internal_rotation``); a hinge along a clinical axis gives that one
(``knee_l_flexion``), a universal joint along two of them those two (``ankle_l_dorsiflexion``,
``ankle_l_inversion``). The OpenSim axis of each is the clinical axis times its sign, so the coordinate
*is* the angle of the angle table (radians inside OpenSim, degrees in the .mot) and its generalized force
is the moment of the same name (``solver.dynamics.moments``). A hinge or universal joint about other axes
keeps its own angles (``<segment>_angle``, ``<segment>_angle_1``/``_2``) about its own axes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ..dynamics import Dynamics, joint_moments
from ..dynamics.derivatives import blended, blended_coordinates, butterworth, touchdown_filtered
from ..errors import SolverError
from ..kinematics.angles import ClinicalJoint, clinical_joints, joint_angles
from ..kinematics.motion import Motion
from ..model.body import BodyModel

#: Our world (and body) axes -> OpenSim's: v_opensim = AXES @ v_ours.
AXES = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])
TRANSLATIONS = ("tx", "ty", "tz")
_EYE = np.eye(3)


def to_opensim(vectors: np.ndarray) -> np.ndarray:
    """Vectors (..., 3) in our axes -> OpenSim's."""
    return np.asarray(vectors, dtype=float) @ AXES.T


@dataclass(frozen=True)
class OpenSimJoint:
    """The OpenSim joint of segment ``segment``: ``name`` (the clinical joint's; the root's ``ground_pelvis``, a
    weld's ``<segment>_weld``); ``coordinates`` (rotations; the root's
    translations follow in ``translations``); ``axes`` (n, 3), the rotation axes in OpenSim axes of the
    parent frame at zero (a universal's second axis turns with the first rotation, a ball's follow the
    Cardan sequence); ``components``, which clinical components the coordinates are (None: the joint's
    own angles about its own axes); ``clinical``, the joint's angle-table entry (None for a weld)."""

    segment: int
    kind: str
    name: str
    coordinates: tuple[str, ...]
    axes: np.ndarray
    components: tuple[int, ...] | None
    clinical: ClinicalJoint | None
    translations: tuple[str, ...] = ()

    @property
    def all_coordinates(self) -> tuple[str, ...]:
        return self.coordinates + self.translations


def _clinical_axes(joint: ClinicalJoint) -> np.ndarray:
    """The three signed clinical axes (3, 3) at zero, in our axes: ``sign_i e_{sequence_i}``."""
    return np.array([sign * _EYE["xyz".index(a)] for a, sign in zip(joint.sequence, joint.signs)])


def _matching_components(axes: np.ndarray, clinical: np.ndarray) -> tuple[int, ...] | None:
    """For joint axes (n, 3), the clinical components they turn about, in sequence order with the signs
    agreeing; None when they are not clinical axes."""
    found = []
    for axis in axes:
        match = [i for i in range(3) if np.allclose(axis, clinical[i], atol=1e-9)]
        if not match:
            return None
        found.append(match[0])
    return tuple(found) if found == sorted(set(found)) else None


def opensim_joints(model: BodyModel) -> tuple[OpenSimJoint, ...]:
    """One OpenSim joint per segment, the root first (module docstring)."""
    clinical = {j.segment: j for j in clinical_joints(model)}
    out = []
    for k, s in enumerate(model.segments):
        joint = clinical.get(k)
        if joint is None:
            out.append(OpenSimJoint(k, "weld", f"{s.name}_weld", (), np.zeros((0, 3)), (), None))
            continue
        signed = _clinical_axes(joint)
        components = (0, 1, 2) if s.joint in ("free", "ball") else _matching_components(s.axes, signed)
        if components is None:
            names = (f"{s.name}_angle",) if s.nv == 1 else tuple(f"{s.name}_angle_{i + 1}" for i in range(s.nv))
            out.append(OpenSimJoint(k, s.joint, joint.joint, names, to_opensim(s.axes), None, joint))
            continue
        names = tuple(f"{joint.joint}_{joint.components[i]}" for i in components)
        translations = tuple(f"{joint.joint}_{t}" for t in TRANSLATIONS) if s.joint == "free" else ()
        out.append(OpenSimJoint(k, s.joint, f"ground_{joint.joint}" if k == 0 else joint.joint, names,
                                to_opensim(signed[list(components)]), components, joint, translations))
    return tuple(out)


def coordinate_names(model: BodyModel) -> list[str]:
    """Every OpenSim coordinate, in the model's order."""
    return [name for joint in opensim_joints(model) for name in joint.all_coordinates]


def dynamics_coordinates(motion: Motion, dynamics: Dynamics) -> np.ndarray:
    """The generalized coordinates (T, nq) on every frame of ``motion`` that ``dynamics`` differentiated:
    filtered at its cutoff when it had one (``Dynamics.options``); a ``SolverError`` if they are not the
    coordinates of its frames."""
    cutoff = dynamics.options.get("cutoff_hz")
    filtered = isinstance(cutoff, (int, float)) and not isinstance(cutoff, bool)
    if filtered and "steady_cutoff_hz" in dynamics.options:  # the default's filterings, blended in time
        layers = touchdown_filtered(motion.model, motion.times, motion.q,
                                    dynamics.options.get("winter_cutoff_hz", cutoff))
        q = blended([(x, weight) for x, weight, _ in layers], partial(blended_coordinates, motion.model))
    else:
        q = butterworth(motion.model, motion.times, motion.q, cutoff) if filtered else motion.q
    frames = np.clip(np.searchsorted(motion.times, dynamics.times - 1e-9), 0, len(q) - 1)
    _, ours = motion.model.forward_kinematics(q[frames])
    _, theirs = motion.model.forward_kinematics(dynamics.q)
    if not (np.allclose(motion.times[frames], dynamics.times, atol=1e-9)
            and np.allclose(ours, theirs, atol=1e-9, equal_nan=True)):
        raise SolverError("The dynamics were computed from coordinates other than the motion's",
                          "export the motion and the dynamics of the same run")
    return q


def coordinate_values(model: BodyModel, times: np.ndarray, q: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The OpenSim coordinates of generalized coordinates ``q`` (T, nq): names, and values (T, C) in
    degrees (rotations) and metres (translations)."""
    angles = joint_angles(Motion.from_q(model, times, q, "export"))
    joints = opensim_joints(model)
    index = {j.segment: i for i, j in enumerate(j for j in joints if j.clinical is not None)}
    columns = []
    for joint in joints:
        if joint.components is not None and joint.coordinates:
            columns.append(angles.degrees[:, index[joint.segment], list(joint.components)])
        elif joint.coordinates:
            start = model.q_starts[joint.segment]
            columns.append(np.degrees(q[:, start:start + len(joint.coordinates)]))
        if joint.translations:
            columns.append(to_opensim(q[:, 0:3]))
    return coordinate_names(model), np.hstack(columns) if columns else np.zeros((len(q), 0))


def generalized_forces(dynamics: Dynamics) -> tuple[list[str], np.ndarray]:
    """Our moments as OpenSim names them: ``<coordinate>_moment`` [N·m] and, for the root's translations,
    ``<coordinate>_force`` [N] (ground axes); values (T, C)."""
    model = dynamics.model
    moments = joint_moments(dynamics)
    index = {name: j for j, name in enumerate(moments.segments)}
    names, columns = [], []
    for joint in opensim_joints(model):
        if joint.components is not None and joint.coordinates:
            columns.append(moments.newton_metres[:, index[model.segments[joint.segment].name],
                                                 list(joint.components)])
        elif joint.coordinates:
            columns.append(dynamics.axis_torques[:, joint.segment, :len(joint.coordinates)])
        names += [f"{name}_moment" for name in joint.coordinates]
        if joint.translations:
            columns.append(to_opensim(dynamics.root_wrench[:, :3]))
            names += [f"{name}_force" for name in joint.translations]
    return names, np.hstack(columns)
