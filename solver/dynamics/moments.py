"""Joint moments named like the clinical angles: ``hip_l_flexion_moment``, ``knee_l_flexion_moment``,
``ankle_l_dorsiflexion_moment``, ...

Each joint's torque (applied by the parent on the child, about the joint centre; the root's residual torque
about the root origin) is resolved on the axes of the clinical angle of the same name
(``solver.kinematics.angles.joint_axes``): ``M_i = τ·n_i``. These are the generalized forces of the
clinical angles (``Σ_i M_i α̇_i`` is the joint's power), the quantity OpenSim's inverse dynamics reports
for a model whose coordinates are those angles, with the same signs as the angle table: a positive
``knee_l_flexion_moment`` is the net muscle moment that flexes the knee. Around the axes a joint cannot
turn (a hinge knee's adduction) the moment is the one the joint's structure carries. The raw vectors stay
in ``Dynamics.joint_torque_world`` / ``joint_torque_parent``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kinematics.angles import clinical_joints, joint_axes
from .inverse import Dynamics


@dataclass(frozen=True)
class JointMoments:
    """``newton_metres`` (T, J, 3): for joint ``joints[j]`` (of segment ``segments[j]``; the first is the
    root), the moments about the axes of the angles ``components[j]``; ``axes`` (T, J, 3, 3) those axes in
    the world."""

    times: np.ndarray
    joints: tuple[str, ...]
    segments: tuple[str, ...]
    components: tuple[tuple[str, str, str], ...]
    newton_metres: np.ndarray
    axes: np.ndarray

    @property
    def names(self) -> list[str]:
        """Column names, joint by joint: ``<joint>_<component>_moment``."""
        return [f"{joint}_{component}_moment" for joint, parts in zip(self.joints, self.components)
                for component in parts]

    def moment(self, joint: str, component: str) -> np.ndarray:
        """One moment over time (T,) [N·m], e.g. ``moment("knee_l", "flexion")``."""
        j = self.joints.index(joint)
        return self.newton_metres[:, j, self.components[j].index(component)]


def joint_moments(dynamics: Dynamics) -> JointMoments:
    """The clinical joint moments of every joint of ``dynamics`` (root first; module docstring)."""
    model = dynamics.model
    rotations, _ = dynamics.poses
    axes = joint_axes(model, rotations)
    joints = clinical_joints(model)
    torque = dynamics.joint_torque_world[:, [j.segment for j in joints]]  # row 0: the root torque
    moments = np.einsum("tjik,tjk->tji", axes, torque)
    return JointMoments(times=dynamics.times, joints=tuple(j.joint for j in joints),
                        segments=tuple(model.segments[j.segment].name for j in joints),
                        components=tuple(j.components for j in joints), newton_metres=moments, axes=axes)
