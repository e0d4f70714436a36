"""Initial guesses from the markers (Lee 2009 §5.1), every frame at once.

Marker model ``p_s = r + R a_s`` (eq. 5.1-5.2; ``r`` the body's CM, ``a_s`` the marker relative to the CM
in body coordinates). Vectors are centred on the centroid of the markers present in a frame, so the
orientation decouples from the translation (Wahba's problem with ``b_s = p_s - p̄``, ``a_s - ā``).

- poses: each body's own least-squares rigid fit (``rotations.fit_rigid``; CM by eq. 5.16-5.17); where
  a body has fewer than three markers in a frame, the per-segment fit of ``model.fit_segments`` (which adds
  the joint centre placed by the parent) stands in; a frame neither can fit is interpolated in time;
- angular velocity from marker velocities, eq. 5.13 **with the missing minus sign restored** (implementer's
  notes §10 erratum 1): ``ω = -SS⁻¹ Σ [[R Δa_s]]ᵀ Δṗ_s``, ``SS = Σ [[R Δa_s]]ᵀ [[R Δa_s]]`` (5.14);
- angular acceleration from marker accelerations, eq. 5.15: ``α = SS⁻¹ Σ [[R Δa_s]]ᵀ (-Δp̈_s + [[ω]]² R Δa_s)``;
- CM velocity and acceleration: the first and second derivatives of eq. 5.16 averaged over the markers;
- marker velocities and accelerations, when none were measured: cubic splines through each marker.

``SS`` is singular for a body whose present markers are collinear (two markers, say); the rotation about
that line is then taken from ``prior`` (the spline stage's estimate) through a small Tikhonov term.
"""

from __future__ import annotations

import numpy as np

from ...errors import SolverError
from ...model.body import BodyModel
from ...model.fit import fit_segments
from ...rotations import fit_rigid, matrix_to_quat, quat_continuity, quat_normalize, skew
from .bodies import Bodies
from .splines import spline_derivatives

#: Weight of the prior in the marker-based rate estimates, relative to the trace of SS.
PRIOR_WEIGHT = 1e-9


def _columns(bodies: Bodies, b: int) -> np.ndarray:
    return np.flatnonzero(bodies.marker_body == b)


