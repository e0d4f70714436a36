"""The body mesh reads as a person: smooth capsules, and every joint inside both segments it joins, so the body
stays closed however far a joint turns (each capsule follows its bone rigidly)."""

from __future__ import annotations

import bpy
import numpy as np
import pytest

FAMILIES = [("subject4_walking1.trc", {"static_filepath": "subject4_static1.trc"}),
            ("squat_gaps.c3d", {"template": "brubaker12"})]


def shells(body) -> list[tuple[int, np.ndarray]]:
    """Each closed capsule of the body mesh: its vertex group (segment) and triangles ``(F, 3, 3)``."""
    mesh = body.data
    co = np.empty(3 * len(mesh.vertices))
    mesh.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    parent = list(range(len(co)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    faces = [tuple(p.vertices) for p in mesh.polygons]
    for face in faces:
        for v in face[1:]:
            parent[root(v)] = root(face[0])
    triangles: dict[int, list] = {}
    for face in faces:
        triangles.setdefault(root(face[0]), []).extend(
            [co[face[0]], co[face[i]], co[face[i + 1]]] for i in range(1, len(face) - 1))
    return [(mesh.vertices[r].groups[0].group, np.array(t)) for r, t in triangles.items()]


def inside(point: np.ndarray, triangles: np.ndarray) -> bool:
    """Ray parity (Möller-Trumbore) of ``point`` against a closed surface."""
    direction = np.array([0.5773, 0.5774, 0.5775])
    a, b, c = triangles[:, 0], triangles[:, 1], triangles[:, 2]
    e1, e2 = b - a, c - a
    p = np.cross(direction, e2)
    det = (e1 * p).sum(axis=1)
    ok = np.abs(det) > 1e-12
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = point - a
    u = (s * p).sum(axis=1) * inv
    q = np.cross(s, e1)
    v = (direction * q).sum(axis=1) * inv
    t = (e2 * q).sum(axis=1) * inv
    hits = ok & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > 1e-9)
    return bool(hits.sum() % 2)


@pytest.mark.parametrize("name,options", FAMILIES)
def test_body_is_smooth_and_closed_over_every_joint(scene, shared_data, name, options):
    assert bpy.ops.mocap_dynamics.import_markers(filepath=str(shared_data / name)) == {"FINISHED"}
    options = {k: str(shared_data / v) if k.endswith("filepath") else v for k, v in options.items()}
    assert bpy.ops.mocap_dynamics.build_armature(**options) == {"FINISHED"}
    rig = next(ob for ob in scene.objects if ob.get("mocap_dynamics_rig"))
    body = next(ob for ob in rig.children if ob.get("mocap_dynamics_body"))
    smooth = np.empty(len(body.data.polygons), dtype=bool)
    body.data.polygons.foreach_get("use_smooth", smooth)
    assert smooth.all(), "smooth-shaded"
    groups = {g.index: g.name for g in body.vertex_groups}
    capsules = shells(body)
    assert len({groups[g] for g, _ in capsules}) == len(rig.data.bones), "every segment has a body part"
    for bone in rig.data.bones:
        if bone.parent is None:
            continue
        joint = np.array(bone.head_local)  # the mesh is built in armature space at rest
        for segment in (bone.name, bone.parent.name):
            assert any(inside(joint, t) for g, t in capsules if groups[g] == segment), \
                f"the joint of {bone.name} is not inside {segment}'s body: a gap opens when it turns"
