"""Ground contact forces estimated from motion alone (Brubaker, Sigal & Fleet 2009).

- ``model``: the contact model (eqs. 4-7) and its units, surfaces (a plane, a step or box: convex solids of
  planes), contact points on the body.
- ``estimate``: ``estimate_contact`` -> ``Contact`` (``result``): by default the surfaces found from resting
  points (``support``) with point forces solved per frame within friction cones (``per_frame``); or the
  paper's plane and springs fitted by minimising the root forces (``paper_fit``: eq. 10, L-BFGS-B with the
  analytic gradient of ``gradient``).
- ``compare``: estimated vs force-plate GRF (``compare_with_plates``; its plot is ``solver.plots.plot_grf``).
- ``compare_moments``: the joint moments with the estimated contact vs with the plates
  (``compare_moments_with_plates``).
- ``flight``: the root force the motion needs where no body point is near a surface (``Contact.flight``): zero
  for exact kinematics, the motion's own check of its forces without plates.
- ``plate_mass``, ``plate_timing``, ``plate_zero``: the body mass from the plates, and whether they keep time
  with the markers and were zeroed (warnings).
- ``shared_plates``: a plate under both feet split between them by its centre of pressure
  (``split_where_shared``).
- ``plate_tops``: a plate under a box applying its force at the box's top (``at_surface_tops``).
- ``applied_plates``: the plates as they act on the body, both changes made (``apply_plates``): the torques with
  the plates and the comparison use them.
- ``unmeasured``: the torques with the measured plates and, on surfaces no plate measures (a box, a seat), the
  estimated contact (``with_unmeasured_support``).
- ``export``: the estimated GRF per contact body as an OpenSim GRF .mot table (``grf_table``).
- ``simulate``: a body model landing and standing on known surfaces (``simulate_contact``): ground truth.
- ``ball``: the paper's bouncing ball (§3), simulated and estimated.
"""

from .ball import BallEstimate, BallTrajectory, estimate_ball, simulate_ball
from .compare import ContactEvent, PlateComparison, compare_with_plates
from .compare_moments import MomentComparison, compare_moments_with_plates
from .estimate import FORCE_MODELS, SURFACE_MODELS, default_dynamics, estimate_contact
from .paper_fit import Bounds, Optimisation, Start
from .result import Contact
from .support import Patch
from .export import grf_table
from .model import ContactConstants, Material, Plane, Surface, contact_forces, point_motion, resting_distance, \
    segment_wrenches
from .per_frame import PerFrameOptions
from .applied_plates import AppliedPlates, apply_plates
from .plate_tops import at_surface_tops
from .unmeasured import unmeasured_support, with_unmeasured_support
from .simulate import ContactSimulation, PoseController, simulate_contact

__all__ = [
    "FORCE_MODELS", "SURFACE_MODELS", "AppliedPlates", "BallEstimate", "BallTrajectory", "Bounds", "Contact",
    "ContactConstants", "ContactEvent", "ContactSimulation", "Material", "MomentComparison", "Optimisation", "Patch",
    "PerFrameOptions", "Plane", "PlateComparison", "PoseController", "Start", "Surface",
    "compare_moments_with_plates", "apply_plates", "at_surface_tops", "compare_with_plates",
    "contact_forces", "default_dynamics", "estimate_ball", "estimate_contact", "grf_table", "point_motion",
    "resting_distance", "segment_wrenches", "simulate_ball", "simulate_contact", "unmeasured_support",
    "with_unmeasured_support",
]
