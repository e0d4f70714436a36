"""Meshes: those shared by every visual of a kind (arrows, disks, marker spheres), and the subject's body.

The body reads as a person at a glance: smooth tapered capsules (a sphere at
each end joined by the cone tangent to both) per segment, elliptical in
section where a body is (trunk, feet, hands), with a sphere at every joint
that the parent's capsule ends in and the child's starts from. Both spheres
share the joint centre, so rigid skinning (each capsule on its own bone)
leaves no gap however far the joint turns. Radii come from each segment's
mass and length (a cylinder of water, as before), shaped by the segment's
anatomical role (its template name); a segment of a template that names it
otherwise gets a plain capsule from its joint to its tip.
"""

from __future__ import annotations

from dataclasses import dataclass

import bmesh
import bpy
import numpy as np

from ..solver.model.body import BodyModel
from .materials import material

BODY_DENSITY = 1000.0  # kg/m³, for the segment radii (a look, not physics)
AROUND, CAP_RINGS = 24, 6  # vertices around a capsule, rings per end cap


def cached_mesh(name: str, build, mat: bpy.types.Material | None = None) -> bpy.types.Mesh:
    """The mesh ``name``, built once per file by ``build(bm)`` with one material slot (``mat``, or empty)."""
    mesh = bpy.data.meshes.get(name)
    if mesh is None:
        mesh = bpy.data.meshes.new(name)
        bm = bmesh.new()
        build(bm)
        bm.to_mesh(mesh)
        bm.free()
        mesh.materials.append(mat)
    return mesh


def shared_mesh(name: str, kind: str, build) -> bpy.types.Mesh:
    """The mesh ``"<name> <kind>"`` with the material of ``kind``; ``build(bm)`` fills a new one's bmesh."""
    name = f"{name} {kind}"
    return bpy.data.meshes.get(name) or cached_mesh(name, build, material(kind))


@dataclass(frozen=True)
class Capsule:
    """Sphere centres ``start``, ``end`` (armature space) and their radii across the body (lateral), on the
    bone of ``segment``. ``depth``: the section's other axis over its lateral one (an ellipse; 1 is round);
    ``cap``: how far the end caps reach along the axis, over their radius (1: hemispheres)."""

    segment: int
    start: np.ndarray
    end: np.ndarray
    radius_start: float
    radius_end: float
    depth: float = 1.0
    cap: float = 1.0


def _mass_radius(model: BodyModel, k: int) -> float:
    """The radius of a water cylinder of the segment's mass and length [m]."""
    seg = model.segments[k]
    return float(np.sqrt(seg.mass / (BODY_DENSITY * np.pi * max(seg.length, 0.05))))


def _role(name: str) -> str:
    """The anatomical role of a segment: its name without the side suffix."""
    return name[:-2] if name[-2:] in ("_l", "_r") else name


def _towards(start: np.ndarray, end: np.ndarray, distance: float) -> np.ndarray:
    """The point ``distance`` from ``start`` towards ``end``."""
    axis = end - start
    return start + distance * axis / max(float(np.linalg.norm(axis)), 1e-9)


def _head(k: int, base: np.ndarray, tip: np.ndarray) -> list[Capsule]:
    """Neck and skull from ``base`` (the neck joint or the shoulder line) up to the vertex ``tip``."""
    length = float(np.linalg.norm(tip - base))
    skull = 0.36 * length
    centre = _towards(base, tip, 0.5 * length)
    return [Capsule(k, base, centre, 0.5 * skull, 0.5 * skull),
            Capsule(k, centre, _towards(tip, base, skull), skull, skull, depth=1.2)]


