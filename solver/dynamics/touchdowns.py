"""Where a foot lands, found from the motion: the frames that keep Winter's cutoff when the rest of the trial is
filtered lower (``motion_derivatives(cutoff="auto")``). Beyond Winter's residual analysis and beyond the paper.

Why two cutoffs. Winter's residual analysis (``cutoff.residual_cutoff``) finds the cutoff from the white-noise
floor of the trajectories. Reconstructed trajectories from smoothed markers (video keypoints, processed marker
data) have none: on the six real trials with plates the residual at 20 Hz is 0.00-0.06 mm, the noise line meets
the axis near zero and the cutoff lands at 15-19.5 Hz on every trial, wherever the upstream smoothing ends.
What passes is not white noise but an 8-15 Hz wobble of the segments (soft tissue, keypoint jitter): the root
force it makes is a tenth of the body weight fore-aft even in flight, where the truth is zero, and from motion
alone it becomes contact force, so joint moments. A landing's force reaches as high, though: in the 0.17 s after
DJ3's touch-down the root force misses the plates' by 36.8 % BW vertically at Winter's 16.5 Hz, 44.9 at 8 Hz
(README). So Winter's cutoff is kept where a foot lands and the rest is filtered at ``STEADY_HZ`` at most (the
middle of the usual 6-10 Hz for human motion); ``touchdowns`` says where, ``derivatives.motion_derivatives``
blends the two. ``cutoff="winter"`` keeps Winter's throughout.

A touch-down keeps Winter's cutoff in proportion to how fast the body comes down onto it: the centre of mass's
downward speed there (``touchdown_weight``), not at all at ``SOFT_SPEED`` or slower, fully from ``FIRM_SPEED``.
An impact's force is the vertical momentum the landing stops: a walk's body comes down at 0-0.26 m/s at its heel
strikes (video keypoints too), a landing from a box at 1.7-3.2 m/s, a sprinter's at 0.6-0.9. The foot's own
speed says less: a walk's heel arrives at 0.3-1.5 m/s and a sprinter's rolling forefoot at 2-4.5 m/s while
the body drops at under 1 (weighting by it, until 2026-11-29, filtered the sprint's every stance at Winter's,
then 6 Hz after it as after a hard landing). Keeping Winter's at every heel strike (a third of a walk's frames) let
the wobble through there: on the six trials with plates, weighting by speed with the steady cutoff at 8 Hz (was
10, every touch-down at Winter's) gives hip, knee and ankle moments from motion alone closer to OpenSim's on all
six (README), the video walk's vertical GRF 5.4 -> 4.6 % BW, the marker-based walks' 2.8 -> 3.2. Since the
markers' weights (``kinematics.marker_weights``, 2026-12-06) took most of the video walk's wobble out, every heel
strike at Winter's follows its plates' vertical force a little closer (3.27 against 3.47 % BW) but its moments
from motion alone less (mean r 0.938 against 0.948 with ours with the plates); the weighting stays.

Away from touch-downs the cutoff is ``STEADY_HZ``, or the inverse of the feet's median contact time where that
is higher (``steady_cutoff``): a foot's contact carries a force pulse, and a pulse of duration T keeps most of
it below 1/T (a half-sine's spectrum is down to a third there, and its main lobe ends at 1.5/T). A walk's
stance lasts 0.5-0.8 s and keeps 8 Hz; a sprinter's lasts 0.08-0.12 s, and at 8 Hz its stances smear into
the flights between them (the sprint's feet are then never still long enough to be found resting on a floor:
"no support found"). The sprint at 10.6 Hz: vertical GRF from motion alone 37.3 -> 26.3 % BW, r 0.963 ->
0.981 (README); the nine other trials of ``../shared/data`` keep 8 Hz. A foot's contact: the frames in which
any of its points is within the band ``FLOOR_BAND`` above a level, from the first entering to the last leaving;
only contacts that begin and end inside the trial and last at least ``MIN_CONTACT`` count (shorter ones are
keypoints flickering into the band).

At touch-downs Winter's cutoff is kept within ``LANDING_MIN_HZ``-``LANDING_MAX_HZ`` (``landing_cutoff``). A fast
motion captured fast finds it higher (the sprint at 250 Hz: 33 Hz), and there what skin markers carry at an
impact is soft tissue shaking over the bone, which rigid segments turn into whole-segment force: the root force
against the plates after DJ3's landing is worse at 25 Hz than at Winter's 16.5 (README), and the sprint's
vertical GRF from motion alone misses by 45.5 % BW at 33 Hz, 37.0 at 20 (30.4 at 15, but the drop jumps lose
there). Winter's analysis finds it lower where its noise line does not see the landing: on trajectories without a
white-noise floor its cutoff follows the sampling rate (the two drop jumps resampled to 60 Hz: 10 Hz, vertical
GRF from motion alone 15.1 and 18.1 % BW; 12.4 and 15.0 at 15 Hz), and with marker noise it finds the noise's
cutoff, not the landing's (DJ3 with 1 mm of white noise: 11 Hz, 15.4 % BW; 13.5 at 15 Hz). The trials recorded
at 100 Hz find 15-19.5 Hz: their figures are the same with or without the floor.

A touch-down: a contact point of a foot (segments named ``foot*``) enters the band ``FLOOR_BAND`` above a
level the feet stand on, having moved down faster than ``ARRIVAL_SPEED`` within ``ARRIVAL_TIME`` before. The
levels: the floor, the ``FLOOR_PERCENTILE`` percentile of those points' heights over the trial (the lowest
surface, below a box) if some foot point in its band stops coming down there (moves down slower than
``ARRIVAL_SPEED`` in some frame: in a clip of a fall that ends before the landing the lowest points are the
falling feet's last, still coming down at 2.6 m/s in DJ3's, and nothing lands there), and every raised level
where foot points rest (slower than ``REST_SPEED``) for ``REST_TIME`` in all, in bins of ``LEVEL_BIN``, more
than ``FLOOR_BAND`` above the floor's band: a box or a step landed on (a jump onto a box, a step down onto a
stair). A raised level is entered only by a point that comes to rest there within ``AFTER`` (a foot falling past
a box's edge to the floor does not land on the box).
A trial on level ground has the floor alone: on the ten trials of ``../shared/data`` the touch-downs are those
found from the floor alone (the weights identical).
The weight is 1 from ``BEFORE`` before a touch-down to ``AFTER`` after it (an impact's force settles in a
tenth of a second), 0 elsewhere, smoothed by a Hann window reaching ``RAMP`` either side.

After a hard landing (the body coming down at ``HARD_SPEED`` or faster, as from a 20 cm drop; a sprinter's comes
down at under 1 m/s) the motion is filtered at ``SETTLE_HZ`` for ``SETTLE`` past that window
(``settling_weight``); after a softer one the settling cutoff is blended in by the share of the speed between
``SOFT_SPEED`` and ``HARD_SPEED``, so that two recordings of one task whose body lands at 1.9 and 2.1 m/s (a 20
cm box) are filtered alike (a switch at ``HARD_SPEED`` filtered one and not the other). The impact sets the soft
tissue shaking over the bones at 6-8 Hz for a few tenths of a second; the markers follow it and rigid segments turn
it into whole-segment force, while the plates' force is smooth there (DJ3, video DJ4). On the two drop jumps the
vertical GRF from motion alone 12.7 -> 12.6 and 16.3 -> 14.4 % BW, the moments where the plates see all +0.004 and
+0.006 (README); no walk, sit-to-stand or squat here lands hard, nor does the sprint. DJ3's landing from its jump
(1.9 m/s, 0.1 s before the trial ends) settles at 0.9 with the blend, in the Hann ramp's last frames only (vertical
GRF 12.710 -> 12.721 % BW).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..model.body import BodyModel
from ..runs import runs

#: The cutoff away from touch-downs [Hz], at most (a lower Winter's cutoff is kept everywhere), unless the feet's
#: contacts are shorter than its inverse (``steady_cutoff``) ...
STEADY_HZ = 8.0
#: ... counting contacts at least this long [s] (the shortest sprinting stance lasts about 0.08 s).
MIN_CONTACT = 0.06
#: The cutoff at touch-downs [Hz]: Winter's, at least and at most (and below ``LANDING_RATE`` of the sampling rate;
#: module docstring).
LANDING_MIN_HZ, LANDING_MAX_HZ, LANDING_RATE = 15.0, 20.0, 0.4
#: The floor: this percentile of the feet's contact points' heights over the trial ...
FLOOR_PERCENTILE = 2.0
#: ... and a point lands when it enters this band above it [m] ...
FLOOR_BAND = 0.03
#: ... having moved down faster than this [m/s] within this time before [s].
ARRIVAL_SPEED, ARRIVAL_TIME = 0.2, 0.03
#: A raised level: foot points rest there (move slower than this [m/s]) ...
REST_SPEED = 0.1
#: ... for this long in all [s] (point-frames), within one bin of this height [m].
REST_TIME, LEVEL_BIN = 0.1, 0.01
#: A touch-down keeps Winter's cutoff not at all when the centre of mass comes down at this speed or slower [m/s],
#: fully from the second (linearly between).
SOFT_SPEED, FIRM_SPEED = 1.0, 2.0
#: Winter's cutoff is kept from this long before a touch-down to this long after it [s] ...
BEFORE, AFTER = 0.03, 0.10
#: ... with ramps smoothed by a Hann window reaching this far either side [s].
RAMP = 0.04
#: A hard landing: the centre of mass comes down at this speed [m/s] or faster (a free fall of 20 cm); a softer
#: one, down to ``SOFT_SPEED``, settles in proportion ...
HARD_SPEED = 2.0
#: ... after which the motion is filtered at this cutoff [Hz] for this long [s] past ``AFTER``.
SETTLE_HZ, SETTLE = 6.0, 0.4


def landing_cutoff(winter: float, rate: float) -> float:
    """The cutoff [Hz] at touch-downs for Winter's cutoff ``winter`` [Hz] at sampling ``rate`` [Hz]: within
    ``LANDING_MIN_HZ``-``LANDING_MAX_HZ``, and below ``LANDING_RATE`` of the rate."""
    return float(min(max(winter, LANDING_MIN_HZ), LANDING_MAX_HZ, LANDING_RATE * rate))


def steady_cutoff(contacts: np.ndarray, landing: float) -> float:
    """The cutoff [Hz] away from touch-downs (module docstring): ``STEADY_HZ``, or the inverse of the median of the
    feet's ``contacts`` [s] at least ``MIN_CONTACT`` long where that is higher, at most ``landing`` [Hz]."""
    kept = contacts[contacts >= MIN_CONTACT]
    return float(min(max(STEADY_HZ, 1.0 / np.median(kept)), landing)) if len(kept) else STEADY_HZ


