"""``ZeroGravity``: what every zero-gravity simulation returns (a Motion to key, torques to show, momentum)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..dynamics.inverse import Dynamics
from ..kinematics.motion import Motion
from ..rotations import matrix_to_quat, quat_to_rotvec
from ..report_schema import ZeroGravitySummary


def net_rotation(rotations: np.ndarray) -> tuple[float, np.ndarray]:
    """Angle [deg] and world axis of the rotation from the first to the last of ``rotations`` (T, 3, 3)."""
    turn = rotations[-1] @ rotations[0].T
    rotvec = quat_to_rotvec(matrix_to_quat(turn))
    angle = float(np.linalg.norm(rotvec))
    return float(np.degrees(angle)), (rotvec / angle if angle > 0 else np.zeros(3))


@dataclass(frozen=True)
class ZeroGravity:
    """A free-floating simulation (Badler et al. §4-5), time first.

    ``motion``: the model's motion (method ``"zero_gravity"``) with the base pose from momentum conservation,
    velocities and accelerations included. ``dynamics``: its inverse dynamics without gravity (joint torques;
    the root wrench is zero up to rounding). ``momentum`` (T, 6): linear [kg m/s] and angular momentum about
    the world origin [kg m²/s], world frame, computed from ``motion`` by
    ``solver.dynamics.energy.segment_momenta``; ``initial_momentum`` (6,) what it was held at;
    ``momentum_scale`` what drift is measured against.
    ``info``: what was simulated (manoeuvre parameters, energy measures, costs).
    """

    motion: Motion
    dynamics: Dynamics
    momentum: np.ndarray
    initial_momentum: np.ndarray
    momentum_scale: float
    timings: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    @property
    def momentum_drift(self) -> float:
        """Largest ``|h(t) - h₀|`` over the frames, relative to ``momentum_scale``."""
        return float(np.max(np.linalg.norm(self.momentum - self.initial_momentum, axis=1)) / self.momentum_scale)

    @property
    def angular_momentum(self) -> np.ndarray:
        """Angular momentum about the whole-body centre of mass (T, 3) [kg m²/s], world frame:
        ``L_c = L_O - c × p`` (constant in a free-floating simulation)."""
        centre = self.motion.model.body_com(self.motion.q)
        return self.momentum[:, 3:] - np.cross(centre, self.momentum[:, :3])

    @property
    def torso_reorientation(self) -> tuple[float, np.ndarray]:
        """Net rotation of the root segment (the torso link, Badler Fig. 11) from first to last frame:
        angle [deg] and unit world axis."""
        return net_rotation(self.motion.rotations[:, 0])

    def peak_torques(self) -> dict[str, float]:
        """Largest joint torque magnitude [N·m] of every jointed segment (generalized forces of its joint)."""
        model, tau = self.motion.model, self.dynamics.generalized_forces
        return {s.name: float(np.max(np.linalg.norm(tau[:, start:start + s.nv], axis=1)))
                for s, start in zip(model.segments[1:], model.v_starts[1:]) if s.nv}

    def summary(self) -> ZeroGravitySummary:
        """Key figures, JSON-ready."""
        angle, axis = self.torso_reorientation
        residual = self.dynamics.root_wrench
        return {"method": self.motion.method, "frames": self.motion.n_frames,
                "duration_s": float(self.motion.times[-1] - self.motion.times[0]),
                "torso_reorientation_deg": angle, "torso_reorientation_axis": axis.tolist(),
                "initial_momentum": self.initial_momentum.tolist(), "momentum_drift_relative": self.momentum_drift,
                "root_residual_max": {"force_n": float(np.abs(residual[:, :3]).max()),
                                      "torque_nm": float(np.abs(residual[:, 3:]).max())},
                "peak_joint_torque_nm": self.peak_torques(), "timings_s": dict(self.timings),
                **{k: v for k, v in self.info.items() if not isinstance(v, np.ndarray)}}
