"""``reconstruct``: a trial's markers in, the model's motion that satisfies every joint and fits the markers best, out.

The Optimal Tracking Method (Ausejo, Suescun & Celigüeta) per frame, in one of two modes that solve the
same problem (eq. 12-13) from the same start points and agree to the tolerance:

- ``paper``: natural coordinates, QP subproblems on the normal equations, KKT system by QR with the
  dependent-constraint threshold, ``merit`` or ``maxmin`` globalization (``otm``). Slow, for reference.
- ``fast``: the model's minimal coordinates, damped Newton, one numba call per chunk of frames (``otm_fast``).

Per frame: missing markers weigh zero; a joint the present markers leave undetermined keeps its relative
rotation near the start point's through a small prior (``otm_fast.PRIOR_WEIGHT``); a frame without data
(not even the pelvis is determined) keeps the start pose. Start points: the previous frame's solution,
or the per-segment rigid fits (``fit_segments``) at the first frame, after a frame that did not converge
or had no data, and for joints whose markers come back (``otm_fast.prepare_frame``). Frames that do not
converge within ``max_iterations`` are flagged in ``Motion.converged`` and counted in ``Motion.info``.
Joints the model holds by a rule (``model.held``) are welded for OTM and set afterwards (``held_joints``).

Beyond the paper, in fast mode: a frame that did not converge, or whose joints turn by more than a quarter turn
to the next frame (an orientation flipped), is solved again from the next frame, latest first, so a run of them
is solved backwards, each frame warm-started from the one after it as the forward pass
starts from the frame before (``_solved_backwards``). A frame takes that solution where it converges unflipped,
one that did not converge also where it fits the markers better. The forward pass restarts
after a failed frame from the per-segment rigid fits, which noisy markers can leave flipped, and damped Newton
from a poor start may land on the other side: walking4 at 60 Hz with each marker drifting by 2 cm RMS at 2 Hz
started with a frame 140° away from the next about the left upper arm, the video drop jump so recorded with one
126° away, and inverse dynamics refused both ("turns by more than 90° between frames 0 and 1"). The paper mode
keeps the paper's forward pass.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from ..errors import SolverError
from ..io.trial import Trial
from ..model.body import BodyModel
from ..model.fit import fit_segments, marker_indices
from ..model.held import tracked_coordinates, tracked_model
from ..model.markersets import normalize
from ..rotations import MAX_TURN_PER_FRAME, quat_continuity
from .held_joints import set_held_joints
from .motion import Motion
from .natural import NaturalModel, natural_model
from .otm import STRATEGIES, Driving, solve_frame
from .otm_fast import PRIOR_WEIGHT, prepare_frame, solve_trial, undetermined_joints

MODES = ("fast", "paper")
#: Frames per numba call in fast mode, and between two progress reports (where a run can be cancelled).
CHUNK = 200

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class _Frames:
    """The trial in model-marker order: ``measured`` (T, M, 3) NaN where missing, tracked ``weights``
    (T, M) (0 where missing or exact), ``exact`` (T, M) present markers to satisfy exactly, per-segment
    fits ``fit`` (T, nq) (NaN where a segment could not be fitted), and the fallback pose ``default``."""

    measured: np.ndarray
    weights: np.ndarray
    exact: np.ndarray
    fit: np.ndarray
    default: np.ndarray


def reconstruct(trial: Trial, model: BodyModel, method: str = "otm", mode: str = "fast", strategy: str = "merit",
                tolerance: float = 1e-7, max_iterations: int = 25, weights=None,
                progress: Progress | None = None) -> Motion:
    """The model's motion through ``trial`` by OTM (module docstring).

    ``weights``: None (every marker 1), a mapping label -> weight (unlisted markers 1), or an array in
    ``model.marker_labels`` order, (M,) or per frame (T, M). Weights are >= 0; ``inf`` asks for a marker
    to be matched exactly (a driving constraint W_s of eq. 13; paper mode only). ``tolerance`` bounds
    ||Φ||₂ and the last step (max-norm); ``max_iterations`` is the paper's nMaxIter. ``progress(done,
    total)`` is called as frames are finished.
    """
    _check_options(method, mode, strategy, tolerance, max_iterations)
    tolerance, max_iterations = float(tolerance), int(max_iterations)
    full, model = model, tracked_model(model)
    frames = _frames(trial, model, full, weights)
    if mode == "fast" and frames.exact.any():
        raise SolverError("Markers to be matched exactly (weight inf) need the paper mode",
                          "call reconstruct(..., mode='paper') or give those markers finite weights")
    nat = natural_model(model)
    report = progress or (lambda done, total: None)
    started = time.perf_counter()
    solve = _solve_fast if mode == "fast" else _solve_paper
    q, steps, converged, norm, undetermined = solve(model, nat, frames, strategy, tolerance, max_iterations, report)
    seconds = time.perf_counter() - started
    if mode == "fast":
        norm = np.linalg.norm(nat.constraints(nat.from_q(q)), axis=-1)
    q = continuous_quaternions(model, q)
    errors = np.linalg.norm(model.marker_positions(q) - frames.measured, axis=-1)
    objective = 0.5 * np.sum(frames.weights * np.nan_to_num(errors) ** 2, axis=1)
    no_data = undetermined[:, 0]
    failed = int(np.count_nonzero(~converged & ~no_data))
    warnings = []
    if no_data.any():
        warnings.append(f"{int(no_data.sum())} frame(s) without enough markers to place the pelvis keep the "
                        "previous pose (flagged as not converged; no forces or torques there)")
    if failed:
        warnings.append(f"{failed} frame(s) did not converge within {max_iterations} iterations "
                        f"(tolerance {tolerance:g}); Motion.converged flags them")
    info = {
        "mode": mode, "strategy": strategy if mode == "paper" else None, "tolerance": tolerance,
        "max_iterations": max_iterations, "frames": len(q), "converged_frames": int(converged.sum()),
        "convergence_rate_percent": 100.0 * float(converged.mean()) if len(q) else 0.0,
        "no_data_frames": int(no_data.sum()), "seconds": seconds, "seconds_per_frame": seconds / max(len(q), 1),
        "natural_coordinates": {"n": nat.n, "m": nat.m, "redundant": nat.redundant},
        "prior_frames": {name: int(count) for name, count in
                         zip(model.names, undetermined[~no_data].sum(axis=0)) if count},
        "weights": "default" if weights is None else "given",
        "exact_markers": [label for label, e in zip(model.marker_labels, frames.exact.any(axis=0)) if e],
        "missing_markers": [label for label, gone in zip(model.marker_labels, np.isnan(frames.measured).all(
            axis=(0, 2))) if gone],
        "warnings": warnings,
    }
    motion = Motion.from_q(model, trial.times, q, "otm", converged=converged, iterations=steps,
                           constraint_norm=norm, objective=objective, marker_labels=model.marker_labels,
                           marker_errors=errors, posed=~no_data, info=info)
    return set_held_joints(motion, full)


def _check_options(method, mode, strategy, tolerance, max_iterations) -> None:
    if method != "otm":
        raise SolverError(f"Unknown reconstruction method {method!r}", "use method='otm'")
    if mode not in MODES:
        raise SolverError(f"Unknown OTM mode {mode!r}", f"use one of {', '.join(MODES)}")
    if strategy not in STRATEGIES:
        raise SolverError(f"Unknown OTM strategy {strategy!r}", f"use one of {', '.join(STRATEGIES)}")
    if not tolerance > 0:
        raise SolverError(f"The tolerance must be positive, got {tolerance!r}", "use e.g. tolerance=1e-7")
    if int(max_iterations) != max_iterations or max_iterations < 1:
        raise SolverError(f"max_iterations must be a positive integer, got {max_iterations!r}",
                          "use e.g. max_iterations=25 (the paper's nMaxIter)")


def _frames(trial: Trial, model: BodyModel, full: BodyModel, weights) -> _Frames:
    """Measured markers in model order, per-frame weights, per-segment fits and the fallback pose (the
    calibration's initial pose of ``full``, the model before ``tracked_model``)."""
    labels = model.marker_labels
    where = marker_indices(model, trial.labels)
    if not labels or not (where >= 0).any():
        raise SolverError(f"None of the model's markers is in {trial.source}" if labels else
                          "The body model has no markers",
                          "calibrate the model on a trial with this marker set (solver.model.calibrate)")
    measured = np.where((where >= 0)[None, :, None], trial.markers[:, np.maximum(where, 0)], np.nan)
    given = _weights(weights, labels, trial.n_frames)
    present = ~np.isnan(measured).any(axis=-1)
    exact = present & np.isinf(given)
    tracked = np.where(present & ~exact, given, 0.0)
    fit = fit_segments(model, trial.labels, trial.markers).q
    calibration = model.metadata.get("calibration")
    default = np.asarray(getattr(calibration, "initial_q", ()), dtype=float)
    if default.shape == (full.nq,):
        default = tracked_coordinates(full, default)
    if default.shape != (model.nq,):
        default = model.neutral_q()
    return _Frames(np.ascontiguousarray(measured), np.ascontiguousarray(tracked), exact, fit, default)


def _weights(weights, labels: tuple[str, ...], n_frames: int) -> np.ndarray:
    """Per-frame marker weights (T, M) from None, a mapping label -> weight, or an (M,) / (T, M) array."""
    if weights is None:
        values = np.ones(len(labels))
    elif isinstance(weights, Mapping):
        index = {normalize(label): i for i, label in enumerate(labels)}
        unknown = [label for label in weights if normalize(label) not in index]
        if unknown:
            raise SolverError(f"Weights given for markers the model does not have: {', '.join(map(str, unknown))}",
                              f"use labels of model.marker_labels ({', '.join(labels)})")
        values = np.ones(len(labels))
        for label, weight in weights.items():
            values[index[normalize(label)]] = weight
    else:
        values = np.asarray(weights, dtype=float)
        if values.shape not in ((len(labels),), (n_frames, len(labels))):
            raise SolverError(f"Marker weights of shape {values.shape} do not match the model's {len(labels)} markers",
                              f"give ({len(labels)},) or ({n_frames}, {len(labels)}) weights in model.marker_labels "
                              "order, or a mapping label -> weight")
    values = np.asarray(values, dtype=float)
    if np.isnan(values).any() or (values < 0).any():
        raise SolverError("Marker weights must be zero or positive (inf: match exactly)",
                          "replace negative or NaN weights")
    return np.broadcast_to(values, (n_frames, len(labels)))


def _solve_fast(model, nat, frames, strategy, tolerance, max_iterations, report):
    """``otm_fast.solve_trial`` chunk by chunk, the warm start carried across chunks, then the frames that did not
    converge before one that did solved again backwards (``_solved_backwards``)."""
    tree, chains = model.tree, model.marker_chains
    previous, previous_ok = np.full(model.nq, np.nan), False
    previous_undetermined = np.zeros(len(model.segments), dtype=bool)
    parts = []
    n_frames = len(frames.measured)
    for first in range(0, n_frames, CHUNK):
        last = min(first + CHUNK, n_frames)
        solved = solve_trial(
            tree, chains, frames.measured[first:last], frames.weights[first:last], frames.fit[first:last],
            frames.default, tolerance, max_iterations, previous, previous_ok, previous_undetermined)
        parts.append(solved)
        previous, previous_ok, previous_undetermined = solved[0][-1], bool(solved[2][-1]), solved[4][-1]
        report(last, n_frames)
    q, steps, converged, objective, undetermined = (np.concatenate(p) for p in zip(*parts))
    _solved_backwards(model, frames, tolerance, max_iterations, q, steps, converged, objective, undetermined)
    return q, steps, converged, None, undetermined


def _solved_backwards(model, frames, tolerance, max_iterations, q, steps, converged, objective, undetermined
                      ) -> None:
    """The frames with data that did not converge, or whose joints turn by more than ``MAX_TURN_PER_FRAME`` to the
    frame after, solved again from that frame (when it has data), latest first, so that a run of them is solved
    backwards (module docstring); in place. A frame takes the new solution where it converges unflipped, one that
    did not converge also where it fits the markers better (``objective``)."""
    blocks = model.quaternion_columns
    failed = ~converged & ~undetermined[:, 0]
    todo = np.flatnonzero(failed[:-1] | _flips(q, blocks)).tolist()
    while todo:
        t = todo.pop()
        if undetermined[t, 0] or undetermined[t + 1, 0] or not (failed[t] or _flips(q[t:t + 2], blocks)[0]):
            continue
        one = slice(t, t + 1)
        solved = solve_trial(model.tree, model.marker_chains, frames.measured[one], frames.weights[one],
                             frames.fit[one], frames.default, tolerance, max_iterations, q[t + 1], True,
                             undetermined[t + 1])
        unflipped = not _flips(np.stack([solved[0][0], q[t + 1]]), blocks)[0]
        if solved[2][0] and unflipped or failed[t] and solved[3][0] < objective[t]:
            for whole, part in zip((q, steps, converged, objective, undetermined), solved):
                whole[t] = part[0]
            if t > 0 and (not todo or todo[-1] != t - 1):
                todo.append(t - 1)


def _flips(q: np.ndarray, blocks: np.ndarray) -> np.ndarray:
    """(T-1,) whether some quaternion of ``q`` (T, nq) at columns ``blocks`` (B, 4) turns by more than
    ``MAX_TURN_PER_FRAME`` from each frame to the next."""
    dots = np.abs(np.sum(q[:-1, blocks] * q[1:, blocks], axis=-1))
    return (dots < np.cos(MAX_TURN_PER_FRAME / 2)).any(axis=-1)


def _solve_paper(model, nat, frames, strategy, tolerance, max_iterations, report):
    """``otm.solve_frame`` frame by frame, from the same start points as the fast mode."""
    tree = model.tree
    markers = nat.marker_matrix()
    n_frames, n_seg = len(frames.measured), len(model.segments)
    q = np.empty((n_frames, model.nq))
    steps = np.zeros(n_frames, dtype=int)
    converged = np.zeros(n_frames, dtype=bool)
    norm = np.full(n_frames, np.nan)
    undetermined = np.zeros((n_frames, n_seg), dtype=bool)
    previous, previous_ok = np.full(model.nq, np.nan), False
    previous_undetermined = np.zeros(n_seg, dtype=bool)
    start, target = np.empty(model.nq), np.empty((n_seg, 3, 3))
    any_exact = frames.exact.any()
    for t in range(n_frames):
        prepare_frame(tree, previous, previous_ok, previous_undetermined, frames.fit[t], frames.default, start,
                      target)
        determining = frames.weights[t] + frames.exact[t]
        if undetermined_joints(tree, model.marker_chains, start, frames.measured[t], determining, undetermined[t]):
            q[t] = start
        else:
            targets = np.nan_to_num(frames.measured[t]).ravel()
            tracked = _tracked(nat, markers, targets, np.repeat(frames.weights[t], 3), undetermined[t], target)
            exact = Driving(markers, targets, np.repeat(frames.exact[t], 3).astype(float)) if any_exact else None
            solution = solve_frame(nat, nat.from_q(start), tracked, exact, strategy, tolerance, max_iterations)
            q[t], steps[t], converged[t] = nat.to_q(solution.x), solution.iterations, solution.converged
            norm[t] = solution.constraint_norm
        previous, previous_ok, previous_undetermined = q[t], converged[t], undetermined[t]
        if (t + 1) % CHUNK == 0 or t + 1 == n_frames:
            report(t + 1, n_frames)
    return q, steps, converged, norm, undetermined


def _tracked(nat: NaturalModel, markers: np.ndarray, targets: np.ndarray, weights: np.ndarray,
             undetermined: np.ndarray, target: np.ndarray) -> Driving:
    """Tracked driving constraints Ψ_m: the markers, and for each undetermined joint the prior
    ``R_c e_k - R_p R_target e_k`` (9 rows, linear in natural coordinates; ``otm_fast``)."""
    rows, values, row_weights = [markers], [targets], [weights]
    for s in np.flatnonzero(undetermined[1:]) + 1:
        parent = nat.model.segments[s].parent
        for k in range(3):
            rows.append(nat.vector_map(s, np.eye(3)[k]) - nat.vector_map(parent, target[s][:, k]))
            values.append(np.zeros(3))
            row_weights.append(np.full(3, PRIOR_WEIGHT))
    return Driving(np.vstack(rows), np.concatenate(values), np.concatenate(row_weights))


def continuous_quaternions(model: BodyModel, q: np.ndarray) -> np.ndarray:
    """Quaternions (root and ball joints) with no sign flips between frames."""
    q = q.copy()
    for columns in model.quaternion_columns:
        q[:, columns] = quat_continuity(q[:, columns])
    return q
