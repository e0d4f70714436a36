"""OpenSim in and out: the subject's model, motion, loads and moments in OpenSim's files, so that OpenSim
reproduces our numbers (``export``), and an OpenSim model's segment inertia for ours (``inertia``).

Written with the standard library: OpenSim itself is needed only to run the files (the peer tests do).
"""

from .coordinates import coordinate_names, coordinate_values, generalized_forces, opensim_joints
from .model import osim_string, write_osim

__all__ = ["coordinate_names", "coordinate_values", "generalized_forces", "opensim_joints", "osim_string",
           "write_osim"]
