"""A force plate under both feet, split between them by its centre of pressure.

Beyond the papers. A plate both feet stand on (one plate under a squat or a sit-to-stand, a single-belt
instrumented treadmill, GRF columns summed over the plates; or for a moment, one belt of a split-belt treadmill that
a foot lands on before the other has left it) measures their sum: one force ``F``, one centre of pressure ``c``
between the feet and one free moment ``M``. The joint torques with the plates need each foot's
share. The contact estimated from the motion tells where each foot presses on the plate's surface (its centre of
pressure ``c_l``, ``c_r``, from the estimate's point forces there, inside the plate's outline where the file gives
one); the plate's own centre of pressure then sets the
share by the lever rule, as for two loads on a beam:

    s_r = clip((c - c_l)·(c_r - c_l) / |c_r - c_l|², 0, 1),   s_l = 1 - s_r          (level components)

so the share is measured, and only the feet's centres of pressure come from the estimate (a 1 cm error in one
over feet 25 cm apart moves 4 % of the load). Where the estimate loads one foot on the plate, it takes all; where
it loads neither, the foot whose points lie nearest ``c``. Each foot then gets

    F_f,z = s_f F_z,   F_f,h = s_f F_z f_f,h / f_f,z + s_f (F_h - Σ_g s_g F_z f_g,h / f_g,z),
    c_f' = c_f + (c - Σ_g s_g c_g),   M_f = s_f (M - ẑ Σ_g ẑ·(c_g' - c) × F_g)

with ``f_f`` the estimate's force on the foot: each foot's force keeps the estimate's slant (in double support one
foot brakes while the other propels) under its measured vertical share, and the shares divide the level force the
slants leave of the plate's, so that the two forces, at their centres of pressure with their free moments, are the
plate's wrench exactly. In double support the per-foot level forces and the feet's centres of pressure thus rest on
the estimate; in single support the foot on the plate gets the plate's force and centre of pressure as measured.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..io.plates import mask_unloaded
from ..io.trial import PlateSamples, Trial
from .compare import PlateComparison, trial_frames
from .plate_feet import has_outline, outside
from .result import Contact

#: A foot the estimate loads with less than this fraction of the body weight on the plate's surface takes no share.
LOADED = 0.02


def split_where_shared(contact: Contact, trial: Trial, comparison: PlateComparison) -> tuple[Trial, str] | None:
    """The trial with each plate that carries both feet at once (``comparison.both_feet``, of ``contact`` with
    ``trial``: a plate under both feet, or one a foot lands on before the other has left it) replaced by one plate
    per foot, named "PLATE (FOOT)", on the marker frames, split as the module docstring says (the feet's load
    inside a plate's outline only, where it has one), and a sentence saying so; None when no plate is shared.
    Frames without an estimate get NaN (neither compared nor applied)."""
    frames = trial_frames(contact, trial)
    samples = trial.plate_samples
    plates = np.flatnonzero(comparison.both_feet.any(axis=0)).tolist() if len(contact.feet) == 2 else []
    if not plates:
        return None
    feet = [contact.model.index(foot) for foot in contact.feet]
    new_plates, columns = [], []
    for p, plate in enumerate(trial.plates):
        if p not in plates:
            new_plates.append(plate)
            columns.append((samples.force[:, p], samples.cop[:, p], samples.free_moment[:, p]))
            continue
        on_surface = contact.point_surface_forces[comparison.plate_surfaces[p]]  # (T, K, 3)
        if has_outline(plate.corners):  # its own load: a foot on the belt beside it takes none
            off = outside(plate.corners, contact.point_positions[..., :2], 0.0)
            on_surface = np.where(off[..., None], 0.0, on_surface)
        split = _split(samples.force[frames, p], samples.cop[frames, p], samples.free_moment[frames, p],
                       [on_surface[:, contact.point_segments == f] for f in feet],
                       [contact.point_positions[:, contact.point_segments == f] for f in feet],
                       LOADED * contact.body_weight)
        for name, (force, cop, moment) in zip(contact.feet, split):
            whole = [np.full((trial.n_frames, 3), np.nan) for _ in range(3)]
            for array, values in zip(whole, (force, cop, moment)):
                array[frames] = values
            new_plates.append(replace(plate, name=f"{plate.name} ({name})", foot=name, rate=trial.rate,
                                      start_time=trial.start_time, force=whole[0], cop=whole[1],
                                      free_moment=whole[2]))
            columns.append(whole)
    stacked = [np.stack([c[i] for c in columns], axis=1) for i in range(3)]
    names = ", ".join(repr(trial.plates[p].name) for p in plates)
    seconds = comparison.both_feet[:, plates].any(axis=1).sum() / trial.rate
    note = (f"force plate{'s' if len(plates) > 1 else ''} {names} carr{'y' if len(plates) > 1 else 'ies'} both feet "
            f"at once for {seconds:.2f} s (a plate under both feet, or a foot landing on a plate the other has not "
            "left): split between them by the plate's centre of pressure, the lever rule between the feet's centres "
            "of pressure from the motion; there each foot's level force and centre of pressure rest on the estimate "
            "(a plate under each foot alone would measure them)")
    return replace(trial, plates=tuple(new_plates), plate_samples=PlateSamples(*stacked)), note


def _split(force, cop, moment, foot_forces, foot_points, least):
    """The plate's ``force``, ``cop``, ``moment`` (T, 3) split between two feet, given each foot's estimated point
    forces (T, K_f, 3) and positions (T, K_f, 3): per foot ``(force, cop, moment)`` (T, 3) each (module docstring)."""
    estimated = np.stack([f.sum(1) for f in foot_forces], axis=1)  # (T, 2, 3)
    with np.errstate(invalid="ignore", divide="ignore"):
        pressing = np.stack([(p * f[..., 2:3]).sum(1) / f[..., 2].sum(1)[:, None]
                             for f, p in zip(foot_forces, foot_points)], axis=1)  # (T, 2, 3) feet's COPs
    place = np.stack([p.mean(1) for p in foot_points], axis=1)  # where each foot's points are (NaN: no pose)
    loaded = estimated[..., 2] >= least
    level = cop[:, :2]
    line = pressing[:, 1, :2] - pressing[:, 0, :2]
    with np.errstate(invalid="ignore", divide="ignore"):
        lever = np.clip(((level - pressing[:, 0, :2]) * line).sum(1) / (line ** 2).sum(1), 0.0, 1.0)
        nearest = np.argmin(np.linalg.norm(place[..., :2] - level[:, None], axis=-1), axis=1).astype(float)
    right = np.where(loaded.all(1), lever, np.where(loaded[:, 1], 1.0, np.where(loaded[:, 0], 0.0, nearest)))
    right = np.where(np.isfinite(right), right, nearest)  # a foot with no points reaching: the nearest takes all
    share = np.stack([1.0 - right, right], axis=1)  # (T, 2)
    where = np.where(loaded[..., None], pressing, place)  # a foot the estimate leaves unloaded: its points
    where[..., 2] = cop[:, None, 2]
    offset = cop - np.nansum(share[..., None] * np.nan_to_num(where), axis=1)  # (T, 3): level, 0 vertically
    points = where + offset[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        slant = np.where(loaded[..., None], estimated / estimated[..., 2:3], 0.0)  # level force per unit vertical
    slant[..., 2] = 0.0
    level_force = slant * (share * force[:, None, 2])[..., None]
    remainder = force - level_force.sum(1)
    remainder[:, 2] = force[:, 2]
    forces = level_force + share[..., None] * remainder[:, None]
    turn = np.cross(points - cop[:, None], forces)[..., 2].sum(1)  # the vertical moment the split adds
    moments = share[..., None] * moment[:, None]
    moments[..., 2] -= share * turn[:, None]
    forces[~(np.isfinite(force).all(1) & np.isfinite(place).all((1, 2)))] = np.nan  # no plate sample, or no pose
    return [(forces[:, f], *mask_unloaded(forces[:, f], points[:, f], moments[:, f])) for f in range(2)]
