"""How far to trust forces from the motion alone, judged by the motion itself: its root force in flight.

Beyond the paper. A body in flight (no body point within reach of any surface) has gravity as its only
external force, so the root force the motion needs there (eq. 9 without contact) is zero for exact
kinematics and masses. What the motion needs instead is its error: soft tissue and markers moving over the
bones, noise, the low-pass filter spreading the stances' force into the flights, segment masses. The same
errors are in every frame's root force, in stance too, where the contact estimate carries them into the
ground forces. So the root force's RMS over the flight frames is a check of a trial without force plates. (A
support the estimate did not find leaves its frames in "flight" with the body's weight to carry: flagged too.)

Only the frames at least ``EDGE`` from the frames in reach count: next to them the low-pass filter spreads the
stances' force into the flight, which the contact, pushing only where a point is in reach, never turns into
force (the video drop jump resampled to 30 Hz: 16.9 % BW over its whole flight, 6.5 without its edges, and its
vertical GRF from motion alone within 10.6 % BW of the plates).

Measured with the default settings (``python -m solver TRIAL``, 2026-12-07; the plates say what the estimate
misses): the drop jumps from a box fly 0.46 and 0.82 s (their edges left out) with 6.4 and 6.3 % BW there
(vertical GRF from motion alone within 11.8 and 13.1 % BW of the plates); the sprint at 9 m/s flies 0.19 s with
36.5 % BW (22.7 % BW from the plates, 75 % of its root force explained; 22.1 and 74 % before its sole
points were judged sliding with their foot, ``sliding``). Walks, sit-to-stand and squats have no
flight. Above ``WARN_ABOVE``, the loosest force target the validated trials meet (drop jumps, landing impacts
included), the contact warns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.ndimage import binary_erosion

#: Frames closer than this [s] to a frame in reach are left out (the filter's spread of the stances' force).
EDGE = 0.03
#: Flights shorter than this in all [s] (their edges left out) say too little.
MIN_FLIGHT = 0.05
#: Root force in flight [fraction of body weight, RMS] above which the forces from the motion alone are
#: not to be trusted without plates.
WARN_ABOVE = 0.15


@dataclass(frozen=True)
class Flight:
    """The frames (T,) in which no body point is within reach of a surface (``EDGE`` from any that is), their total
    time [s], the root force the motion needs in them, RMS [fraction of body weight], and the frames (T,) in which
    some body point is within reach (``in_reach``: where contact can act at all)."""

    frames: np.ndarray
    seconds: float
    root_force_rms_bw: float
    in_reach: np.ndarray

    @property
    def warning(self) -> str | None:
        """One line when the root force in flight says the forces from the motion alone are off by more than
        ``WARN_ABOVE``."""
        if self.root_force_rms_bw <= WARN_ABOVE:
            return None
        return (f"in flight ({self.seconds:.2f} s, no body point near a surface) the motion needs a root force of "
                f"{100 * self.root_force_rms_bw:.0f} % BW RMS where a body in flight needs none (markers and "
                "soft tissue moving over the bones, filtering, or a support not found): the contact forces from the "
                "motion alone carry errors of that size; check them against force plates")

    def summary(self) -> dict:
        return {"seconds": self.seconds, "frames": int(np.count_nonzero(self.frames)),
                "root_force_rms_percent_bw": 100.0 * self.root_force_rms_bw}


def flight(activation: np.ndarray, root_force: np.ndarray, times: np.ndarray, weight: float,
           least: float) -> Flight | None:
    """The ``Flight`` of a trial from each contact point's ``activation`` (T, K) on the surface nearest it (eq. 4's
    distance sigmoid, ``per_frame.activations``), the root force without contact (T, 3) [N] and the frames' ``times``
    (T,) [s]; a frame is in flight when every point is at most ``least`` active (out of the per-frame estimate's
    reach), and so are the frames within ``EDGE`` of it (the trial's ends count as in reach). None when the trial
    flies less than ``MIN_FLIGHT`` or ``weight`` [N] is not positive."""
    posed = np.isfinite(root_force).all(axis=1) & np.isfinite(activation).all(axis=1)
    step = float(np.median(np.diff(times))) if len(times) > 1 else 0.0
    edge = int(round(EDGE / step)) if step > 0 else 0
    airborne = (activation <= least).all(axis=1)
    frames = binary_erosion(posed & airborne, np.ones(2 * edge + 1, bool), border_value=0)
    seconds = step * int(np.count_nonzero(frames))
    if not seconds >= MIN_FLIGHT or not weight > 0:
        return None
    rms = float(np.sqrt(np.mean(np.sum(root_force[frames] ** 2, axis=1))))
    return Flight(frames, seconds, rms / weight, posed & ~airborne)
