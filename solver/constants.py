"""Physical constants, defined once for every solver and export."""

from __future__ import annotations

import numpy as np

#: Standard gravity [m/s²]: the solvers, the MJCF and OpenSim exports and the mass from quiet standing.
STANDARD_GRAVITY = 9.81
#: Gravity along world -Z (Z up), as in Pinocchio and MuJoCo.
GRAVITY = np.array([0.0, 0.0, -STANDARD_GRAVITY])
