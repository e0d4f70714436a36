"""Rigid-body dynamics: inverse dynamics with root forces, forward dynamics, energy.

- ``derivatives``: generalized velocities/accelerations by Brubaker's forward differences (quaternions
  per Appendix A) or central differences, optionally after a zero-lag Butterworth filter; Lee's consistent
  estimates pass through. ``cutoff``: the filter's cutoff by Winter's residual analysis.
- ``inverse``: recursive Newton-Euler over a whole trial -> ``Dynamics`` (joint torques, root wrench,
  joint powers); ``point_force_root_map`` is the linear map contact estimation needs.
- ``forward``: mass matrix (CRBA), forward dynamics, Euler/RK4 integration, ``replay``.
- ``energy``: Badler et al. §7 effort and energy measures, momentum.
- ``plates``: measured force-plate forces as external forces on the segment standing on each plate.
- ``moments``: joint moments about the clinical angles' axes (``hip_l_flexion_moment`` ...).
- ``export``: torques and root residuals as a table (.sto / CSV).
"""

from ..constants import GRAVITY
from .cutoff import residual_cutoff
from .derivatives import SCHEMES, body_rate, butterworth, central_differences, forward_differences, \
    motion_derivatives
from .energy import EnergyMeasures, energy_measures, momentum, segment_motion
from .export import dynamics_table
from .forward import forward_dynamics, mass_matrix, replay, simulate
from .inverse import Dynamics, ExternalForces, external_root_wrench, inverse_dynamics, point_force_root_map, rnea
from .moments import JointMoments, joint_moments
from .plates import plate_forces

__all__ = [
    "GRAVITY", "SCHEMES", "Dynamics", "EnergyMeasures", "ExternalForces", "JointMoments", "body_rate", "butterworth",
    "central_differences", "dynamics_table", "energy_measures", "joint_moments", "plate_forces", "residual_cutoff",
    "external_root_wrench", "forward_differences", "forward_dynamics", "inverse_dynamics", "mass_matrix",
    "momentum", "motion_derivatives", "point_force_root_map", "replay", "rnea", "segment_motion", "simulate",
]
