"""Foot contact phases and events (heel strike, toe off) from the contact estimate.

The contact estimate says which foot carries load and when: a foot is *loaded*
while its estimated vertical force exceeds ``threshold`` (5 % of body weight,
as in the plate comparison). The paper's springs also push lightly on a foot
that skims the floor in swing (their distance sigmoid switches over a few
centimetres), so a loaded foot is in *stance* only while it is also planted:
some point of its sole moves horizontally slower than ``still_speed``. Heel
strike is the first frame of a stance, toe off the first frame after it. This
goes beyond Brubaker et al. (2009), who estimate forces, not phases; the speed
rule is the usual kinematic contact detection (e.g. Zeni et al. 2008 use
foot-marker velocities), gated here by the estimated load.

The speed is the slowest point's anywhere on the sole, not only at its contact points
(``contact.sliding.slowest_sole_speed``, by which the estimate also judges a sole's sliding):
a rigid foot's velocity is affine in position, so the velocities of the sole polygon's points fill the polygon
of its corners' velocities, and the slowest lies where that polygon comes nearest zero. A foot rolling over
its forefoot turns about a line between its contact points, which all move while it stays put. The velocities
are the contact's (``Contact.point_velocities``: at Winter's cutoff, where the estimate judged sliding; the
dynamics' 8-11 Hz spread a sprinter's swing into its 0.1 s stance). On the sprint at 9 m/s, while the plates
carried a foot, its corners' slowest moved at 0.54 m/s (medians) and its sole's slowest at 0.20-0.22; the
stances found cover 46 / 42 of the plates' 59 / 59 frames (30 / 29 from the corners at the dynamics'
filtering, as before 2026-12-07), the toe offs come 16-24 ms before the plates' (44-48) and the heel strikes
4-12 ms after (8-16). The walks' and the drop jumps' events move by at most 20 ms either way (DJ3's toe offs
0 -> 10 and 20 ms early, the video drop jump's 40 -> 20; session script on the plate comparison's events).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..contact.compare import THRESHOLD_BW
from ..runs import runs
from ..contact.estimate import Contact
from ..contact.sliding import slowest_sole_speed

#: A sole point slower than this [m/s] (horizontally) is planted.
STILL_SPEED = 0.3
#: Stances shorter than this [s] are dropped, gaps shorter than this [s] inside a stance are filled
#: (no foot swings that fast: a walking swing takes 0.3-0.4 s).
MIN_STANCE = 0.05
MIN_GAP = 0.1


@dataclass(frozen=True)
class FootEvent:
    """A heel strike or a toe off of foot ``foot`` (index into ``FootContacts.feet``) at ``time`` [s]."""

    foot: int
    kind: str
    time: float


@dataclass(frozen=True)
class FootContacts:
    """Per foot and frame, whether the foot is in stance ``(T, F)``, on the frames ``times``; and its events.
    ``floor_velocity`` (3,) [m/s]: the floor's the feet stand on (a treadmill's belt; ``Contact.ground_velocity``)."""

    feet: tuple[str, ...]
    times: np.ndarray
    stance: np.ndarray
    events: tuple[FootEvent, ...]
    floor_velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))


def _tidy(mask: np.ndarray, min_run: int, min_gap: int) -> np.ndarray:
    """``mask`` with gaps shorter than ``min_gap`` frames between runs filled, then runs shorter than
    ``min_run`` frames removed."""
    out = mask.copy()
    spans = runs(out)
    for (_, end), (start, _) in zip(spans[:-1], spans[1:]):
        if start - end < min_gap:
            out[end:start] = True
    for start, end in runs(out):
        if end - start < min_run:
            out[start:end] = False
    return out


def stance_events(stance: np.ndarray, times: np.ndarray) -> tuple[FootEvent, ...]:
    """Heel strikes (first frame of each stance) and toe offs (first frame after it), in time order;
    a stance cut off by the first or last frame has no event there."""
    events = []
    n = len(times)
    for f in range(stance.shape[1]):
        for start, end in runs(stance[:, f]):
            if start > 0:
                events.append(FootEvent(f, "heel strike", float(times[start])))
            if end < n:
                events.append(FootEvent(f, "toe off", float(times[end])))
    return tuple(sorted(events, key=lambda e: (e.time, e.foot)))


def foot_contacts(contact: Contact, threshold: float | None = None, still_speed: float = STILL_SPEED) -> FootContacts:
    """Stance per foot: loaded (vertical force above ``threshold`` [N], default 5 % body weight) and planted
    (some point of its sole slower than ``still_speed`` [m/s] on the floor, ``slowest_sole_speed``: on a treadmill,
    relative to its belt); with its heel strikes and toe offs."""
    weight = contact.model.total_mass * float(np.linalg.norm(contact.dynamics.gravity))
    threshold = THRESHOLD_BW * weight if threshold is None else float(threshold)
    times = contact.times
    rate = 1.0 / np.median(np.diff(times)) if len(times) > 1 else 1.0
    velocities = contact.point_velocities[..., :2]
    stance = np.zeros((len(times), len(contact.feet)), dtype=bool)
    for f, name in enumerate(contact.feet):
        mine = contact.point_segments == contact.model.index(name)
        with np.errstate(invalid="ignore"):
            loaded = contact.foot_force[:, f, 2] > threshold
            planted = slowest_sole_speed(velocities[:, mine]) < still_speed if mine.any() else loaded
        stance[:, f] = _tidy(loaded & planted, max(1, round(MIN_STANCE * rate)), max(1, round(MIN_GAP * rate)))
    return FootContacts(contact.feet, times, stance, stance_events(stance, times), contact.ground_velocity)
