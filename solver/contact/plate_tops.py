"""A force plate under a box carries the box and whoever stands on it: its centre of pressure lies on the plate,
under the box's top, but its force reaches the body at the feet on the top. Applied at the plate's centre of
pressure, its level force would act on the feet with a lever arm too long by the box's height.

A force moved along its line of action is the same wrench: the plate's force ``F`` at its centre of pressure
``c`` with free moment ``M`` equals ``F`` at ``c + t F`` with the same ``M`` (``(c - c') × F = 0``). Here ``t``
puts the point on the top of the raised surface the plate measures (``PlateComparison.plate_surfaces``):
``n·(c + t F) = d``, so ``t = -(n·c - d) / (n·F)`` for the top plane ``n·x = d``. Only a plate whose centres of
pressure lie ``BELOW_TOP`` or more under that top (median while loaded) is moved: a plate on a box's top, or in
the floor, stays. Beyond the paper.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..io.trial import Trial
from .compare import PlateComparison
from .result import Contact

#: A plate is under the top of the raised surface it measures when its centres of pressure lie this far [m] or
#: more below it (median while loaded).
BELOW_TOP = 0.05


def at_surface_tops(contact: Contact, trial: Trial, comparison: PlateComparison) -> tuple[Trial, tuple[str, ...]]:
    """The trial with each plate under a raised surface's top applying its force at that top (module
    docstring), and a note per plate moved; ``trial`` itself and no note when none is."""
    samples = trial.plate_samples
    cop, notes = samples.cop.copy(), []
    for p, surface in enumerate(comparison.plate_surfaces):
        if surface == 0 or surface >= len(contact.surfaces):
            continue
        top = contact.surfaces[surface].top
        point, force = samples.cop[:, p], samples.force[:, p]
        depth = -top.distance(point)  # (T,) how far below the top, NaN while unloaded
        loaded = np.isfinite(depth)
        if not loaded.any() or np.median(depth[loaded]) < BELOW_TOP:
            continue
        with np.errstate(invalid="ignore", divide="ignore"):
            cop[:, p] = point + (depth / (force @ top.normal))[:, None] * force
        notes.append(f"force plate {trial.plates[p].name!r} lies under {contact.surface_name(surface)}'s top "
                     f"({100 * np.median(depth[loaded]):.0f} cm below it): its force is applied at that top, along its "
                     "line of action (the same force and moment), where the feet on it take it")
    if not notes:
        return trial, ()
    return replace(trial, plate_samples=replace(samples, cop=cop)), tuple(notes)
