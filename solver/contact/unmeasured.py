"""Joint torques with the measured plates and, on the surfaces no plate measures, the estimated contact.

Beyond the papers. A trial's force plates lie in the floor; a box the subject
stands on or a chair she sits on usually has none, so in those phases inverse
dynamics with the plates alone leaves the support's force out of every joint
it passes through (seated: the hips and knees carry the trunk's weight that the
seat carries) and in the root residual (the whole body weight on the box). Here
the contact estimated from the motion fills in on exactly those surfaces: the
plates' forces, plus the estimate's point forces on every surface no plate lies
on (``PlateComparison.plate_surfaces``: a plate under a box measures the box),
in one inverse dynamics (eq. 9 with both as external forces). Where the plates
see all the contact nothing changes; a foot stepping off the plates onto the
floor is not filled in (the plates' footprints are not known for every file).
"""

from __future__ import annotations

import numpy as np

from ..dynamics import Dynamics, ExternalForces, rnea
from .compare import PlateComparison
from .result import BODY_LOAD, Contact

#: ``Dynamics.options["external"]`` of the torques this module computes.
DESCRIPTION = "measured force plates, estimated contact on {surfaces}"


def unmeasured_support(contact: Contact, comparison: PlateComparison) -> tuple[list[int], ExternalForces | None]:
    """The surfaces no plate lies on and the estimate's point forces on them; no forces (None) when those
    surfaces never carry ``BODY_LOAD`` of the body weight."""
    surfaces = [j for j in range(len(contact.surfaces)) if j not in comparison.plate_surfaces]
    if not surfaces:
        return surfaces, None
    forces = contact.point_surface_forces[surfaces].sum(0)
    if not np.nanmax(np.linalg.norm(np.nansum(forces, axis=1), axis=-1), initial=0.0) >= BODY_LOAD * \
            contact.body_weight:
        return surfaces, None
    loaded = np.flatnonzero(np.any(np.nan_to_num(forces) != 0.0, axis=(0, 2)))
    return surfaces, ExternalForces(contact.point_segments[loaded], contact.point_positions[:, loaded],
                                    forces[:, loaded])


def with_unmeasured_support(with_plates: Dynamics, contact: Contact, comparison: PlateComparison) -> Dynamics | None:
    """Inverse dynamics with the plates' forces (``with_plates.external``) and the estimate's on the surfaces
    no plate measures (module docstring), on the frames of ``with_plates``, which the contact shares; None
    when no such surface carries load."""
    surfaces, estimated = unmeasured_support(contact, comparison)
    if estimated is None:
        return None
    plates = with_plates.external
    external = ExternalForces(np.concatenate([plates.segments, estimated.segments]),
                              np.concatenate([plates.points, estimated.points], axis=1),
                              np.concatenate([plates.forces, estimated.forces], axis=1),
                              np.concatenate([plates.moments, estimated.moments], axis=1))
    names = " and ".join(contact.surface_name(j) for j in surfaces)
    return rnea(with_plates.model, with_plates.times, with_plates.q, with_plates.v, with_plates.a,
                gravity=with_plates.gravity, external=external,
                options={**with_plates.options, "external": DESCRIPTION.format(surfaces=names)})
