"""Our inverse and forward dynamics against Pinocchio and MuJoCo on the same models and trajectories.

Models: ``full15`` and ``brubaker12`` calibrated from the project's sample walk (welded hands, universal
ankles), and the 15-segment test tree with every joint type (universal joints with oblique axes).
Routes: the MJCF of ``write_mjcf`` loaded by MuJoCo (``mj_inverse``) and by Pinocchio (``rnea``), and a
Pinocchio model built here through its Python API straight from the ``BodyModel``. Trajectories have
exact velocities and accelerations. Agreement: 1e-8 relative (norm over all coordinates, per frame).

Layouts: MuJoCo numbers bodies depth first but otherwise matches our q, v and generalized forces (free
joint: world linear velocity, local angular velocity; force in world, torque local). Pinocchio takes
quaternions as x y z w, the free flyer's linear velocity in the local frame (its acceleration is the
derivative of that vector), and returns the root force in the local frame.
"""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.dynamics import ExternalForces, forward_dynamics, mass_matrix, rnea
from mocap_dynamics.solver.model import calibrate, write_mjcf
from mocap_dynamics.solver.model.mjcf import joint_names
from mocap_dynamics.solver.model.tree import dfs_order
from mocap_dynamics.solver.rotations import quat_to_matrix
from mocap_dynamics.solver.sample import make_sample
from tests.unit.test_dynamics_models import analytic_motion, humanoid

mujoco = pytest.importorskip("mujoco")
pin = pytest.importorskip("pinocchio")

TOL = 1e-8
N_FRAMES = 8


@pytest.fixture(scope="module")
def sample_trial():
    return make_sample().trial


@pytest.fixture(scope="module", params=["full15", "brubaker12", "test-tree"])
def case(request, sample_trial, tmp_path_factory):
    """Our model, MuJoCo and Pinocchio models from its MJCF, a Pinocchio model built directly, a trajectory."""
    model = humanoid(weld_head=True) if request.param == "test-tree" else calibrate(sample_trial, request.param)
    path = write_mjcf(model, tmp_path_factory.mktemp("mjcf") / "model.xml")
    times = np.sort(np.random.default_rng(1).uniform(0, 3, N_FRAMES))
    q, v, a = analytic_motion(model, np.random.default_rng(2), times)
    return model, mujoco.MjModel.from_xml_path(str(path)), pin.buildModelFromMJCF(str(path)), \
        pinocchio_model(model), (times, q, v, a)


def pinocchio_model(model):
    """Our BodyModel through Pinocchio's API: one joint per moving segment, in our order; welded segments
    are bodies of the joint that carries them."""
    pm = pin.Model()
    joint_of, frame_in_joint = {}, {}  # segment -> (Pinocchio joint, segment frame in that joint's frame)
    for k, s in enumerate(model.segments):
        if s.joint == "free":
            parent_joint, placement = 0, pin.SE3.Identity()
        else:
            parent_joint = joint_of[s.parent]
            placement = frame_in_joint[s.parent] * pin.SE3(np.eye(3), np.asarray(s.joint_offset))
        if s.joint == "weld":
            joint_of[k], frame_in_joint[k] = parent_joint, placement
        else:
            if s.joint == "free":
                jmodel = pin.JointModelFreeFlyer()
            elif s.joint == "ball":
                jmodel = pin.JointModelSpherical()
            elif s.joint == "hinge":
                jmodel = pin.JointModelRevoluteUnaligned(np.asarray(s.axes[0]))
            else:
                jmodel = pin.JointModelComposite(2)
                for axis in s.axes:
                    jmodel.addJoint(pin.JointModelRevoluteUnaligned(np.asarray(axis)))
            joint_of[k] = pm.addJoint(parent_joint, jmodel, placement, s.name)
            frame_in_joint[k] = pin.SE3.Identity()
        pm.appendBodyToJoint(joint_of[k], pin.Inertia(s.mass, np.asarray(s.com), np.asarray(s.inertia)),
                             frame_in_joint[k])
    return pm


def pinocchio_joint(pm, segment):
    name = segment.name if pm.existJointName(segment.name) else f"Composite_{segment.name}_0"
    return pm.getJointId(name)


