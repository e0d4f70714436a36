"""The MJCF export, loaded by MuJoCo and Pinocchio, has our masses, inertias, joint axes and kinematics.

Models are calibrated from real recordings covering every joint type: the CMU set on both templates
(hinge elbows and knees, ball joints, universal ankles in brubaker12, welded hands in full15) and the
OpenCap static trial (welded head and hands). Both engines are checked against ``BodyModel`` to 1e-9, and
against each other for the joint-space mass matrix and gravity torques (same dynamics).
"""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.io import attach_plates, load_trial, read_grf_mot
from mocap_dynamics.solver.model import calibrate, write_mjcf
from mocap_dynamics.solver.model.inertia import combine
from mocap_dynamics.solver.model.mjcf import joint_names
from mocap_dynamics.solver.model.tree import dfs_order
from mocap_dynamics.solver.rotations import quat_normalize, quat_to_matrix

mujoco = pytest.importorskip("mujoco")
pin = pytest.importorskip("pinocchio")

TOL = 1e-9
CASES = [("cmu_dribble_shoot_basketball.c3d", "full15"), ("cmu_dribble_shoot_basketball.c3d", "brubaker12"),
         ("subject4_static1.trc", "full15")]


@pytest.fixture(scope="module", params=CASES, ids=lambda c: f"{c[0].split('_')[0]}-{c[1]}")
def exported(request, shared_data, tmp_path_factory):
    name, template = request.param
    trial = load_trial(shared_data / name)
    if name.startswith("subject4"):
        trial = attach_plates(trial, read_grf_mot(shared_data / "subject4_static1_grf.mot"))
    model = calibrate(trial, template=template)
    path = write_mjcf(model, tmp_path_factory.mktemp("mjcf") / f"{template}.xml")
    return model, mujoco.MjModel.from_xml_path(str(path)), pin.buildModelFromMJCF(str(path))


def random_q(model, rng):
    q = rng.normal(scale=0.6, size=model.nq)
    for s, i in zip(model.segments, model.q_starts):
        j = i + 3 if s.joint == "free" else i
        if s.joint in ("free", "ball"):
            q[j:j + 4] = quat_normalize(q[j:j + 4])
    return q


def mujoco_qpos(model, q):
    """Our q in MuJoCo's order (bodies depth first; same per-joint layout)."""
    return np.concatenate([q[model.q_starts[k]:model.q_starts[k] + model.segments[k].nq] for k in dfs_order(model)])


def pinocchio_q(model, pmodel, q):
    """Our q in Pinocchio's layout: quaternions x y z w; welded segments have no joint."""
    out = np.zeros(pmodel.nq)
    for s, i in zip(model.segments, model.q_starts):
        if s.joint == "weld":
            continue
        jid = pinocchio_joint(pmodel, s)
        j = pmodel.idx_qs[jid]
        if s.joint == "free":
            out[j:j + 7] = np.r_[q[i:i + 3], q[i + 4:i + 7], q[i + 3]]
        elif s.joint == "ball":
            out[j:j + 4] = np.r_[q[i + 1:i + 4], q[i]]
        else:
            out[j:j + s.nq] = q[i:i + s.nq]
    return out


def pinocchio_joint(pmodel, segment):
    name = f"Composite_{segment.name}_0" if segment.joint == "universal" else segment.name
    return pmodel.getJointId(name)


def rigid_groups(model):
    """Each moving segment with the welded segments riding on it (Pinocchio merges those)."""
    owner = {}
    for k, s in enumerate(model.segments):
        owner[k] = owner[s.parent] if s.joint == "weld" else k
    return {k: [j for j in owner if owner[j] == k] for k in set(owner.values())}


def test_total_and_body_masses(exported):
    model, mj, pm = exported
    assert abs(mj.body_mass[1:].sum() - model.total_mass) < TOL
    assert abs(sum(i.mass for i in pm.inertias) - model.total_mass) < TOL
    for s in model.segments:
        b = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, s.name)
        assert abs(mj.body_mass[b] - s.mass) < TOL


def test_mujoco_inertias_equal_ours(exported):
    model, mj, _ = exported
    for s in model.segments:
        b = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, s.name)
        rot = quat_to_matrix(mj.body_iquat[b])
        np.testing.assert_allclose(mj.body_ipos[b], s.com, rtol=0, atol=TOL)
        np.testing.assert_allclose(rot @ np.diag(mj.body_inertia[b]) @ rot.T, s.inertia, rtol=0, atol=TOL)
        np.testing.assert_allclose(mj.body_pos[b], s.joint_offset, rtol=0, atol=TOL)
        np.testing.assert_allclose(mj.body_quat[b], [1, 0, 0, 0], rtol=0, atol=TOL)