def _centred(bodies: Bodies, b: int, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Body ``b``'s markers present in each frame, centred on their centroid: the local offsets ``a_s - ā``
    and ``values`` (positions, velocities or accelerations (T, M, 3)) ``x_s - x̄``, (T, s, 3) each, zero where
    a marker is missing."""
    cols = _columns(bodies, b)
    values = values[:, cols]
    present = ~np.isnan(values).any(-1, keepdims=True)
    count = np.maximum(present.sum(1, keepdims=True), 1)
    local = np.where(present, bodies.marker_local[cols], 0.0)
    values = np.where(present, values, 0.0)
    return (np.where(present, local - local.sum(1, keepdims=True) / count, 0.0),
            np.where(present, values - values.sum(1, keepdims=True) / count, 0.0))


def marker_products(bodies: Bodies, measured: np.ndarray) -> np.ndarray:
    """``B = Σ_s (p_s - p̄)(a_s - ā)ᵀ`` (T, n, 3, 3) over the markers present: Wahba's data term (eq. 5.18)."""
    out = np.zeros(measured.shape[:1] + (bodies.n, 3, 3))
    for b in range(bodies.n):
        local, points = _centred(bodies, b, measured)
        out[:, b] = np.einsum("tsi,tsj->tij", points, local)
    return out


def _fill_in_time(values: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Linear interpolation over frames where ``values`` (T, k) has NaN (constant beyond the ends)."""
    good = ~np.isnan(values).any(-1)
    if good.all():
        return values
    out = values.copy()
    for c in range(values.shape[1]):
        out[~good, c] = np.interp(times[~good], times[good], values[good, c])
    return out


def initial_poses(bodies: Bodies, model: BodyModel, labels, markers: np.ndarray, measured: np.ndarray,
                  times: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Quaternions (T, n, 4), CM positions (T, n, 3) and (T, n) whether the body's own markers gave them."""
    n_frames = len(measured)
    quats = np.full((n_frames, bodies.n, 4), np.nan)
    coms = np.full((n_frames, bodies.n, 3), np.nan)
    for b in range(bodies.n):
        cols = _columns(bodies, b)
        if len(cols) >= 3:
            quats[:, b], coms[:, b] = fit_rigid(measured[:, cols], bodies.marker_local[cols])
    own = ~np.isnan(quats).any(-1)
    if not own.all():
        rot, pos = model.forward_kinematics(fit_segments(model, labels, markers).q)
        first = bodies.first_segment
        fallback_rot = rot[:, first]
        quats[~own] = matrix_to_quat(fallback_rot)[~own]
        coms[~own] = (pos[:, first] + np.einsum("tbij,bj->tbi", fallback_rot, bodies.com))[~own]
    for b in range(bodies.n):
        if np.isnan(quats[:, b]).any(-1).all():
            raise SolverError(f"No frame of the trial places body {bodies.names[b]!r}",
                              "check that the trial has this segment's markers, or use a model without it")
        good = ~np.isnan(quats[:, b]).any(-1)
        quats[good, b] = quat_continuity(quats[good, b])
        quats[:, b] = _fill_in_time(quats[:, b], times)
        coms[:, b] = _fill_in_time(coms[:, b], times)
    return quat_normalize(quats), coms, own


def _differences(bodies: Bodies, rotations: np.ndarray, b: int, rates: np.ndarray):
    """World arms ``R Δa_s`` (T, s, 3) and centred marker rates ``Δṗ_s`` (T, s, 3) of body ``b`` (0 if absent)."""
    local, centred = _centred(bodies, b, rates)
    return np.einsum("tij,tsj->tsi", rotations[:, b], local), centred


def _solve_with_prior(ss: np.ndarray, rhs: np.ndarray, prior: np.ndarray) -> np.ndarray:
    eps = PRIOR_WEIGHT * np.trace(ss, axis1=-2, axis2=-1)[..., None] + 1e-300
    return np.linalg.solve(ss + eps[..., None] * np.eye(3), (rhs + eps * prior)[..., None])[..., 0]


def angular_velocity(bodies: Bodies, rotations: np.ndarray, velocities: np.ndarray, prior: np.ndarray):
    """Eq. 5.13 (sign corrected) per body (T, n, 3), world frame; ``velocities`` (T, M, 3) model markers."""
    out = np.empty_like(prior)
    for b in range(bodies.n):
        arms, rates = _differences(bodies, rotations, b, velocities)
        sk = skew(arms)
        ss = np.einsum("tsji,tsjk->tik", sk, sk)
        out[:, b] = _solve_with_prior(ss, -np.einsum("tsji,tsj->ti", sk, rates), prior[:, b])
    return out


def angular_acceleration(bodies: Bodies, rotations: np.ndarray, omega: np.ndarray, accelerations: np.ndarray,
                         prior: np.ndarray):
    """Eq. 5.15 per body (T, n, 3), world frame, with ``omega`` (T, n, 3) the angular velocities."""
    out = np.empty_like(prior)
    for b in range(bodies.n):
        arms, rates = _differences(bodies, rotations, b, accelerations)
        sk = skew(arms)
        ss = np.einsum("tsji,tsjk->tik", sk, sk)
        w = omega[:, b, None, :]
        centripetal = np.cross(w, np.cross(w, arms))
        out[:, b] = _solve_with_prior(ss, np.einsum("tsji,tsj->ti", sk, centripetal - rates), prior[:, b])
    return out


def cm_rate(bodies: Bodies, rotations: np.ndarray, rates: np.ndarray, omega: np.ndarray, prior: np.ndarray,
            alpha=None):
    """CM velocity (``alpha`` None) or acceleration of every body (T, n, 3), the markers' mean of the first
    or second derivative of eq. 5.16: ``ṙ = ṗ_s - ω × R a_s``, ``r̈ = p̈_s - α × R a_s - ω × (ω × R a_s)``;
    ``prior`` where a body has no marker in a frame."""
    out = prior.copy()
    for b in range(bodies.n):
        cols = _columns(bodies, b)
        arms = np.einsum("tij,sj->tsi", rotations[:, b], bodies.marker_local[cols])
        w = omega[:, b, None, :]
        moving = np.cross(w, arms) if alpha is None else \
            np.cross(alpha[:, b, None, :], arms) + np.cross(w, np.cross(w, arms))
        values = rates[:, cols] - moving
        present = ~np.isnan(values).any(-1)
        seen = present.any(-1)
        count = np.maximum(present.sum(-1, keepdims=True), 1)
        out[seen, b] = (np.where(present[..., None], values, 0.0).sum(1) / count)[seen]
    return out


def marker_rates(times: np.ndarray, measured: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Marker velocities and accelerations (T, M, 3) by cubic splines through each trajectory, its gaps
    bridged linearly for the spline and NaN again in the result."""
    filled = measured.copy()
    for m in range(measured.shape[1]):
        good = ~np.isnan(measured[:, m]).any(-1)
        if 4 <= good.sum() < len(times):
            for c in range(3):
                filled[~good, m, c] = np.interp(times[~good], times[good], measured[good, m, c])
    missing = np.isnan(measured).any(-1, keepdims=True)
    usable = ~np.isnan(filled).any(axis=(0, 2))
    velocity, acceleration = np.full_like(measured, np.nan), np.full_like(measured, np.nan)
    velocity[:, usable], acceleration[:, usable] = spline_derivatives(times, filled[:, usable])
    return np.where(missing, np.nan, velocity), np.where(missing, np.nan, acceleration)