def to_pinocchio(model, pm, q, v, a):
    """One frame of our q, v, a in Pinocchio's layout."""
    pq, pv, pa = np.zeros(pm.nq), np.zeros(pm.nv), np.zeros(pm.nv)
    for s, qs, vs in zip(model.segments, model.q_starts, model.v_starts):
        if s.joint == "weld":
            continue
        jid = pinocchio_joint(pm, s)
        iq, iv = pm.idx_qs[jid], pm.idx_vs[jid]
        if s.joint == "free":
            rot, w = quat_to_matrix(q[qs + 3:qs + 7]), v[vs + 3:vs + 6]
            local = rot.T @ v[vs:vs + 3]
            pq[iq:iq + 7] = np.r_[q[qs:qs + 3], q[qs + 4:qs + 7], q[qs + 3]]
            pv[iv:iv + 6] = np.r_[local, w]
            pa[iv:iv + 6] = np.r_[rot.T @ a[vs:vs + 3] - np.cross(w, local), a[vs + 3:vs + 6]]
        else:
            pq[iq:iq + s.nq] = np.r_[q[qs + 1:qs + 4], q[qs]] if s.joint == "ball" else q[qs:qs + s.nq]
            pv[iv:iv + s.nv], pa[iv:iv + s.nv] = v[vs:vs + s.nv], a[vs:vs + s.nv]
    return pq, pv, pa


def from_pinocchio(model, pm, tau, q):
    """Pinocchio generalized forces in our layout (root force back to the world frame)."""
    out = np.zeros(model.nv)
    for s, qs, vs in zip(model.segments, model.q_starts, model.v_starts):
        if s.joint == "weld":
            continue
        iv = pm.idx_vs[pinocchio_joint(pm, s)]
        out[vs:vs + s.nv] = tau[iv:iv + s.nv]
        if s.joint == "free":
            out[vs:vs + 3] = quat_to_matrix(q[qs + 3:qs + 7]) @ tau[iv:iv + 3]
    return out


def mujoco_order(model, x, starts, sizes):
    """Our per-segment blocks of ``x`` in MuJoCo's depth-first body order."""
    return np.concatenate([x[starts[k]:starts[k] + sizes[k]] for k in dfs_order(model)])


def from_mujoco(model, x):
    out = np.zeros(model.nv)
    position = 0
    for k in dfs_order(model):
        n = model.segments[k].nv
        out[model.v_starts[k]:model.v_starts[k] + n] = x[position:position + n]
        position += n
    return out


def mujoco_inverse(model, mj, q, v, a):
    data = mujoco.MjData(mj)
    nq, nv = [s.nq for s in model.segments], [s.nv for s in model.segments]
    data.qpos[:] = mujoco_order(model, q, model.q_starts, nq)
    data.qvel[:] = mujoco_order(model, v, model.v_starts, nv)
    data.qacc[:] = mujoco_order(model, a, model.v_starts, nv)
    mujoco.mj_inverse(mj, data)
    return data


def assert_close(ours, theirs, what):
    error = np.linalg.norm(ours - theirs) / np.linalg.norm(theirs)
    assert error < TOL, f"{what}: relative error {error:.2e}"


def test_rnea_agrees_with_pinocchio_and_mujoco(case):
    model, mj, pm_mjcf, pm_direct, (times, q, v, a) = case
    ours = rnea(model, times, q, v, a).generalized_forces
    for t in range(len(times)):
        theirs = from_mujoco(model, mujoco_inverse(model, mj, q[t], v[t], a[t]).qfrc_inverse)
        assert_close(ours[t], theirs, "MuJoCo mj_inverse")
        for name, pm in (("Pinocchio from MJCF", pm_mjcf), ("Pinocchio built directly", pm_direct)):
            tau = pin.rnea(pm, pm.createData(), *to_pinocchio(model, pm, q[t], v[t], a[t]))
            assert_close(ours[t], from_pinocchio(model, pm, tau, q[t]), name)


def test_root_wrench_agrees_with_the_peers(case):
    """The root wrench alone (force world, torque about the root origin in world) is the root part."""
    model, mj, _, pm, (times, q, v, a) = case
    wrench = rnea(model, times, q, v, a).root_wrench
    for t in range(len(times)):
        tau = from_pinocchio(model, pm, pin.rnea(pm, pm.createData(), *to_pinocchio(model, pm, q[t], v[t], a[t])),
                             q[t])
        rot = quat_to_matrix(q[t, 3:7])
        assert_close(wrench[t], np.r_[tau[:3], rot @ tau[3:6]], "root wrench vs Pinocchio")


