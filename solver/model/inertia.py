"""Segment inertial parameters: de Leva (1996) and Lee (2009) tables, scaled to the subject.

``de_leva``: de Leva P. (1996) Adjustments to Zatsiorsky-Seluyanov's segment
inertia parameters. J Biomech 29(9):1223-1230, Table 4 (female and male):
mass [% body mass], CM position [% of length from the first endpoint], radii
of gyration [% of length] about the sagittal (antero-posterior), transverse
(medio-lateral) and longitudinal axes, and the mean segment length [mm].
Rows and their endpoints as de Leva defines them, -> our points:

=============  ===========  ============================================================
row            endpoints    mapped to
=============  ===========  ============================================================
head           VERT-CERV    vertex (head tip) - neck joint centre (Table 4, alternative
                            head definition; its C7 end is our C7/jugular-notch midpoint)
trunk          SUPR-MIDH    neck joint centre - mid-hip (pelvis origin)
lower_trunk    OMPH-MIDH    lumbar joint centre (pelvis tip) - mid-hip
upper_arm      SJC-EJC      shoulder - elbow joint centres
forearm        EJC-WJC      elbow - wrist joint centres
hand           WJC-MET3     wrist joint centre - hand tip (3rd metacarpal head)
thigh          HJC-KJC      hip - knee joint centres
shank          KJC-LMAL     knee - ankle joint centres (malleoli midpoint)
foot           HEEL-TTIP    heel marker - foot tip (toe marker)
=============  ===========  ============================================================

The female fractions sum to 99.99 % (rounding in the table); masses are
divided by the sum of the fractions used, so segment masses add up to the
body mass exactly.

``lee``: Lee (2009) Table F.1 (mass, CM) and F.2 (radii), one set of values
(male subject); rows: head VERT-CERV (= de Leva's alternative head), trunk
MSHO-MIDH (mid-shoulder - mid-hip: de Leva's third trunk definition; CM 43.1 %
as in Table F.1, Fig. 9.4 says 43.40 %), forearm EJC-RSTY (radial styloid,
mapped to the wrist centre), upper arm, thigh, shank and foot as de Leva male.
F.2 lists the foot's radii as 25.7/24.5/12.4 under transverse/longitudinal/
sagittal; read literally the largest radius would be about the foot's long
axis, so we use them as de Leva does (sagittal 25.7, transverse 24.5,
longitudinal 12.4). Lee's model has no hand row and no pelvis: the hand and
the lower trunk (to split the pelvis off the trunk) come from de Leva male,
as the implementer's notes §7 suggest.

Shoes (beyond both tables, which weigh barefoot bodies): a subject in a lab
usually wears shoes, and the scales and force plates weigh them with the
body. ``shoe_mass`` [kg per foot, ``SHOE_MASS`` by default: an everyday
trainer or running shoe weighs 0.25-0.4 kg] is taken out of the body mass
before the table shares it out, and added to each foot, distributed like the
foot (its CM and radii of gyration: the shoe wraps it). 0 is the tables as
published (barefoot). Checked against the trials' plates: the vertical force
and lateral moment that the measured plates leave at the root on subject 4's
walks are least for a foot of 1.7-2.0 % of the body mass, the table's 1.37 %
plus a 0.2-0.4 kg shoe (README).

The torso's centre of mass (beyond both tables; ``TORSO_CENTRES``,
``dumas_torso_centre``): de Leva gives the trunk's CM only along its
SUPR-MIDH line, which runs down through the hip joints, ahead of the lumbar
spine, so the torso (the trunk less the lower trunk) gets its CM 1.5 cm
ahead of its lumbar-to-neck axis. Dumas, Chèze & Verriest (2007, Table 2),
who adjusted McConville's and Young's data to joint centres and 3D segment
axes, put the torso's (L5/S1 to the cervical joint centre) 42.0 % of its
length below the cervical joint centre and 3.6 % of it behind the axis
(male; female 43.6 % and 1.6 %): by default the torso's mass and inertia come
from the table and its CM from Dumas et al., their torso's length reaching
down to L5/S1 (Reed et al. 1999, ``LUMBOSACRAL_HEIGHT``) below our lumbar
joint. Checked against force plates: in subject 4's static trial the body's
CM stands 1.37 cm ahead of the plates' centre of pressure with the table's
torso, 0.41 cm from it with Dumas's (README). ``torso_centre="table"``
keeps the table's.

The segments' masses (beyond both tables; ``DUMAS_MASSES``, ``table_rows``):
by default every segment's share of the body mass is Dumas, Chèze &
Verriest's (2007, Table 2), the table's rows keeping their CM positions and
radii of gyration. Their pelvis (lumbar joint centre to the hip joints) is
14.2 % of the body mass against de Leva's lower trunk 11.2 %, their torso
33.3 % against 32.3 %, their thigh 12.3 % against 14.2 % (male). Checked
against the trials' force plates (README): the moment the model's motion
leaves unbalanced about the plates' centre of pressure with the measured
plates falls on all six trials with plates and OpenSim references (RMS
walking1 0.19 -> 0.17, walking4 0.22 -> 0.20, DJ3 0.83 -> 0.76, STS1 0.41
-> 0.37, video DJ4 1.29 -> 1.26, video walk 0.36 -> 0.36 N·m/kg), and the
joint moments from the motion alone follow OpenSim's with the plates at
least as well on each (sit-to-stand 0.891 -> 0.914). ``segment_masses=
"table"`` keeps the table's.

Axes: the longitudinal axis runs between the endpoints; the transverse axis
is the segment's Y (medio-lateral) made orthogonal to it; the sagittal axis
completes the triad (X for limbs, Z for the foot). Both tables give principal
moments, so a segment's tensor is ``m L² E diag(r_sag², r_trv², r_lon²) Eᵀ``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..errors import ModelError, option


@dataclass(frozen=True)
class Row:
    """One table row: endpoints, mass %, CM % from the first endpoint, radii % (sag, trv, lon), length mm."""

    start: str
    end: str
    mass: float
    com: float
    radii: tuple[float, float, float]
    length: float


#: de Leva 1996 Table 4 (head and trunk rows as described above).
DE_LEVA = {
    "female": {
        "head": Row("VERT", "CERV", 6.68, 48.41, (27.1, 29.5, 26.1), 243.7),
        "trunk": Row("SUPR", "MIDH", 42.57, 41.51, (35.7, 33.9, 17.1), 529.3),
        "lower_trunk": Row("OMPH", "MIDH", 12.47, 49.20, (43.3, 40.2, 44.4), 181.5),
        "upper_arm": Row("SJC", "EJC", 2.55, 57.54, (27.8, 26.0, 14.8), 275.1),
        "forearm": Row("EJC", "WJC", 1.38, 45.59, (26.1, 25.7, 9.4), 264.3),
        "hand": Row("WJC", "MET3", 0.56, 74.74, (53.1, 45.4, 33.5), 78.0),
        "thigh": Row("HJC", "KJC", 14.78, 36.12, (36.9, 36.4, 16.2), 368.5),
        "shank": Row("KJC", "LMAL", 4.81, 44.16, (27.1, 26.7, 9.3), 432.3),
        "foot": Row("HEEL", "TTIP", 1.29, 40.14, (29.9, 27.9, 13.9), 228.3),
    },
    "male": {
        "head": Row("VERT", "CERV", 6.94, 50.02, (30.3, 31.5, 26.1), 242.9),
        "trunk": Row("SUPR", "MIDH", 43.46, 44.86, (37.2, 34.7, 19.1), 531.9),
        "lower_trunk": Row("OMPH", "MIDH", 11.17, 61.15, (61.5, 55.1, 58.7), 145.7),
        "upper_arm": Row("SJC", "EJC", 2.71, 57.72, (28.5, 26.9, 15.8), 281.7),
        "forearm": Row("EJC", "WJC", 1.62, 45.74, (27.6, 26.5, 12.1), 268.9),
        "hand": Row("WJC", "MET3", 0.61, 79.00, (62.8, 51.3, 40.1), 86.2),
        "thigh": Row("HJC", "KJC", 14.16, 40.95, (32.9, 32.9, 14.9), 422.2),
        "shank": Row("KJC", "LMAL", 4.33, 44.59, (25.5, 24.9, 10.3), 434.0),
        "foot": Row("HEEL", "TTIP", 1.37, 44.15, (25.7, 24.5, 12.4), 258.1),
    },
}

#: Lee 2009 Tables F.1/F.2 (lengths are de Leva's means; Lee's own are his subject's).
LEE = {
    **DE_LEVA["male"],
    "head": Row("VERT", "CERV", 6.94, 50.02, (30.3, 31.5, 26.1), 242.9),
    "trunk": Row("MSHO", "MIDH", 43.46, 43.1, (38.4, 35.8, 19.7), 515.5),
    "forearm": Row("EJC", "RSTY", 1.62, 46.08, (27.8, 26.7, 12.2), 266.9),
}

TABLES = {"de_leva": DE_LEVA, "lee": {"female": LEE, "male": LEE}}

#: Mass of one shoe [kg], added to each foot (module docstring); 0: barefoot, the tables as published.
SHOE_MASS = 0.3
#: The table row a shoe is added to.
SHOE_ROW = "foot"
#: What to do about a shoe mass that is not one (the option's check and calibration's).
SHOE_MASS_FIX = "give one shoe's mass in kg (0.2-0.5 for most; 0: barefoot)"

#: Table endpoint codes -> our point names (a trailing "_" takes the segment's side).
ENDPOINTS = {"VERT": "vertex", "CERV": "neck", "SUPR": "neck", "MIDH": "mid_hip", "OMPH": "lumbar",
             "MSHO": "shoulder_mid", "SJC": "shoulder_", "EJC": "elbow_", "WJC": "wrist_", "RSTY": "wrist_",
             "MET3": "hand_tip_", "HJC": "hip_", "KJC": "knee_", "LMAL": "ankle_", "HEEL": "heel_", "TTIP": "toe_"}


#: Dumas, Chèze & Verriest (2007) Table 2, torso (L5/S1 to the cervical joint centre): its CM's offset along the
#: sagittal axis (+ forward) and its distance below the cervical joint centre, in % of the torso's length.
TORSO_CENTRES = {"female": (-1.6, 43.6), "male": (-3.6, 42.0)}
#: Their lumbar joint centre (L5/S1, Reed, Manary & Schneider 1999) above the midpoint of the hip joint centres,
#: in units of the hip joint centres' distance: Reed et al. put L5/S1 0.126 (male; female 0.172) and the hip
#: centres -0.278 (-0.270) pelvis (inter-ASIS) widths up from the mid-ASIS in their pelvis frame, the hip centres
#: 2 x 0.361 (0.372) apart.
LUMBOSACRAL_HEIGHT = {"female": (0.172 + 0.270) / 0.744, "male": (0.126 + 0.278) / 0.722}
#: Where the torso's CM comes from: Dumas et al.'s torso (the default), or the inertia table's trunk rows.
TORSO_CENTRE_SOURCES = ("dumas", "table")
#: Dumas, Chèze & Verriest (2007) Table 2: segment masses [% of body mass] on the tables' rows: their torso and
#: pelvis together are the trunk, their pelvis the lower trunk (the torso is the trunk less the lower trunk).
DUMAS_MASSES = {
    "female": {"head": 6.7, "trunk": 30.4 + 14.6, "lower_trunk": 14.6, "upper_arm": 2.2, "forearm": 1.3,
               "hand": 0.5, "thigh": 14.6, "shank": 4.5, "foot": 1.0},
    "male": {"head": 6.7, "trunk": 33.3 + 14.2, "lower_trunk": 14.2, "upper_arm": 2.4, "forearm": 1.7,
             "hand": 0.6, "thigh": 12.3, "shank": 4.8, "foot": 1.2},
}
#: Where the segments' masses come from: Dumas et al.'s (the default), or the inertia table's.
SEGMENT_MASS_SOURCES = ("dumas", "table")


def dumas_torso_centre(lumbar: np.ndarray, neck: np.ndarray, lumbosacral_depth: float, sex: str) -> np.ndarray:
    """The torso's CM by Dumas et al. (2007) (``TORSO_CENTRES``) in a frame whose Y is medio-lateral, from its
    lumbar and neck (cervical) joint centres and how far [m] L5/S1 lies below its lumbar joint.

    Their torso runs from the cervical joint centre down to L5/S1 (``LUMBOSACRAL_HEIGHT`` above the hips), and
    its length sets the CM's place. Ours ends higher, at de Leva's omphalion (``joint_centres``), a quarter of
    the trunk up from the hips: its axis is carried down to L5/S1. Until 2026-12-06 the percentages were taken
    of our torso's length, which put the CM 2 cm higher (README: the moments from motion alone in sit-to-stand)."""
    lumbar, neck = np.asarray(lumbar, float), np.asarray(neck, float)
    ours = np.linalg.norm(neck - lumbar)
    up = (neck - lumbar) / ours
    length = ours + lumbosacral_depth  # cervical joint centre to L5/S1
    lateral = np.array([0.0, 1.0, 0.0]) - up[1] * up
    forward = np.cross(lateral / np.linalg.norm(lateral), up)
    ahead, below = TORSO_CENTRES[sex]
    return neck - below / 100.0 * length * up + ahead / 100.0 * length * forward


