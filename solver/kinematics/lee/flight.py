"""Flight phases: when the subject is airborne, and the constraints that then hold (Lee 2009 eq. 4.12-4.19).

With no contact, gravity is the only external force and it exerts no torque about the system CM, so

- the CM follows a parabola with the known gravity: ``r_c(τ) = c0 + c1 τ + ½ g τ²`` (eq. 4.12-4.14), with
  ``c0, c1`` fitted to the measured CM of the window by least squares (the thesis fits the same
  parabola, eq. 9.1-9.3);
- the angular momentum about the CM is constant (eq. 4.15), its value the mean over the window of the
  momentum of the initial guesses (as for eq. 9.4), and its rate is zero (eq. 4.16).

Outside flight the contact forces are unknown: the CM targets are the initial guesses' own CM (so the
joint corrections do not move the whole-body CM) and the momentum constraints are off.

``flight``: None (no flight), ``"detect"``, or a window ``(t0, t1)`` [s] in the trial's time.
Detection: the lowest contact point of the model (its markers if it has none) is more than
``FLIGHT_CLEARANCE`` above the ground for at least ``FLIGHT_MIN_DURATION``; the ground is the
``GROUND_PERCENTILE`` percentile of that lowest height over the trial, so the trial must contain contact.
"""

from __future__ import annotations

import numpy as np

from ...errors import SolverError

#: Height above the ground [m] of the lowest contact point from which the subject counts as airborne.
FLIGHT_CLEARANCE = 0.03
#: Shortest flight phase detected [s].
FLIGHT_MIN_DURATION = 0.1
#: Percentile of the lowest point's height over the trial taken as the ground level.
GROUND_PERCENTILE = 5.0


def detect_flight(lowest: np.ndarray, rate: float) -> list[tuple[int, int]]:
    """Flight windows ``[start, stop)`` (frame indices) from the height of the lowest point (T,)."""
    ground = np.percentile(lowest, GROUND_PERCENTILE)
    airborne = np.concatenate([[False], lowest > ground + FLIGHT_CLEARANCE, [False]])
    edges = np.flatnonzero(np.diff(airborne.astype(np.int8)))
    windows = [(int(a), int(b)) for a, b in zip(edges[0::2], edges[1::2])]
    return [(a, b) for a, b in windows if (b - a - 1) / rate >= FLIGHT_MIN_DURATION]


def flight_windows(flight, times: np.ndarray, lowest_point) -> list[tuple[int, int]]:
    """Frame windows ``[start, stop)`` of the ``flight`` option (module docstring); ``lowest_point()`` gives the
    height of the lowest point per frame (only called for ``"detect"``)."""
    if flight is None:
        return []
    if isinstance(flight, str):
        if flight != "detect":
            raise SolverError(f"Unknown flight option {flight!r}", "use None, 'detect' or a window (t0, t1) in seconds")
        return detect_flight(lowest_point(), float((len(times) - 1) / (times[-1] - times[0])))
    try:
        t0, t1 = (float(x) for x in flight)
    except (TypeError, ValueError):
        raise SolverError(f"The flight window {flight!r} is not a pair of times",
                          "give flight=(t0, t1) in seconds, 'detect' or None") from None
    inside = np.flatnonzero((times >= t0 - 1e-9) & (times <= t1 + 1e-9))
    if len(inside) < 3:
        raise SolverError(f"The flight window ({t0:g}, {t1:g}) s holds {len(inside)} frames of the trial "
                          f"({times[0]:g} to {times[-1]:g} s)", "give a window of at least three frames")
    return [(int(inside[0]), int(inside[-1]) + 1)]


def flight_mask(windows: list[tuple[int, int]], n_frames: int) -> np.ndarray:
    mask = np.zeros(n_frames, dtype=bool)
    for a, b in windows:
        mask[a:b] = True
    return mask


def flight_parabola(times: np.ndarray, windows, cm: np.ndarray, gravity: np.ndarray) -> np.ndarray:
    """The CM parabola of every flight window fitted to ``cm`` (T, 3) with gravity fixed (eq. 4.12-4.14, 9.1-9.3):
    position, velocity and acceleration (3, T, 3), NaN outside flight."""
    out = np.full((3,) + cm.shape, np.nan)
    for a, b in windows:
        tau = times[a:b] - times[a]
        design = np.stack([np.ones_like(tau), tau], axis=1)
        (c0, c1), *_ = np.linalg.lstsq(design, cm[a:b] - 0.5 * tau[:, None] ** 2 * gravity, rcond=None)
        out[0, a:b] = c0 + np.outer(tau, c1) + 0.5 * np.outer(tau ** 2, gravity)
        out[1, a:b] = c1 + np.outer(tau, gravity)
        out[2, a:b] = gravity
    return out


def momentum_targets(windows, momentum: np.ndarray) -> np.ndarray:
    """Constant angular momentum about the CM per window (T, 3): the window's mean of ``momentum``."""
    out = np.zeros_like(momentum)
    for a, b in windows:
        out[a:b] = momentum[a:b].mean(axis=0)
    return out


def lowest_height(model, bodies, rotations: np.ndarray, coms: np.ndarray, measured: np.ndarray,
                  gravity: np.ndarray) -> np.ndarray:
    """Height along ``-gravity`` of the model's lowest contact point per frame (T,), placed by the body poses;
    of the lowest measured marker if the model has no contact points."""
    up = -np.asarray(gravity, dtype=float) / np.linalg.norm(gravity)
    heights = []
    for k, s in enumerate(model.segments):
        if len(s.contact_points):
            b = bodies.segment_body[k]
            local = bodies.segment_offset[k] + s.contact_points - bodies.com[b]
            points = coms[:, b, None] + np.einsum("tij,pj->tpi", rotations[:, b], local)
            heights.append((points @ up).min(axis=1))
    if heights:
        return np.min(heights, axis=0)
    return np.nanmin(measured @ up, axis=1)
