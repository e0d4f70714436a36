"""Segment discovery on a squat (squat_gaps.c3d, a Plug-in-Gait-like set): both feet stand still the whole
trial, the trunk flexes into pieces and the elbows stay flexed. The legs must hang from the pelvis each by
its own thigh and shank, left and right the right way round, and the epicondyles of a flexed elbow go to
an upper arm that has one marker of its own. (The right arm, all single-marker clusters, is still not
found: the trial is refused; README, discovery limits.)"""

from __future__ import annotations

import pytest

from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.model.bridging_markers import shared_markers
from mocap_dynamics.solver.model.discovery import identify_clusters
from mocap_dynamics.solver.model.rigid_clusters import rigid_clusters
from mocap_dynamics.solver.model.still_clusters import is_still, nearest_still

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # statistics over unseen frames


@pytest.fixture(scope="module")
def squat(shared_data):
    trial = load_trial(shared_data / "squat_gaps.c3d")
    return trial, rigid_clusters(trial.markers)


@pytest.fixture(scope="module")
def found(squat):
    trial, clusters = squat
    clusters, tree, ident = identify_clusters(trial.markers, clusters)
    cluster_of = {trial.labels[i]: k for k, c in enumerate(clusters.members) for i in c}
    return trial, tree, ident, cluster_of


def test_a_malleolus_over_a_planted_foot_is_shared_with_its_own_foot_only(squat):
    trial, clusters = squat
    still = [is_still(trial.markers, m) for m in clusters.members]
    shared = shared_markers(clusters.spread, clusters.members, clusters.threshold, still,
                            nearest_still(trial.markers, clusters.members, still))
    for k, members in enumerate(clusters.members):
        side = {trial.labels[i][0] for i in members}
        if still[k]:  # a foot: L... or R...
            assert {trial.labels[i][0] for i in shared[k]} <= side  # before: LANK shared with the right foot


def test_each_leg_of_a_squat_hangs_from_the_pelvis_by_its_own_thigh_and_shank(found):
    trial, tree, _, cluster_of = found
    pelvis = cluster_of["LFWT"]
    for side, other in ("LR", "RL"):
        path = tree.path_to_root(cluster_of[f"{side}TOE"])
        assert path[-1] == pelvis
        assert {cluster_of[f"{side}SHN"], cluster_of[f"{side}HIP"]} <= set(path), side
        assert not {cluster_of[f"{other}SHN"], cluster_of[f"{other}HIP"], cluster_of[f"{other}TOE"]} & set(path)
        # before: the left shank hung from the right foot, or from the right thigh


def test_the_squat_legs_are_left_and_right_with_their_knees_and_the_trunk_off_them(found):
    trial, _, ident, _ = found
    segment = {trial.labels[i]: s for i, s in ident.segment.items()}
    for side in "LR":
        s = side.lower()
        expected = {f"{side}HIP": "thigh", f"{side}KNI": "thigh", f"{side}SHN": "shank", f"{side}ANK": "shank",
                    f"{side}MT5": "foot", f"{side}MT1": "foot", f"{side}TOE": "foot"}
        assert {m: segment[m] for m in expected} == {m: f"{seg}_{s}" for m, seg in expected.items()}
        assert f"knee_{s}" in ident.joints  # before: no knee (a shank cluster of markers all low)
    assert segment["C7"] == segment["T10"] == "torso"  # before: C7/T10 hung from the right thigh


def test_the_epicondyles_of_a_flexed_elbow_go_to_a_one_marker_upper_arm(found):
    trial, _, ident, _ = found
    segment = {trial.labels[i]: s for i, s in ident.segment.items()}
    assert segment["LUPA"] == segment["LELB"] == segment["LIEL"] == "upper_arm_l"  # before: forearm_l
    assert segment["LWRE"] == "forearm_l"
