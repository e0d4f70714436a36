"""``Motion``: a reconstructed (or simulated) movement of a ``BodyModel``.

Every reconstruction (OTM, Lee) and simulation (zero gravity) returns one, so
inverse dynamics, contact estimation and Blender keying accept any of them.
Arrays have time first. ``q`` and the optional ``v``/``a`` follow the layouts
documented in ``solver.model.body``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..model.body import BodyModel
from ..report_schema import ReconstructionSummary


@dataclass(frozen=True)
class Motion:
    """Per-frame generalized coordinates and segment poses, plus how they were obtained.

    ``rotations`` (T, S, 3, 3) and ``positions`` (T, S, 3) are the world poses
    of the segment frames (derived from ``q`` by forward kinematics).
    ``v``/``a`` are generalized velocities/accelerations when the method
    provides consistent ones (Lee's estimator does; OTM leaves them to the
    dynamics stage). The per-frame diagnostics are ``None`` when the method
    has none: ``converged`` (bool), ``iterations``, ``constraint_norm``
    (||Φ(q)||₂), ``objective`` (½ Ψᵀ W Ψ), and ``marker_errors`` (T, M):
    distance [m] between measured and model markers, NaN where the marker was
    missing, columns in ``marker_labels`` order. ``posed`` (T,) is False in
    the frames whose data placed no pose (no markers on the root: the pose
    before is held there, for display only); the dynamics leave them out.
    """

    model: BodyModel
    times: np.ndarray
    q: np.ndarray
    rotations: np.ndarray
    positions: np.ndarray
    method: str
    v: np.ndarray | None = None
    a: np.ndarray | None = None
    converged: np.ndarray | None = None
    iterations: np.ndarray | None = None
    constraint_norm: np.ndarray | None = None
    objective: np.ndarray | None = None
    marker_labels: tuple[str, ...] = ()
    marker_errors: np.ndarray | None = None
    posed: np.ndarray | None = None
    info: dict = field(default_factory=dict)

    @classmethod
    def from_q(cls, model: BodyModel, times: np.ndarray, q: np.ndarray, method: str, **kwargs) -> "Motion":
        """Build a Motion from coordinates, computing segment poses by forward kinematics."""
        q = np.asarray(q, dtype=float)
        rotations, positions = model.forward_kinematics(q)
        return cls(model=model, times=np.asarray(times, dtype=float), q=q, rotations=rotations,
                   positions=positions, method=method, **kwargs)

    @property
    def n_frames(self) -> int:
        return len(self.times)

    @property
    def rate(self) -> float:
        return float((len(self.times) - 1) / (self.times[-1] - self.times[0])) if len(self.times) > 1 else 0.0

    def summary(self) -> ReconstructionSummary:
        """The report's ``reconstruction`` section: convergence and the worst markers (``kinematics.report``)."""
        from .report import reconstruction_summary

        return reconstruction_summary(self)
