"""Mocap Dynamics solver: motion capture in, physics out. Pure numpy/scipy/numba; never imports bpy.

Stages, one folder each, in data-flow order:

- ``io``         read and write C3D (with force plates), TRC, OpenSim .mot/.sto -> ``Trial``
- ``model``      the subject's rigid-body model: segments, joints, inertia, marker sets, calibration -> ``BodyModel``
- ``kinematics`` motion reconstruction (OTM, Lee) -> ``Motion``
- ``dynamics``   inverse/forward dynamics: joint torques and root (residual) forces
- ``contact``    ground contact forces estimated from motion alone
- ``zerog``      zero-gravity simulation
- ``pipeline``   one call that runs a trial end to end (the add-on, the CLI and the tests all use it)
"""