def test_external_point_forces_agree_with_the_peers(case):
    """Point forces on two segments: Pinocchio's rnea with fext (local joint frames) and MuJoCo's
    mj_inverse minus the generalized force of the same forces (mj_applyFT)."""
    model, mj, _, pm, (times, q, v, a) = case
    rng = np.random.default_rng(3)
    segments = np.array([len(model.segments) - 1, len(model.segments) // 2])
    rot, pos = model.forward_kinematics(q)
    points = pos[:, segments] + rng.uniform(-0.1, 0.1, (len(times), 2, 3))
    forces = rng.normal(0, 200, (len(times), 2, 3))
    ours = rnea(model, times, q, v, a, external=ExternalForces(segments, points, forces)).generalized_forces
    for t in range(len(times)):
        data = mujoco_inverse(model, mj, q[t], v[t], a[t])
        applied = np.zeros(mj.nv)
        for k, point, force in zip(segments, points[t], forces[t]):
            body = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, model.segments[k].name)
            mujoco.mj_applyFT(mj, data, force, np.zeros(3), point, body, applied)
        assert_close(ours[t], from_mujoco(model, data.qfrc_inverse - applied), "MuJoCo with applied forces")

        pdata = pm.createData()
        pq, pv, pa = to_pinocchio(model, pm, q[t], v[t], a[t])
        pin.forwardKinematics(pm, pdata, pq)
        fext = [pin.Force.Zero() for _ in range(pm.njoints)]
        for k, point, force in zip(segments, points[t], forces[t]):
            jid = pinocchio_joint(pm, model.segments[k])
            frame = pdata.oMi[jid]
            local = frame.rotation.T @ force
            fext[jid] += pin.Force(local, np.cross(frame.rotation.T @ (point - frame.translation), local))
        tau = pin.rnea(pm, pdata, pq, pv, pa, fext)
        assert_close(ours[t], from_pinocchio(model, pm, tau, q[t]), "Pinocchio with fext")


def test_mass_matrix_and_forward_dynamics_agree_with_the_peers(case):
    """CRBA against MuJoCo's mj_fullM (same layout up to body order); forward dynamics against
    Pinocchio's ABA (accelerations compared in Pinocchio's layout)."""
    model, mj, _, pm, (times, q, v, a) = case
    ours_m = mass_matrix(model, q)
    tau = rnea(model, times, q, v, a).generalized_forces
    ours_a = forward_dynamics(model, q, v, tau)
    order = np.concatenate([np.arange(model.v_starts[k], model.v_starts[k] + model.segments[k].nv)
                            for k in dfs_order(model)])
    for t in range(len(times)):
        data = mujoco_inverse(model, mj, q[t], v[t], a[t])
        full = np.zeros((mj.nv, mj.nv))
        mujoco.mj_fullM(mj, data, full)
        assert_close(ours_m[t][np.ix_(order, order)], full, "mass matrix vs MuJoCo")
        pq, pv, _ = to_pinocchio(model, pm, q[t], v[t], a[t])
        ptau = np.zeros(pm.nv)
        for s, qs, vs in zip(model.segments, model.q_starts, model.v_starts):
            if s.joint != "weld":
                iv = pm.idx_vs[pinocchio_joint(pm, s)]
                ptau[iv:iv + s.nv] = tau[t, vs:vs + s.nv]
                if s.joint == "free":
                    ptau[iv:iv + 3] = quat_to_matrix(q[t, qs + 3:qs + 7]).T @ tau[t, vs:vs + 3]
        _, _, expected = to_pinocchio(model, pm, q[t], v[t], ours_a[t])
        assert_close(expected, pin.aba(pm, pm.createData(), pq, pv, ptau), "forward dynamics vs Pinocchio ABA")


def test_universal_joints_have_two_mjcf_hinges(case):
    model, mj, *_ = case
    names = joint_names(model)
    for s in model.segments:
        if s.joint == "universal":
            assert [mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_JOINT, n) >= 0 for n in names[s.name]] == [True, True]
