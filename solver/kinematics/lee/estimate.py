"""``estimate_lee``: positions, velocities and accelerations that satisfy the joint, CM and (in flight)
angular-momentum constraints, by Lee's measurement filter (Lee 2009, Fig. 1.1, 3.1, 6.1; notes §1).

1. initial guesses from the markers (§5.1, ``initial``); flight windows and their targets (``flight``);
2. Algo_p -> P1 = {q_i, r_ci} (``algo_p``); orientations projected onto what hinges and universal joints
   allow and the joint points re-closed (``joints``); quaternion sign continuity;
3. sp_p: splines through P1 -> V1, the velocity initial guess (``splines``), or marker velocities (eq. 5.13
   corrected, 5.16) with ``initial_guess="markers"``;
4. Algo_v -> V2 = {ω_i, ṙ_ci} (``algo_rates``);
5. sp_v: splines through V2 -> A2, the acceleration initial guess, or marker accelerations (eq. 5.15);
6. Algo_a -> A3 = {α_i, r̈_ci};
7. the consistent set [P1, V2, A3] in the model's coordinates (``assemble``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...constants import GRAVITY
from ...errors import SolverError
from ...io.trial import Trial
from ...model.body import BodyModel
from ...model.fit import marker_indices
from ...model.held import tracked_model
from ...rotations import matrix_to_quat, quat_continuity, quat_to_matrix
from ..held_joints import set_held_joints
from ..motion import Motion
from . import residuals as res
from .algo_p import algo_p
from .algo_rates import algo_rates
from .assemble import motion_coordinates
from .bodies import Bodies, bodies_of
from .flight import flight_mask, flight_parabola, flight_windows, lowest_height, momentum_targets
from .initial import angular_acceleration, angular_velocity, cm_rate, initial_poses, marker_products, marker_rates
from .joints import project_rotations, universal_constraints
from .splines import quaternion_rates, spline_derivatives

Progress = Callable[[int, int], None]

#: The thesis's joint residuals after estimation (§9.4): position [m], velocity [m/s], acceleration [m/s²].
RESIDUAL_TOLERANCES = (1e-9, 1e-6, 1e-3)
#: Frames per kernel call, and between two progress reports.
CHUNK = 500
INITIAL_GUESSES = ("spline", "markers")
#: Weight of the CM and joint constraints in the CM self-iterations after the orientation projection.
CLOSING_WEIGHT = 1e12


def weight_schedule(bases, dx: float, steps: int, size: int) -> np.ndarray:
    """``W(k) = dx · x^(k-1)``, k = 1..steps, per base x (§6.4); a base of 0 gives 0. Shape (steps, size)."""
    bases = np.asarray(bases, dtype=float).reshape(-1)
    if len(bases) != size or not np.all(np.isfinite(bases)) or (bases < 0).any():
        raise SolverError(f"Expected {size} non-negative weight bases, got {tuple(bases)}",
                          f"give {size} bases, e.g. the thesis's (5, 2, 2) or (2, 2, 5, 5, 5); 0 turns one off")
    k = np.arange(steps)[:, None]
    return np.where(bases > 0, dx * np.where(bases > 0, bases, 1.0) ** k, 0.0)


@dataclass(frozen=True)
class _Setup:
    """What every stage needs: the model and its bodies, the frames, the flight phases and the options."""

    model: BodyModel
    bodies: Bodies
    times: np.ndarray
    flying: np.ndarray  # (T,)
    windows: list
    parabola: np.ndarray  # (3, T, 3) flight CM position, velocity, acceleration; NaN outside flight
    schedules: tuple  # (k_n, 3), (k_n, 5), (k_n, 5)
    self_iterations: int
    report: Progress

    def cm_target(self, level: int, states: np.ndarray) -> np.ndarray:
        """System CM position/velocity/acceleration target (T, 3): the flight parabola, else ``states``' own."""
        return np.where(self.flying[:, None], self.parabola[level], res.system_cm(self.bodies, states))

    def in_chunks(self, function, stage: int, *frame_arrays, **fixed):
        """``function`` on slices of CHUNK frames of ``frame_arrays``, outputs concatenated; progress reported."""
        n_frames, parts = len(self.times), []
        for start in range(0, n_frames, CHUNK):
            part = slice(start, min(start + CHUNK, n_frames))
            parts.append(function(*(x[part] for x in frame_arrays), bodies=self.bodies,
                                  self_iterations=self.self_iterations, **fixed))
            self.report(stage * n_frames + part.stop, 3 * n_frames)
        return tuple(np.concatenate(values) for values in zip(*parts))


