"""Gap filling before reconstruction: spline, rigid-body, PCA and two-donor (hinge) fills of missing marker samples.

``fill_gaps(trial, options, segments)`` -> ``GapFill`` (``fill``); the methods are ``spline_fill``
(``spline``), ``rigid_fill`` (``rigid``), ``pca_fill`` (``pca``, Gløersen & Federolf 2016) and
``hinge_fill`` (``hinge``, two donors), gaps are found by ``find_gaps`` (``gaps``).
"""

from .fill import CHOICES, METHODS, Gap, GapFill, GapFillOptions, fill_gaps
from .gaps import Gaps, find_gaps
from .hinge import hinge_fill
from .pca import pca_fill
from .rigid import rigid_fill, rigid_motions
from .spline import spline_fill

__all__ = ["CHOICES", "METHODS", "Gap", "GapFill", "GapFillOptions", "fill_gaps", "Gaps", "find_gaps",
           "hinge_fill", "pca_fill", "rigid_fill", "rigid_motions", "spline_fill"]
