"""Lee's small kernels: the q-method in Hamilton form against the thesis's scalar-last form, the warm-started
eigensolver, the norm of eq. 8.3, Cholesky, and the weight sequences."""

import numpy as np
import pytest
from numba import njit

from mocap_dynamics.solver.errors import SolverError
from mocap_dynamics.solver.kinematics.lee import weight_schedule
from mocap_dynamics.solver.kernels import cholesky_factor
from mocap_dynamics.solver.kinematics.lee.kernels import cholesky_solve, davenport_into, dominant_eigenvector, \
    jacobi_dominant, largest_eigenvalue, nuclear_norm3
from mocap_dynamics.solver.rotations import davenport_matrix, from_lee, quat_normalize, quat_to_matrix, skew, to_lee


def thesis_matrix(q_lee):
    """Lee eq. 2.6 with the q4² erratum fixed: ``R = (q4² - q·q) I + 2 q qᵀ - 2 q4 [[q]]`` (scalar last)."""
    v, w = q_lee[:3], q_lee[3]
    return (w * w - v @ v) * np.eye(3) + 2 * np.outer(v, v) - 2 * w * skew(v)


def thesis_davenport(b, a):
    """Lee eq. 2.9 (with S = W + Wᵀ, erratum 4): ``K = [[S - σ I, Z], [Zᵀ, σ]]``, W = B Aᵀ (scalar last)."""
    w = b.T @ a
    s, sigma = w + w.T, np.trace(w)
    z = np.array([w[1, 2] - w[2, 1], w[2, 0] - w[0, 2], w[0, 1] - w[1, 0]])
    k = np.zeros((4, 4))
    k[:3, :3], k[:3, 3], k[3, :3], k[3, 3] = s - sigma * np.eye(3), z, z, sigma
    return k


@njit
def _top(k, guess):
    out, a, v = np.empty(4), np.empty((4, 4)), np.empty((4, 4))
    dominant_eigenvector(k, a, v, guess, out)
    return out


@njit
def _jacobi(k, guess):
    out, a, v = np.empty(4), np.empty((4, 4)), np.empty((4, 4))
    jacobi_dominant(k, a, v, guess, out)
    return out


@njit
def _davenport(b):
    k = np.empty((4, 4))
    davenport_into(b, k)
    return k


def test_thesis_q_method_and_ours_give_the_same_rotation():
    """The conversion at the boundary: the thesis's K (scalar last, Shuster) and ours (Hamilton) agree."""
    rng = np.random.default_rng(0)
    truth = quat_normalize(rng.normal(size=4))
    a = rng.normal(size=(5, 3))
    b = a @ quat_to_matrix(truth).T + 0.01 * rng.normal(size=(5, 3))
    ours = np.linalg.eigh(davenport_matrix(b, a))[1][:, -1]
    theirs = np.linalg.eigh(thesis_davenport(b, a))[1][:, -1]
    np.testing.assert_allclose(thesis_matrix(theirs), quat_to_matrix(ours), atol=1e-12)
    np.testing.assert_allclose(thesis_matrix(to_lee(ours)), quat_to_matrix(ours), atol=1e-12)
    assert abs(from_lee(theirs) @ ours) == pytest.approx(1.0, abs=1e-12)


def test_davenport_kernel_matches_rotations_module():
    b = np.random.default_rng(1).normal(size=(3, 3))
    expected = davenport_matrix(np.eye(3), b)  # B = Σ_s e_s (row s of b)ᵀ = b
    np.testing.assert_allclose(_davenport(b), expected, atol=1e-14)


@pytest.mark.parametrize("seed", range(5))
def test_warm_started_eigenvector_is_the_dominant_one(seed):
    rng = np.random.default_rng(seed)
    k = _davenport(rng.normal(size=(3, 3)))
    top = np.linalg.eigh(k)[1][:, -1]
    for guess in (quat_normalize(top + 0.1 * rng.normal(size=4)), quat_normalize(rng.normal(size=4)),
                  np.linalg.eigh(k)[1][:, 0]):  # close, arbitrary, and another eigenvector (falls back to Jacobi)
        out = _top(k, guess)
        assert abs(out @ top) == pytest.approx(1.0, abs=1e-12)
        assert out @ guess >= 0.0
    np.testing.assert_allclose(abs(_jacobi(k, top) @ top), 1.0, atol=1e-12)


def test_norm_of_a_davenport_matrix_is_the_nuclear_norm_of_b():
    """||K(B)|| (largest |eigenvalue|, eq. 8.3) equals s1 + s2 + s3 of B, for either sign of det B."""
    rng = np.random.default_rng(2)
    for b in rng.normal(size=(20, 3, 3)):
        expected = np.abs(np.linalg.eigvalsh(_davenport(b))).max()
        assert nuclear_norm3(b) == pytest.approx(expected, rel=1e-10)
        assert nuclear_norm3(b) == pytest.approx(np.linalg.svd(b, compute_uv=False).sum(), rel=1e-10)
    assert nuclear_norm3(np.outer([1.0, 2, 3], [0.5, 0, 1])) == pytest.approx(np.sqrt(14) * np.sqrt(1.25))


def test_cholesky_and_power_iteration():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(8, 8))
    a = x @ x.T + np.eye(8)
    lower = np.zeros((8, 8))
    cholesky_factor(a, lower)
    rhs = rng.normal(size=(8, 2))
    out = np.empty_like(rhs)
    cholesky_solve(lower, rhs, out)
    np.testing.assert_allclose(a @ out, rhs, atol=1e-10)
    assert largest_eigenvalue(a, np.empty(8), np.empty(8)) == pytest.approx(np.linalg.eigvalsh(a)[-1], rel=1e-6)


def test_weight_schedule_is_dx_times_powers_of_the_base():
    schedule = weight_schedule((5, 2, 0), 0.01, 10, 3)
    np.testing.assert_allclose(schedule[:, 0], 0.01 * 5.0 ** np.arange(10))
    np.testing.assert_allclose(schedule[:, 1], 0.01 * 2.0 ** np.arange(10))
    assert not schedule[:, 2].any()
    with pytest.raises(SolverError):
        weight_schedule((5, 2), 0.01, 10, 3)
    with pytest.raises(SolverError):
        weight_schedule((5, -2, 2), 0.01, 10, 3)
