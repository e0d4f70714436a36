"""The floor's own velocity, found from the feet: zero on the ground, the belt's on a treadmill.

Beyond the paper, whose floor stands still. Contact is about how a body point moves *relative to the surface
it touches*: a loaded point rests on it (``support``) and does not slide (``per_frame``'s sliding prior). On an
instrumented treadmill the stance feet travel backwards with the belt at walking speed while the pelvis stays
put, so in the lab's frame no foot ever rests and the pelvis does: the floor was "found" at the pelvis's height
(subject4_walking1 moved as if on a 1.3 m/s belt: a floor at 0.78 m explaining 100 % of the root force; since
2026-12-06 a pelvis over upright thighs rests on nothing, ``support.PELVIS_THIGH``, and no support is found).

Feet on a floor move with it. ``floor_velocity`` takes the foot points near the floor's level (within
``FLOOR_BAND`` of the ``FLOOR_PERCENTILE`` percentile of their heights over the trial) that do not move up or
down (slower than ``STILL``): stances, mostly. Their median horizontal velocity is the floor's when it is faster
than ``STILL``, faster than the body's centre of mass (its median horizontal speed), and shared by those feet
(their median deviation from it below ``ALIKE`` of it): walking or running on the ground, the body outpaces its
stance feet; on a treadmill it stays in place while they travel, all at the belt's speed. The ten trials of
``../shared/data`` (walks, drop jumps, sit-to-stand, a squat, a basketball trial, video keypoints) give 0.00-0.01
m/s; the sprint's rolling forefeet 0.89 m/s against the body's 9.5 m/s; the walk on a 1.3 m/s belt 1.30 m/s
(median deviation 0.02 m/s); a simulated landing whose feet slide to a stop on stiff springs 0.52 m/s, its body
at 0.1 m/s, but its feet disagree by 0.16 m/s. The dynamics need nothing: a belt at constant speed is a frame
moving at constant velocity, in which accelerations, forces and torques are the same. A belt whose speed changes
is taken at its median.
"""

from __future__ import annotations

import numpy as np

#: The floor's level: this percentile of the foot points' heights over the trial ...
FLOOR_PERCENTILE = 2.0
#: ... and the points within this band above it [m] ...
FLOOR_BAND = 0.03
#: ... that move up or down slower than this [m/s]; a floor moving slower than this stands still.
STILL = 0.2
#: A belt carries the feet on it alike: their median deviation from its velocity is below this fraction of it.
ALIKE = 0.25


def floor_velocity(positions: np.ndarray, velocities: np.ndarray, on_feet: np.ndarray,
                   centre_of_mass: np.ndarray, times: np.ndarray) -> np.ndarray:
    """The floor's velocity (3,) [m/s] (module docstring): zero unless the feet near it travel faster than the
    body. ``positions``, ``velocities`` (T, K, 3) of the contact points, ``on_feet`` (K,) which are on feet,
    ``centre_of_mass`` (T, 3) the body's at ``times`` (T,)."""
    still = np.zeros(3)
    heights, moving = positions[:, on_feet, 2], velocities[:, on_feet]
    if heights.size == 0 or len(times) < 2 or not np.isfinite(heights).any():
        return still
    floor = np.nanpercentile(heights, FLOOR_PERCENTILE)
    with np.errstate(invalid="ignore"):
        standing = (heights < floor + FLOOR_BAND) & (np.abs(moving[..., 2]) < STILL)
    if not standing.any():
        return still
    horizontal = moving[..., :2][standing]
    feet = np.median(horizontal, axis=0)
    spread = np.median(np.linalg.norm(horizontal - feet, axis=1))
    body = np.nanmedian(np.linalg.norm(np.gradient(centre_of_mass[:, :2], times, axis=0), axis=1))
    speed = float(np.linalg.norm(feet))
    outpaced = np.isnan(body) or speed > body  # no centre of mass to compare: the feet alone decide
    return np.r_[feet, 0.0] if speed > STILL and outpaced and spread < ALIKE * speed else still