def _check(dx, self_iterations, weight_steps, initial_guess, n_frames) -> None:
    if not dx > 0:
        raise SolverError(f"dx must be positive, got {dx!r}", "use the thesis's dx = 0.01")
    for name, value in (("self_iterations", self_iterations), ("weight_steps", weight_steps)):
        if int(value) != value or value < 1:
            raise SolverError(f"{name} must be a positive integer, got {value!r}", "use the thesis's 15 and 10")
    if initial_guess not in INITIAL_GUESSES:
        raise SolverError(f"Unknown initial guess {initial_guess!r}", f"use one of {', '.join(INITIAL_GUESSES)}")
    if n_frames < 4:
        raise SolverError(f"Lee's estimation needs at least 4 frames for its cubic splines; the trial has {n_frames}",
                          "estimate a longer stretch of the trial")


def _model_order(model: BodyModel, labels, values: np.ndarray | None, n_frames: int, what: str):
    """Trial-ordered marker data (T, M_trial, 3) -> model marker order (T, M, 3), NaN for absent markers."""
    if values is None:
        return None
    values = np.asarray(values, dtype=float)
    if values.shape != (n_frames, len(labels), 3):
        raise SolverError(f"Marker {what} must have shape ({n_frames}, {len(labels)}, 3) like the trial's markers; "
                          f"got {values.shape}", "give one per trial marker and frame, or None")
    where = marker_indices(model, labels)
    return np.where(where >= 0, 1.0, np.nan)[None, :, None] * values[:, np.maximum(where, 0)]


def _rotation_angle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Largest angle [rad] per frame of ``aᵀ b`` over bodies, for rotation matrices (T, n, 3, 3)."""
    cos = (np.einsum("tbij,tbij->tb", a, b) - 1.0) / 2.0
    return np.arccos(np.clip(cos, -1.0, 1.0)).max(-1)


def _positions(setup: _Setup, quat0, com0, b_markers):
    """Algo_p, the projection onto what the joints allow, and CM self-iterations with the constraints Algo_p
    used weighted ``CLOSING_WEIGHT``: for these consistent linear constraints (the joint points and the CM)
    that is their minimum-norm correction, the limit of Algo_p's own CM iterations. Returns P1 (quaternions,
    rotations, CMs), the CM target, the gap history, the self-iterations and the projection angle per frame."""
    target = setup.cm_target(0, com0)
    quat, com, history, iterations = setup.in_chunks(algo_p, 0, quat0, com0, b_markers, target,
                                                     schedule=setup.schedules[0])
    estimated = quat_to_matrix(quat)
    rotations = project_rotations(setup.model, setup.bodies, estimated)
    closing = np.where(setup.schedules[0][-1:] > 0, CLOSING_WEIGHT, 0.0)
    closing[:, 0] = 0.0
    quat, com, _, more = algo_p(quat_continuity(matrix_to_quat(rotations)), com, b_markers, target,
                                bodies=setup.bodies, schedule=closing, self_iterations=setup.self_iterations)
    return quat, rotations, com, target, history, iterations + more, _rotation_angle(estimated, rotations)


def _rates(setup: _Setup, level: int, rotations, rho, x_w, x_t, target_t, target_h, omega=None):
    """Algo_v (``level`` 1) or Algo_a (2, ``omega`` = V2) with the universal joints' rate constraints."""
    uni_bodies, uni_normal, uni_offset = universal_constraints(setup.model, setup.bodies, rotations, omega)
    extra = () if omega is None else (omega,)
    return setup.in_chunks(algo_rates, level, rotations, rho, x_w, x_t, target_t, target_h, setup.flying,
                           uni_normal, uni_offset, *extra, uni_bodies=uni_bodies, schedule=setup.schedules[level])


def _residuals(bodies: Bodies, rotations, coms, velocities, omega, accelerations, alpha, flying, gravity,
               momentum_target) -> dict:
    """Per-frame largest joint residuals and, in flight, the CM acceleration and momentum residuals."""
    nan = np.full(len(coms), np.nan)
    momentum = res.angular_momentum(bodies, rotations, coms, velocities, omega)
    rate = res.momentum_rate(bodies, rotations, coms, accelerations, omega, alpha)
    cm_acc = np.linalg.norm(res.system_cm(bodies, accelerations) - gravity, axis=-1)
    return {
        "joint_position": res.joint_position_gaps(bodies, rotations, coms).max(-1, initial=0.0),
        "joint_velocity": res.joint_velocity_gaps(bodies, rotations, velocities, omega).max(-1, initial=0.0),
        "joint_acceleration": res.joint_acceleration_gaps(bodies, rotations, accelerations, omega,
                                                          alpha).max(-1, initial=0.0),
        "cm_acceleration": np.where(flying, cm_acc, nan),
        "momentum_change": np.where(flying, np.linalg.norm(momentum - momentum_target, axis=-1), nan),
        "momentum_rate": np.where(flying, np.linalg.norm(rate, axis=-1), nan),
    }


