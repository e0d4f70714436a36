"""The body model as one flattened kinematic tree: the arrays every numba kernel reads.

Pinocchio's split: ``Tree`` is the immutable model (built once per ``BodyModel``: ``BodyModel.tree``); the
per-call work arrays are ``solver.algorithms.kinematics.Data``. Segments keep the model's topological order
(parents before children, the root first), so a forward loop over the segments is a forward pass of the
recursive algorithms and a backward loop a backward pass; ``dfs_order`` gives the depth-first order MuJoCo
numbers bodies in (MJCF export, the zero-gravity hinges' numbering).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from .body import BodyModel

FREE, BALL, UNIVERSAL, HINGE, WELD = range(5)
JOINT_CODES = {"free": FREE, "ball": BALL, "universal": UNIVERSAL, "hinge": HINGE, "weld": WELD}


class Tree(NamedTuple):
    """A ``BodyModel`` flattened into arrays, segment ``s`` in row ``s``: what every algorithm on the tree reads
    (kinematics, RNEA, CRBA). Kept small: numba copies it into every call of a kernel that takes it."""

    parent: np.ndarray  # (S,) int64, -1 for the root
    joint: np.ndarray  # (S,) int64 joint code (FREE, BALL, ...)
    q_start: np.ndarray  # (S,) int64 first index in q
    q_size: np.ndarray  # (S,) int64 entries in q
    v_start: np.ndarray  # (S,) int64 first index in v
    n_dof: np.ndarray  # (S,) int64 entries in v
    offset: np.ndarray  # (S, 3) joint centre in the parent frame
    axes: np.ndarray  # (S, 2, 3) joint axes (unused rows zero)
    mass: np.ndarray  # (S,)
    com: np.ndarray  # (S, 3) centre of mass in the segment frame
    inertia: np.ndarray  # (S, 3, 3) about the centre of mass, segment frame
    nq: int
    nv: int


class MarkerChains(NamedTuple):
    """What OTM adds to the ``Tree``: ``chain[s, :chain_length[s]]`` are the velocity indices of every DoF that
    moves segment ``s``, root first; ``dof_segment[i]`` is the segment whose joint owns DoF ``i``; markers: the
    segment of each and its position in that segment's frame (``BodyModel.marker_labels`` order)."""

    chain: np.ndarray  # (S, longest chain) int64, -1 past the end
    chain_length: np.ndarray  # (S,) int64
    dof_segment: np.ndarray  # (nv,) int64
    marker_segment: np.ndarray  # (M,) int64
    marker_offset: np.ndarray  # (M, 3)


def tree_of(model: BodyModel) -> Tree:
    """Flatten ``model`` (use ``model.tree``: flattened once per model)."""
    segments = model.segments
    axes = np.zeros((len(segments), 2, 3))
    for k, s in enumerate(segments):
        axes[k, :len(s.axes)] = s.axes
    return Tree(
        parent=np.array([s.parent for s in segments], dtype=np.int64),
        joint=np.array([JOINT_CODES[s.joint] for s in segments], dtype=np.int64),
        q_start=np.asarray(model.q_starts, dtype=np.int64),
        q_size=np.array([s.nq for s in segments], dtype=np.int64),
        v_start=np.asarray(model.v_starts, dtype=np.int64),
        n_dof=np.array([s.nv for s in segments], dtype=np.int64),
        offset=np.array([s.joint_offset for s in segments], dtype=float).reshape(-1, 3),
        axes=axes,
        mass=np.array([s.mass for s in segments], dtype=float),
        com=np.array([s.com for s in segments], dtype=float).reshape(-1, 3),
        inertia=np.array([s.inertia for s in segments], dtype=float).reshape(-1, 3, 3),
        nq=model.nq, nv=model.nv)


def marker_chains_of(model: BodyModel) -> MarkerChains:
    """The chains and markers of ``model`` (use ``model.marker_chains``: once per model)."""
    segments, v_starts = model.segments, model.v_starts
    chains: list[list[int]] = []
    for k, s in enumerate(segments):
        own = list(range(int(v_starts[k]), int(v_starts[k]) + s.nv))
        chains.append((chains[s.parent] if k else []) + own)
    chain = np.full((len(segments), max(len(c) for c in chains)), -1, dtype=np.int64)
    for k, c in enumerate(chains):
        chain[k, :len(c)] = c
    offsets = [s.marker_offsets for s in segments if s.markers]
    return MarkerChains(
        chain=chain,
        chain_length=np.array([len(c) for c in chains], dtype=np.int64),
        dof_segment=np.array([k for k, s in enumerate(segments) for _ in range(s.nv)], dtype=np.int64),
        marker_segment=np.array([k for k, s in enumerate(segments) for _ in s.markers], dtype=np.int64),
        marker_offset=np.concatenate(offsets).astype(float) if offsets else np.zeros((0, 3)))


def dfs_order(model: BodyModel) -> list[int]:
    """Segment indices in depth-first pre-order (the order MuJoCo numbers bodies and qpos)."""
    children = {k: [i for i, s in enumerate(model.segments) if s.parent == k] for k in range(-1, len(model.segments))}
    order, stack = [], [0]
    while stack:
        k = stack.pop()
        order.append(k)
        stack.extend(reversed(children[k]))
    return order
