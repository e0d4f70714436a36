"""Whether a contact point slides along its surface, and so may carry load (``per_frame``'s sliding factor).

Beyond Brubaker et al. (2009), whose springs load whatever comes near the floor. A point's activation is
multiplied by ``exp(-(s_k/v_s)²)`` (``sliding_factor``), ``s_k`` the speed at which it is judged to slide and
``v_s`` ``PerFrameOptions.sliding_speed`` (``per_frame`` says why 0.7 m/s).

A point off any sole slides at its own velocity along its surface, ``s_k = |v_k|``. A foot's sole points are
judged with their foot (``sliding_speeds``): ``s_k² = |v_k|² - min_j |v_j|² + u²``, ``j`` over the sole's
points and ``u`` the slowest speed of any point of the sole (``slowest_sole_speed``). Where the slowest point of
the sole is one of its corners (``u = min_j |v_j|``: a heel striking, a foot flat or sliding as a whole) this is
each point's own speed, as before; where it lies inside the sole (a foot rolling over its forefoot or pivoting
on its ball turns about a line or point between its corners, which all move while it stays put), the sole's
stillest corner is judged by that point's speed and the others by how much faster than it they move.

The sprint at 9 m/s shows why (2026-12-07; ``bench_contact_priors.py --trials sprint`` and a session script
moving the toe points): in its stances each foot's corners moved at 0.6-1.0 m/s (medians) and its sole's slowest
point at 0.20-0.22, so each corner alone looked half sliding, and a little more speed tipped the stances into
sliding away. Its toe points 4 or 6 cm farther ahead, as a marker on the toe tip (a hallux marker, a video
keypoint BigToe) places them, turn farther from the forefoot's turning line: judged point by point, its vertical
GRF from motion alone missed the plates by 29.4 and 39.5 % BW (r 0.959; 22.1 as built); judged with the sole,
22.5 and 23.0. With ``v_s`` halved (every corner as if twice as fast): 57.9 point by point, 23.3 with the sole.
As built the sole costs the sprint a little (vertical GRF 22.1 -> 22.7 % BW, centre of pressure in single support
3.7 -> 3.8 cm, moments against ours with the plates 0.964 -> 0.963, root force explained 74.2 -> 74.7 %); the
six other trials with plates are unchanged to the printed digits (``bench_contact.py --sections 2``), walking1
with its toe points moved alike too.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np


def slowest_sole_speed(velocities: np.ndarray) -> np.ndarray:
    """(T,) the slowest horizontal speed [m/s] over the convex polygon of a foot's contact points, from their
    horizontal velocities (T, K, 2): the distance from zero to the convex hull of those velocities (a rigid
    body's velocity is affine in position), zero where the hull holds it; NaN where a velocity is."""
    speed = np.fmin.reduce(np.linalg.norm(velocities, axis=-1), axis=1)
    for i, j in combinations(range(velocities.shape[1]), 2):
        a, edge = velocities[:, i], velocities[:, j] - velocities[:, i]
        with np.errstate(invalid="ignore", divide="ignore"):
            s = np.clip(-np.sum(a * edge, 1) / np.sum(edge * edge, 1), 0.0, 1.0)
        speed = np.fmin(speed, np.linalg.norm(a + np.nan_to_num(s)[:, None] * edge, axis=1))
    for i, j, k in combinations(range(velocities.shape[1]), 3):
        corners = velocities[:, [i, j, k]]
        following = np.roll(corners, -1, axis=1)
        turns = corners[..., 0] * following[..., 1] - corners[..., 1] * following[..., 0]  # z of each edge's cross
        area = turns.sum(1)  # twice the signed area: a flat triangle (velocities in a line) holds no point
        inside = ((turns >= 0).all(1) & (area > 0)) | ((turns <= 0).all(1) & (area < 0))
        speed = np.where(inside, 0.0, speed)
    return speed


def sole_of(segments: np.ndarray, soles) -> np.ndarray:
    """(K,) the sole each point is on, from its segment (K,): the segment's index where it is one of ``soles``
    (``model.contact_points.sole_segments``), -1 elsewhere."""
    return np.where(np.isin(segments, list(soles)), segments, -1)


def sliding_speeds(tangential: np.ndarray, soles: np.ndarray | None = None) -> np.ndarray:
    """(T, K) the speed [m/s] at which each point is judged to slide, from its velocity along its surface
    (T, K, 3): its own, or on a sole (``soles`` (K,): the sole each point belongs to, -1 for none; None: no
    soles) ``sqrt(|v_k|² - min_j |v_j|² + u²)`` with ``u`` the sole's ``slowest_sole_speed`` (module docstring).
    NaN where a velocity is."""
    speed = np.linalg.norm(tangential, axis=-1)
    if soles is None:
        return speed
    soles = np.asarray(soles)
    for sole in np.unique(soles[soles >= 0]):
        mine = soles == sole
        corner = np.fmin.reduce(speed[:, mine], axis=1)
        slowest = slowest_sole_speed(tangential[:, mine, :2])
        speed[:, mine] = np.sqrt(np.maximum(speed[:, mine] ** 2 - (corner ** 2 - slowest ** 2)[:, None], 0.0))
    return speed


def sliding_factor(velocities: np.ndarray, normals: np.ndarray, speed: float,
                   soles: np.ndarray | None = None) -> np.ndarray:
    """``exp(-(s_k / v_s)²)`` (T, K): how far a point judged sliding at ``s_k`` (``sliding_speeds`` of its
    velocity (T, K, 3) along its surface, whose ``normals`` (T, K, 3) are given) may still carry load (``v_s`` the
    ``sliding_speed``); 1 where the velocity is NaN."""
    tangential = velocities - np.einsum("tki,tki->tk", velocities, normals)[..., None] * normals
    return np.exp(-np.nan_to_num(sliding_speeds(tangential, soles) ** 2, nan=0.0) / speed ** 2)
