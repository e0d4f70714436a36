"""Body templates: which segments, how they are jointed, and which landmarks define each frame.

Calibration always works on the same fifteen *anatomical* segments (``ANATOMY``);
a *template* says how they become model segments: the joint type of each one
and which anatomical segments are merged into one rigid model segment.

Anatomical frames (origin at the proximal joint centre; X anterior, Y left,
Z up in anatomical neutral, so that the neutral pose of ``BodyModel`` is
anatomical neutral): each frame is built from a *primary* axis through two
points and a *secondary* axis orthogonalized to it; the third axis completes a
right-handed frame. Secondary candidates are tried in order: a pair of points
``(a, b)`` (axis along ``b - a``) or ``"@segment"`` (that segment's Y axis).
Pairs are ordered so that Y points LEFT on both sides (left limb: medial ->
lateral; right limb: lateral -> medial).

==========  ==============  ==========================  ===================================  ===========
segment     origin          primary axis                secondary axis                       tip
==========  ==============  ==========================  ===================================  ===========
pelvis      mid-hip         Y: right -> left ASIS       X: mid-PSIS -> mid-ASIS              lumbar JC
torso       lumbar JC       Z: lumbar -> neck JC        Y: right -> left acromion            neck JC
head        neck JC         Y: right -> left head mks   X: back -> front head markers        vertex
upper arm   shoulder JC     Z: elbow -> shoulder JC     Y: humeral epicondyles (or torso Y)  elbow JC
forearm     elbow JC        Z: wrist -> elbow JC        Y: humeral epicondyles (flexion ax)  wrist JC
hand        wrist JC        Z: hand tip -> wrist JC     Y: styloids (radial = lateral)       hand tip
thigh       hip JC          Z: knee -> hip JC           Y: femoral epicondyles (or pelvis Y) knee JC
shank       knee JC         Z: ankle -> knee JC         Y: femoral epicondyles (flexion ax)  ankle JC
foot        ankle JC        X: heel -> toe marker       Y: the shank's Y                     toe marker
==========  ==============  ==========================  ===================================  ===========

The forearm and shank take the *proximal* joint's flexion axis as their Y
(not the wrist or malleolar axis), so that a 1-DoF elbow or knee reproduces
them by a rotation about Y alone; forearm rotation lives in the wrist joint.
The heel-to-toe line is parallel to the sole (Plug-in-Gait marker placement:
heel marker at the toe marker's height above the sole), so the neutral foot
is flat. Where a calibrated segment cannot follow its own anatomical frame
(hinge, universal, weld), calibration uses the nearest frame the joint allows
(see ``calibrate``).

Joint axes (in the parent frame at neutral): knee hinge +Y and elbow hinge
-Y, so that flexion is positive on both; ankle universal (``brubaker12``)
first -Y (dorsiflexion positive) then -X on the left, +X on the right
(inversion positive on both).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ModelError

SIDES = ("l", "r")


@dataclass(frozen=True)
class Anatomy:
    """One anatomical segment: parent, how its frame is built, its tip and its inertial parts.

    ``inertia`` names rows of the inertia table (``inertia.py``); a leading
    ``-`` subtracts a row (the torso is the trunk minus the lower trunk).
    ``default_tip`` = (table row, direction): where the tip goes, at the
    row's mean length scaled to the subject, when no marker locates it.
    ``landmarks`` are extra points kept in the segment frame (the foot's heel).
    """

    name: str
    parent: str | None
    origin: str
    primary: tuple[str, str, str]
    secondary: tuple[str, tuple]
    tip: str
    inertia: tuple[str, ...]
    default_tip: tuple[str, tuple[float, float, float]] | None = None
    landmarks: tuple[str, ...] = ()

    @property
    def side(self) -> str:
        return self.name[-1] if self.name[-2:] in ("_l", "_r") else ""


def _lat_med(joint: str, s: str) -> tuple[str, str]:
    """The (from, to) pair of a joint's lateral/medial landmarks that points LEFT on side ``s``."""
    return (f"{joint}_med_{s}", f"{joint}_lat_{s}") if s == "l" else (f"{joint}_lat_{s}", f"{joint}_med_{s}")


def _arm(s: str) -> tuple[Anatomy, ...]:
    return (
        Anatomy(f"upper_arm_{s}", "torso", f"shoulder_{s}", ("z", f"elbow_{s}", f"shoulder_{s}"),
                ("y", (_lat_med("elbow", s), "@torso")), f"elbow_{s}", ("upper_arm",)),
        Anatomy(f"forearm_{s}", f"upper_arm_{s}", f"elbow_{s}", ("z", f"wrist_{s}", f"elbow_{s}"),
                ("y", (_lat_med("elbow", s), f"@upper_arm_{s}")), f"wrist_{s}", ("forearm",)),
        Anatomy(f"hand_{s}", f"forearm_{s}", f"wrist_{s}", ("z", f"hand_tip_{s}", f"wrist_{s}"),
                ("y", (_lat_med("wrist", s), f"@forearm_{s}")), f"hand_tip_{s}", ("hand",),
                default_tip=("hand", (0.0, 0.0, -1.0))),
    )


def _leg(s: str) -> tuple[Anatomy, ...]:
    return (
        Anatomy(f"thigh_{s}", "pelvis", f"hip_{s}", ("z", f"knee_{s}", f"hip_{s}"),
                ("y", (_lat_med("knee", s), "@pelvis")), f"knee_{s}", ("thigh",)),
        Anatomy(f"shank_{s}", f"thigh_{s}", f"knee_{s}", ("z", f"ankle_{s}", f"knee_{s}"),
                ("y", (_lat_med("knee", s), f"@thigh_{s}")), f"ankle_{s}", ("shank",)),
        Anatomy(f"foot_{s}", f"shank_{s}", f"ankle_{s}", ("x", f"heel_{s}", f"toe_{s}"),
                ("y", (f"@shank_{s}",)), f"toe_{s}", ("foot",), landmarks=(f"heel_{s}",)),
    )


#: The fifteen anatomical segments, parents first (depth first: trunk, head, arms, legs).
ANATOMY: tuple[Anatomy, ...] = (
    Anatomy("pelvis", None, "mid_hip", ("y", "asis_r", "asis_l"), ("x", (("psis", "asis_mid"),)),
            "lumbar", ("lower_trunk",)),
    Anatomy("torso", "pelvis", "lumbar", ("z", "lumbar", "neck"), ("y", (("acromion_r", "acromion_l"),)),
            "neck", ("trunk", "-lower_trunk"), landmarks=("shoulder_mid",)),
    Anatomy("head", "torso", "neck", ("y", "head_r", "head_l"), ("x", (("head_back", "head_front"),)),
            "vertex", ("head",), default_tip=("head", (0.0, 0.0, 1.0))),
    *_arm("l"), *_arm("r"), *_leg("l"), *_leg("r"),
)
ANATOMY_BY_NAME = {a.name: a for a in ANATOMY}


@dataclass(frozen=True)
class TemplateSegment:
    """A model segment: joint to its parent, joint axes (parent frame at neutral), merged anatomical segments.

    The first member gives the frame; the others ride along rigidly (their
    markers, inertia and tip belong to this segment).
    """

    name: str
    parent: str | None
    joint: str
    axes: tuple = ()
    members: tuple[str, ...] = ()

    def __post_init__(self):
        if not self.members:
            object.__setattr__(self, "members", (self.name,))


@dataclass(frozen=True)
class Template:
    name: str
    description: str
    segments: tuple[TemplateSegment, ...]


_KNEE = ((0.0, 1.0, 0.0),)
_ELBOW = ((0.0, -1.0, 0.0),)


def _ankle(s: str) -> tuple:
    return ((0.0, -1.0, 0.0), (-1.0 if s == "l" else 1.0, 0.0, 0.0))


FULL15 = Template(
    "full15",
    "15 segments: pelvis (free), torso (ball lumbar), head (ball neck), upper arms (ball shoulders), "
    "forearms (hinge elbows), hands (ball wrists), thighs (ball hips), shanks (hinge knees), feet (ball ankles); "
    "the 14 segments of Lee 2009 (App. F) with the trunk split at the lumbar joint. nq = 51, nv = 40",
    (TemplateSegment("pelvis", None, "free"),
     TemplateSegment("torso", "pelvis", "ball"),
     TemplateSegment("head", "torso", "ball"),
     *(seg for s in SIDES for seg in (
         TemplateSegment(f"upper_arm_{s}", "torso", "ball"),
         TemplateSegment(f"forearm_{s}", f"upper_arm_{s}", "hinge", _ELBOW),
         TemplateSegment(f"hand_{s}", f"forearm_{s}", "ball"))),
     *(seg for s in SIDES for seg in (
         TemplateSegment(f"thigh_{s}", "pelvis", "ball"),
         TemplateSegment(f"shank_{s}", f"thigh_{s}", "hinge", _KNEE),
         TemplateSegment(f"foot_{s}", f"shank_{s}", "ball")))),
)

BRUBAKER12 = Template(
    "brubaker12",
    "Brubaker, Sigal & Fleet 2009, Fig. 4: 12 parts, 23 joint DoF (pelvis-torso 3, shoulders 3, elbows 1, "
    "hips 3, knees 1, ankles 2) plus the free root: nq = 35, nv = 29. The head rides on the torso and each "
    "hand on its forearm",
    (TemplateSegment("pelvis", None, "free"),
     TemplateSegment("torso", "pelvis", "ball", members=("torso", "head")),
     *(seg for s in SIDES for seg in (
         TemplateSegment(f"upper_arm_{s}", "torso", "ball"),
         TemplateSegment(f"forearm_{s}", f"upper_arm_{s}", "hinge", _ELBOW, members=(f"forearm_{s}", f"hand_{s}")))),
     *(seg for s in SIDES for seg in (
         TemplateSegment(f"thigh_{s}", "pelvis", "ball"),
         TemplateSegment(f"shank_{s}", f"thigh_{s}", "hinge", _KNEE),
         TemplateSegment(f"foot_{s}", f"shank_{s}", "universal", _ankle(s))))),
)

TEMPLATES = {t.name: t for t in (FULL15, BRUBAKER12)}

#: The anatomical segments a lower-body model merges into one (head last: its vertex is the bone's tip).
HAT_MEMBERS = ("torso", *(f"{seg}_{s}" for s in SIDES for seg in ("upper_arm", "forearm", "hand")), "head")


def with_hat(template: Template) -> Template:
    """``template`` for a lower-body marker set: the head, arms and trunk become one segment ``hat``
    (Winter's HAT), welded to the pelvis, its parts placed from the pelvis (``joint_centres``)."""
    kept = tuple(s for s in template.segments if not set(s.members) & set(HAT_MEMBERS))
    hat = TemplateSegment("hat", "pelvis", "weld", members=HAT_MEMBERS)
    return Template(template.name, f"{template.description}; lower body: head, arms and trunk as one "
                                   "segment (HAT) welded to the pelvis", (kept[0], hat, *kept[1:]))


def arm_members(side: str) -> tuple[str, ...]:
    """The anatomical segments of one arm, shoulder to hand."""
    return tuple(f"{seg}_{side}" for seg in ("upper_arm", "forearm", "hand"))


def with_hanging_arms(template: Template, sides) -> Template:
    """``template`` with each arm of ``sides`` one segment ``arm_<side>`` welded to the torso (an arm its
    markers cannot build, placed hanging from its shoulder: ``points.Points``)."""
    if not sides:
        return template
    segments = list(template.segments)
    for s in sides:
        members = arm_members(s)
        at = next(k for k, seg in enumerate(segments) if seg.members[0] == members[0])
        segments = [seg for seg in segments if not set(seg.members) & set(members)]
        segments.insert(at, TemplateSegment(f"arm_{s}", "torso", "weld", members=members))
    hanging = " and ".join(f"arm_{s}" for s in sides)
    return Template(template.name, f"{template.description}; {hanging} one segment welded to the torso, hanging",
                    tuple(segments))


def get_template(name: str) -> Template:
    try:
        return TEMPLATES[name]
    except KeyError:
        raise ModelError(f"Unknown body template {name!r}", f"use one of {', '.join(TEMPLATES)}") from None
