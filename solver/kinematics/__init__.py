"""Motion reconstruction: natural coordinates, OTM (paper and fast modes), joint angles, reports.

``reconstruct(trial, model)`` -> ``Motion`` (``reconstruct``); ``joint_angles(motion)`` gives clinical
angles (``angles``); ``convergence_summary``, ``marker_error_stats`` and ``plot_marker_errors`` report
a reconstruction the way Ausejo et al. do (Tables 1-4, Fig. 2; ``report``).
"""

from .angles import JointAngles, joint_angles
from .motion import Motion
from .natural import NaturalModel, natural_model
from .reconstruct import reconstruct
from .report import ConvergenceSummary, MarkerErrorStats, convergence_summary, marker_error_stats, marker_rms, \
    plot_marker_errors

__all__ = [
    "Motion", "reconstruct", "NaturalModel", "natural_model", "JointAngles", "joint_angles",
    "ConvergenceSummary", "MarkerErrorStats", "convergence_summary", "marker_error_stats", "marker_rms",
    "plot_marker_errors",
]
