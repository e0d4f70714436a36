"""Lee's constraint-consistent estimation of positions, velocities and accelerations (Lee 2009).

``estimate_lee(trial, model)`` -> ``Motion`` with consistent ``v`` and ``a`` (``estimate``). Modules, in data
order: ``bodies`` (the model's rigid bodies and joint points: welds merged, hinges as two points),
``initial`` (initial guesses from markers, §5.1), ``flight`` (flight phases and their targets), ``algo_p``
(orientations and CM positions), ``joints`` (what hinges and universal joints allow), ``splines`` (sp_p,
sp_v), ``algo_rates`` (Algo_v and Algo_a), ``assemble`` (back to the model's coordinates), ``residuals``
(constraint residuals), ``kernels`` (small numba linear algebra, threads).
"""

from .bodies import Bodies, bodies_of
from .estimate import RESIDUAL_TOLERANCES, estimate_lee, weight_schedule

__all__ = ["Bodies", "RESIDUAL_TOLERANCES", "bodies_of", "estimate_lee", "weight_schedule"]