def estimate_lee(trial: Trial, model: BodyModel, *, weights=(2, 10, 10), velocity_weights=(2, 2, 10, 10, 10),
                 acceleration_weights=(1, 1, 5, 5, 5), dx: float = 0.01, self_iterations: int = 15,
                 weight_steps: int = 10, initial_guess: str = "spline", flight=None,
                 gravity: np.ndarray = GRAVITY, marker_velocities: np.ndarray | None = None,
                 marker_accelerations: np.ndarray | None = None, progress: Progress | None = None) -> Motion:
    """Constraint-consistent motion of ``model`` through ``trial`` by Lee's method (module docstring).

    Weights are the bases x of the sequences ``W(k) = dx · x^(k-1)``: ``weights`` [W1 orientation-joints,
    W2 CM, W3 CM-joints], ``velocity_weights`` [V1..V5] and ``acceleration_weights`` [S1..S5] as in the
    thesis (V1/S1 and V4/S4 momentum, V2/S2 and V5/S5 joints, V3/S3 CM); 0 turns one off. Defaults: the
    thesis's human jump (§9.3), which closes joint gaps mostly by translation. Its three-bar set (5, 2, 2),
    (2, 2, 5, 5, 5), (2, 2, 5, 5, 5) closes more by rotation: our hinges then need smaller projections and the
    markers fit better (8 vs 13 mm RMS on subject4_walking1), but small end segments (feet) turn up to three
    times further from the truth than their raw fits (the simulated flight test). ``self_iterations`` is
    j_n, ``weight_steps`` k_n. ``initial_guess``:
    "spline" (sp_p, sp_v) or "markers" (eq. 5.13, 5.15 from ``marker_velocities``/``marker_accelerations``
    (T, M, 3) in the trial's marker order, or from splines through each marker when not given).
    ``flight``: None, "detect" or ``(t0, t1)`` [s] (``flight``); ``gravity`` [m/s²] its direction and size.
    ``progress(done, total)`` is called as frames finish a stage.

    The Motion carries ``v`` and ``a`` (inverse dynamics uses them as they are); ``constraint_norm`` is the
    norm of the joint gaps per frame, ``converged`` whether the thesis's residuals (``RESIDUAL_TOLERANCES``)
    hold, ``iterations`` the self-iterations done; ``info`` the options, flight windows, per-frame residuals
    of the sets ic (initial guesses with spline derivatives), sp_p, sp_v and pva (the output), Algo_p's
    gap history, the sizes of the projections and final corrections, the body states and timings.

    Joints the model holds by a rule (``model.held``) are welded for the estimate (so its flight-phase
    momentum counts a held head as riding on the torso) and set afterwards (``kinematics.held_joints``).
    """
    full, model = model, tracked_model(model)
    times = np.asarray(trial.times, dtype=float)
    n_frames = len(times)
    _check(dx, self_iterations, weight_steps, initial_guess, n_frames)
    gravity = np.asarray(gravity, dtype=float).reshape(3)
    schedules = tuple(weight_schedule(b, dx, int(weight_steps), size)
                      for b, size in ((weights, 3), (velocity_weights, 5), (acceleration_weights, 5)))
    seconds = {}
    started = time.perf_counter()

    bodies = bodies_of(model)
    labels = tuple(trial.labels)
    measured = _model_order(model, labels, trial.markers, n_frames, "positions")
    if np.isnan(measured).all():
        raise SolverError("The trial has none of the model's markers", "calibrate the model on this marker set")
    quat0, com0, own = initial_poses(bodies, model, labels, trial.markers, measured, times)
    rot0 = quat_to_matrix(quat0)
    windows = flight_windows(flight, times, lambda: lowest_height(model, bodies, rot0, com0, measured, gravity))
    setup = _Setup(model, bodies, times, flight_mask(windows, n_frames), windows,
                   flight_parabola(times, windows, res.system_cm(bodies, com0), gravity), schedules,
                   int(self_iterations), progress or (lambda done, total: None))
    seconds["initial_guesses"] = time.perf_counter() - started

    clock = time.perf_counter()
    quat1, rot1, com1, target_p, history, iterations_p, orientation_projection = _positions(
        setup, quat0, com0, marker_products(bodies, measured))
    seconds["algo_p"] = time.perf_counter() - clock

    clock = time.perf_counter()
    omega_sp, alpha_sp = quaternion_rates(times, quat1)
    velocity_sp, acceleration_sp = spline_derivatives(times, com1)
    omega0, velocity0 = omega_sp, velocity_sp
    if initial_guess == "markers":
        marker_vel = _model_order(model, labels, marker_velocities, n_frames, "velocities")
        marker_acc = _model_order(model, labels, marker_accelerations, n_frames, "accelerations")
        if marker_vel is None or marker_acc is None:
            spline_vel, spline_acc = marker_rates(times, measured)
            marker_vel = spline_vel if marker_vel is None else marker_vel
            marker_acc = spline_acc if marker_acc is None else marker_acc
        omega0 = angular_velocity(bodies, rot1, marker_vel, omega_sp)
        velocity0 = cm_rate(bodies, rot1, marker_vel, omega0, velocity_sp)
    target_v = setup.cm_target(1, velocity0)
    momentum = momentum_targets(windows, res.angular_momentum(bodies, rot1, com1, velocity0, omega0,
                                                              cm=target_p, cm_velocity=target_v))
    rho = com1 - target_p[:, None]
    omega2, velocity2, iterations_v, correction_v = _rates(setup, 1, rot1, rho, omega0, velocity0, target_v, momentum)
    seconds["algo_v"] = time.perf_counter() - clock

    clock = time.perf_counter()
    alpha_sv, _ = spline_derivatives(times, omega2)
    acceleration_sv, _ = spline_derivatives(times, velocity2)
    alpha0, acceleration0 = alpha_sv, acceleration_sv
    if initial_guess == "markers":
        alpha0 = angular_acceleration(bodies, rot1, omega2, marker_acc, alpha_sv)
        acceleration0 = cm_rate(bodies, rot1, marker_acc, omega2, acceleration_sv, alpha=alpha0)
    alpha3, acceleration3, iterations_a, correction_a = _rates(
        setup, 2, rot1, rho, alpha0, acceleration0, setup.cm_target(2, acceleration0), np.zeros((n_frames, 3)),
        omega2)
    seconds["algo_a"] = time.perf_counter() - clock

    q, v, a = motion_coordinates(model, bodies, quat1, com1, velocity2, omega2, acceleration3, alpha3)
    omega_ic, alpha_ic = quaternion_rates(times, quat0)
    velocity_ic, acceleration_ic = spline_derivatives(times, com0)
    sets = {"ic": (rot0, com0, velocity_ic, omega_ic, acceleration_ic, alpha_ic),
            "sp_p": (rot1, com1, velocity_sp, omega_sp, acceleration_sp, alpha_sp),
            "sp_v": (rot1, com1, velocity2, omega2, acceleration_sv, alpha_sv),
            "pva": (rot1, com1, velocity2, omega2, acceleration3, alpha3)}
    residuals = {name: _residuals(bodies, *states, setup.flying, gravity, momentum) for name, states in sets.items()}
    converged = np.all([residuals["pva"][key] < tol for key, tol in
                        zip(("joint_position", "joint_velocity", "joint_acceleration"), RESIDUAL_TOLERANCES)], axis=0)
    seconds["total"] = time.perf_counter() - started
    info = {
        "bodies": bodies.names, "joint_points": len(bodies.joint_bodies), "weights": tuple(weights),
        "velocity_weights": tuple(velocity_weights), "acceleration_weights": tuple(acceleration_weights),
        "dx": dx, "self_iterations": int(self_iterations), "weight_steps": int(weight_steps),
        "initial_guess": initial_guess, "gravity": gravity, "flight": setup.flying,
        "flight_windows": [(float(times[a]), float(times[b - 1])) for a, b in windows],
        "own_marker_fit_fraction": dict(zip(bodies.names, own.mean(axis=0).tolist())),
        "residuals": residuals, "algo_p_history": history,
        "iterations_per_stage": {"algo_p": iterations_p, "algo_v": iterations_v, "algo_a": iterations_a},
        "orientation_projection_rad": orientation_projection,
        "final_correction": {"velocities": correction_v, "accelerations": correction_a},
        "body_states": {"quaternion": quat1, "com": com1, "com_velocity": velocity2, "angular_velocity": omega2,
                        "com_acceleration": acceleration3, "angular_acceleration": alpha3},
        "momentum_target": momentum, "seconds": seconds, "seconds_per_frame": seconds["total"] / n_frames,
    }
    motion = Motion.from_q(model, times, q, "lee", v=v, a=a, converged=converged,
                           iterations=iterations_p + iterations_v + iterations_a,
                           constraint_norm=np.linalg.norm(res.joint_position_gaps(bodies, rot1, com1), axis=-1),
                           marker_labels=model.marker_labels,
                           marker_errors=np.linalg.norm(model.marker_positions(q) - measured, axis=-1), info=info)
    return set_held_joints(motion, full)
