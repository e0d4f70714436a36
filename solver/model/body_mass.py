"""The subject's body mass: given, weighed on the trials' force plates, or assumed (``calibrate`` step 5), and a
calibrated model scaled to another mass (``with_body_mass``: a mass found later, from the trial's own plates)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..constants import STANDARD_GRAVITY
from ..errors import InputError, ModelError, option
from ..io.plates import quiet_standing_weight
from .body import BodyModel
from .inertia import SHOE_MASS_FIX

DEFAULT_MASS = 70.0
ASSUMED_MASS = "assumed (no mass given and no quiet standing on force plates)"
#: The source of a mass weighed by a static trial's quiet standing, which the movement trial's own plates may
#: replace (``stages._dynamics``).
STATIC_STANDING = "force plates (quiet standing in the static trial"


def resolve_body_mass(mass, trials) -> tuple[float, str, tuple]:
    """The body mass [kg], its source and warnings: ``mass`` given ("user"), else the quiet-standing weight on
    the first of ``trials`` (static, movement) with force plates / g ("force plates", the static's named after
    ``STATIC_STANDING``), else ``DEFAULT_MASS``."""
    if mass is not None:
        if not np.isfinite(mass) or mass <= 0:
            raise ModelError(f"Body mass {option('mass', mass)} is not a positive number",
                             "give the subject's mass in kg")
        return float(mass), "user", ()
    for i, t in enumerate(trials):
        weight = quiet_standing_weight(t) if t is not None and t.plates else None
        if weight:
            return weight / STANDARD_GRAVITY, f"{STATIC_STANDING} {t.source})" if i == 0 else "force plates", ()
    return DEFAULT_MASS, ASSUMED_MASS, (
        f"Body mass assumed {DEFAULT_MASS:g} kg: no mass was given and no trial has quiet standing on force "
        f"plates. Set {option('mass', hint='kg')}, or give a static trial standing on force plates "
        f"({option('static', hint='path')}), for real masses and torques",)


def check_shoes(shoe_mass: float, body_mass: float) -> None:
    """One line unless 0 <= ``shoe_mass`` and both shoes weigh under a tenth of the body (an option's error, not
    the markers': no marker set found from the motion would mend it)."""
    if not (np.isfinite(shoe_mass) and 0 <= shoe_mass and 2 * shoe_mass < 0.1 * body_mass):
        raise InputError(f"{option('shoe_mass', shoe_mass)} is not a shoe's mass for a body of "
                         f"{body_mass:.1f} kg", SHOE_MASS_FIX)


def with_body_mass(model: BodyModel, mass: float, source: str, warning: str = "") -> BodyModel:
    """``model`` with every segment's mass and inertia scaled so that the body weighs ``mass`` [kg] (the mass
    distribution, and so every centre of mass, is kept), from ``source``; the calibration record follows. The
    shoes (``metadata["shoes"]``: segment -> kg) keep their mass: the body without them is scaled, and a shod
    segment, a foot alone, keeps its inertia per kilogram. ``warning``, if any, joins the calibration's."""
    shoes = model.metadata.get("shoes", {})
    worn = sum(shoes.values())
    ratio = (mass - worn) / (model.total_mass - worn)
    masses = [(s.mass - shoes.get(s.name, 0.0)) * ratio + shoes.get(s.name, 0.0) for s in model.segments]
    segments = tuple(replace(s, mass=m, inertia=s.inertia * (m / s.mass)) for s, m in zip(model.segments, masses))
    metadata = dict(model.metadata)
    if "calibration" in metadata:
        cal = metadata["calibration"]
        metadata["calibration"] = replace(cal, mass=mass, mass_source=source, warnings=tuple(
            w for w in cal.warnings if not w.startswith(f"Body mass assumed {DEFAULT_MASS:g} kg")) + (
            (warning,) if warning else ()))
    return replace(model, segments=segments, mass_source=source, metadata=metadata)
