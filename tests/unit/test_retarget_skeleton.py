"""The skeleton's forward kinematics is Blender's pose rule, and ``basis`` inverts it."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.retarget import Skeleton
from mocap_dynamics.solver.retarget.skeleton import rigid, rigid_inverse
from mocap_dynamics.solver.rotations import quat_normalize, quat_to_matrix


def _random_rigid(rng, shape=()):
    return rigid(quat_to_matrix(quat_normalize(rng.normal(size=shape + (4,)))), rng.normal(size=shape + (3,)))


def _chain(rng) -> Skeleton:
    """Five bones given children first: root -> a -> b, root -> c -> d."""
    names = ["d", "b", "a", "root", "c"]
    parents = ["c", "a", "root", None, "root"]
    return Skeleton.from_bones(names, parents, _random_rigid(rng, (5,)), rng.uniform(0.1, 1.0, 5),
                               np.diag([2.0, 2.0, 2.0, 1.0]))


def test_from_bones_puts_parents_first():
    skeleton = _chain(np.random.default_rng(0))
    assert skeleton.names[0] == "root"
    for b, p in enumerate(skeleton.parents):
        assert p < b
    assert skeleton.names[skeleton.parents[skeleton.index("d")]] == "c"
    assert skeleton.ancestors(skeleton.index("b")) == [skeleton.index("a"), skeleton.index("root")]


def test_forward_is_blenders_pose_rule_and_basis_inverts_it():
    rng = np.random.default_rng(1)
    skeleton = _chain(rng)
    basis = _random_rigid(rng, (7, 5))
    pose = skeleton.forward(basis)
    r = skeleton.rest
    a, root, b = (skeleton.index(n) for n in ("a", "root", "b"))
    expected_b = (r[root] @ basis[:, root]) @ (rigid_inverse(r[root]) @ r[a] @ basis[:, a]) \
        @ (rigid_inverse(r[a]) @ r[b] @ basis[:, b])
    np.testing.assert_allclose(pose[:, b], expected_b, atol=1e-12)
    np.testing.assert_allclose(skeleton.basis(pose), basis, atol=1e-12)


def test_world_conversions_round_trip_with_object_scale():
    rng = np.random.default_rng(2)
    skeleton = _chain(rng)
    pose = skeleton.forward(_random_rigid(rng, (3, 5)))
    rotation, heads = skeleton.to_world(pose)
    np.testing.assert_allclose(heads, 2.0 * pose[..., :3, 3], atol=1e-12)
    np.testing.assert_allclose(skeleton.from_world(rotation, heads), pose, atol=1e-12)
    _, rest_heads, rest_tails = skeleton.rest_world()
    np.testing.assert_allclose(np.linalg.norm(rest_tails - rest_heads, axis=1), 2.0 * skeleton.lengths)


def test_non_uniform_object_scale_is_refused():
    rng = np.random.default_rng(3)
    with pytest.raises(SolverError, match="non-uniform"):
        Skeleton.from_bones(["a"], [None], _random_rigid(rng, (1,)), [1.0], np.diag([1.0, 2.0, 1.0, 1.0]))


@pytest.mark.parametrize("mode", ["QUATERNION", "AXIS_ANGLE", "XYZ", "ZXY", "YZX"])
def test_rotation_channels_rebuild_the_rotations_in_every_mode(mode):
    from scipy.spatial.transform import Rotation

    from mocap_dynamics.solver.retarget.channels import rotation_channels
    from mocap_dynamics.solver.rotations import quat_from_axis_angle
    angle = np.linspace(0.0, 6 * np.pi, 400)  # three whole turns: angles must unwrap, quaternions stay continuous
    rotations = quat_to_matrix(quat_from_axis_angle(np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8]),
                                                    angle))
    name, values = rotation_channels(rotations, mode)
    if mode == "QUATERNION":
        rebuilt = quat_to_matrix(values)
    elif mode == "AXIS_ANGLE":
        rebuilt = Rotation.from_rotvec(values[:, 1:] * values[:, :1]).as_matrix()
    else:
        rebuilt = Rotation.from_euler(mode.lower(), values).as_matrix()
    np.testing.assert_allclose(rebuilt, rotations, atol=1e-9)
    assert name.startswith("rotation_") and np.abs(np.diff(values, axis=0)).max() < 0.3, "no jumps between keys"
