"""Generalized velocities and accelerations of a sampled motion (Brubaker et al. 2009 §4.2, Appendix A).

Forward differences ``q̇_t = (q_{t+1} - q_t)/Δ``, ``q̈_t = (q̇_{t+1} - q̇_t)/Δ``
are consistent with the explicit Euler scheme ``q_{t+1} = q_t + Δ q̇_t``,
``q̇_{t+1} = q̇_t + Δ q̈_t`` (§4.2), so forces that explain these accelerations
reproduce the motion when integrated with that scheme (``forward.replay``).
``T`` frames give ``T - 2`` accelerations: frames ``0 .. T-3``.

Quaternions (root orientation, ball joints) follow Appendix A. Integration
normalises ``q̂ = q_t + Δ q̇_t``, so the observed ``q_{t+1} = q̂/α``:
``q̇_t = (α q_{t+1} - q_t)/Δ`` with ``α`` from the unit-norm rate constraint
``q_tᵀ q̇_t = 0`` (eq. 11): ``α = 1/(q_tᵀ q_{t+1})``. Integration also projects
``q̂̇ = q̇_t + Δ q̈_t`` onto the tangent space at ``q_{t+1}``, so
``q̇_{t+1} = q̂̇ - β q_{t+1}`` and ``q̈_t = (q̇_{t+1} + β q_{t+1} - q̇_t)/Δ``
with ``β`` from ``q_tᵀ q̈_t + q̇_tᵀ q̇_t = 0`` (eq. 12):
``β = -(q_tᵀ q̇_{t+1} + Δ |q̇_t|²)/(q_tᵀ q_{t+1})``. (The paper writes the
velocity projection as ``q̂̇ - (q̂ᵀ q̂̇) q``; we project with the normalised
``q_{t+1}``, the orthogonal projection its ``β`` relation implies.)

The quaternion rates are then expressed in the velocity layout of
``solver.model.body`` (``body_rate``): ``ω = 2 vec(q* ⊗ q̇)`` (body/child-frame
angular velocity) and ``ω̇ = 2 vec(q* ⊗ q̈)``.

Central differences (``scheme="central"``, an alternative to the paper's,
the pipeline's default on filtered coordinates): ``q̇_t = (q_{t+1} -
q_{t-1})/2Δ``, ``q̈_t = (q_{t+1} - 2q_t + q_{t-1})/Δ²`` on frames ``1 .. T-2``,
the same for quaternions (``ω = 2 vec(q* ⊗ q̇)``, ``ω̇ = 2 vec(q* ⊗ q̈)``:
the scalar part of ``q* ⊗ q̈`` is ``-|q̇|²``, its vector part ``ω̇/2``). Forward
differences give frame ``t`` the acceleration of the instant ``t + 1`` (a
lag of one frame against force plates); central ones are centred on the
frame they are given to and second-order accurate.

NaN: a frame without a pose (NaN in ``q``, or not ``Motion.posed``: no
markers placed it) makes the velocities and accelerations that use it NaN
(frames ``t-2 .. t``), and so the forces of those frames; the Butterworth
filter filters each run of posed frames on its own (across the gap it would
spread the NaN, or a held pose's standstill, into the frames around it).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import numpy as np

from ..errors import SolverError, option
from ..kinematics.motion import Motion
from .cutoff import residual_cutoff
from ..lowpass import PAD, butter2, filtfilt, pad_length
from .touchdowns import (LANDING_MAX_HZ, LANDING_MIN_HZ, SETTLE, SETTLE_HZ, SOFT_SPEED, landing_cutoff,
                         settling_weight, steady_cutoff, touchdown_weight, touchdowns)
from ..model.body import BodyModel
from ..rotations import MAX_TURN_PER_FRAME, body_rate, quat_continuity
from ..runs import runs

#: Finite-difference schemes: the paper's (Euler-consistent) and centred ones.
SCHEMES = ("forward", "central")
#: Cutoffs found from the motion: Winter's at touch-downs and at most ``touchdowns.steady_cutoff`` elsewhere (the
#: default), or Winter's throughout.
AUTOMATIC_CUTOFFS = ("auto", "winter")


class Derivatives(NamedTuple):
    """What ``motion_derivatives`` gives: the frames' ``times`` (T,), ``q``, ``v``, ``a``, ``options`` (the choices
    made, ``Dynamics.options``), ``touchdown`` (T,), how much each frame lies in a landing's window
    (``touchdowns.touchdown_weight``: 1 where a body coming down fast lands, 0 away from landings), and
    ``settling`` (T,), how much it lies in the settling after a hard landing (``touchdowns.settling_weight``);
    None unless the default cutoff ``"auto"`` found them."""

    times: np.ndarray
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray
    options: dict
    touchdown: np.ndarray | None = None
    settling: np.ndarray | None = None


def quaternion_columns(model: BodyModel) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Segment names and the columns in q (B, 4) and in v (B, 3) of every quaternion: the root's and each ball's."""
    names, iv = [], []
    for s, vs in zip(model.segments, model.v_starts):
        if s.joint in ("free", "ball"):
            shift = 3 if s.joint == "free" else 0
            names.append(s.name)
            iv.append(range(vs + shift, vs + shift + 3))
    return names, model.quaternion_columns, np.array(iv, dtype=int).reshape(-1, 3)


