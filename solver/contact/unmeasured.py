"""Joint torques with the measured plates and, where no plate measures, the estimated contact.

Beyond the papers. A trial's force plates lie in the floor under some of the
steps; a step beside them, a box the subject stands on or a chair she sits on
has none, so there inverse dynamics with the plates alone leaves the support's
force out of every joint it passes through (seated: the hips and knees carry
the trunk's weight that the seat carries) and in the root residual (the whole
body weight on the box). Here the contact estimated from the motion fills in
on exactly those supports: the plates' forces, plus the estimate's point
forces on every surface no plate lies on (``PlateComparison.plate_surfaces``:
a plate under a box measures the box) and those of a foot during its stances
that no plate stance matches (``PlateComparison.steps_off_plates``), in one
inverse dynamics (eq. 9 with both as external forces). Where the plates see
all the contact nothing changes.
"""

from __future__ import annotations

import numpy as np

from ..dynamics import Dynamics, ExternalForces, rnea
from .compare import PlateComparison
from .result import BODY_LOAD, Contact

#: ``Dynamics.options["external"]`` of the torques this module computes: the plates and the supports
#: ``unmeasured_support`` names (a surface, or the steps, that never carries ``BODY_LOAD`` is not named, its
#: small forces still count).
DESCRIPTION = "measured force plates and the estimated contact {supports}"
STEPS_OFF_PLATES = "on steps off the plates"


def unmeasured_support(contact: Contact, comparison: PlateComparison) -> tuple[str, ExternalForces | None]:
    """The supports no plate measures, named (``"on raised surface 1 and on steps off the plates"``), and the
    estimate's point forces on them; no forces (None) when none carries ``BODY_LOAD`` of the body weight."""
    if not contact.surfaces:  # no support found: nothing to fill in
        return "", None
    surfaces = [j for j in range(len(contact.surfaces)) if j not in comparison.plate_surfaces]
    on_surfaces = contact.point_surface_forces[surfaces].sum(0)  # (T, K, 3)
    on_plates_surfaces = contact.point_surface_forces[sorted(set(comparison.plate_surfaces))].sum(0)
    stepping = np.zeros(on_plates_surfaces.shape[:2], bool)  # (T, K): the points of a foot off the plates
    for f, foot in enumerate(comparison.feet):
        stepping[:, contact.point_segments == contact.model.index(foot)] = comparison.steps_off_plates[:, f, None]
    off_plates = np.where(stepping[..., None], on_plates_surfaces, 0.0)
    least = BODY_LOAD * contact.body_weight
    supports = [f"on {contact.surface_name(j)}" for j in surfaces
                if np.nanmax(contact.surface_force[:, j, 2], initial=0.0) >= least]
    if np.nanmax(off_plates.sum(1)[:, 2], initial=0.0) >= least:
        supports.append(STEPS_OFF_PLATES)
    if not supports:
        return "", None
    forces = on_surfaces + off_plates
    loaded = np.flatnonzero(np.any(np.nan_to_num(forces) != 0.0, axis=(0, 2)))
    return " and ".join(supports), ExternalForces(contact.point_segments[loaded], contact.point_positions[:, loaded],
                                                  forces[:, loaded])


def with_unmeasured_support(with_plates: Dynamics, contact: Contact, comparison: PlateComparison) -> Dynamics | None:
    """Inverse dynamics with the plates' forces (``with_plates.external``) and the estimate's where no plate
    measures (module docstring), on the frames of ``with_plates``, which the contact shares; None when no
    such support carries load, or when the estimate's forces there leave the root force no lower than the
    plates alone (they would count a load the plates measure twice: a support found where there is none)."""
    supports, estimated = unmeasured_support(contact, comparison)
    if estimated is None:
        return None
    plates = with_plates.external
    external = ExternalForces(np.concatenate([plates.segments, estimated.segments]),
                              np.concatenate([plates.points, estimated.points], axis=1),
                              np.concatenate([plates.forces, estimated.forces], axis=1),
                              np.concatenate([plates.moments, estimated.moments], axis=1))
    filled = rnea(with_plates.model, with_plates.times, with_plates.q, with_plates.v, with_plates.a,
                  gravity=with_plates.gravity, external=external,
                  options={**with_plates.options, "external": DESCRIPTION.format(supports=supports)})
    acting = np.any(estimated.forces != 0.0, axis=(1, 2))
    root = [np.nanmean(np.linalg.norm(d.root_wrench[acting, :3], axis=1)) for d in (with_plates, filled)]
    return filled if root[1] < root[0] else None  # a fill-in that does not lower the root force counts twice