def test_pinocchio_inertias_equal_ours(exported):
    """Pinocchio merges welded bodies into the joint that carries them; compare with the same sums of ours."""
    model, _, pm = exported
    for k, group in rigid_groups(model).items():
        s = model.segments[k]
        base_rot, base_pos = model.forward_kinematics(model.neutral_q())
        parts = [(model.segments[j].mass, base_pos[j] - base_pos[k] + model.segments[j].com, model.segments[j].inertia)
                 for j in group]
        mass, com, inertia = combine(parts)
        pi = pm.inertias[pinocchio_joint(pm, s)]
        assert abs(pi.mass - mass) < TOL
        np.testing.assert_allclose(pi.lever, com, rtol=0, atol=TOL)
        np.testing.assert_allclose(pi.inertia, inertia, rtol=0, atol=TOL)


def test_joint_axes(exported):
    model, mj, pm = exported
    names = joint_names(model)
    for s in model.segments:
        for name, axis in zip(names[s.name], s.axes):
            j = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_JOINT, name)
            assert mj.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE
            np.testing.assert_allclose(mj.jnt_axis[j], axis, rtol=0, atol=TOL)
        if s.joint == "hinge":
            joint = pm.joints[pinocchio_joint(pm, s)]
            pin_axis = joint.extract().axis if joint.shortname() == "JointModelRevoluteUnaligned" else \
                np.eye(3)["XYZ".index(joint.shortname()[-1])]
            np.testing.assert_allclose(pin_axis, s.axes[0], rtol=0, atol=TOL)


def test_forward_kinematics_matches_both_engines(exported):
    """Random poses: body frames from MuJoCo and Pinocchio equal ``BodyModel.forward_kinematics``; markers too."""
    model, mj, pm = exported
    data, pdata = mujoco.MjData(mj), pm.createData()
    rng = np.random.default_rng(7)
    for _ in range(5):
        q = random_q(model, rng)
        rot, pos = model.forward_kinematics(q)
        data.qpos[:] = mujoco_qpos(model, q)
        mujoco.mj_kinematics(mj, data)
        pin.framesForwardKinematics(pm, pdata, pinocchio_q(model, pm, q))
        for k, s in enumerate(model.segments):
            b = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, s.name)
            np.testing.assert_allclose(data.xpos[b], pos[k], rtol=0, atol=TOL)
            np.testing.assert_allclose(data.xmat[b].reshape(3, 3), rot[k], rtol=0, atol=TOL)
            frame = pdata.oMf[pm.getFrameId(s.name, pin.FrameType.BODY)]
            np.testing.assert_allclose(frame.translation, pos[k], rtol=0, atol=TOL)
            np.testing.assert_allclose(frame.rotation, rot[k], rtol=0, atol=TOL)
        markers = model.marker_positions(q)
        for label, p in zip(model.marker_labels, markers):
            np.testing.assert_allclose(data.site_xpos[mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_SITE,
                                                                         f"marker:{label}")], p, rtol=0, atol=TOL)


def test_engines_agree_on_mass_matrix_and_gravity(exported):
    """Same dynamics: M(q) and gravity torques from MuJoCo and Pinocchio agree once the free joint's linear
    velocity is expressed in the same frame (MuJoCo: world, like our v; Pinocchio: local)."""
    model, mj, pm = exported
    data, pdata = mujoco.MjData(mj), pm.createData()
    rng = np.random.default_rng(11)
    q = random_q(model, rng)
    data.qpos[:] = mujoco_qpos(model, q)
    data.qvel[:] = 0
    mujoco.mj_forward(mj, data)
    m_mj = np.zeros((mj.nv, mj.nv))
    mujoco.mj_fullM(mj, data, m_mj)
    pq = pinocchio_q(model, pm, q)
    m_pin = pin.crba(pm, pdata, pq)
    m_pin = np.triu(m_pin) + np.triu(m_pin, 1).T
    g_pin = pin.computeGeneralizedGravity(pm, pdata, pq)
    # MuJoCo and Pinocchio number velocity coordinates the same way here (depth-first), except the root.
    t = np.eye(mj.nv)
    t[0:3, 0:3] = quat_to_matrix(q[3:7]).T  # Pinocchio v_lin = Rᵀ v_lin(world)
    np.testing.assert_allclose(t.T @ m_pin @ t, m_mj, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(t.T @ g_pin, data.qfrc_bias, rtol=1e-9, atol=1e-9)
