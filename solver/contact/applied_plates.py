"""The force plates as they act on the body, for the joint torques with the plates and for judging the estimate.

Beyond the papers. A plate reads the load on its own surface; two setups need the contact estimated from the
motion to tell where that load reaches the body:

- a plate under a box: its force moved along its line of action to the box's top, where the feet on the box take
  it (``plate_tops``);
- a plate under both feet: split between them by its centre of pressure (``shared_plates``).

``apply_plates`` makes both changes with one contact estimate, in that order (a plate under a box that both feet
stand on is moved, then split). The pipeline's dynamics step applies the plates so, so that the torques with the
plates are right however far a run goes; the contact step judges its estimate against the same plates.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from ..io.trial import Trial
from .compare import PlateComparison, compare_with_plates
from .plate_tops import at_surface_tops
from .result import Contact
from .shared_plates import split_where_shared


class AppliedPlates(NamedTuple):
    """``trial`` with its plates as they act on the body (the trial itself when none changes), ``how`` they were
    changed ("" when not: "at the top of the box they lie under, split between the feet"), a sentence per change
    (``notes``), the ``contact`` estimate they were placed by and its ``comparison`` with them, whose warnings
    begin with the notes."""

    trial: Trial
    how: str
    notes: tuple[str, ...]
    contact: Contact
    comparison: PlateComparison

    def judge(self, contact: Contact) -> PlateComparison:
        """``contact`` (another estimate of the same motion) against these plates, the notes first."""
        if contact is self.contact:
            return self.comparison
        comparison = compare_with_plates(contact, self.trial)
        return replace(comparison, warnings=self.notes + comparison.warnings)


def apply_plates(contact: Contact, trial: Trial) -> AppliedPlates:
    """The plates of ``trial`` (which has some) moved to the tops of the boxes they lie under and split between the
    feet where they carry both, by the estimate ``contact`` (module docstring)."""
    as_read = compare_with_plates(contact, trial)
    raised, moved = at_surface_tops(contact, trial, as_read)
    comparison = compare_with_plates(contact, raised) if moved else as_read
    split = split_where_shared(contact, raised, comparison)
    applied, notes = raised, moved
    if split is not None:
        applied, notes = split[0], moved + (split[1],)
        comparison = compare_with_plates(contact, applied)
    how = ", ".join(change for change, done in (("at the top of the box they lie under", moved),
                                                ("split between the feet", split is not None)) if done)
    return AppliedPlates(applied, how, notes, contact, replace(comparison, warnings=notes + comparison.warnings))
