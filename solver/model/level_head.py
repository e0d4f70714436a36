"""A head without markers, held level: the neck turns it upright, facing where the torso faces.

Beyond the papers. Brubaker et al.'s model (Fig. 4) carries the head on the torso, and so did ours when the
head had no markers of its own: welded at its calibrated posture (``head="welded"``, still selectable).
Welded, the head tilts with the trunk: in a sit-to-stand the trunk leans 40-50° and a head of 7 % of the
body mass swings forward and down with it, at the end of a 0.6 m lever, while people keep their gaze level
by extending the neck. Held level, the neck joint is a ball whose rotation is not measured but set from the
torso's orientation: the shortest arc (a swing, no twist about the torso's long axis) that turns the head's
long axis, the torso's at neutral, back to the vertical, at most ``NECK_RANGE`` (so a body lying down or
upside down carries its head bent by that much, not twisted round). Markers cannot say otherwise: the head
has none (a head with one or two markers stays welded; with more it is tracked).

Measured with ``scripts/compare_opensim_id.py`` (hip, knee and ankle moments from the motion alone against
OpenSim inverse dynamics with the plates, mean r where the plates see all): sit-to-stand 0.824 -> 0.884
(0.826 -> 0.870 over the whole trial; the ankles 0.52 -> 0.69: the body's centre of mass no longer runs
ahead of the feet while the trunk leans); walks, drop jumps and video-based markers within 0.002.

One of the rules of ``model.held`` (which also says how reconstruction sets held joints).
"""

from __future__ import annotations

import numpy as np

from ..rotations import matrix_to_quat, swing, unit_or_zero

#: The most the neck turns the head back toward the vertical [rad]: cervical flexion's range (about 50°,
#: extension's is about 60°; AAOS).
NECK_RANGE = np.radians(50.0)
#: The segment a model holds level.
HEAD = "head"
#: The ``head`` option: segments without markers held by their rules (``model.held``), or welded (the papers).
HEADS = ("level", "welded")


def level_joint(parent_rotation: np.ndarray) -> np.ndarray:
    """The held joint's quaternion (child -> parent) ``(..., 4)`` under a parent of world rotation
    ``(..., 3, 3)``: the swing taking the parent's Z onto the world's vertical (expressed in the parent
    frame), its angle capped at ``NECK_RANGE``."""
    up = np.asarray(parent_rotation, float)[..., 2, :]  # the world's Z in the parent frame: Rᵀ e_z
    z = np.array([0.0, 0.0, 1.0])
    toward = unit_or_zero(up - up[..., 2:] * z)  # where the vertical leans, across the parent's Z
    capped = np.cos(NECK_RANGE) * z + np.sin(NECK_RANGE) * toward
    target = np.where((up[..., 2] < np.cos(NECK_RANGE))[..., None], capped, up)
    return matrix_to_quat(swing(np.broadcast_to(z, up.shape), target))
