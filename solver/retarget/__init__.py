"""Retargeting the solved motion onto an animator's own character (pure numpy; the add-on only converts).

- ``skeleton``: an armature as arrays, Blender's pose rule and its inverse (``Skeleton``).
- ``bone_names``: which bone is which segment, by known rigs or a vocabulary of words (``detect_mapping``).
- ``presets``: bone tables as TOML files (``read_preset``, ``write_preset``).
- ``alignment``: rest-pose alignment (facing, swing, thumb twist) in world space.
- ``events``: stance phases, heel strikes and toe offs from the contact estimate (``foot_contacts``).
- ``ik``: analytic two-bone IK; ``foot_lock``: planted feet with smooth blends and hip drop.
- ``transfer``: ``retarget`` puts it together -> ``Retargeted``; ``follow_offset`` places the visuals.
- ``channels``: a pose bone's rotation channels in its own rotation mode.
"""

from .bone_names import FAMILIES, REQUIRED, ROLES, Mapping, classify, detect_mapping
from .events import FootContacts, FootEvent, foot_contacts
from .presets import read_preset, write_preset
from .skeleton import Skeleton
from .transfer import Retargeted, RetargetOptions, SourceMotion, StanceSlide, follow_offset, retarget

__all__ = [
    "FAMILIES", "REQUIRED", "ROLES", "FootContacts", "FootEvent", "Mapping", "RetargetOptions", "Retargeted",
    "Skeleton", "SourceMotion", "StanceSlide", "classify", "detect_mapping", "follow_offset", "foot_contacts",
    "read_preset", "retarget", "write_preset",
]
