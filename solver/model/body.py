"""The rigid-body model of one subject: a tree of segments with a free-floating root.

Frames and coordinates (every solver uses these):

- Each segment has a frame whose origin is its proximal joint centre (the
  root's origin is wherever its template puts it, e.g. the mid-hip point).
- In the *neutral pose* (all joint coordinates zero, unit quaternions) every
  segment frame is parallel to the world frame: X anterior, Y left, Z up; the
  subject stands upright, arms hanging, feet forward (anatomical neutral). So
  joint angles are zero in anatomical neutral, as clinicians expect.
- ``Segment.joint_offset`` is the joint centre in the parent frame;
  ``Segment.axes`` the joint axes (hinge: one, universal: two) given in the
  parent frame at neutral. A universal joint rotates first about ``axes[0]``
  then about ``axes[1]`` carried by the first rotation: ``R = R(a0, θ0) R(a1, θ1)``.

Generalized coordinates ``q`` (length ``nq``): root position (3, world), root
quaternion (4, w x y z, segment->world), then per non-root segment in order:
ball -> quaternion (4, child->parent), universal -> 2 angles, hinge -> 1 angle,
weld -> nothing.

Generalized velocities ``v`` (length ``nv``): root linear velocity of the root
origin (3, world frame), root angular velocity (3, root frame), then per
segment: ball -> angular velocity relative to the parent (3, child frame),
universal -> 2 angle rates, hinge -> 1 angle rate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..errors import ModelError
from ..report_schema import ModelSummary
from ..rotations import quat_from_axis_angle, quat_to_matrix
from .tree import MarkerChains, Tree, marker_chains_of, tree_of

#: Joint type -> (coordinates in q, coordinates in v).
JOINT_SIZES = {"free": (7, 6), "ball": (4, 3), "universal": (2, 2), "hinge": (1, 1), "weld": (0, 0)}
#: Number of joint axes each joint type declares.
JOINT_AXES = {"free": 0, "ball": 0, "universal": 2, "hinge": 1, "weld": 0}


def _vec(x, shape=(3,)) -> np.ndarray:
    a = np.asarray(x, dtype=float).reshape(shape)
    a.setflags(write=False)
    return a


#: The rules a segment's joint may be held by instead of measured (``Segment.held``; ``model.held``).
HELD_RULES = ("level", "follow")

@dataclass(frozen=True)
class Segment:
    """One rigid segment and the joint that connects it to its parent.

    ``tip`` is the distal end in the segment frame (a bone's tail; ``length``
    is its norm). ``com`` [m] and ``inertia`` [kg m², about the CM] are in the
    segment frame. ``markers`` name the markers rigidly attached to the segment
    at ``marker_offsets`` (segment frame); ``contact_points`` are where ground
    contact can act (Brubaker et al. 2009 §5.1). A ``held`` segment's joint
    (a ball) is not measured but set by that rule from its parent's
    orientation (``model.held``: "level", a marker-less head held upright;
    "follow", a lower-body set's trunk following the pelvis).
    """

    name: str
    parent: int
    joint: str
    joint_offset: np.ndarray
    axes: np.ndarray
    tip: np.ndarray
    mass: float
    com: np.ndarray
    inertia: np.ndarray
    markers: tuple[str, ...] = ()
    marker_offsets: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    contact_points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    held: str = ""

    def __post_init__(self):
        if self.joint not in JOINT_SIZES:
            raise ModelError(f"Segment {self.name!r} has unknown joint type {self.joint!r}",
                             f"use one of {', '.join(JOINT_SIZES)}")
        set_ = object.__setattr__
        set_(self, "joint_offset", _vec(self.joint_offset))
        set_(self, "tip", _vec(self.tip))
        set_(self, "com", _vec(self.com))
        set_(self, "inertia", _vec(self.inertia, (3, 3)))
        axes = np.asarray(self.axes, dtype=float).reshape(-1, 3)
        if len(axes) != JOINT_AXES[self.joint]:
            raise ModelError(f"Segment {self.name!r}: a {self.joint} joint needs {JOINT_AXES[self.joint]} axes, "
                             f"got {len(axes)}", "fix the model definition")
        if len(axes):
            axes = axes / np.linalg.norm(axes, axis=1, keepdims=True)
        set_(self, "axes", _vec(axes, axes.shape))
        offsets = np.asarray(self.marker_offsets, dtype=float).reshape(-1, 3)
        if len(offsets) != len(self.markers):
            raise ModelError(f"Segment {self.name!r}: {len(self.markers)} markers but {len(offsets)} offsets",
                             "fix the model definition")
        set_(self, "markers", tuple(self.markers))
        set_(self, "marker_offsets", _vec(offsets, offsets.shape))
        cps = np.asarray(self.contact_points, dtype=float).reshape(-1, 3)
        set_(self, "contact_points", _vec(cps, cps.shape))
        if self.held and self.held not in HELD_RULES:
            raise ModelError(f"Segment {self.name!r} is held by an unknown rule {self.held!r}",
                             f"use one of {', '.join(HELD_RULES)}, or '' (measured or welded)")
        if self.held and self.joint != "ball":
            raise ModelError(f"Segment {self.name!r} is held on a {self.joint} joint", "hold only ball joints")

    @property
    def length(self) -> float:
        return float(np.linalg.norm(self.tip))

    @property
    def nq(self) -> int:
        return JOINT_SIZES[self.joint][0]

    @property
    def nv(self) -> int:
        return JOINT_SIZES[self.joint][1]


@dataclass(frozen=True)
class BodyModel:
    """A subject's segments in topological order (parents before children; the root first).

    ``mass_source`` says where the body mass came from ("user", "force
    plates", or "assumed"); every report repeats it. ``metadata`` carries the
    template name, the inertia table, the marker set and calibration figures.
    """

    segments: tuple[Segment, ...]
    mass_source: str = "assumed"
    metadata: dict = field(default_factory=dict)

    def __post_init__(self):
        segs = tuple(self.segments)
        object.__setattr__(self, "segments", segs)
        if not segs or segs[0].parent != -1 or segs[0].joint != "free":
            raise ModelError("The first segment must be the root, with parent -1 and a free joint",
                             "fix the model definition")
        for i, s in enumerate(segs[1:], start=1):
            if not 0 <= s.parent < i:
                raise ModelError(f"Segment {s.name!r} comes before its parent", "order segments parents-first")
            if s.joint == "free":
                raise ModelError(f"Segment {s.name!r}: only the root may have a free joint", "fix the model definition")
        names = [s.name for s in segs]
        if len(set(names)) != len(names):
            raise ModelError("Segment names are not unique", "rename the duplicated segments")
        labels = [m for s in segs for m in s.markers]
        if len(set(labels)) != len(labels):
            raise ModelError("A marker is attached to more than one segment", "attach each marker to one segment")

    # --- sizes and index maps -------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.segments)

    @property
    def parents(self) -> np.ndarray:
        return np.array([s.parent for s in self.segments])

    @property
    def nq(self) -> int:
        return sum(s.nq for s in self.segments)

    @property
    def nv(self) -> int:
        return sum(s.nv for s in self.segments)

    @property
    def q_starts(self) -> np.ndarray:
        """Index in ``q`` of each segment's first coordinate."""
        return np.concatenate([[0], np.cumsum([s.nq for s in self.segments])[:-1]])

    @property
    def v_starts(self) -> np.ndarray:
        """Index in ``v`` of each segment's first velocity coordinate."""
        return np.concatenate([[0], np.cumsum([s.nv for s in self.segments])[:-1]])

    @property
    def quaternion_columns(self) -> np.ndarray:
        """The columns (B, 4) in ``q`` of every quaternion: the root's (after its position) and each ball joint's."""
        return np.array([np.arange(4) + i + (3 if s.joint == "free" else 0)
                         for s, i in zip(self.segments, self.q_starts) if s.joint in ("free", "ball")],
                        dtype=int).reshape(-1, 4)

    @cached_property
    def tree(self) -> Tree:
        """The model flattened for the numba kernels (``solver.model.tree``), once per model."""
        return tree_of(self)

    @cached_property
    def marker_chains(self) -> MarkerChains:
        """The chains and markers OTM adds to the tree (``solver.model.tree``), once per model."""
        return marker_chains_of(self)

    @property
    def total_mass(self) -> float:
        return float(sum(s.mass for s in self.segments))

    def summary(self) -> ModelSummary:
        """The report's ``model`` section: template, mass and its source, calibration figures."""
        cal = self.metadata["calibration"]
        worst = sorted(cal.marker_residuals.items(), key=lambda kv: -kv[1])[:5]
        return {
            "template": cal.template,
            "segments": len(self.segments),
            "dof": self.nv,
            "mass_kg": self.total_mass,
            "mass_source": self.mass_source,
            "mass_assumed": self.mass_source.startswith("assumed"),
            "inertia_table": f"{cal.table} ({cal.sex})",
            "shoes_kg": dict(self.metadata.get("shoes", {})),
            "torso_centre": self.metadata.get("torso_centre", "table"),
            "segment_masses": self.metadata.get("segment_masses", "table"),
            "markerset": cal.markerset,
            "static": cal.static,
            "segment_lengths_m": cal.lengths,
            "cluster_residuals_m": cal.segment_residuals,
            "worst_markers_m": dict(worst),
            "joint_centres": cal.joint_centres,
            "welded": list(cal.welded),
            "held": dict(cal.held),
            "initial_marker_rms_m": cal.initial_marker_rms,
            "markers": cal.markers,
            "ignored_markers": cal.ignored,
            "markers_moving_with": {label: {"segment": segment, "spread_m": spread}
                                    for label, (segment, spread) in cal.moving_with.items()},
            "notes": list(cal.notes),
            "warnings": list(cal.warnings),
            "inertia_from_opensim_model": self.metadata.get("opensim_inertia"),
        }

    @property
    def marker_labels(self) -> tuple[str, ...]:
        """All model markers, segment by segment (the order of ``marker_positions``)."""
        return tuple(m for s in self.segments for m in s.markers)

    def index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise ModelError(f"The model has no segment {name!r}", f"use one of {', '.join(self.names)}") from None

    def neutral_q(self) -> np.ndarray:
        """Neutral pose: root at the origin, every quaternion identity, every angle zero."""
        q = np.zeros(self.nq)
        q[self.quaternion_columns[:, 0]] = 1.0
        return q

    # --- kinematics -----------------------------------------------------------
    def joint_rotations(self, q: np.ndarray) -> np.ndarray:
        """Rotation of every segment relative to its parent (root: to the world); ``(..., S, 3, 3)``."""
        q = np.asarray(q, dtype=float)
        out = np.empty(q.shape[:-1] + (len(self.segments), 3, 3))
        for k, (s, i) in enumerate(zip(self.segments, self.q_starts)):
            if s.joint == "free":
                out[..., k, :, :] = quat_to_matrix(q[..., i + 3:i + 7])
            elif s.joint == "ball":
                out[..., k, :, :] = quat_to_matrix(q[..., i:i + 4])
            elif s.joint == "weld":
                out[..., k, :, :] = np.eye(3)
            else:
                r = np.eye(3)
                for j, axis in enumerate(s.axes):
                    r = r @ quat_to_matrix(quat_from_axis_angle(axis, q[..., i + j]))
                out[..., k, :, :] = r
        return out

    def forward_kinematics(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World rotation ``(..., S, 3, 3)`` and origin ``(..., S, 3)`` of every segment frame."""
        q = np.asarray(q, dtype=float)
        local = self.joint_rotations(q)
        rot = np.empty_like(local)
        pos = np.empty(q.shape[:-1] + (len(self.segments), 3))
        rot[..., 0, :, :] = local[..., 0, :, :]
        pos[..., 0, :] = q[..., 0:3]
        for k, s in enumerate(self.segments[1:], start=1):
            rp = rot[..., s.parent, :, :]
            rot[..., k, :, :] = rp @ local[..., k, :, :]
            pos[..., k, :] = pos[..., s.parent, :] + rp @ s.joint_offset
        return rot, pos

    def marker_positions(self, q: np.ndarray) -> np.ndarray:
        """Model marker positions ``(..., M, 3)`` in world, in ``marker_labels`` order."""
        rot, pos = self.forward_kinematics(q)
        parts = [pos[..., k, None, :] + np.einsum("...ij,mj->...mi", rot[..., k, :, :], s.marker_offsets)
                 for k, s in enumerate(self.segments) if s.markers]
        if not parts:
            return np.zeros(np.shape(q)[:-1] + (0, 3))
        return np.concatenate(parts, axis=-2)

    def com_positions(self, q: np.ndarray, poses: tuple | None = None) -> np.ndarray:
        """World centre of mass of every segment ``(..., S, 3)``; ``poses`` ``forward_kinematics(q)`` when known."""
        rot, pos = self.forward_kinematics(q) if poses is None else poses
        coms = np.stack([s.com for s in self.segments])
        return pos + np.einsum("...sij,sj->...si", rot, coms)

    def body_com(self, q: np.ndarray, poses: tuple | None = None) -> np.ndarray:
        """Whole-body centre of mass ``(..., 3)``; ``poses`` ``forward_kinematics(q)`` when known."""
        masses = np.array([s.mass for s in self.segments])
        return np.einsum("s,...si->...i", masses, self.com_positions(q, poses)) / masses.sum()
