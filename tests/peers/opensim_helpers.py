"""Running OpenSim on our exported files: inverse dynamics with our own velocities and accelerations, the
inverse-dynamics and inverse-kinematics tools on the files as a user would run them, and OpenSim's spline
derivatives in our layout (so that our inverse dynamics can use them).

OpenSim's coordinate rates from ours (``coordinate_states``): translations ``u = C v_root``; hinge and
universal coordinates are our angles (``u = v``, ``u̇ = a``); three Cardan coordinates (the root's, a ball
joint's) satisfy ``ω_p = N α̇`` with ``N = [n0 n1 n2]`` the signed clinical axes in the parent frame
(``solver.kinematics.angles.joint_axes``) and ``ω_p = R_rel ω_child``, so ``α̇ = N⁻¹ ω_p`` and, with
``ṅ0 = 0``, ``ṅ1 = α̇0 n0 × n1``, ``ṅ2 = (α̇0 n0 + α̇1 n1) × n2`` (``n1`` turns with the first rotation,
``n2`` with the child), so
``α̈ = N⁻¹ (R_rel ω̇_child − α̇1 α̇0 n0 × n1 − α̇2 (α̇0 n0 + α̇1 n1) × n2)``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import opensim as osim

osim.Logger.removeFileSink()  # no opensim.log in the working folder

from mocap_dynamics.solver.io import read_table
from mocap_dynamics.solver.kinematics.angles import joint_axes
from mocap_dynamics.solver.opensim.coordinates import AXES, opensim_joints, to_opensim


def _cardan_joints(dynamics_model, q: np.ndarray):
    """Per joint with three Cardan coordinates: the joint, ``R_rel`` (T, 3, 3) and ``N`` (T, 3, 3), its signed
    clinical axes as columns in the parent frame."""
    rot, _ = dynamics_model.forward_kinematics(q)
    world_axes = joint_axes(dynamics_model, rot)
    clinical = [j for j in opensim_joints(dynamics_model) if j.clinical is not None]
    for i, joint in enumerate(clinical):
        if joint.kind in ("free", "ball"):
            k = joint.segment
            rel = joint.clinical.relative(dynamics_model, rot)
            parent = np.broadcast_to(np.eye(3), rel.shape) if k == 0 else rot[:, dynamics_model.segments[k].parent]
            yield joint, rel, np.einsum("tji,tcj->tic", parent, world_axes[:, i])


def _bias(n: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """``Ṅ α̇`` = ``α̇1 α̇0 n0 × n1 + α̇2 (α̇0 n0 + α̇1 n1) × n2`` (T, 3)."""
    n0, n1, n2 = n[..., 0], n[..., 1], n[..., 2]
    return rate[:, 1:2] * np.cross(rate[:, 0:1] * n0, n1) + rate[:, 2:3] * np.cross(
        rate[:, 0:1] * n0 + rate[:, 1:2] * n1, n2)


def coordinate_states(dynamics, values: dict[str, np.ndarray]) -> tuple[dict, dict, dict]:
    """OpenSim values (rad, m), speeds and accelerations per coordinate, from the exported coordinate values
    ``values`` (degrees and metres, as the .mot has them) and our velocities and accelerations."""
    model = dynamics.model
    q, u, udot = {}, {}, {}
    for joint in opensim_joints(model):
        start = model.v_starts[joint.segment]
        for i, name in enumerate(joint.translations):
            q[name] = values[name]
            u[name], udot[name] = to_opensim(dynamics.v[:, :3])[:, i], to_opensim(dynamics.a[:, :3])[:, i]
        for i, name in enumerate(joint.coordinates):
            q[name] = np.radians(values[name])
            if joint.kind in ("hinge", "universal"):
                u[name], udot[name] = dynamics.v[:, start + i], dynamics.a[:, start + i]
    for joint, rel, n in _cardan_joints(model, dynamics.q):
        start = model.v_starts[joint.segment] + (3 if joint.kind == "free" else 0)
        omega = np.einsum("tij,tj->ti", rel, dynamics.v[:, start:start + 3])
        alpha = np.einsum("tij,tj->ti", rel, dynamics.a[:, start:start + 3])
        rate = np.linalg.solve(n, omega[..., None])[..., 0]
        acceleration = np.linalg.solve(n, (alpha - _bias(n, rate))[..., None])[..., 0]
        for i, name in enumerate(joint.coordinates):
            u[name], udot[name] = rate[:, i], acceleration[:, i]
    return q, u, udot


def our_derivatives(model, q: np.ndarray, u: dict, udot: dict) -> tuple[np.ndarray, np.ndarray]:
    """Our generalized velocities and accelerations (T, nv) from OpenSim's coordinate speeds and
    accelerations: the inverse of ``coordinate_states``."""
    v, a = np.zeros((len(q), model.nv)), np.zeros((len(q), model.nv))
    for joint in opensim_joints(model):
        start = model.v_starts[joint.segment]
        if joint.translations:
            v[:, :3] = np.stack([u[n] for n in joint.translations], axis=1) @ AXES  # OpenSim's axes -> ours
            a[:, :3] = np.stack([udot[n] for n in joint.translations], axis=1) @ AXES
        if joint.kind in ("hinge", "universal"):
            for i, name in enumerate(joint.coordinates):
                v[:, start + i], a[:, start + i] = u[name], udot[name]
    for joint, rel, n in _cardan_joints(model, q):
        start = model.v_starts[joint.segment] + (3 if joint.kind == "free" else 0)
        rate = np.stack([u[name] for name in joint.coordinates], axis=1)
        acceleration = np.stack([udot[name] for name in joint.coordinates], axis=1)
        v[:, start:start + 3] = np.einsum("tji,tj->ti", rel, np.einsum("tij,tj->ti", n, rate))
        a[:, start:start + 3] = np.einsum("tji,tj->ti", rel, np.einsum("tij,tj->ti", n, acceleration)
                                          + _bias(n, rate))
    return v, a


def spline_derivatives(osim_file: Path, coordinates_file: Path, times: np.ndarray) -> tuple[dict, dict]:
    """The speeds and accelerations OpenSim's inverse-dynamics tool takes from a coordinates file: quintic
    GCV splines (interpolating) of the values in radians and metres, differentiated at ``times``."""
    model = osim.Model(str(osim_file))
    model.initSystem()
    storage = osim.Storage(str(coordinates_file))
    model.getSimbodyEngine().convertDegreesToRadians(storage)
    splines = osim.GCVSplineSet(5, storage)
    u, udot = {}, {}
    for i in range(splines.getSize()):
        spline = splines.get(i)
        at = [osim.Vector(1, float(t)) for t in times]
        u[spline.getName()] = np.array([spline.calcDerivative(osim.StdVectorInt([0]), x) for x in at])
        udot[spline.getName()] = np.array([spline.calcDerivative(osim.StdVectorInt([0, 0]), x) for x in at])
    return u, udot


def model_with_loads(osim_file: Path, loads_file: Path | None) -> tuple[osim.Model, osim.State]:
    model = osim.Model(str(osim_file))
    if loads_file is not None:
        model.addModelComponent(osim.ExternalLoads(str(loads_file), True))
    return model, model.initSystem()


def u_indices(model: osim.Model, state: osim.State) -> dict[str, int]:
    """Each coordinate's index in the state's speeds (set one speed at a time and look where it lands)."""
    coordinates = model.getCoordinateSet()
    names = [coordinates.get(i).getName() for i in range(coordinates.getSize())]
    found = {}
    for name in names:
        for other in names:
            coordinates.get(other).setSpeedValue(state, 0.0)
        coordinates.get(name).setSpeedValue(state, 1.0)
        speeds = state.getU()
        found[name] = int(np.argmax([abs(speeds.get(i)) for i in range(speeds.size())]))
    return found


def solve_inverse_dynamics(osim_file: Path, loads_file: Path | None, times: np.ndarray, q: dict, u: dict,
                           udot: dict) -> dict[str, np.ndarray]:
    """OpenSim's generalized forces per coordinate for the given states (InverseDynamicsSolver, the model's
    gravity and external loads applied)."""
    model, state = model_with_loads(osim_file, loads_file)
    coordinates = model.getCoordinateSet()
    index = u_indices(model, state)
    solver = osim.InverseDynamicsSolver(model)
    out = {name: np.empty(len(times)) for name in index}
    for t, time in enumerate(times):
        state.setTime(float(time))
        accelerations = osim.Vector(len(index), 0.0)
        for name, i in index.items():
            coordinates.get(name).setValue(state, float(q[name][t]), False)
            coordinates.get(name).setSpeedValue(state, float(u[name][t]))
            accelerations.set(i, float(udot[name][t]))
        model.realizeVelocity(state)
        forces = solver.solve(state, accelerations)
        for name, i in index.items():
            out[name][t] = forces.get(i)
    return out


def run_tool(tool, folder: Path):
    """Run an OpenSim tool whose setup names files relative to ``folder``; results go there too."""
    here = os.getcwd()
    os.chdir(folder)
    try:
        tool.setResultsDir(str(folder))
        if not tool.run():
            raise RuntimeError(f"OpenSim's {tool.getConcreteClassName()} failed")
    finally:
        os.chdir(here)


def inverse_dynamics_tool(setup: Path) -> object:
    """Run the exported inverse-dynamics setup; its output table."""
    tool = osim.InverseDynamicsTool(str(setup))
    run_tool(tool, setup.parent)
    return read_table(setup.parent / tool.getOutputGenForceFileName())


def inverse_kinematics_rms(setup: Path, marker_file: Path) -> float:
    """OpenSim IK of the exported setup on ``marker_file``: the RMS marker error over all frames [m]."""
    tool = osim.InverseKinematicsTool(str(setup))
    tool.set_marker_file(str(marker_file))
    tool.set_report_errors(True)
    run_tool(tool, setup.parent)
    errors = read_table(setup.parent / f"{tool.getName()}_ik_marker_errors.sto")
    return float(np.sqrt(np.mean(errors.column("marker_error_RMS") ** 2)))
