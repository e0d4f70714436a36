"""Zero-gravity simulation (Badler, Metaxas et al.): free-floating motion, self-orientation, ladder traversal,
minimum-torque motion, captured motion "in orbit". Every simulation returns a ``ZeroGravity``.

- ``tree``: the dynamic tree of 1-DoF joints with dummy links (§2) and its recursive dynamics (§5).
- ``motion_function``: the quintic kinematic motion function and its speed-limited variant (§3).
- ``free_floating``: prescribed joints, base from conservation of momentum, joint torques (§4-5).
- ``manoeuvres``: ``self_orientation`` — leg lifting, twisting, closing (§4).
- ``ladder``: ``ladder_traversal`` — hand over hand along a ladder, energy measures (§5, §7).
- ``minimum_torque``: B-spline motion minimising Σ∫τ² dt (§6).
- ``captured``: ``simulate_zero_gravity`` — a reconstructed motion's joints on a floating body.
- ``variant``: ``ZeroGravityOptions`` and ``zero_gravity_variant`` — the pipeline's zero-gravity stage.
"""

from .captured import simulate_zero_gravity
from .free_floating import JointPath, free_floating
from .ladder import ladder_traversal
from .manoeuvres import self_orientation
from .minimum_torque import minimum_torque
from .motion_function import motion_function, posture_sequence, quintic
from .result import ZeroGravity
from .variant import KINDS, ZeroGravityOptions, zero_gravity_variant

__all__ = ["KINDS", "JointPath", "ZeroGravity", "ZeroGravityOptions", "free_floating", "ladder_traversal",
           "minimum_torque", "motion_function", "posture_sequence", "quintic", "self_orientation",
           "simulate_zero_gravity", "zero_gravity_variant"]
