"""Measured ground reaction forces (force plates) as external forces on the body.

Each plate's force acts at its centre of pressure, with its free moment, on
the foot that stands on it: in every frame, the foot segment (a segment whose
name starts with "foot"; any segment if the model has none) owning the
contact point nearest to the COP (a plate split between the feet: its own foot). Unloaded frames (COP NaN)
apply nothing.
"""

from __future__ import annotations

import numpy as np

from ..io.trial import Trial
from ..kinematics.motion import Motion
from .inverse import ExternalForces


def plate_forces(trial: Trial, motion: Motion) -> ExternalForces | None:
    """The trial's plates as ``ExternalForces`` on the motion's frames; None if the trial has no plates."""
    samples = trial.plate_samples
    if samples is None or not trial.plates:
        return None
    model = motion.model
    feet = [k for k, s in enumerate(model.segments) if s.name.startswith("foot") and len(s.contact_points)]
    feet = feet or [k for k, s in enumerate(model.segments) if len(s.contact_points)]
    owners = np.concatenate([np.full(len(model.segments[k].contact_points), k) for k in feet])
    local = np.concatenate([model.segments[k].contact_points for k in feet])  # (C, 3) in segment frames
    world = motion.positions[:, owners] + np.einsum("tcij,cj->tci", motion.rotations[:, owners], local)
    cop = samples.cop[:len(motion.times)]  # (T, P, 3)
    distance = np.linalg.norm(world[:, None, :, :] - cop[:, :, None, :], axis=-1)  # (T, P, C)
    loaded = np.isfinite(cop).all(axis=-1)  # (T, P)
    segment = owners[np.argmin(np.where(np.isnan(distance), np.inf, distance), axis=-1)]  # (T, P)
    for p, plate in enumerate(trial.plates):
        if plate.foot in model.names:  # a plate split between the feet (``contact.shared_plates``): its own foot
            segment[:, p] = model.index(plate.foot)
    # One external force per (plate, foot) pair that ever occurs, so a plate can hand one foot over to the other.
    plate_index = np.broadcast_to(np.arange(cop.shape[1]), segment.shape)
    pairs = sorted(set(zip(plate_index[loaded].tolist(), segment[loaded].tolist())))
    points = np.full((len(cop), len(pairs), 3), np.nan)
    forces, moments = points.copy(), points.copy()
    for j, (plate, seg) in enumerate(pairs):
        on = loaded[:, plate] & (segment[:, plate] == seg)
        points[on, j] = cop[on, plate]
        forces[on, j] = samples.force[:len(cop)][on, plate]
        moments[on, j] = samples.free_moment[:len(cop)][on, plate]
    return ExternalForces(segments=np.array([seg for _, seg in pairs]), points=points, forces=forces, moments=moments)