def body_capsules(model: BodyModel, heads: np.ndarray) -> list[Capsule]:
    """The body's capsules, in armature space, for the rest pose whose segment origins are ``heads``.

    At rest every segment frame is parallel to the world (body.py), so a point
    ``p`` of segment ``k`` is at ``heads[k] + p``. Limbs taper from 1.1 to 0.75
    times their mass radius; a child starting at its parent's tip starts with
    the parent's end radius (one sphere at the joint).
    """
    segments = model.segments
    roles = [_role(s.name) for s in segments]
    radius = [_mass_radius(model, k) for k in range(len(segments))]
    children = [[c for c, s in enumerate(segments) if s.parent == k] for k in range(len(segments))]
    feet = model.metadata.get("feet", {})
    arms = [c for k, role in enumerate(roles) if role == "torso"
            for c in children[k] if roles[c] in ("upper_arm", "arm")]  # "arm": one hanging from its shoulder
    shoulder = max((abs(segments[c].joint_offset[1]) for c in arms), default=radius[0])
    waist = 0.8 * shoulder
    end_radius: dict[int, float] = {}
    out: list[Capsule] = []
    for k, seg in enumerate(segments):
        base, tip, role, r = heads[k], heads[k] + seg.tip, roles[k], radius[k]
        at_parent_tip = seg.parent >= 0 and np.linalg.norm(seg.joint_offset - segments[seg.parent].tip) < 1e-6
        start_radius = end_radius.get(seg.parent, 1.1 * r) if at_parent_tip else 1.1 * r
        end_radius[k] = 0.75 * r
        if role == "pelvis":
            thighs = [c for c in children[k] if roles[c] == "thigh"]
            if len(thighs) == 2:  # the hips: a sphere around each hip joint, joined across
                hip = max(1.1 * radius[c] for c in thighs)
                out.append(Capsule(k, heads[thighs[0]], heads[thighs[1]], hip, hip))
            out.append(Capsule(k, base, tip, 0.8 * waist, waist, depth=0.6, cap=0.6))
        elif role == "torso":
            line = base + (np.mean([segments[c].joint_offset for c in arms], axis=0) * [0, 0, 1] if arms
                           else seg.tip)
            out.append(Capsule(k, base, line, waist, 1.1 * shoulder, depth=0.65, cap=0.4))
            if any(roles[c] == "head" for c in children[k]):
                end_radius[k] = 0.3 * r
                out.append(Capsule(k, line, tip, 0.3 * r, 0.3 * r))
            else:  # the head rides on the torso (brubaker12)
                out += _head(k, line, tip)
        elif role == "head":
            out += _head(k, base, tip)
        elif seg.name in feet:
            foot = feet[seg.name]
            lift = np.array([0.0, 0.0, foot["sole"] + 0.8 * r])
            heel = base + np.array(foot["heel"]) * [1, 1, 0] + lift
            toe = base + np.array(foot["toe"]) * [1, 1, 0] + lift
            out.append(Capsule(k, _towards(heel, toe, 1.25 * r), _towards(toe, heel, 0.9 * r), 1.25 * r, 0.9 * r,
                               depth=0.64))
            out.append(Capsule(k, base, _towards(heel, toe, 0.5 * float(np.linalg.norm(toe - heel))),
                               start_radius, start_radius))
        elif role == "hand":
            out.append(Capsule(k, base, _towards(tip, base, 0.5 * r), 0.5 * r, 0.5 * r, depth=2.0))
        else:
            out.append(Capsule(k, base, tip, start_radius, end_radius[k]))
    return out


def _capsule_geometry(capsule: Capsule) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """Vertices ``(V, 3)`` and faces of a tapered capsule: rings of latitude on the start sphere up to the
    tangent cone, then on the end sphere; poles at both ends."""
    axis = capsule.end - capsule.start
    length = float(np.linalg.norm(axis))
    e = axis / length if length > 1e-9 else np.array([0.0, 0.0, 1.0])
    lateral = np.array([0.0, 1.0, 0.0]) if abs(e[1]) < 0.9 else np.array([1.0, 0.0, 0.0])
    u = lateral - (lateral @ e) * e
    u /= np.linalg.norm(u)
    w = np.cross(e, u)
    r0, r1 = capsule.radius_start, capsule.radius_end
    slope = np.arcsin(np.clip((r0 - r1) / length, -0.99, 0.99)) if length > 1e-9 else 0.0
    lower = np.linspace(-0.5 * np.pi, slope, CAP_RINGS + 1)[1:]  # latitudes on the start sphere (pole apart)
    upper = np.linspace(slope, 0.5 * np.pi, CAP_RINGS + 1)[:-1]
    theta = np.linspace(0.0, 2.0 * np.pi, AROUND, endpoint=False)
    rings = []
    for latitudes, centre, r in ((lower, capsule.start, r0), (upper, capsule.end, r1)):
        for phi in latitudes:
            radial = r * np.cos(phi) * (np.outer(np.cos(theta), u) + capsule.depth * np.outer(np.sin(theta), w))
            rings.append(centre + capsule.cap * r * np.sin(phi) * e + radial)
    verts = np.vstack([capsule.start - capsule.cap * r0 * e, *rings, capsule.end + capsule.cap * r1 * e])
    n_rings = len(rings)
    faces = []
    for i in range(AROUND):
        j = (i + 1) % AROUND
        faces.append((0, 1 + j, 1 + i))
        for ring in range(n_rings - 1):
            a, b = 1 + ring * AROUND, 1 + (ring + 1) * AROUND
            faces.append((a + i, a + j, b + j, b + i))
        last = 1 + (n_rings - 1) * AROUND
        faces.append((last + i, last + j, len(verts) - 1))
    return verts, faces


def body_mesh(model: BodyModel, heads: np.ndarray) -> bpy.types.Mesh:
    """The body mesh of ``model`` at rest (segment origins ``heads``, armature space), smooth-shaded, each
    capsule weighted fully to its segment's vertex group (group index = segment index)."""
    verts, faces, groups = [], [], []
    for capsule in body_capsules(model, heads):
        v, f = _capsule_geometry(capsule)
        offset = sum(len(x) for x in verts)
        verts.append(v)
        faces += [tuple(i + offset for i in face) for face in f]
        groups.append(np.full(len(v), capsule.segment))
    mesh = bpy.data.meshes.new("MocapDynamics body")
    mesh.from_pydata(np.vstack(verts).tolist(), [], faces)
    mesh.polygons.foreach_set("use_smooth", np.ones(len(mesh.polygons), dtype=bool))
    bm = bmesh.new()
    bm.from_mesh(mesh)
    deform = bm.verts.layers.deform.verify()
    for vert, group in zip(bm.verts, np.concatenate(groups).tolist()):
        vert[deform][group] = 1.0
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(material("body"))
    return mesh
