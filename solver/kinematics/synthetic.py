"""Synthetic motions with known poses, for tests and benchmarks of the reconstruction.

``smooth_motion`` moves any ``BodyModel`` along smooth, random joint trajectories;
``synthetic_trial`` records its markers as a ``Trial`` (optionally with Gaussian noise);
``linkage_model`` is a small model with every joint type — free root, ball, hinge, universal
with non-perpendicular axes, and a weld carrying a further hinge — independent of any marker set.
"""

from __future__ import annotations

import numpy as np

from ..io.trial import Trial
from ..model.body import BodyModel, Segment
from ..rotations import quat_from_axis_angle, quat_mul, quat_normalize


def smooth_motion(model: BodyModel, n_frames: int, rate: float = 100.0, seed: int = 0, amplitude: float = 0.6,
                  start: np.ndarray | None = None) -> np.ndarray:
    """Generalized coordinates (T, nq): every joint turns by up to about ``amplitude`` [rad] from
    ``start`` (default: neutral, standing 1 m up) along sums of slow sinusoids (0.2-1 Hz); the
    root also travels 1 m/s forward."""
    rng = np.random.default_rng(seed)
    t = np.arange(n_frames) / rate
    q = np.tile(model.neutral_q() if start is None else np.asarray(start, float), (n_frames, 1))
    if start is None:
        q[:, 2] = 1.0
    q[:, 0] += t

    def wave(size: int) -> np.ndarray:
        frequency = rng.uniform(0.2, 1.0, (2, size))
        phase = rng.uniform(0, 2 * np.pi, (2, size))
        return amplitude / 2 * np.sin(2 * np.pi * frequency[:, None] * t[None, :, None] + phase[:, None]).sum(0)

    for s, i in zip(model.segments, model.q_starts):
        if s.joint in ("free", "ball"):
            j = i + 3 if s.joint == "free" else i
            turn = wave(3)
            angle = np.linalg.norm(turn, axis=1)
            axis = turn / np.maximum(angle, 1e-12)[:, None]
            q[:, j:j + 4] = quat_normalize(quat_mul(q[:, j:j + 4], quat_from_axis_angle(axis, angle)))
        elif s.joint in ("hinge", "universal"):
            q[:, i:i + s.nq] += wave(s.nq)
    return q


def synthetic_trial(model: BodyModel, q: np.ndarray, rate: float = 100.0, noise: float = 0.0,
                    seed: int = 0) -> Trial:
    """The model's markers along ``q`` as a ``Trial``, with Gaussian ``noise`` [m] per coordinate."""
    markers = model.marker_positions(q)
    if noise:
        markers = markers + np.random.default_rng(seed).normal(scale=noise, size=markers.shape)
    return Trial(source="synthetic", labels=model.marker_labels, markers=markers, rate=rate)


def _segment(name: str, parent: int, joint: str, offset, axes=(), markers: dict | None = None) -> Segment:
    markers = markers or {}
    return Segment(name=name, parent=parent, joint=joint, joint_offset=offset, axes=axes, tip=(0.0, 0.0, -0.3),
                   mass=1.0, com=(0.0, 0.0, -0.15), inertia=np.diag([0.01, 0.01, 0.002]),
                   markers=tuple(markers), marker_offsets=np.array(list(markers.values())).reshape(-1, 3))


def linkage_model() -> BodyModel:
    """Six segments with every joint type, markers on all but the weld (which has two)."""
    return BodyModel(segments=(
        _segment("base", -1, "free", (0, 0, 0), markers={
            "B1": (0.1, 0.1, 0.0), "B2": (-0.1, 0.1, 0.05), "B3": (0.0, -0.12, 0.0), "B4": (0.05, 0.0, 0.15)}),
        _segment("arm", 0, "ball", (0.0, 0.2, 0.1), markers={
            "A1": (0.05, 0.0, -0.1), "A2": (-0.04, 0.03, -0.2), "A3": (0.0, -0.05, -0.28)}),
        _segment("forearm", 1, "hinge", (0.0, 0.0, -0.3), axes=((0.0, 1.0, 0.0),), markers={
            "F1": (0.04, 0.0, -0.1), "F2": (-0.03, 0.04, -0.2), "F3": (0.0, -0.04, -0.25)}),
        _segment("leg", 0, "universal", (0.0, -0.15, -0.1), axes=((0.0, 1.0, 0.0), (1.0, 0.3, 0.2)), markers={
            "L1": (0.05, 0.02, -0.1), "L2": (-0.05, 0.0, -0.2), "L3": (0.0, -0.05, -0.3)}),
        _segment("plate", 2, "weld", (0.0, 0.0, -0.3), markers={"P1": (0.05, 0.0, -0.05), "P2": (-0.05, 0.0, -0.05)}),
        _segment("finger", 4, "hinge", (0.0, 0.05, -0.1), axes=((1.0, 0.0, 0.0),), markers={
            "G1": (0.02, 0.0, -0.05), "G2": (0.0, 0.03, -0.08), "G3": (-0.02, -0.02, -0.1)}),
    ), metadata={"template": "linkage"})