def scalar_indices(model: BodyModel) -> tuple[np.ndarray, np.ndarray]:
    """Indices in q and in v of the coordinates that differentiate plainly: root position and joint angles."""
    iq, iv = [], []
    for s, qs, vs in zip(model.segments, model.q_starts, model.v_starts):
        n = {"free": 3, "universal": 2, "hinge": 1}.get(s.joint, 0)
        iq.extend(range(qs, qs + n))
        iv.extend(range(vs, vs + n))
    return np.array(iq, dtype=int), np.array(iv, dtype=int)


def time_step(times: np.ndarray) -> float:
    """The sampling interval of uniformly sampled ``times``; a ``SolverError`` otherwise."""
    times = np.asarray(times, dtype=float)
    steps = np.diff(times)
    if len(steps) == 0:
        raise SolverError("A single frame has no time step", "pass at least two frames")
    dt = (times[-1] - times[0]) / len(steps)
    if not dt > 0 or np.max(np.abs(steps - dt)) > 1e-6 * dt:
        raise SolverError("Frame times are not uniformly increasing", "resample the motion at a constant rate")
    return float(dt)


def continuous_quaternions(model: BodyModel, q: np.ndarray) -> np.ndarray:
    """A copy of ``q`` (T, nq), each quaternion's sign chosen so that consecutive frames agree (±q: one rotation)."""
    q = np.array(q, dtype=float)
    _, iq, _ = quaternion_columns(model)
    q[:, iq] = quat_continuity(q[:, iq])
    return q


def _check_turns(names: list[str], quat: np.ndarray) -> np.ndarray:
    """``q_tᵀ q_{t+1}`` (T-1, B) of quaternions (T, B, 4); a ``SolverError`` if a segment turns too far."""
    dots = np.sum(quat[:-1] * quat[1:], axis=-1)
    worst = np.argmin(np.where(np.isnan(dots), np.inf, dots))
    if dots.flat[worst] < np.cos(MAX_TURN_PER_FRAME / 2):
        frame, block = np.unravel_index(worst, dots.shape)
        raise SolverError(f"Segment {names[block]!r} turns by more than {np.degrees(MAX_TURN_PER_FRAME):.0f}° "
                          f"between frames {frame} and {frame + 1}",
                          "check the reconstruction for orientation flips, or record at a higher frame rate")
    return dots


