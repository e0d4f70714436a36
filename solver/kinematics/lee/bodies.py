"""Lee's rigid bodies and joint points, built from a ``BodyModel``.

Lee (2009) estimates one orientation and one centre of mass (CM) per rigid body, the bodies coupled by
ball joints: ``r_ci + R_i L_ij = r_cj + R_j L_ji`` (eq. 4.5, and its derivatives 4.6-4.7), with ``L_ij``
the vector from CM_i to the joint in body-i coordinates. Our models map onto that as follows:

- weld: a welded segment rides on its parent at a fixed pose, so the two are one rigid body (composite
  mass, CM and inertia; the markers of both);
- ball: one joint point, as in the thesis;
- hinge: two joint points on the axis, ``HINGE_HALF_WIDTH`` either side of the joint centre (like the two
  condyles of a knee). Two coincident points leave only the rotation about the axis, so eq. 4.5-4.7 at
  both points *are* the hinge's position, velocity and acceleration constraints;
- universal: one joint point; the relative rotation is projected onto the joint's two axes when the
  motion is written out (``assemble``), the one step that is not exact.

A body's frame is the frame of its first segment (the one that is not welded), so body orientations are
segment orientations and the thesis's ``R_i`` is ``rotations[:, segment]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import SolverError
from ...model.body import BodyModel

#: Distance of a hinge's two joint points from the joint centre, along the axis [m].
HINGE_HALF_WIDTH = 0.05


@dataclass(frozen=True)
class Bodies:
    """The estimation bodies of a model; arrays indexed by body ``b`` (n), segment ``s`` (S), model marker
    (M, ``model.marker_labels`` order) or joint point ``e`` (E).

    ``segment_body`` (S,) body of each segment; ``first_segment`` (n,) the segment giving each body its
    frame; ``segment_offset`` (S, 3) each segment's origin in its body's frame; ``mass`` (n,); ``com``
    (n, 3) CM in the body frame; ``inertia`` (n, 3, 3) about the CM, body frame; ``marker_body`` (M,);
    ``marker_local`` (M, 3) marker relative to its body's CM, body frame (the thesis's ``a_s``);
    ``joint_bodies`` (E, 2) the (parent, child) bodies of each joint point and ``joint_arms`` (E, 2, 3)
    their ``L`` vectors (CM to point, each in its own body frame); ``joint_segment`` (E,) the child segment.
    """

    names: tuple[str, ...]
    segment_body: np.ndarray
    first_segment: np.ndarray
    segment_offset: np.ndarray
    mass: np.ndarray
    com: np.ndarray
    inertia: np.ndarray
    marker_body: np.ndarray
    marker_local: np.ndarray
    joint_bodies: np.ndarray
    joint_arms: np.ndarray
    joint_segment: np.ndarray

    @property
    def n(self) -> int:
        return len(self.mass)

    def laplacian(self) -> np.ndarray:
        """The joint graph's Laplacian (n, n), one edge per joint point (the thesis's C_rL, eq. 6.28)."""
        lap = np.zeros((self.n, self.n))
        for i, j in self.joint_bodies:
            lap[i, i] += 1.0
            lap[j, j] += 1.0
            lap[i, j] -= 1.0
            lap[j, i] -= 1.0
        return lap


def _composite(model: BodyModel, members: list[int], offsets: np.ndarray):
    """Mass, CM and inertia about the CM of rigidly joined segments sharing one frame."""
    masses = np.array([model.segments[s].mass for s in members])
    points = np.array([offsets[s] + model.segments[s].com for s in members])
    mass = masses.sum()
    if not mass > 0:
        raise SolverError(f"Segment {model.segments[members[0]].name!r} and the segments welded to it have no mass",
                          "give every rigid body of the model a positive mass")
    com = masses @ points / mass
    inertia = np.zeros((3, 3))
    for s, m, p in zip(members, masses, points):
        d = p - com
        inertia += model.segments[s].inertia + m * (d @ d * np.eye(3) - np.outer(d, d))
    return mass, com, inertia


def bodies_of(model: BodyModel) -> Bodies:
    """Group welded segments into rigid bodies and place the joint points (module docstring)."""
    segs = model.segments
    segment_body = np.empty(len(segs), dtype=np.int64)
    offsets = np.zeros((len(segs), 3))
    first = []
    for k, s in enumerate(segs):
        if k and s.joint == "weld":
            segment_body[k] = segment_body[s.parent]
            offsets[k] = offsets[s.parent] + s.joint_offset
        else:
            segment_body[k] = len(first)
            first.append(k)
    members = [[k for k in range(len(segs)) if segment_body[k] == b] for b in range(len(first))]
    mass, com, inertia = (np.array(x) for x in zip(*(_composite(model, m, offsets) for m in members)))

    marker_segment = np.array([k for k, s in enumerate(segs) for _ in s.markers], dtype=np.int64)
    marker_offsets = np.array([o for s in segs for o in s.marker_offsets]).reshape(-1, 3)
    marker_body = segment_body[marker_segment]
    marker_local = offsets[marker_segment] + marker_offsets - com[marker_body]

    pairs, arms, child_segment = [], [], []
    for b, k in enumerate(first[1:], start=1):
        s = segs[k]
        parent_body = segment_body[s.parent]
        centre = offsets[s.parent] + s.joint_offset
        shifts = [HINGE_HALF_WIDTH * s.axes[0], -HINGE_HALF_WIDTH * s.axes[0]] if s.joint == "hinge" else [np.zeros(3)]
        for shift in shifts:
            pairs.append((parent_body, b))
            arms.append((centre + shift - com[parent_body], shift - com[b]))
            child_segment.append(k)
    return Bodies(names=tuple(segs[k].name for k in first), segment_body=segment_body,
                  first_segment=np.array(first, dtype=np.int64), segment_offset=offsets, mass=mass, com=com,
                  inertia=inertia, marker_body=marker_body, marker_local=marker_local,
                  joint_bodies=np.array(pairs, dtype=np.int64).reshape(-1, 2),
                  joint_arms=np.array(arms, dtype=float).reshape(-1, 2, 3),
                  joint_segment=np.array(child_segment, dtype=np.int64))
