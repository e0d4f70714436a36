"""Body mass from the trial's own force plates, over the frames in which they carry the whole body.

Newton's second law for the whole body, ``m (a_CM + g) = F`` (``F`` the plates' total force, ``a_CM`` the
centre of mass's acceleration), holds in every frame in which the plates are the body's only support. Its
least-squares solution for ``m`` is taken over *runs* of such frames, each equation summed over its run
(impulse and momentum: ``m (Δv_CM + g T) = ∫ F dt``), so that the low-pass filter's rounding of peaks in
``a_CM`` cancels out of the sums. Only the vertical component is used: it carries the weight, while a
stance's horizontal impulses nearly cancel and leave the filter's edge effects. ``a_CM`` needs no mass:
inverse dynamics without external forces gives
``m' (a_CM + g)`` as the root force for any provisional mass ``m'`` with the right mass distribution.

Full support on the plates (``full_support``): the frames in which the plates see all the contact
(``PlateComparison.plates_see_all``: every foot that the estimate loads stands on a plate, and surfaces without
plates, a box or a seat, carry under ``compare.OFF_PLATES`` of the body weight) and the body is not in the air
(``AIRBORNE``). Runs shorter than ``MIN_RUN`` are
dropped, and runs in which the plates never carry ``CARRIED`` of the body weight: the body in the air, its
kinematic root force the filter's smear or noise. Fewer than ``MIN_SECONDS`` in all give no mass. Where the
runs disagree by more than ``MAX_SPREAD`` (relative RMS of their residuals), the longest run alone gives it if it
lasts ``MIN_SECONDS`` (the others are short, near the filter's ends; the source says so), else there is none: the
video drop jump with its lower-body markers only has a 0.55 s run giving 95.3 kg and a 0.12 s one at the trial's
end giving 67.5, where the assumed 70 kg for its 95 kg subject missed the plates by 51 % BW (README).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import option
from ..runs import runs
from .compare import PlateComparison
from .result import Contact

#: The body is in the air where neither the plates nor its kinematic root force carry this fraction of its weight.
AIRBORNE = 0.02
#: The shortest run of full support used [s], and the least time in all [s].
MIN_RUN, MIN_SECONDS = 0.05, 0.25
#: A run of full support has the plates carry this fraction of the body weight (of the mass assumed) at least once.
CARRIED = 0.5
#: Largest relative RMS residual of the runs' impulse equations for the mass to be trusted.
MAX_SPREAD = 0.05
#: A body mass from elsewhere that differs from the trial's plates' by more than this fraction is replaced by theirs
#: (a static trial's quiet standing) or reported (the user's, an OpenSim model's); a person's weight varies by 1-2 %
#: in a day.
AGREES = 0.03


@dataclass(frozen=True)
class PlateMass:
    """The mass [kg], the seconds and runs of full support it rests on, and the relative RMS residual; ``of``
    the runs found when the longest alone gives it (the runs disagreeing by ``spread``), else 0."""

    mass: float
    seconds: float
    runs: int
    spread: float
    of: int = 0

    @property
    def source(self) -> str:
        if self.of:
            return (f"force plates (m(a_CM + g) = F over {self.seconds:.2f} s of full support, the longest of "
                    f"{self.of} runs; together they disagree by {100 * self.spread:.1f} %)")
        return (f"force plates (m(a_CM + g) = F over {self.seconds:.2f} s of full support in {self.runs} "
                f"run{'' if self.runs == 1 else 's'}, "
                f"residual {100 * self.spread:.1f} %)")


def full_support(contact: Contact, comparison: PlateComparison) -> np.ndarray:
    """(T,) True in the frames in which the plates carry the whole body (see the module docstring)."""
    weight = contact.body_weight
    with np.errstate(invalid="ignore"):
        supported = (comparison.measured[:, 2] > AIRBORNE * weight) | (contact.root_wrench_without[:, 2]
                                                                     > AIRBORNE * weight)
        return comparison.plates_see_all & supported & np.isfinite(contact.root_wrench_without).all(1)


def mass_from_plates(contact: Contact, comparison: PlateComparison) -> PlateMass | None:
    """The body mass by the impulse form of ``m (a_CM + g) = F`` over full support (module docstring), or
    None when the plates do not carry the whole body long enough or the runs disagree."""
    dt = float(contact.times[1] - contact.times[0]) if len(contact.times) > 1 else 0.0
    carried = CARRIED * contact.body_weight
    support = [(a, b) for a, b in runs(full_support(contact, comparison))
               if (b - a) * dt >= MIN_RUN and np.nanmax(comparison.measured[a:b, 2]) >= carried]
    seconds = sum(b - a for a, b in support) * dt
    if seconds < MIN_SECONDS:
        return None
    per_kg = contact.root_wrench_without[:, 2] / contact.model.total_mass  # vertical a_CM + g
    impulse = np.array([comparison.measured[a:b, 2].sum() * dt for a, b in support])
    momentum = np.array([per_kg[a:b].sum() * dt for a, b in support])
    mass = float(np.sum(impulse * momentum) / np.sum(momentum * momentum))
    spread = float(np.sqrt(np.sum((impulse - mass * momentum) ** 2) / np.sum(impulse ** 2)))
    if mass > 0 and spread <= MAX_SPREAD:
        return PlateMass(mass, seconds, len(support), spread)
    longest = int(np.argmax([b - a for a, b in support]))
    a, b = support[longest]
    if (b - a) * dt < MIN_SECONDS or not momentum[longest] > 0:
        return None
    return PlateMass(float(impulse[longest] / momentum[longest]), (b - a) * dt, 1, spread, of=len(support))


def agrees(found: PlateMass, mass: float) -> bool:
    """Whether the trial's plates' mass (``found``) is within ``AGREES`` of ``mass`` [kg]."""
    return abs(found.mass / mass - 1.0) <= AGREES


def disagreement(found: PlateMass, mass: float, source: str) -> str | None:
    """A warning when the trial's plates give a body mass (``found``) more than ``AGREES`` away from the ``mass``
    [kg] used, from ``source``; None when they agree. The plates' forces are compared as recorded: an estimate
    from motion alone scales with the mass used, so it misses them by as much (subject4_walking1 with ``--mass
    60``: its plates give 63.7 kg; vertical GRF from motion alone 7.2 % BW RMSE, 3.1 with 63.7 kg)."""
    if agrees(found, mass):
        return None
    ratio = found.mass / mass
    return (f"The trial's force plates give a body mass of {found.mass:.1f} kg (m(a_CM + g) = F over "
            f"{found.seconds:.2f} s of full support), {100 * abs(ratio - 1):.0f} % {'more' if ratio > 1 else 'less'} "
            f"than the {mass:.1f} kg used ({source}): forces from motion alone miss these plates by as much. The "
            f"plates' calibration or the session may differ; set {option('mass', hint='kg')} to choose")


def replaced_static_mass(found: PlateMass, mass: float, source: str) -> str:
    """The warning when the trial's plates' mass (``found``) replaces a static trial's quiet standing's ``mass``
    [kg] (``source``) that it contradicts (``disagreement``). Beyond the issue, which asks for the plates' mass
    before an assumed one: as OpenSim's residual reduction adjusts the model's mass to the trial's own forces, a
    trial's dynamics are kept in balance with its own plates, which its joint moments with the plates and its
    forces from motion alone are judged against. Subject 4's static trial weighs 60.0 kg, its walks' and drop
    jump's plates 63.2-63.8, its sit-to-stand's 59.7, its OpenSim model (the subject's mass) 62.6: with the
    static's mass walking1's vertical GRF from motion alone missed its plates by 7.1 % BW, 3.1 without it (README).
    ``--mass`` keeps any mass."""
    ratio = found.mass / mass
    static = source.removeprefix("force plates (").removesuffix(")")
    return (f"Body mass {found.mass:.1f} kg from the trial's force plates (m(a_CM + g) = F over {found.seconds:.2f} "
            f"s of full support), {100 * abs(ratio - 1):.0f} % {'more' if ratio > 1 else 'less'} than the "
            f"{mass:.1f} kg of the {static}: the trial's dynamics balance its own plates. The plates' calibration "
            f"or the session may differ; set {option('mass', hint='kg')} to choose")
