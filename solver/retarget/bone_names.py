"""Which bone of a character is which body segment: known rigs by name, any other by a vocabulary of words.

A *role* is a segment of the solved model (``pelvis``, ``torso``, ``head``,
``upper_arm_l``, ``forearm_l``, ``hand_l``, ``thigh_l``, ``shank_l``,
``foot_l`` and the right side). Several bones may share a role (Mixamo's
Spine, Spine1, Spine2 are all ``torso``): they turn together as one segment.

Known rigs are exact tables: Rigify's metarig (its ``spine`` bone is the hips,
``spine.004``-``spine.006`` neck and head, which words alone cannot tell) and
a generated Rigify rig (whose deform bones follow constraints, so its FK
controls are keyed, with the IK/FK switches set to FK). Any other rig (Mixamo
``mixamorig:LeftUpLeg``, the Unreal mannequin's ``thigh_l``, ``calf_l``,
``upperarm_l``, 3ds Max Biped ``Bip01 L Thigh``, Blender's ``thigh.L``, DAZ
``lShin``...) is read word by word: a name is split into words (``.``, ``_``,
``-``, ``:``, spaces, camelCase, digits), side words (left, l, right, r...)
give the side, and the first rule whose phrase appears in the words gives the
role. Helper bones (twist, IK, pole, MCH...) and bones driven by constraints
are never keyed. The same kind of vocabulary names markers (``solver/model``);
this one names bones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import SolverError

SIDES = ("l", "r")
LIMB_ROLES = ("upper_arm", "forearm", "hand", "thigh", "shank", "foot")
ROLES = ("pelvis", "torso", "head", *(f"{limb}_{s}" for s in SIDES for limb in LIMB_ROLES))
#: Roles a character must have to be retargeted (the root and the legs carry the motion and the foot lock).
REQUIRED = ("pelvis", "thigh_l", "shank_l", "foot_l", "thigh_r", "shank_r", "foot_r")
#: Where a model without a segment takes its motion from, first found first (brubaker12 has no head or hands; an
#: arm its markers cannot build is one segment, ``arm_l`` or ``arm_r``, hanging from the shoulder).
FALLBACK = {"head": ("torso",), **{f"{part}_{s}": fallback for s in SIDES for part, fallback in (
    ("upper_arm", (f"arm_{s}",)), ("forearm", (f"arm_{s}",)), ("hand", (f"forearm_{s}", f"arm_{s}")))}}

SIDE_WORDS = {"l": "l", "left": "l", "lft": "l", "lt": "l", "r": "r", "right": "r", "rgt": "r", "rt": "r"}
#: Bones with one of these words are rig mechanics or end markers, never keyed.
HELPER_WORDS = {"twist", "roll", "ik", "pole", "target", "mch", "org", "tweak", "vis", "parent", "end", "nub",
                "socket", "helper", "prop", "weapon", "null", "leaf", "corrective", "jiggle", "ctrl", "ctl"}
#: (role, phrases, sided): the first rule with a phrase found in a name's words wins; sided rules need a side
#: word, unsided ones need none. Order matters: "fore arm" before "arm", "up leg" before "leg".
VOCABULARY = (
    ("thumb", ("thumb",), None),
    ("finger", ("index", "middle", "ring", "pinky", "little", "finger", "fingers", "palm", "metacarpal",
                "carpal"), None),
    ("toe", ("toe", "toes", "toebase", "ball", "heel"), None),
    ("clavicle", ("clavicle", "shoulder", "collar", "scapula"), None),
    ("forearm", ("forearm", "fore arm", "lowerarm", "lower arm", "elbow", "radius", "ulna"), True),
    ("upper_arm", ("upperarm", "upper arm", "arm", "humerus", "bicep", "shldr"), True),
    ("hand", ("hand", "wrist"), True),
    ("thigh", ("thigh", "upleg", "up leg", "upperleg", "upper leg", "femur", "hip"), True),
    ("shank", ("shin", "calf", "shank", "lowerleg", "lower leg", "leg", "knee", "tibia"), True),
    ("foot", ("foot", "ankle"), True),
    ("pelvis", ("pelvis", "hips", "hip"), False),
    ("torso", ("spine", "chest", "upperchest", "torso", "abdomen", "belly", "waist", "lumbar", "thorax",
               "ribcage"), False),
    ("head", ("neck", "head"), False),
)


@dataclass(frozen=True)
class Family:
    """A rig known by its exact bone names. ``{S}`` stands for the side as the rig writes it (``L``/``R``).
    ``detect``: bones that identify it; ``bones``: bone -> role; ``switches``: pose-bone properties to key
    (e.g. Rigify's IK/FK switch set to FK)."""

    name: str
    detect: tuple[str, ...]
    bones: dict
    switches: dict = field(default_factory=dict)
    sides: tuple[str, str] = ("L", "R")

    def expand(self, table: dict) -> dict:
        return {name.replace("{S}", side): (value.replace("{s}", s) if isinstance(value, str) else value)
                for name, value in table.items()
                for side, s in (zip(self.sides, SIDES) if "{S}" in name else [("", "")])}


_LIMBS = {"upper_arm": "upper_arm", "forearm": "forearm", "hand": "hand", "thigh": "thigh", "shin": "shank",
          "foot": "foot"}
FAMILIES = (
    Family("Rigify (generated rig)", ("torso", "hips", "chest", "thigh_fk.L", "upper_arm_fk.L", "foot_fk.R"),
           {"torso": "pelvis", "chest": "torso", "neck": "head", "head": "head",
            **{f"{bone}_fk.{{S}}": f"{role}_{{s}}" for bone, role in _LIMBS.items()}},
           switches={"thigh_parent.{S}": {"IK_FK": 1.0}, "upper_arm_parent.{S}": {"IK_FK": 1.0}}),
    Family("Rigify metarig", ("spine", "spine.003", "spine.006", "thigh.L", "shin.L", "upper_arm.L"),
           {"spine": "pelvis", "spine.001": "torso", "spine.002": "torso", "spine.003": "torso",
            "spine.004": "head", "spine.005": "head", "spine.006": "head",
            **{f"{bone}.{{S}}": f"{role}_{{s}}" for bone, role in _LIMBS.items()}}),
)


@dataclass(frozen=True)
class Mapping:
    """Target bone -> role, the rig's family (or "generic"), and pose-bone properties to key."""

    bones: dict
    family: str = "generic"
    switches: dict = field(default_factory=dict)

    def groups(self) -> dict:
        """Role -> the bones that have it, in the order given."""
        out: dict = {}
        for bone, role in self.bones.items():
            out.setdefault(role, []).append(bone)
        return out

    def missing(self) -> tuple[str, ...]:
        return tuple(r for r in REQUIRED if r not in self.bones.values())

    def check(self) -> None:
        unknown = sorted({r for r in self.bones.values() if r not in ROLES})
        if unknown:
            raise SolverError(f"Unknown body segment(s) in the bone mapping: {', '.join(unknown)}",
                              f"map bones to {', '.join(ROLES)}")
        if self.missing():
            raise SolverError(f"No bone of the character is mapped to {', '.join(self.missing())}",
                              "map them in the sidebar's bone table (Retarget), or load a preset")


def words(name: str) -> list[str]:
    """Lower-case words of a bone name: split at separators, camelCase humps and digits."""
    return [w.lower() for part in re.split(r"[\s._:\-|/]+", name)
            for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", part)]


def _contains(seq: list[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(seq[i:i + n]) == phrase for i in range(len(seq) - n + 1))


def classify(name: str) -> str | None:
    """The role of a bone by its name (``thigh_l``, ``torso``, ...), ``thumb``/``finger``/``toe``/``clavicle``
    for bones that follow their parent, or None (helpers, unknown words)."""
    found = words(name)
    if HELPER_WORDS & set(found):
        return None
    sides = {SIDE_WORDS[w] for w in found if w in SIDE_WORDS}
    side = sides.pop() if len(sides) == 1 else None
    rest = [w for w in found if w not in SIDE_WORDS]
    for role, phrases, sided in VOCABULARY:
        if any(_contains(rest, tuple(p.split())) for p in phrases):
            if sided is None:
                return f"{role}_{side}" if side else role
            if sided == bool(side):
                return f"{role}_{side}" if sided else role
    return None


def _chain(bones: list[int], parents) -> list[int]:
    """The first (shallowest) bone of ``bones`` and those of them that descend from it through each other."""
    chain = [bones[0]]
    for b in bones[1:]:
        if parents[b] == chain[-1]:
            chain.append(b)
    return chain


def detect_mapping(names: tuple[str, ...], parents, keyable: set[str] | None = None) -> Mapping:
    """Map a character's bones (in parent-before-child order) to roles: a known family if its bones are all
    there, else the vocabulary. ``keyable``: bones free to key (no constraints); default all."""
    keyable = set(names) if keyable is None else keyable
    present = set(names)
    for family in FAMILIES:
        if set(family.expand({b: "" for b in family.detect})) <= present:
            bones = {b: r for b, r in family.expand(family.bones).items() if b in present}
            switches = {b: v for b, v in family.expand(family.switches).items() if b in present}
            return Mapping(bones, family.name, switches)
    by_role: dict = {}
    for i, name in enumerate(names):
        role = classify(name) if name in keyable else None
        if role in ROLES:
            by_role.setdefault(role, []).append(i)
    chosen = {role: (_chain(found, parents) if role in ("torso", "head") or role[:-2] in LIMB_ROLES
                     else found[:1]) for role, found in by_role.items()}
    if "pelvis" not in chosen and "thigh_l" in chosen and "thigh_r" in chosen:
        pelvis = _common_parent(chosen["thigh_l"][0], chosen["thigh_r"][0], parents)
        if pelvis is not None and names[pelvis] in keyable:
            chosen["pelvis"] = [pelvis]
    family = "Mixamo" if any(n.lower().startswith("mixamorig") for n in names) else \
        "Unreal mannequin" if {"pelvis", "thigh_l", "calf_l", "upperarm_l"} <= present else "generic"
    order = sorted((i, role) for role, found in chosen.items() for i in found)
    return Mapping({names[i]: role for i, role in order}, family)


def _common_parent(a: int, b: int, parents) -> int | None:
    seen = set()
    while a >= 0:
        seen.add(a)
        a = parents[a]
    while b >= 0 and b not in seen:
        b = parents[b]
    return b if b >= 0 else None


def thumb_of(hand: int, names: tuple[str, ...], parents) -> int | None:
    """The nearest descendant of bone ``hand`` named as a thumb, or None."""
    frontier = [hand]
    while frontier:
        children = [i for i in range(len(names)) if parents[i] in frontier]
        for i in children:
            if (classify(names[i]) or "").startswith("thumb"):
                return i
        frontier = children
    return None