def table_rows(table: str, sex: str, masses: str = "table") -> dict[str, Row]:
    """The rows of ``table`` ("de_leva" or "lee") for ``sex`` ("male" or "female"), with the segments' masses
    of ``masses`` ("table": the table's; "dumas": ``DUMAS_MASSES``)."""
    if table not in TABLES:
        raise ModelError(f"Unknown inertia table {table!r}", f"use one of {', '.join(TABLES)}")
    if sex not in ("male", "female"):
        raise ModelError(f"Unknown sex {sex!r} for the inertia tables", "use 'male' or 'female'")
    if masses not in SEGMENT_MASS_SOURCES:
        raise ModelError(f"Unknown segment masses {option('segment_masses', masses)}",
                         f"use {' or '.join(SEGMENT_MASS_SOURCES)}")
    rows = TABLES[table][sex]
    if masses == "table":
        return rows
    return {name: replace(row, mass=DUMAS_MASSES[sex][name]) for name, row in rows.items()}


def endpoint(code: str, side: str) -> str:
    """Our point name for a table endpoint code on segment side ``side`` ("l", "r" or "")."""
    name = ENDPOINTS[code]
    return name + side if name.endswith("_") else name


def part_inertia(row: Row, mass: float, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CM and inertia tensor about the CM of one table part placed between ``start`` and ``end``.

    Points are in a segment frame whose Y is medio-lateral; the part's mass is ``mass`` [kg].
    """
    axis = np.asarray(end, float) - np.asarray(start, float)
    length = np.linalg.norm(axis)
    e_lon = axis / length
    y = np.array([0.0, 1.0, 0.0])
    e_trv = y - (y @ e_lon) * e_lon
    e_trv /= np.linalg.norm(e_trv)
    e_sag = np.cross(e_trv, e_lon)
    basis = np.column_stack([e_sag, e_trv, e_lon])
    moments = mass * (np.asarray(row.radii) / 100.0 * length) ** 2
    com = np.asarray(start, float) + row.com / 100.0 * axis
    return com, basis @ np.diag(moments) @ basis.T


def point_inertia(offset: np.ndarray) -> np.ndarray:
    """Parallel-axis term per unit mass: ``|d|² I - d dᵀ``."""
    d = np.asarray(offset, float)
    return (d @ d) * np.eye(3) - np.outer(d, d)


def combine(parts: list[tuple[float, np.ndarray, np.ndarray]]) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, CM and inertia about the CM of a sum of parts ``(mass, com, inertia about own com)``.

    A negative mass subtracts a part (its inertia must be given unsigned).
    """
    mass = sum(m for m, _, _ in parts)
    com = sum(m * c for m, c, _ in parts) / mass
    inertia = sum(np.sign(m) * inertia + m * point_inertia(c - com) for m, c, inertia in parts)
    return float(mass), com, 0.5 * (inertia + inertia.T)


def check_inertia(name: str, mass: float, inertia: np.ndarray) -> None:
    """Raise ``ModelError`` unless mass > 0 and the tensor is symmetric positive definite with
    principal moments obeying the triangle inequality (what a rigid body, and MuJoCo, requires)."""
    moments = np.linalg.eigvalsh(inertia)
    ok = (mass > 0 and np.allclose(inertia, inertia.T, rtol=0, atol=1e-15)
          and moments[0] > 0 and moments[0] + moments[1] >= moments[2] * (1 - 1e-12))
    if not ok:
        raise ModelError(f"Segment {name!r} has impossible inertial parameters (mass {mass:.4g} kg, principal "
                         f"moments {np.array2string(moments, precision=4)})",
                         "check its markers and joint centres: its length or endpoints are degenerate")