def _quaternion_differences(names: list[str], quat: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """Body-frame angular velocities (T-1, B, 3) and accelerations (T-2, B, 3) of quaternions (T, B, 4),
    Brubaker Appendix A."""
    dots = _check_turns(names, quat)
    rate = (quat[1:] / dots[..., None] - quat[:-1]) / dt  # eq. 11: α = 1/(q_tᵀ q_{t+1})
    beta = -(np.sum(quat[:-2] * rate[1:], axis=-1) + dt * np.sum(rate[:-1] ** 2, axis=-1)) / dots[:-1]  # eq. 12
    second = (rate[1:] + beta[..., None] * quat[1:-1] - rate[:-1]) / dt
    return body_rate(quat[:-1], rate), body_rate(quat[:-2], second)


def _checked(model: BodyModel, times: np.ndarray, q: np.ndarray) -> np.ndarray:
    q = np.asarray(q, dtype=float)
    if q.ndim != 2 or q.shape[1] != model.nq or len(q) != len(times):
        raise SolverError(f"Coordinates must have shape ({len(times)}, {model.nq}); got {q.shape}",
                          "pass one row of generalized coordinates per frame")
    if len(q) < 3:
        raise SolverError(f"Accelerations by finite differences need at least 3 frames; the motion has {len(q)}",
                          "reconstruct a longer stretch of the trial")
    return q


def forward_differences(model: BodyModel, times: np.ndarray, q: np.ndarray):
    """Generalized velocities and accelerations consistent with Euler integration (Brubaker §4.2, App. A).

    Returns ``(times, q, v, a)`` for frames ``0 .. T-3`` (``T - 2`` frames);
    quaternion signs are made continuous in the returned ``q``.
    """
    q = _checked(model, times, q)
    dt = time_step(times)
    q = continuous_quaternions(model, q)
    v = np.empty((len(q) - 1, model.nv))
    a = np.empty((len(q) - 2, model.nv))
    plain_q, plain_v = scalar_indices(model)
    v[:, plain_v] = np.diff(q[:, plain_q], axis=0) / dt
    a[:, plain_v] = np.diff(v[:, plain_v], axis=0) / dt
    names, iq, iv = quaternion_columns(model)
    v[:, iv], a[:, iv] = _quaternion_differences(names, q[:, iq], dt)
    return np.asarray(times, dtype=float)[:-2], q[:-2], v[:-1], a


def central_differences(model: BodyModel, times: np.ndarray, q: np.ndarray):
    """Generalized velocities and accelerations by central differences (module docstring).

    Returns ``(times, q, v, a)`` for frames ``1 .. T-2``; quaternion signs are made continuous.
    """
    q = _checked(model, times, q)
    dt = time_step(times)
    q = continuous_quaternions(model, q)
    v = np.empty((len(q) - 2, model.nv))
    a = np.empty((len(q) - 2, model.nv))
    plain_q, plain_v = scalar_indices(model)
    v[:, plain_v] = (q[2:, plain_q] - q[:-2, plain_q]) / (2 * dt)
    a[:, plain_v] = (q[2:, plain_q] - 2 * q[1:-1, plain_q] + q[:-2, plain_q]) / dt ** 2
    names, iq, iv = quaternion_columns(model)
    quat = q[:, iq]
    _check_turns(names, quat)
    v[:, iv] = body_rate(quat[1:-1], (quat[2:] - quat[:-2]) / (2 * dt))
    a[:, iv] = body_rate(quat[1:-1], (quat[2:] - 2 * quat[1:-1] + quat[:-2]) / dt ** 2)
    return np.asarray(times, dtype=float)[1:-1], q[1:-1], v, a


def butterworth(model: BodyModel, times: np.ndarray, q: np.ndarray, cutoff: float) -> np.ndarray:
    """Zero-lag low-pass Butterworth filter of the coordinates (``lowpass.filtfilt``).

    The second-order filter run forwards and backwards gives the 4th-order zero-lag filter
    usual in biomechanics (Winter), each end extended by ``lowpass.pad_length`` samples (two periods of
    the cutoff). Quaternions are made sign-continuous, filtered component-wise and renormalised. Frames
    without a pose (NaN) stay NaN: each run of frames with a pose is filtered on its own, and a run
    too short to filter (``lowpass.PAD`` = 9 frames or fewer) becomes NaN too.
    """
    rate = 1.0 / time_step(times)
    if not 0 < cutoff < rate / 2:
        raise SolverError(f"{option('cutoff', cutoff)} Hz is not between 0 and this trial's Nyquist frequency "
                          f"{rate / 2:g} Hz (half its {rate:g} Hz)",
                          f"give a lower cutoff, below {rate / 2:g} Hz (6-12 Hz is usual for human movement)")
    b, a = butter2(cutoff, rate)
    q = continuous_quaternions(model, q)
    posed = np.isfinite(q).all(axis=1)
    if np.count_nonzero(posed) <= PAD:
        raise SolverError(f"Filtering needs more than {PAD} frames with a pose; the motion has "
                          f"{np.count_nonzero(posed)}", "filter a longer motion, or compute derivatives without "
                                                       f"a filter ({option('cutoff', 'none')})")
    filtered = np.full_like(q, np.nan)
    for start, end in runs(posed):
        if end - start > PAD:
            filtered[start:end] = filtfilt(b, a, q[start:end], pad_length(cutoff, rate, end - start))
    _, iq, _ = quaternion_columns(model)
    filtered[:, iq] /= np.linalg.norm(filtered[:, iq], axis=-1, keepdims=True)
    return filtered


def touchdown_filtered(model: BodyModel, times: np.ndarray, q: np.ndarray, cutoff: float) -> list:
    """The coordinates (T, nq) filtered for the default cutoff, as layers ``(coordinates, weight, cutoff [Hz])``
    from the outermost: at ``touchdowns.landing_cutoff`` of Winter's ``cutoff`` weighted by the touch-downs, at
    ``touchdowns.SETTLE_HZ`` weighted by the settling after hard landings (only if there is one), and at
    ``touchdowns.steady_cutoff`` (weight None; each at most Winter's); each weight (T,) says how much its layer
    counts against all the layers after it (``blended``). The touch-downs are found on the coordinates at
    Winter's cutoff. A model without feet: one layer, at Winter's."""
    winter = butterworth(model, times, q, cutoff)
    found = touchdowns(model, times, winter)
    if found is None:
        return [(winter, None, cutoff)]
    landing = landing_cutoff(cutoff, 1.0 / time_step(times))
    layers = [(winter if landing == cutoff else butterworth(model, times, q, landing), touchdown_weight(times, found),
               landing)]
    settling = settling_weight(times, found)
    if settling is not None:
        layers.append((butterworth(model, times, q, min(SETTLE_HZ, cutoff)), settling, min(SETTLE_HZ, cutoff)))
    steady = min(steady_cutoff(found.contacts, landing), cutoff)
    return layers + [(butterworth(model, times, q, steady), None, steady)]


def blended(layers: list, blend) -> np.ndarray:
    """``layers`` [(x, weight), ...] folded from the innermost: ``blend(x, rest, weight)`` per layer, ``rest``
    the blend of the layers after it (the last layer's weight is None)."""
    result = layers[-1][0]
    for x, weight in reversed(layers[:-1]):
        result = blend(x, result, weight)
    return result


def _weighted(first: np.ndarray, second: np.ndarray, weight: np.ndarray) -> np.ndarray:
    return weight[:, None] * first + (1.0 - weight[:, None]) * second


def blended_coordinates(model: BodyModel, first: np.ndarray, second: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``weight·first + (1 - weight)·second`` per frame (coordinates (T, nq), weight (T,)), quaternions
    renormalised."""
    q = weight[:, None] * first + (1.0 - weight[:, None]) * second
    _, iq, _ = quaternion_columns(model)
    q[:, iq] /= np.linalg.norm(q[:, iq], axis=-1, keepdims=True)
    return q


def motion_derivatives(motion: Motion, cutoff: float | str | None = None, scheme: str = "forward") -> Derivatives:
    """``Derivatives`` (times, q, v, a, options, touchdown, settling) for the dynamics of ``motion``.

    ``cutoff``: None (no filter), a frequency [Hz], ``"winter"`` (Winter's residual analysis of the
    trajectories of the segments' origins and tips, ``cutoff.residual_cutoff``) or ``"auto"`` (the default
    path, beyond Winter: his cutoff where a foot lands, within ``touchdowns.landing_cutoff``'s bounds,
    ``touchdowns.SETTLE_HZ`` after a hard landing and at most ``touchdowns.steady_cutoff`` elsewhere, the
    filterings' ``q``, ``v`` and ``a`` blended by the weights of ``touchdown_filtered``; blending the
    derivatives, not the coordinates, adds no ``w'' Δq`` to the accelerations). A motion with its own
    consistent ``v`` and ``a`` (Lee's estimator) is used as it is, on all its frames, unless a frequency is
    given. Otherwise ``scheme`` (``"forward"``: the paper's; ``"central"``) differentiates the coordinates,
    filtered by a zero-lag Butterworth filter at the cutoff. ``options`` records the choices, the cutoff used
    (Winter's, or for ``"auto"`` the one at touch-downs), Winter's as ``winter_cutoff_hz`` when his analysis
    ran, ``steady_cutoff_hz`` and the touch-downs' mean weight ``touchdown_share``, and after a hard landing
    ``settling_cutoff_hz`` with its share of frames ``settling_share``; ``cut_in_impact``, which of "begins" and
    "ends" lie in a firm touch-down's window) and ``first_frame``, the motion's frame of the first result.
    """
    if scheme not in SCHEMES:
        raise SolverError(f"Unknown finite-difference scheme {scheme!r}", f"use one of {', '.join(SCHEMES)}")
    if isinstance(cutoff, str) and cutoff not in AUTOMATIC_CUTOFFS:
        raise SolverError(f"Unknown cutoff {cutoff!r}",
                          "give a frequency in Hz, 'auto', 'winter' or None (no filter)")
    model = motion.model
    if (cutoff is None or cutoff in AUTOMATIC_CUTOFFS) and motion.v is not None and motion.a is not None:
        shape = (motion.n_frames, model.nv)
        if np.shape(motion.v) != shape or np.shape(motion.a) != shape:
            raise SolverError(f"The motion's velocities/accelerations must have shape {shape}",
                              "fix the reconstruction output")
        return Derivatives(np.asarray(motion.times, dtype=float), np.asarray(motion.q, dtype=float),
                           np.asarray(motion.v, dtype=float), np.asarray(motion.a, dtype=float),
                           {"derivatives": f"given by {motion.method}", "first_frame": 0})
    options = {"derivatives": f"{scheme} differences", "cutoff_hz": cutoff, "first_frame": int(scheme == "central")}
    blend = cutoff == "auto"
    coordinates = motion.q if motion.posed is None else np.where(np.asarray(motion.posed)[:, None], motion.q, np.nan)
    if cutoff in AUTOMATIC_CUTOFFS:
        rate = 1.0 / time_step(motion.times)
        posed = np.isfinite(coordinates).all(axis=1)
        tips = np.array([segment.tip for segment in model.segments])
        ends = motion.positions + np.einsum("tsij,sj->tsi", motion.rotations, tips)
        cutoff = residual_cutoff(np.concatenate([motion.positions, ends], axis=1)[posed], rate)
        options.update(cutoff_hz=cutoff, winter_cutoff_hz=cutoff, cutoff_source="Winter's residual analysis")
    differences = central_differences if scheme == "central" else forward_differences
    if cutoff is None or not blend:
        q = coordinates if cutoff is None else butterworth(model, motion.times, coordinates, cutoff)
        return Derivatives(*differences(model, motion.times, q), options)
    layers = touchdown_filtered(model, motion.times, coordinates, cutoff)
    derived = [differences(model, motion.times, x) for x, _, _ in layers]
    times, q, v, a = derived[0]
    if len(layers) == 1:
        return Derivatives(times, q, v, a, options)
    landing, steady = layers[0][2], layers[-1][2]
    source = f"Winter's residual analysis ({cutoff:g} Hz)"
    if landing != cutoff:
        options.update(cutoff_hz=landing)
        source += f", within {LANDING_MIN_HZ:g}-{LANDING_MAX_HZ:g} Hz,"
    first = options["first_frame"]
    weights = [None if w is None else w[first:first + len(times)] for _, w, _ in layers]
    q = blended([(d[1], w) for d, w in zip(derived, weights)], partial(blended_coordinates, model))
    v, a = (blended([(d[i], w) for d, w in zip(derived, weights)], _weighted) for i in (2, 3))
    options.update(steady_cutoff_hz=steady, touchdown_share=float(np.mean(weights[0])))
    cut = [end for end, weight in (("begins", weights[0][0]), ("ends", weights[0][-1])) if weight >= 0.5]
    if cut:  # the filter's odd extension holds the acceleration at a trial's ends toward zero: see Contact.warnings
        options["cut_in_impact"] = cut
    source += " at touch-downs (by the body's downward speed" + (
        f"; here none faster than {SOFT_SPEED:g} m/s)" if options["touchdown_share"] == 0.0 else ")")
    if len(layers) == 3:
        options.update(settling_cutoff_hz=layers[1][2], settling_share=float(np.mean(weights[1])))
        source += f", {layers[1][2]:g} Hz for {SETTLE:g} s after a hard landing"
    options["cutoff_source"] = f"{source}, {steady:.3g} Hz elsewhere"
    return Derivatives(times, q, v, a, options, weights[0], weights[1] if len(layers) == 3 else None)
