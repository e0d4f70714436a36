"""Were the force plates zeroed? A plate not zeroed before the recording reads a steady force while nothing
stands on it. Under the plates' own 20 N threshold nothing shows it; above, the plate seems loaded all along,
at its centre, and its force enters the body mass from the plates and the torques with them (walking1 with 30 N
on each plate: 69.9 kg instead of 63.8, the joint moments with the plates at r 0.88 with the estimate's instead
of 0.98), and nothing else says so.

The motion tells when a plate carries nothing: the frames in which the contact estimated from it loads no point
within ``NEAR_M``, seen from above, of where the plate is loaded (the median of its centres of pressure while it
carries over ``PlateComparison.threshold``) and the plate reads under ``QUIET`` of its peak. Where those frames
last ``MIN_S`` or more, the plate's median vertical force over them is its offset; one of ``OFFSET_N`` or more,
read steadily (``STEADY``), is warned about. A plate loaded throughout (a subject standing on it) is not judged.
A C3D's ``FORCE_PLATFORM:ZERO`` frames are not used as a baseline (nor by ezc3d): a subject standing on a plate
in them would be taken for its offset. Beyond the paper.
"""

from __future__ import annotations

import numpy as np

from ..io.trial import Trial
from .compare import PlateComparison, trial_frames
from .result import Contact

#: Contact points this near [m] to where a plate is loaded, seen from above (a box on the plate), stand on it;
#: the estimate's load on them must stay under ``EMPTY`` of the body weight, and the plate's reading under
#: ``QUIET`` of its peak (not a stance the estimate misses), for the plate to carry nothing.
NEAR_M, EMPTY, QUIET = 0.3, 0.01, 0.25
#: The plate must be seen empty this long [s], and read this much [N] or more there, steadily (its interquartile
#: range under this fraction of it: an offset, not a foot resting on it that the estimate left unloaded).
MIN_S, OFFSET_N, STEADY = 0.1, 10.0, 0.5


def zero_warnings(contact: Contact, trial: Trial, comparison: PlateComparison) -> tuple[str, ...]:
    """A warning per plate that reads ``OFFSET_N`` or more while the motion puts nothing on it (module
    docstring); ``comparison`` is of ``contact`` with ``trial``."""
    frames = trial_frames(contact, trial)
    force, cop = trial.plate_samples.force[frames], trial.plate_samples.cop[frames]
    out = []
    for p, name in enumerate(comparison.plate_names):
        vertical = force[:, p, 2]
        with np.errstate(invalid="ignore"):
            stance = (vertical > comparison.threshold) & np.isfinite(cop[:, p]).all(1)
        if not stance.any():
            continue
        place = np.median(cop[stance, p], axis=0)
        near = np.linalg.norm(contact.point_positions[..., :2] - place[:2], axis=-1) < NEAR_M  # (T, K), seen from above
        load = np.where(near, np.nan_to_num(contact.point_forces[..., 2]), 0.0).sum(1)
        with np.errstate(invalid="ignore"):
            empty = (load < EMPTY * contact.body_weight) & (np.abs(vertical) < QUIET * np.nanmax(np.abs(vertical)))
        if empty.sum() < MIN_S * trial.rate:
            continue
        low, offset, high = np.percentile(vertical[empty], [25, 50, 75])
        if abs(offset) >= OFFSET_N and high - low < STEADY * abs(offset):
            out.append(f"Force plate {name!r} reads {offset:.0f} N while the motion puts nothing on it "
                       f"({empty.sum() / trial.rate:.2f} s): it was not zeroed before the recording. Its force, the "
                       "body mass from the plates and the torques with them carry that offset; zero the plates "
                       "before recording, or subtract it from the plate's data")
    return tuple(out)
