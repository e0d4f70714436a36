"""The pipeline's zero-gravity stage: which simulation to run on the trial's subject, and with what.

One options object chooses among the simulations of this package, so the
sidebar, the CLI and batch runs ask for them the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError, option
from ..kinematics.motion import Motion
from ..model.body import BodyModel
from .captured import INITIAL_MOMENTUM, simulate_zero_gravity
from .ladder import ladder_traversal
from .manoeuvres import LIMBS, MANOEUVRES, limb_posture, self_orientation
from .minimum_torque import minimum_torque
from .result import ZeroGravity

#: What the zero-gravity stage can simulate: the captured motion "in orbit", a self-orientation manoeuvre
#: (§4), a ladder traversal (§5), the minimum-torque leg lift (§6), or nothing.
KINDS = ("captured",) + MANOEUVRES + ("ladder", "minimum_torque", "none")


@dataclass(frozen=True)
class ZeroGravityOptions:
    """``kind`` (``KINDS``); ``momentum``: the captured motion's initial momentum, ``"zero"`` or
    ``"first_frames"``; for the manoeuvres: ``limbs`` (which limbs move: ``LIMBS``),
    ``angle_deg`` (the manoeuvre's angle: hip flexion for leg
    lifting and the minimum-torque lift, sideways swing for twisting and closing), ``lift_deg`` (how far the
    legs are lifted before twisting), ``duration_s`` (per step; per rung on the ladder), ``v_max_deg_s``
    (the manoeuvres' joint speed cap), ``rungs`` and ``ladder_v_max_m_s`` (the ladder's torso speed cap);
    a speed cap of None means the plain quintic (§3)."""

    kind: str = "captured"
    momentum: str = "zero"
    limbs: str = "legs"
    angle_deg: float = 60.0
    lift_deg: float = 90.0
    duration_s: float = 1.0
    v_max_deg_s: float | None = None
    rungs: int = 4
    ladder_v_max_m_s: float | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise InputError(f"Unknown zero-gravity simulation {self.kind!r}", f"use one of {', '.join(KINDS)}")
        if self.limbs not in LIMBS:
            raise InputError(f"Unknown limbs {self.limbs!r}", f"use one of {', '.join(LIMBS)}")
        if self.momentum not in INITIAL_MOMENTUM:
            raise InputError(f"Unknown initial momentum {self.momentum!r}",
                             f"use one of {', '.join(INITIAL_MOMENTUM)}")
        for name in ("angle_deg", "lift_deg"):  # a joint's angle: beyond half a turn it is another angle
            if not -180.0 <= getattr(self, name) <= 180.0:
                raise InputError(f"{option(f'zero_gravity.{name}', getattr(self, name))} is more than half a turn",
                                 f"give {option(f'zero_gravity.{name}')} in degrees between -180 and 180")
        if not (isinstance(self.rungs, int) and self.rungs >= 2):  # a starting and an ending period at least
            raise InputError(f"{option('zero_gravity.rungs', self.rungs)} is no number of rungs for a ladder",
                             f"give {option('zero_gravity.rungs')} as a whole number, 2 or more")
        caps = ("v_max_deg_s", "ladder_v_max_m_s")  # None: no cap
        for name in ("duration_s", *(cap for cap in caps if getattr(self, cap) is not None)):
            if not getattr(self, name) > 0:
                raise InputError(f"{option(f'zero_gravity.{name}', getattr(self, name))} is not positive",
                                 f"give {option(f'zero_gravity.{name}')} above 0"
                                 + (", or leave it out for no cap" if name in caps else ""))


def zero_gravity_variant(options: ZeroGravityOptions, model: BodyModel, motion: Motion | None) -> ZeroGravity | None:
    """Run the simulation ``options`` asks for (None for ``"none"``); ``motion`` is needed for ``"captured"``."""
    kind = options.kind
    if kind == "none":
        return None
    if kind == "captured":
        return simulate_zero_gravity(motion, initial_momentum=options.momentum)
    if kind in MANOEUVRES:
        return self_orientation(model, kind, angle_deg=options.angle_deg, duration_s=options.duration_s,
                                v_max=options.v_max_deg_s, lift_deg=options.lift_deg, limbs=options.limbs)
    if kind == "ladder":
        return ladder_traversal(model, rungs=options.rungs, duration_per_rung=options.duration_s,
                                v_max=options.ladder_v_max_m_s)
    lifted = limb_posture(model, options.angle_deg, 0.0, options.limbs)
    result, _, _ = minimum_torque(model, model.neutral_q(), lifted, options.duration_s)
    return result
