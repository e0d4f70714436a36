"""Is the body plausible? The calibrated model against the human range, one check a function.

A wrong length unit or a wrong mass does not stop any solver; it gives a 3.8 m torso, torques of millions
of N·m or residuals of 6e12 % body weight, reported as if they were results. These checks stop such a run
with one line, or warn, and name the option that fixes it:

- ``check_mass_range``: a given body mass is a human's (``MASS_RANGE_KG``);
- ``body_scale``: the subject's limb lengths relative to de Leva's (1996) mean adult, and the stature that
  goes with them; ``check_segment_lengths``: outside ``SCALE_RANGE`` the length unit is wrong;
- ``plate_mass``: the body mass the trial's force plates show (quiet standing, ``io.quiet_standing_weight``);
  the one figure to replace by a better estimate from the plates;
- ``check_mass_against_plates``: a given mass the plates contradict;
- ``check_mass_against_size``: a mass that no body of this size has (body-mass index outside ``BMI_RANGE``);
- ``check_body`` runs them on a calibrated model (``pipeline.run``); ``explain_empty_markers`` adds to a
  calibration error that the file's markers were mostly empty.

The recording itself (marker spread, plate time base and signs) is checked at import, ``io.plausibility``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .constants import STANDARD_GRAVITY
from .errors import ModelError, option
from .io import quiet_standing_weight
from .io.plausibility import fitting_unit
from .io.trial import Trial
from .model import BodyModel
from .model.inertia import DE_LEVA

#: A body mass [kg] outside this range is no human's (a newborn to the heaviest people recorded).
MASS_RANGE_KG = (2.0, 500.0)
#: Limbs whose lengths give the body's scale (their anatomical lengths are defined the same in every
#: marker set), and the stature [m] of de Leva's 1996 mean adult, whose table lengths are scale 1.
SCALE_LIMBS = ("thigh", "shank", "upper_arm", "forearm")
STATURE_M = {"male": 1.741, "female": 1.735}
#: Body scale outside this range: no person (a toddler is about 0.5); a wrong unit is 10 or 1000 times off.
SCALE_RANGE = (0.35, 2.0)
#: Body-mass index [kg/m²] outside this range: a wrong mass (or plates read wrong).
BMI_RANGE = (12.0, 50.0)
#: A given mass this far from the plates' (ratio) is a warning; beyond ``MASS_REFUSED``, an error.
MASS_TOLERANCE, MASS_REFUSED = 1.15, 2.0


def check_mass_range(mass: float) -> None:
    """``ModelError`` unless ``mass`` [kg] is a human body mass."""
    low, high = MASS_RANGE_KG
    if not low <= mass <= high:
        raise ModelError(f"{option('mass', mass)} kg is no human body mass ({low:g} to {high:g} kg)",
                         f"give the subject's mass in kg, or leave out {option('mass', hint='kg')} to take it "
                         "from the force plates")


def body_scale(model: BodyModel) -> tuple[float, float] | None:
    """The median ratio of the model's limb lengths to de Leva's mean adult's, and the stature [m] it implies;
    None when the model has none of those limbs."""
    cal = model.metadata["calibration"]
    table = DE_LEVA[cal.sex]
    ratios = [length / (table[name.rsplit("_", 1)[0]].length / 1000.0) for name, length in cal.lengths.items()
              if name.rsplit("_", 1)[0] in SCALE_LIMBS and length > 0]
    if not ratios:
        return None
    scale = float(np.median(ratios))
    return scale, scale * STATURE_M[cal.sex]


def check_segment_lengths(model: BodyModel, trial: Trial) -> None:
    """``ModelError`` when the limbs are no person's: the length unit is wrong (the message names the one that
    fits, from the unit the trial was read in)."""
    found = body_scale(model)
    if found is None or SCALE_RANGE[0] <= found[0] <= SCALE_RANGE[1]:
        return
    scale, stature = found
    lengths = model.metadata["calibration"].lengths
    shown = ", ".join(f"{name} {lengths[name]:.3g} m" for name in sorted(lengths, key=_limb_order)[:4]
                      if name.rsplit("_", 1)[0] in SCALE_LIMBS)
    unit = fitting_unit(trial.metadata.get("length_scale", 1.0), scale, 1.0)
    raise ModelError(f"The body model's segments are no person's ({shown}: {scale:.3g} times an average "
                     f"adult's, a body {stature:.3g} m tall)",
                     f"the length unit is probably wrong: import with {option('import.units', unit)}" if unit
                     else "check the file's length units and marker labels")


def _limb_order(name: str) -> tuple[int, str]:
    part = name.rsplit("_", 1)[0]
    return (SCALE_LIMBS.index(part) if part in SCALE_LIMBS else len(SCALE_LIMBS), name)


def plate_mass(trial: Trial, static: Trial | None = None) -> tuple[float, str] | None:
    """The body mass [kg] the force plates show, and from which trial; None without quiet standing on plates."""
    for t in (static, trial):
        weight = quiet_standing_weight(t) if t is not None and t.plates else None
        if weight:
            return weight / STANDARD_GRAVITY, f"quiet standing on the force plates of {t.source}"
    return None


def check_mass_against_plates(mass: float, plates: tuple[float, str] | None) -> list[str]:
    """A warning when a given ``mass`` [kg] differs from the plates' by more than ``MASS_TOLERANCE``; a
    ``ModelError`` beyond ``MASS_REFUSED``."""
    if plates is None:
        return []
    weighed, where = plates
    ratio = mass / weighed
    if max(ratio, 1 / ratio) <= MASS_TOLERANCE:
        return []
    says = f"{option('mass', mass)} kg, but {where} weighs the subject at {weighed:.1f} kg"
    if max(ratio, 1 / ratio) > MASS_REFUSED:
        raise ModelError(f"Body mass {says} ({ratio:.3g} times as much)",
                         f"give the subject's real mass, or leave out {option('mass', hint='kg')} to use the plates'")
    return [f"Body mass {says} ({100 * (ratio - 1):+.0f} %): torques and residuals scale with the mass; check it"]


def check_mass_against_size(mass: float, source: str, stature: float) -> list[str]:
    """A warning when ``mass`` [kg] (from ``source``) gives a body-mass index outside ``BMI_RANGE`` for a body
    ``stature`` [m] tall."""
    bmi = mass / stature ** 2
    if BMI_RANGE[0] <= bmi <= BMI_RANGE[1]:
        return []
    what = "the force plates' sign, CORNERS or zero, " if source == "force plates" else ""
    return [f"A body mass of {mass:.1f} kg ({source}) for a body {stature:.2f} m tall (from its limb lengths) is a "
            f"body-mass index of {bmi:.0f}, outside {BMI_RANGE[0]:g}-{BMI_RANGE[1]:g}: check {what}the mass, or "
            f"set {option('mass', hint='kg')}"]


def check_body(model: BodyModel, trial: Trial, static: Trial | None = None) -> BodyModel:
    """Run the checks on a calibrated model: ``ModelError`` for what cannot be right, warnings (added to the
    calibration's) for what is doubtful; returns the model with those warnings."""
    check_segment_lengths(model, static if static is not None else trial)
    warnings = []
    if model.mass_source == "user":
        warnings += check_mass_against_plates(model.total_mass, plate_mass(trial, static))
    found = body_scale(model)
    if found is not None and not model.mass_source.startswith("assumed"):
        warnings += check_mass_against_size(model.total_mass, model.mass_source, found[1])
    if not warnings:
        return model
    cal = model.metadata["calibration"]
    return replace(model, metadata={**model.metadata,
                                    "calibration": replace(cal, warnings=cal.warnings + tuple(warnings))})


def explain_empty_markers(error: ModelError, trial: Trial) -> ModelError:
    """``error`` (the body model cannot be built), saying how many of the file's markers were empty, if any."""
    empty = trial.metadata.get("empty_markers") or []
    if not empty:
        return error
    total = len(empty) + trial.n_markers
    return ModelError(f"{error.what} (note: {len(empty)} of the file's {total} markers are empty in every frame "
                      f"and were dropped, {', '.join(empty[:6])}{' ...' if len(empty) > 6 else ''})",
                      error.fix)