class Touchdowns(NamedTuple):
    """What ``touchdowns`` finds: the touch-downs' ``times`` (N,) [s], the centre of mass's downward ``speeds`` (N,)
    [m/s] there, and the durations (M,) [s] of the feet's ``contacts`` that begin and end inside the trial."""

    times: np.ndarray
    speeds: np.ndarray
    contacts: np.ndarray


def foot_points(model: BodyModel, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions (T, K, 3) of the contact points of the segments named ``foot*`` (K may be 0) and the index of each
    point's segment (K,)."""
    feet = [k for k, s in enumerate(model.segments) if s.name.lower().startswith("foot") and len(s.contact_points)]
    if not feet:
        return np.zeros((len(q), 0, 3)), np.zeros(0, np.int64)
    rotations, origins = model.forward_kinematics(q)
    owners = np.concatenate([np.full(len(model.segments[k].contact_points), k) for k in feet])
    local = np.concatenate([model.segments[k].contact_points for k in feet])
    return origins[:, owners] + np.einsum("tkij,kj->tki", rotations[:, owners], local), owners


def standing_levels(heights: np.ndarray, speed: np.ndarray, step: float) -> np.ndarray:
    """Heights (L,) of the levels the feet stand on (module docstring): the floor first, then each raised
    level where foot points of ``heights`` (T, K) rest (``speed`` (T, K) [m/s] below ``REST_SPEED``), at the
    median height of the points resting in its bin."""
    floor = np.nanpercentile(heights, FLOOR_PERCENTILE)
    with np.errstate(invalid="ignore"):
        resting = heights[(speed < REST_SPEED) & (heights > floor + 2 * FLOOR_BAND)]
    bins = np.floor(resting / LEVEL_BIN).astype(np.int64)
    found, counts = np.unique(bins, return_counts=True)
    raised = [float(np.median(resting[bins == b])) for b in found[counts * step >= REST_TIME]]
    return np.array([floor] + raised)


def contact_durations(near: np.ndarray, owners: np.ndarray, step: float) -> np.ndarray:
    """The durations [s] of each foot's contacts that begin and end inside the trial: the runs of frames in which
    any point of that foot (``owners`` (K,), ``near`` (T, K): within a level's band) is near."""
    return np.array([(end - start) * step for foot in np.unique(owners)
                     for start, end in runs(near[:, owners == foot].any(axis=1))
                     if start > 0 and end < len(near)], dtype=float)


def fastest_within(x: np.ndarray, lags: int) -> np.ndarray:
    """``x`` (T, ...) at each frame the largest of it over that frame and the ``lags`` before."""
    out = x.copy()
    for lag in range(1, lags + 1):
        out[lag:] = np.fmax(out[lag:], x[:-lag])
    return out


def touchdowns(model: BodyModel, times: np.ndarray, q: np.ndarray) -> Touchdowns | None:
    """The touch-downs (module docstring) in coordinates ``q`` (T, nq) filtered at Winter's cutoff, with the
    centre of mass's downward speed at each (the fastest within ``ARRIVAL_TIME`` before) and the feet's contact
    durations; None when the model has no feet or no foot point is ever posed."""
    points, owners = foot_points(model, q)
    if points.shape[1] == 0 or not np.isfinite(points).any() or len(times) < 2:
        return None
    step = float(times[1] - times[0])
    heights, velocity = points[..., 2], np.gradient(points, step, axis=0)
    with np.errstate(invalid="ignore"):
        speed = np.linalg.norm(velocity, axis=-1)
        levels = standing_levels(heights, speed, step)
        near = heights - levels[0] < FLOOR_BAND
        near &= (near & (-velocity[..., 2] < ARRIVAL_SPEED)).any()  # none stops coming down there: no floor
        raised = np.zeros_like(near)
        for level in levels[1:]:
            raised |= np.abs(heights - level) < FLOOR_BAND
        rests = raised & (speed < REST_SPEED)
    stays = rests.copy()  # near a raised level only if the point comes to rest there within AFTER
    for lag in range(1, max(1, int(round(AFTER / step))) + 1):
        stays[:-lag] |= rests[lag:] & raised[:-lag]
    near |= stays
    lags = max(1, int(round(ARRIVAL_TIME / step)))
    with np.errstate(invalid="ignore"):
        arrives = near & (fastest_within(-velocity[..., 2], lags) > ARRIVAL_SPEED)
    arrives[1:] &= ~near[:-1]
    arrives[0] = False
    frames = arrives.any(axis=1)
    body = np.fmax(fastest_within(-np.gradient(model.body_com(q)[:, 2], step), lags), 0.0)
    return Touchdowns(times[frames], body[frames], contact_durations(near, owners, step))


def window_weight(times: np.ndarray, starts: np.ndarray, ends: np.ndarray, heights: np.ndarray | None = None
                  ) -> np.ndarray:
    """(T,) in [0, 1]: from each of ``starts`` to its end in ``ends`` [s] its height in ``heights`` (default 1; the
    highest where windows overlap), 0 elsewhere, the ramps smoothed by a Hann window reaching ``RAMP`` either
    side."""
    weight = np.zeros(len(times))
    for start, end, height in zip(starts, ends, np.ones(len(starts)) if heights is None else heights):
        inside = (times >= start - 1e-9) & (times <= end + 1e-9)
        weight[inside] = np.maximum(weight[inside], height)
    half = max(1, int(round(RAMP / float(times[1] - times[0])))) if len(times) > 1 else 1
    window = np.hanning(2 * half + 1)
    return np.convolve(np.pad(weight, half, mode="edge"), window / window.sum(), mode="valid")


def share(speeds: np.ndarray, full: float) -> np.ndarray:
    """Per touch-down, the share in [0, 1] of the body's downward ``speeds`` [m/s] between ``SOFT_SPEED`` (0) and
    ``full`` (1)."""
    return np.clip((speeds - SOFT_SPEED) / (full - SOFT_SPEED), 0.0, 1.0)


def touchdown_weight(times: np.ndarray, found: Touchdowns) -> np.ndarray:
    """(T,) in [0, 1]: from ``BEFORE`` before to ``AFTER`` after each of the touch-downs ``found`` (``touchdowns``),
    the ``share`` of the body's downward speed there up to ``FIRM_SPEED``; 0 elsewhere."""
    return window_weight(times, found.times - BEFORE, found.times + AFTER, share(found.speeds, FIRM_SPEED))


def settling_weight(times: np.ndarray, found: Touchdowns) -> np.ndarray | None:
    """(T,) in [0, 1]: for ``SETTLE`` after the touch-down window of each landing among the touch-downs ``found``
    (``touchdowns``), the ``share`` of the body's downward speed there up to ``HARD_SPEED`` (1 for a hard
    landing), 0 elsewhere; None when no landing is faster than ``SOFT_SPEED``."""
    firm = share(found.speeds, HARD_SPEED)
    landed = firm > 0
    if not landed.any():
        return None
    return window_weight(times, found.times[landed] + AFTER, found.times[landed] + AFTER + SETTLE, firm[landed])
