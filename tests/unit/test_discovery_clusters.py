"""Rigid clusters and their tree on a simulated leg: pelvis, thigh (ball hip), shank (hinge knee), foot (hinge
ankle), three or four markers each, 0.5 mm noise, gaps. The clusters must be the segments, the tree the
chain, and the joint centres where the simulation put them."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mocap_dynamics.solver.model.bridging_markers import shared_markers, to_proximal
from mocap_dynamics.solver.model.cluster_tree import central_cluster, grow_tree
from mocap_dynamics.solver.model.rigid_clusters import distance_spread, rigid_clusters

FRAMES = 300
# (parent, joint centre in the parent frame, markers in the segment frame, rotation about the joint)
SEGMENTS = {
    "pelvis": (None, None, [[0.12, 0.12, 0.05], [0.12, -0.12, 0.05], [-0.10, 0.05, 0.08], [-0.10, -0.05, 0.08]]),
    "thigh": ("pelvis", [0.0, 0.09, -0.05], [[0.02, 0.07, -0.15], [0.05, 0.06, -0.25], [-0.03, 0.08, -0.30]]),
    "shank": ("thigh", [0.0, 0.0, -0.42], [[0.03, 0.05, -0.10], [0.04, 0.04, -0.22], [-0.02, 0.05, -0.30]]),
    "foot": ("shank", [0.0, 0.0, -0.43], [[-0.07, 0.0, -0.04], [0.14, -0.01, -0.03], [0.10, 0.04, -0.05]]),
}


def _motion(t):
    """Rotation of each segment relative to its parent (the pelvis: absolute), smooth and different."""
    return {
        "pelvis": Rotation.from_rotvec(np.stack([0.1 * np.sin(3 * t), 0.1 * np.cos(2 * t), 0.2 * np.sin(t)], 1)),
        "thigh": Rotation.from_rotvec(np.stack([0.2 * np.sin(5 * t), 0.5 * np.sin(7 * t), 0.1 * np.cos(4 * t)], 1)),
        "shank": Rotation.from_rotvec(np.outer(0.5 + 0.5 * np.sin(7 * t + 1), [0, 1, 0])),
        "foot": Rotation.from_rotvec(np.outer(0.3 * np.sin(7 * t + 2), [0, 1, 0])),
    }


def simulated_leg(seed: int = 0):
    """Markers ``(T, 13, 3)``, the segment of each marker, and each joint's centre and hinge axis (world,
    ``(T, 3)``) by child."""
    t = np.linspace(0.0, 3.0, FRAMES)
    relative = _motion(t)
    rot, origin, markers, owner, centres = {}, {}, [], [], {}
    for name, (parent, joint, local) in SEGMENTS.items():
        if parent is None:
            rot[name], origin[name] = relative[name], np.stack([0.5 * t, 0 * t, 0.9 + 0.02 * np.sin(6 * t)], 1)
        else:
            rot[name] = rot[parent] * relative[name]
            origin[name] = origin[parent] + rot[parent].apply(joint)
            centres[name] = origin[name], rot[parent].apply([0.0, 1.0, 0.0])
        markers.append(origin[name][:, None] + np.einsum("tij,mj->tmi", rot[name].as_matrix(), local))
        owner += [name] * len(local)
    markers = np.concatenate(markers, axis=1)
    markers += np.random.default_rng(seed).normal(scale=0.0005, size=markers.shape)
    markers[40:70, 2] = np.nan
    markers[150:200, 8] = np.nan
    return markers, owner, centres


def partition(members, owner):
    return sorted(sorted({owner[i] for i in m}) for m in members)


def test_distance_spread_is_the_standard_deviation_over_shared_frames():
    markers, _, _ = simulated_leg()
    spread = distance_spread(markers)
    d = np.linalg.norm(markers[:, 2] - markers[:, 8], axis=1)
    assert spread[2, 8] == pytest.approx(np.nanstd(d), rel=1e-9)
    assert spread[0, 1] < 0.002 < spread[0, 5]  # within the pelvis / pelvis to thigh


@pytest.mark.parametrize("method", ["linkage", "spectral"])
def test_the_clusters_are_the_segments(method):
    markers, owner, _ = simulated_leg()
    clusters = rigid_clusters(markers, method=method, n_clusters=4 if method == "spectral" else None)
    assert partition(clusters.members, owner) == [["foot"], ["pelvis"], ["shank"], ["thigh"]]
    assert all(len({owner[i] for i in m}) == 1 for m in clusters.members)


def test_a_marker_seen_in_a_few_frames_is_left_out():
    markers, owner, _ = simulated_leg()
    markers[10:, 12] = np.nan
    clusters = rigid_clusters(markers)
    assert clusters.unused == (12,)
    assert partition(clusters.members, owner) == [["foot"], ["pelvis"], ["shank"], ["thigh"]]


def test_the_tree_is_the_chain_and_its_joints_are_where_the_simulation_put_them():
    markers, owner, centres = simulated_leg()
    clusters = rigid_clusters(markers)
    names = {k: owner[m[0]] for k, m in enumerate(clusters.members)}
    tree = grow_tree(markers, clusters.members, central_cluster(markers, clusters.members))
    edges = {frozenset((names[k], names[p])) for k, p in enumerate(tree.parent) if p >= 0}
    assert edges == {frozenset(e) for e in (("pelvis", "thigh"), ("thigh", "shank"), ("shank", "foot"))}
    pelvis = next(k for k, n in names.items() if n == "pelvis")
    tree = grow_tree(markers, clusters.members, pelvis)
    assert {names[k]: names[p] for k, p in enumerate(tree.parent) if p >= 0} == {
        "thigh": "pelvis", "shank": "thigh", "foot": "shank"}
    for k, joint in tree.joints.items():
        centre, axis = centres[names[k]]
        assert joint.spread > np.radians(6)
        if names[k] == "thigh":  # a ball joint: its centre
            assert np.nanmedian(np.linalg.norm(joint.world - centre, axis=1)) < 0.005
            continue
        found = joint.axis / np.linalg.norm(joint.axis, axis=1, keepdims=True)  # a hinge: its axis, anywhere on it
        assert np.degrees(np.arccos(np.nanmedian(np.abs(np.sum(found * axis, axis=1))))) < 3.0
        rel = centre - joint.world
        off_axis = np.linalg.norm(rel - np.sum(rel * found, axis=1, keepdims=True) * found, axis=1)
        assert np.nanmedian(off_axis) < 0.005, names[k]


def test_a_marker_on_the_knee_axis_is_shared_by_thigh_and_shank_and_given_to_the_thigh():
    """An epicondyle on the knee's hinge axis keeps its distance to both the thigh and the shank: it takes
    part in both clusters' frames while the tree grows, then goes to the proximal one (the thigh)."""
    markers, owner, centres = simulated_leg()
    centre, axis = centres["shank"]
    epicondyle = centre + 0.05 * axis + np.random.default_rng(1).normal(scale=0.0005, size=centre.shape)
    markers, owner = np.concatenate([markers, epicondyle[:, None]], axis=1), owner + ["epicondyle"]
    clusters = rigid_clusters(markers)
    of = {k: {owner[i] for i in m} - {"epicondyle"} for k, m in enumerate(clusters.members)}
    thigh, shank = (next(k for k, o in of.items() if o == {name}) for name in ("thigh", "shank"))
    still = [False] * len(clusters.members)
    shared = shared_markers(clusters.spread, clusters.members, clusters.threshold, still)
    assert 13 in clusters.members[thigh] + shared[thigh] and 13 in clusters.members[shank] + shared[shank]
    assert all(set(s) <= {13} for s in shared)  # nothing else bridges: the other markers are off the axes
    tree = grow_tree(markers, clusters.members, central_cluster(markers, clusters.members), shared)
    assert tree.parent[shank] == thigh
    assert 13 in to_proximal(clusters.members, shared, tree.parent)[thigh]
