"""Badler et al. §4, self-orientation in zero gravity: leg lifting, leg twisting, leg closing (Figs. 7-10).

With zero angular momentum throughout, a closed loop of the legs in joint space turns the torso: the
astronaut lifts both legs forward at the hips, swings them sideways about the torso's vertical axis, and
closes them back to standing. Each step alone also turns the torso while it runs.

Postures (hip rotations in the pelvis frame; thighs hang along -Z at neutral, X anterior, Z up):
lifted ``R_y(-lift)`` (the thigh points forward at 90°), twisted ``R_z(twist) R_y(-lift)`` (both legs
swung to the same side). Each move follows the kinematic motion function (eq. 1 or three phases under
``v_max``); a ball hip turns about one fixed axis. The paper's body is the torso and two legs (the
three-link tree of Fig. 11); on a full body model every other joint is held at neutral, so it rides with
the torso. The "torso link" reported is the model's root segment. The same moves can be made with one
leg, with the arms (shoulders: ``R_y(-lift)`` points the arms forward), or with arms and legs together
(``LIMBS``): any closed loop in joint space with zero momentum turns the body.
"""

from __future__ import annotations

import numpy as np

from ..errors import SolverError
from ..model.body import BodyModel
from ..rotations import quat_from_axis_angle, quat_mul
from .free_floating import free_floating
from .motion_function import posture_sequence
from .result import ZeroGravity

MANOEUVRES = ("leg_lifting", "leg_twisting", "leg_closing", "sequence")
#: The limbs a manoeuvre can move: their proximal ball joints (hips, shoulders).
LIMBS = {"legs": ("thigh_l", "thigh_r"), "left_leg": ("thigh_l",), "right_leg": ("thigh_r",),
         "arms": ("upper_arm_l", "upper_arm_r"), "arms_and_legs": ("upper_arm_l", "upper_arm_r", "thigh_l", "thigh_r")}


def limb_posture(model: BodyModel, lift_deg: float, twist_deg: float, limbs: str = "legs") -> np.ndarray:
    """Neutral pose with the ``limbs`` (``LIMBS``) lifted forward by ``lift_deg`` and swung sideways by
    ``twist_deg`` at their ball joints (hips or shoulders)."""
    if limbs not in LIMBS:
        raise SolverError(f"Unknown limbs {limbs!r} for a manoeuvre", f"use one of {', '.join(LIMBS)}")
    q = model.neutral_q()
    rotation = quat_mul(quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), np.radians(twist_deg)),
                        quat_from_axis_angle(np.array([0.0, 1.0, 0.0]), -np.radians(lift_deg)))
    for name in LIMBS[limbs]:
        k = model.names.index(name) if name in model.names else -1
        if k < 0 or model.segments[k].joint != "ball":
            raise SolverError(f"The manoeuvre moves {name!r}, which the model lacks or does not join by a ball joint",
                              "use a full15 or brubaker12 body model")
        start = model.q_starts[k]
        q[start:start + 4] = rotation
    return q


def self_orientation(model: BodyModel, manoeuvre: str, *, angle_deg: float, duration_s: float,
                     v_max: float | None = None, rate_hz: float = 100.0, lift_deg: float = 90.0,
                     limbs: str = "legs") -> ZeroGravity:
    """Simulate one self-orientation step with zero momentum (Badler et al. §4).

    ``manoeuvre``: ``"leg_lifting"`` (standing -> hips flexed by ``angle_deg``), ``"leg_twisting"`` (legs
    lifted by ``lift_deg`` swing sideways by ``angle_deg``), ``"leg_closing"`` (from lifted by ``lift_deg``
    and swung by ``angle_deg`` back to standing), or ``"sequence"`` (all three in a row, ``duration_s``
    each: the complete manoeuvre, which ends standing with a net turn). ``v_max`` [deg/s] caps every
    joint's speed (three-phase motion function). The summary reports the torso's net reorientation (angle
    and world axis), the momentum drift and the peak joint torques. ``limbs`` (``LIMBS``): which limbs
    make the moves (default both legs, as in the paper).
    """
    if manoeuvre not in MANOEUVRES:
        raise SolverError(f"Unknown self-orientation manoeuvre {manoeuvre!r}", f"use one of {', '.join(MANOEUVRES)}")
    standing = model.neutral_q()
    lifted = limb_posture(model, lift_deg, 0.0, limbs)
    twisted = limb_posture(model, lift_deg, angle_deg, limbs)
    postures = {"leg_lifting": [standing, limb_posture(model, angle_deg, 0.0, limbs)],
                "leg_twisting": [lifted, twisted],
                "leg_closing": [twisted, standing],
                "sequence": [standing, lifted, twisted, standing]}[manoeuvre]
    path = posture_sequence(model, postures, duration_s, rate_hz, None if v_max is None else np.radians(v_max))
    info = {"manoeuvre": manoeuvre, "limbs": limbs, "angle_deg": float(angle_deg), "lift_deg": float(lift_deg),
            "duration_s": float(duration_s), "v_max_deg_s": v_max, "rate_hz": float(rate_hz)}
    return free_floating(model, path, info=info)
