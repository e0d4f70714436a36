"""An armature as arrays: bone names, parents and rest matrices; its forward kinematics and their inverse.

Blender's rule, in armature space with 4x4 matrices: a bone's pose matrix is

    P_b = P_p · (Rest_p⁻¹ · Rest_b) · Basis_b        (a bone without parent: P_b = Rest_b · Basis_b)

where ``Rest`` is the bone's rest matrix (``Bone.matrix_local``) and ``Basis``
the transform its location/rotation channels hold (``PoseBone.matrix_basis``),
for bones that inherit rotation and have no constraints. ``forward`` applies
it parent before child, vectorised over frames; ``basis`` inverts it. World
space is ``matrix_world · P`` (the armature object's matrix, whose scale must
be uniform).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import SolverError


def rigid(rotation: np.ndarray, translation: np.ndarray) -> np.ndarray:
    """4x4 matrices from rotations ``(..., 3, 3)`` and translations ``(..., 3)``."""
    out = np.zeros(np.broadcast_shapes(rotation.shape[:-2], translation.shape[:-1]) + (4, 4))
    out[..., :3, :3] = rotation
    out[..., :3, 3] = translation
    out[..., 3, 3] = 1.0
    return out


def rigid_inverse(matrix: np.ndarray) -> np.ndarray:
    """Inverse of rigid 4x4 matrices (rotation and translation only)."""
    rt = np.swapaxes(matrix[..., :3, :3], -1, -2)
    return rigid(rt, -np.einsum("...ij,...j->...i", rt, matrix[..., :3, 3]))


@dataclass(frozen=True)
class Skeleton:
    """Bones in an order where every parent comes before its children.

    ``parents`` (B,) index of each bone's parent (-1: none), ``rest`` (B, 4, 4) rest matrices in armature
    space (rigid), ``lengths`` (B,) bone lengths in armature units, ``matrix_world`` the object's matrix.
    """

    names: tuple[str, ...]
    parents: np.ndarray
    rest: np.ndarray
    lengths: np.ndarray
    matrix_world: np.ndarray

    def __post_init__(self):
        n = len(self.names)
        if self.parents.shape != (n,) or self.rest.shape != (n, 4, 4) or self.lengths.shape != (n,):
            raise SolverError("A skeleton needs one parent, rest matrix and length per bone", "pass arrays of (B,)")
        if np.any(self.parents >= np.arange(n)):
            raise SolverError("A skeleton's bones must come after their parents", "build it with from_bones")
        if n == 0:
            raise SolverError("The armature has no bones", "pick an armature with a skeleton")
        linear = self.matrix_world[:3, :3]
        scales = np.linalg.norm(linear, axis=0)
        if not np.allclose(linear.T @ linear, np.diag(scales ** 2), atol=1e-6 * scales.max() ** 2) \
                or np.ptp(scales) > 1e-5 * scales.max() or np.linalg.det(linear) <= 0:
            raise SolverError("The armature object has a non-uniform or mirrored scale",
                              "apply its scale (Object > Apply > Scale) or give it a uniform one")

    @classmethod
    def from_bones(cls, names, parent_names, rest, lengths, matrix_world=np.eye(4)) -> "Skeleton":
        """A skeleton from bones in any order (``parent_names[i]`` is None or ``""`` for a root bone)."""
        names = list(names)
        position = {name: i for i, name in enumerate(names)}
        parent_of = [position.get(p) if p else None for p in parent_names]
        order, placed = [], set()

        def place(i):
            if i in placed:
                return
            if parent_of[i] is not None:
                place(parent_of[i])
            placed.add(i)
            order.append(i)

        for i in range(len(names)):
            place(i)
        new_index = {old: new for new, old in enumerate(order)}
        parents = np.array([-1 if parent_of[i] is None else new_index[parent_of[i]] for i in order], dtype=int)
        return cls(tuple(names[i] for i in order), parents, np.asarray(rest, dtype=float)[order],
                   np.asarray(lengths, dtype=float)[order], np.asarray(matrix_world, dtype=float))

    def index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise SolverError(f"The armature has no bone {name!r}", "check the bone mapping") from None

    @cached_property
    def scale(self) -> float:
        """The object's uniform scale (world units per armature unit)."""
        return float(np.linalg.norm(self.matrix_world[:3, 0]))

    @cached_property
    def world_rotation(self) -> np.ndarray:
        """The object's rotation (3, 3), without its scale."""
        return self.matrix_world[:3, :3] / self.scale

    @cached_property
    def rest_relative(self) -> np.ndarray:
        """``Rest_p⁻¹ · Rest_b`` per bone (``Rest_b`` for a bone without parent) (B, 4, 4)."""
        out = self.rest.copy()
        has = self.parents >= 0
        out[has] = rigid_inverse(self.rest[self.parents[has]]) @ self.rest[has]
        return out

    def children(self, bone: int) -> list[int]:
        return [int(i) for i in np.flatnonzero(self.parents == bone)]

    def ancestors(self, bone: int) -> list[int]:
        """``bone``'s parent, grandparent, ... up to its root."""
        out = []
        while self.parents[bone] >= 0:
            bone = int(self.parents[bone])
            out.append(bone)
        return out

    def forward(self, basis: np.ndarray) -> np.ndarray:
        """Pose matrices ``(T, B, 4, 4)`` of basis transforms ``(T, B, 4, 4)`` (armature space)."""
        pose = np.empty_like(basis)
        local = self.rest_relative @ basis
        for b, p in enumerate(self.parents):
            pose[:, b] = local[:, b] if p < 0 else pose[:, p] @ local[:, b]
        return pose

    def basis(self, pose: np.ndarray, parent_pose: np.ndarray | None = None, bones=None) -> np.ndarray:
        """Basis transforms ``(T, N, 4, 4)`` of ``bones`` (default all) that give the rigid ``pose``
        ``(T, B, 4, 4)``; each bone's parent is taken at ``parent_pose`` (default: ``pose`` itself; rigid, see
        ``rigid_part``) — e.g. the parents as Blender evaluated them under constraints."""
        bones = np.arange(len(self.names)) if bones is None else np.asarray(bones, dtype=int)
        parent_pose = pose if parent_pose is None else parent_pose
        parents = self.parents[bones]
        has = parents >= 0
        frame = np.broadcast_to(self.rest_relative[bones], (len(pose), len(bones), 4, 4)).copy()
        frame[:, has] = parent_pose[:, parents[has]] @ self.rest_relative[bones[has]]
        return rigid_inverse(frame) @ pose[:, bones]

    def subset(self, names) -> "Skeleton":
        """The skeleton of the bones ``names`` (each with its parent, if it has one), in this one's order."""
        keep = [i for i, n in enumerate(self.names) if n in set(names)]
        new = {old: k for k, old in enumerate(keep)}
        orphans = [self.names[i] for i in keep if self.parents[i] >= 0 and self.parents[i] not in new]
        if orphans:
            raise SolverError(f"A part of a skeleton needs the parents of {', '.join(orphans)}", "include them")
        return Skeleton(tuple(self.names[i] for i in keep),
                        np.array([new.get(int(self.parents[i]), -1) for i in keep], dtype=int), self.rest[keep],
                        self.lengths[keep], self.matrix_world)

    def rest_world(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """World rest rotations (B, 3, 3), heads (B, 3) and tails (B, 3)."""
        rotation, heads = self.to_world(self.rest)
        tails = heads + rotation[..., :, 1] * (self.scale * self.lengths)[:, None]
        return rotation, heads, tails

    def to_world(self, pose: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World rotations ``(..., 3, 3)`` and head positions ``(..., 3)`` of rigid armature-space matrices."""
        rotation = np.einsum("ij,...jk->...ik", self.world_rotation, pose[..., :3, :3])
        heads = np.einsum("ij,...j->...i", self.matrix_world[:3, :3], pose[..., :3, 3]) + self.matrix_world[:3, 3]
        return rotation, heads

    def from_world(self, rotation: np.ndarray, heads: np.ndarray) -> np.ndarray:
        """Armature-space matrices of world rotations ``(..., 3, 3)`` and heads ``(..., 3)``."""
        inverse = np.linalg.inv(self.matrix_world)
        return rigid(np.einsum("ji,...jk->...ik", self.world_rotation, rotation),
                     np.einsum("ij,...j->...i", inverse[:3, :3], heads) + inverse[:3, 3])


def rigid_part(matrix: np.ndarray) -> np.ndarray:
    """``matrix`` with its 3x3 block replaced by the nearest rotation (polar decomposition: a bone's scale
    dropped), translation kept."""
    u, _, vt = np.linalg.svd(matrix[..., :3, :3])
    return rigid(u @ vt, matrix[..., :3, 3])
