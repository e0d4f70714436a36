"""Recursive algorithms on the one kinematic tree (``solver.model.tree``), as numba kernels shared by OTM,
inverse and forward dynamics, contact and zero gravity: forward kinematics (``kinematics``), the recursive
Newton-Euler algorithm (``rnea``) and the composite-rigid-body algorithm (``crba``), one algorithm a file.

Pinocchio's Model/Data split: the ``Tree`` is immutable and built once per model; ``kinematics.Data`` holds
one frame's work arrays. The per-frame functions here have no Python wrapper and no cache of their own
(``kernels.small``): they are compiled once per process into the cached per-trial kernels that call them,
and boxing their tuples of arrays would cost more compile time than their arithmetic; the joint and DoF
helpers are inlined by numba (``kernels.inlined``).
"""
