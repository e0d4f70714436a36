"""Joint moments from the estimated contact against those from the measured plates (issue 15, item 5).

Both are inverse dynamics (eq. 9 per joint) of the same motion and the same derivatives, one filtering; only
the external forces differ: the contact estimated from the motion alone (``Contact.dynamics``) or the trial's
force plates (``plates.plate_forces``). Their difference is the estimate's contact error carried up the legs,
whatever the model's own errors, which both share (for a model-independent reference,
``scripts/compare_opensim_id.py`` compares with OpenSim's inverse dynamics).

Compared: the main joints' sagittal moments, ``MAIN_MOMENTS`` of each side (``dynamics.moments``: the clinical
angles' axes and signs), in N·m per kg of body mass. Figures: Pearson's r and the RMSE over every frame both
define, and over the frames in which the plates see all the contact (``PlateComparison.plates_see_all``): where
a box, a seat or a foot off the plates carries load, the moments from the plates miss that load and are no
reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dynamics import Dynamics, joint_moments
from .compare import correlation

#: The moments compared: (joint, component), each on both sides where the model has them.
MAIN_MOMENTS = (("hip", "flexion"), ("knee", "flexion"), ("ankle", "dorsiflexion"))


@dataclass(frozen=True)
class MomentComparison:
    """``from_estimate`` and ``from_plates`` (T, N) [N·m/kg] the moments ``names`` (N,) with the estimated contact
    and with the plates; ``plates_see_all`` (T,) the frames in which the plates see all the contact."""

    names: tuple[str, ...]
    from_estimate: np.ndarray
    from_plates: np.ndarray
    plates_see_all: np.ndarray

    def figures(self, frames: np.ndarray) -> dict:
        """Per moment, r and RMSE [N·m/kg] over ``frames`` (T,) where both are defined; and their means."""
        per = {}
        for n, name in enumerate(self.names):
            estimate, plates = self.from_estimate[:, n], self.from_plates[:, n]
            kept = frames & np.isfinite(estimate) & np.isfinite(plates)
            a, b = estimate[kept], plates[kept]
            per[name] = {"r": correlation(a, b),
                         "rmse_nm_per_kg": float(np.sqrt(np.mean((a - b) ** 2))) if len(a) else float("nan"),
                         "frames": int(kept.sum())}
        return {"mean_r": _mean([v["r"] for v in per.values()]),
                "mean_rmse_nm_per_kg": _mean([v["rmse_nm_per_kg"] for v in per.values()]), "moments": per}

    def summary(self) -> dict:
        """The figures over every frame and where the plates see all, JSON-ready."""
        return {**self.figures(np.ones(len(self.plates_see_all), bool)),
                "where_plates_see_all": self.figures(self.plates_see_all)}


def compare_moments_with_plates(estimated: Dynamics, measured: Dynamics, plates_see_all: np.ndarray
                                ) -> MomentComparison | None:
    """The main joint moments (``MAIN_MOMENTS``) with the estimated contact (``estimated``) against those with the
    plates (``measured``), per kg of body mass; ``plates_see_all`` (T,) on their frames. None when the two are
    not on the same frames or the model has none of those joints."""
    if len(estimated.times) != len(measured.times) or not np.allclose(estimated.times, measured.times) \
            or len(plates_see_all) != len(estimated.times):
        return None
    ours, theirs = joint_moments(estimated), joint_moments(measured)
    pairs = [(f"{joint}_{side}", component) for joint, component in MAIN_MOMENTS for side in "lr"
             if f"{joint}_{side}" in ours.joints]
    if not pairs:
        return None
    mass = estimated.model.total_mass
    return MomentComparison(names=tuple(f"{j}_{c}_moment" for j, c in pairs),
                            from_estimate=np.stack([ours.moment(j, c) for j, c in pairs], axis=1) / mass,
                            from_plates=np.stack([theirs.moment(j, c) for j, c in pairs], axis=1) / mass,
                            plates_see_all=np.asarray(plates_see_all, dtype=bool))


def _mean(values: list[float]) -> float:
    """The mean of the finite ``values``, NaN if none is."""
    finite = [v for v in values if np.isfinite(v)]
    return float(np.mean(finite)) if finite else float("nan")
