"""Rest-pose alignment: the world rotation that takes each bone group of a character from its rest pose to
the solved model's rest pose (A-pose or T-pose against anatomical neutral, any bone roll).

Both rests are compared in world space, so bone rolls and armature axes do not
matter. First the whole character turns about the vertical so that it faces
where the model faces (``facing``: forward = left x up, left from the right
hip joint to the left). Then each group (the bones that share a segment, e.g.
Spine, Spine1, Spine2) swings by the shortest arc that lays its line (head of
its first bone to tail of its last) along the segment's line. The pelvis only
turns (pelvis bones point every which way). A hand with a thumb bone is also
twisted so that its thumb points laterally, as in anatomical neutral (palm
forward), instead of the palm-down of a T-pose. A group's offset ``Q`` then
gives its world rotation in every frame, ``R_t(f) = R_s(f) R_s0ᵀ Q R_t0``: the
segment's world rotation since its rest, applied to the aligned rest.
"""

from __future__ import annotations

import numpy as np

from ..rotations import swing, unit_or_zero

UP = np.array([0.0, 0.0, 1.0])


def facing(left: np.ndarray) -> np.ndarray:
    """The horizontal forward direction of a body whose left is ``left`` (forward = left x up); +X if level."""
    forward = np.cross(left, UP)
    forward[2] = 0.0
    n = np.linalg.norm(forward)
    return forward / n if n > 1e-9 else np.array([1.0, 0.0, 0.0])


def turn_about_up(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The rotation about +Z taking horizontal direction ``a`` onto ``b``."""
    angle = np.arctan2(b[1], b[0]) - np.arctan2(a[1], a[0])
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def frame_alignment(axis_from: np.ndarray, ref_from: np.ndarray, axis_to: np.ndarray,
                    ref_to: np.ndarray) -> np.ndarray:
    """The rotation taking ``axis_from`` onto ``axis_to`` and the part of ``ref_from`` perpendicular to it
    onto that of ``ref_to`` (a direction and a twist); the swing alone where a reference is degenerate."""
    def frame(axis, ref):
        axis = unit_or_zero(axis)
        ref = unit_or_zero(ref - (ref @ axis) * axis)
        return None if not ref.any() else np.column_stack([axis, ref, np.cross(axis, ref)])
    f_from, f_to = frame(axis_from, ref_from), frame(axis_to, ref_to)
    if f_from is None or f_to is None:
        return swing(axis_from, axis_to)
    return f_to @ f_from.T


def group_offset(turn: np.ndarray, target_line: np.ndarray, source_line: np.ndarray,
                 twist: tuple[np.ndarray, np.ndarray] | None = None, level: bool = False) -> np.ndarray:
    """A group's rest offset ``Q``: the facing ``turn`` then the swing of its (turned) ``target_line`` onto
    ``source_line``; with ``twist = (target_ref, source_ref)`` the alignment of both a line and a reference
    direction (a thumb onto the lateral direction); with ``level`` only the turn about the vertical that
    points the lines' horizontal parts the same way (a foot flat at rest stays flat: the ankle-to-ball bone
    of a character and the ankle-to-toe-marker segment of the subject slope differently)."""
    line = turn @ target_line
    if level:
        return turn_about_up(line, source_line) @ turn
    if twist is None:
        return swing(line, source_line) @ turn
    return frame_alignment(line, turn @ twist[0], source_line, twist[1]) @ turn
