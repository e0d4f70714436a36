"""Gap filling on synthetic motions with known answers: a rigid cluster on a known path, polynomial
trajectories, low-rank marker sets; and which method fills which gap, the mask and the report."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.errors import InputError
from mocap_dynamics.solver.io.trial import Trial
from mocap_dynamics.solver.kinematics.gap_fill import GapFillOptions, fill_gaps, find_gaps, pca_fill, rigid_fill, \
    rigid_motions, spline_fill
from mocap_dynamics.solver.kinematics.gap_fill.pca import expected_error, meet_ends
from mocap_dynamics.solver.rotations import quat_to_matrix

RATE = 100.0
T = 200


def rotations_about(axis: np.ndarray, angles: np.ndarray) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    quaternions = np.column_stack([np.cos(angles / 2), np.sin(angles / 2)[:, None] * axis])
    return quat_to_matrix(quaternions)


def rigid_cluster(n_markers: int = 5, seed: int = 0) -> np.ndarray:
    """Markers ``(T, n, 3)`` of one rigid body turning about a tilted axis and moving along a curve."""
    rng = np.random.default_rng(seed)
    local = rng.uniform(-0.1, 0.1, size=(n_markers, 3))
    t = np.arange(T) / RATE
    rotations = rotations_about(np.array([0.3, 1.0, 0.5]), 1.5 * np.sin(2 * t))
    path = np.column_stack([1.2 * t, 0.1 * np.sin(3 * t), 0.9 + 0.05 * np.cos(5 * t)])
    return np.einsum("tij,nj->tni", rotations, local) + path[:, None]


def trial_of(markers: np.ndarray, labels=None) -> Trial:
    labels = labels or tuple(f"m{i}" for i in range(markers.shape[1]))
    return Trial(source="synthetic", labels=tuple(labels), markers=markers, rate=RATE)


def with_gap(markers: np.ndarray, marker: int, start: int, stop: int) -> np.ndarray:
    cut = markers.copy()
    cut[start:stop, marker] = np.nan
    return cut


def test_find_gaps_lists_every_run_with_its_ends():
    missing = np.zeros((10, 3), dtype=bool)
    missing[0:2, 0] = missing[5:7, 0] = missing[9, 1] = True
    missing[:, 2] = True  # never measured: nothing to fill from
    gaps = find_gaps(missing)
    assert list(zip(gaps.marker, gaps.start, gaps.stop)) == [(0, 0, 2), (0, 5, 7), (1, 9, 10)]
    assert list(gaps.inside) == [False, True, False] and list(gaps.length) == [2, 2, 1]


def test_rigid_motions_recover_a_known_rotation_and_translation():
    markers = rigid_cluster()
    rotations, translations = rigid_motions(markers[0], markers)
    np.testing.assert_allclose(np.einsum("tij,nj->tni", rotations, markers[0]) + translations[:, None], markers,
                               atol=1e-12)
    np.testing.assert_allclose(np.linalg.det(rotations), 1.0, atol=1e-12)


@pytest.mark.parametrize("start, stop", [(40, 160), (0, 30), (170, 200)])
def test_rigid_fill_of_a_rigid_cluster_is_exact_inside_and_at_the_trial_ends(start, stop):
    markers = rigid_cluster()
    cut = with_gap(markers, 0, start, stop)
    filled = rigid_fill(cut, ~np.isnan(cut).any(axis=2), 0, start, stop, [1, 2, 3, 4])
    np.testing.assert_allclose(filled, markers[start:stop, 0], atol=1e-10)


def test_rigid_fill_drops_a_donor_that_does_not_move_with_the_others():
    markers = rigid_cluster()
    ghost = markers.copy()
    ghost[50:90, 4] += [0.05, 0.0, 0.0]  # a mislabelled donor during the gap
    cut = with_gap(ghost, 0, 40, 100)
    filled = rigid_fill(cut, ~np.isnan(cut).any(axis=2), 0, 40, 100, [1, 2, 3, 4])
    np.testing.assert_allclose(filled, markers[40:100, 0], atol=1e-10)


def wobbling(markers: np.ndarray, which: list[int]) -> np.ndarray:
    """``markers`` with ``which`` moving 3 cm back and forth on their own (no longer rigid with the rest)."""
    moved = markers.copy()
    moved[:, which, 2] += 0.03 * np.sin(2 * np.pi * 1.1 * np.arange(T) / RATE)[:, None]
    return moved


def test_rigid_fill_needs_three_donors_spread_in_a_plane():
    markers = wobbling(rigid_cluster(), [3, 4])
    cut = with_gap(markers, 0, 40, 100)
    present = ~np.isnan(cut).any(axis=2)
    assert rigid_fill(cut, present, 0, 40, 100, [1, 2]) is None
    line = rigid_cluster()
    line[:, 1:4] = line[:, 1:2] + np.linspace(0, 1, 3)[:, None] * (line[:, 4:5] - line[:, 1:2])
    cut = with_gap(line, 0, 40, 100)
    assert rigid_fill(cut, ~np.isnan(cut).any(axis=2), 0, 40, 100, [1, 2, 3]) is None


def test_rigid_fill_takes_rigid_neighbours_off_the_segment():
    """Markers 3 and 4 are on no segment with marker 0 but keep their distances to it (e.g. a malleolus for a
    foot with two other markers): they carry it with its two mates; one that moves off them inside the gap
    does not."""
    markers = rigid_cluster()
    cut = with_gap(markers, 0, 40, 100)
    filled = rigid_fill(cut, ~np.isnan(cut).any(axis=2), 0, 40, 100, [1, 2])
    np.testing.assert_allclose(filled, markers[40:100, 0], atol=1e-10)
    slips = markers.copy()
    slips[50:90, 3] += [0.0, 0.03, 0.0]  # rigid with marker 0 wherever both are measured, not in the gap
    cut = with_gap(slips, 0, 40, 100)
    filled = rigid_fill(cut, ~np.isnan(cut).any(axis=2), 0, 40, 100, [1, 2])
    np.testing.assert_allclose(filled, markers[40:100, 0], atol=1e-10)
    cut = with_gap(wobbling(markers, [3, 4]), 0, 40, 100)
    assert rigid_fill(cut, ~np.isnan(cut).any(axis=2), 0, 40, 100, [1, 2]) is None


def test_rigid_fill_blends_the_two_ends_linearly():
    """A marker sliding on its segment between the ends (skin motion) is met at both ends, linearly between."""
    markers = rigid_cluster()
    slid = markers.copy()
    slid[120:, 0] += [0.0, 0.0, 0.01]  # moved 1 cm on the body during the gap, in world z at that instant...
    cut = with_gap(slid, 0, 60, 120)
    filled = rigid_fill(cut, ~np.isnan(cut).any(axis=2), 0, 60, 120, [1, 2, 3, 4])
    rotations, translations = rigid_motions(markers[59, 1:], markers[60:120, 1:])
    from_before = rotations @ markers[59, 0] + translations
    rotations, translations = rigid_motions(slid[120, 1:], markers[60:120, 1:])
    from_after = rotations @ slid[120, 0] + translations
    weight = (np.arange(60, 120) - 59)[:, None] / 61
    np.testing.assert_allclose(filled, (1 - weight) * from_before + weight * from_after, atol=1e-12)
    np.testing.assert_allclose(filled[0], markers[60, 0], atol=2e-4)  # one frame in: nearly the measured path


@pytest.mark.parametrize("degree", [3, 5])
def test_splines_reproduce_polynomials_of_their_degree(degree):
    t = np.arange(T) / RATE
    trajectory = np.column_stack([t ** degree - t, 0.3 * t ** 2, 1 + 0.1 * t ** (degree - 1)])
    cut = trajectory.copy()
    cut[50:70] = cut[120:125] = np.nan
    frames = np.r_[50:70, 120:125]
    np.testing.assert_allclose(spline_fill(t, cut, frames, degree), trajectory[frames], atol=1e-10)


def low_rank_markers(n_markers: int = 12, seed: int = 1, n_frames: int = T) -> np.ndarray:
    """Every coordinate a fixed linear mix of three periodic signals plus an offset: what PCA assumes."""
    rng = np.random.default_rng(seed)
    t = np.arange(n_frames) / RATE
    signals = np.column_stack([np.sin(2 * np.pi * t), np.cos(2 * np.pi * 1.3 * t), np.sin(2 * np.pi * 0.7 * t)])
    mixing = rng.normal(scale=0.05, size=(3, n_markers * 3))
    offsets = rng.uniform(-0.3, 0.3, size=n_markers * 3)
    return (signals @ mixing + offsets).reshape(n_frames, n_markers, 3)


def test_pca_fill_recovers_a_marker_of_low_rank_motion():
    markers = low_rank_markers()
    cut = with_gap(markers, 3, 80, 130)
    filled = pca_fill(cut, ~np.isnan(cut).any(axis=2), 3, np.arange(80, 130))
    error = np.linalg.norm(filled - markers[80:130, 3], axis=1)
    assert error.max() < 1e-3, "the missing marker's small weight (0.02) leaves a sub-millimetre bias only"


def test_pca_fill_needs_frames_to_learn_from():
    markers = low_rank_markers()
    cut = markers.copy()
    cut[5:, 3] = np.nan  # measured in five frames only
    assert pca_fill(cut, ~np.isnan(cut).any(axis=2), 3, np.arange(5, T)) is None


def test_pca_is_trusted_beyond_pca_max_s_when_test_fills_of_gaps_as_long_are():
    """A 1 s gap (longer than pca_max_s) off any segment: filled on a 10 s trial of low-rank motion, where
    PCA fills of 1 s gaps cut where the marker is measured are exact; left on a 2 s trial, too short to cut
    three such gaps into, and left when the test fills miss (pca_trusted_error_m below their error)."""
    long = low_rank_markers(n_frames=1000)
    cut = with_gap(long, 5, 400, 500)
    assert expected_error(cut, ~np.isnan(cut).any(axis=2), 5, 100) < 1e-3
    result = fill_gaps(trial_of(cut), GapFillOptions())
    assert result.gaps[0].method == "pca"
    assert np.abs(result.trial.markers[400:500, 5] - long[400:500, 5]).max() < 1e-3
    strict = fill_gaps(trial_of(cut), GapFillOptions(pca_trusted_error_m=1e-9)).gaps[0]
    assert strict.method is None and "miss by" in strict.reason and "pca_max_s" in strict.reason
    short = with_gap(low_rank_markers(), 5, 50, 150)
    left = fill_gaps(trial_of(short), GapFillOptions()).gaps[0]
    assert left.method is None and "too short" in left.reason and "rigid neighbours" in left.reason


def test_meet_ends_shifts_a_fill_onto_the_measured_ends():
    fill = np.zeros((4, 3))
    before, after = np.array([1.0, 0, 0]), np.array([0, 0, 5.0])
    met = meet_ends(fill, 10, 14, before, after)
    np.testing.assert_allclose(met[:, 0], [0.8, 0.6, 0.4, 0.2])
    np.testing.assert_allclose(met[:, 2], [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(meet_ends(fill, 0, 4, None, after), np.tile(after, (4, 1)))


def segment_trial() -> tuple[Trial, dict]:
    """A rigid five-marker segment and a low-rank rest of body, side by side."""
    markers = np.concatenate([rigid_cluster(), low_rank_markers()], axis=1)
    trial = trial_of(markers)
    return trial, {"thigh": trial.labels[:5]}


def test_auto_fills_short_gaps_by_spline_long_ones_rigidly_else_by_pca_and_leaves_the_rest():
    trial, segments = segment_trial()
    cut = trial.markers.copy()
    cut[20:28, 0] = np.nan  # 0.08 s, inside: spline
    cut[100:180, 1] = np.nan  # 0.8 s on the rigid segment: rigid body
    cut[60:90, 7] = np.nan  # 0.3 s off the segment: PCA
    cut[100:170, 8] = np.nan  # 0.7 s off the segment, longer than pca_max_s: left
    cut[0:5, 9] = np.nan  # short but at the trial's start: no spline; PCA
    result = fill_gaps(trial_of(cut), GapFillOptions(), segments)
    by_label = {g.label: g for g in result.gaps}
    assert {label: g.method for label, g in by_label.items()} == {"m0": "spline", "m1": "rigid", "m7": "pca",
                                                                   "m8": None, "m9": "pca"}
    assert "pca_max_s" in by_label["m8"].reason
    assert result.method[24, 0] == 1 and result.method[150, 1] == 2 and result.method[70, 7] == 3
    assert result.filled.sum() == 8 + 80 + 30 + 5 and not result.filled[:, 8].any()
    np.testing.assert_allclose(result.trial.markers[100:180, 1], trial.markers[100:180, 1], atol=1e-10)
    assert np.isnan(result.trial.markers[100:170, 8]).all()
    assert np.abs(result.trial.markers[60:90, 7] - trial.markers[60:90, 7]).max() < 1e-3
    summary = result.summary()
    assert summary["samples_by_method"] == {"spline": 8, "rigid": 80, "pca": 35, "hinge": 0}
    assert summary["markers"]["m1"] == {"frames_filled": 80, "by_method": {"rigid": 80},
                                        "gaps": [{"frames": [101, 180], "method": "rigid"}]}
    assert summary["left"]["m8"][0]["frames"] == [101, 170] and summary["gaps_left"] == 1
    assert any("123 missing samples of 4 markers filled" in c for c in result.trial.conversions)


def test_pca_fill_meets_the_measured_ends_unless_the_paper_is_asked_for():
    """A marker with a motion of its own (5 mm at 0.37 Hz that no other marker shares): PCA cannot predict it,
    so the paper's fill jumps at the gap's ends; meeting the ends removes the jumps."""
    trial, segments = segment_trial()
    own = trial.markers.copy()
    own[:, 7, 0] += 0.005 * np.sin(2 * np.pi * 0.37 * trial.times)
    cut = own.copy()
    cut[60:90, 7] = np.nan
    jumps = {}
    for meet in (True, False):
        filled = fill_gaps(trial_of(cut), GapFillOptions(method="pca", pca_meet_ends=meet), segments).trial.markers
        jumps[meet] = max(np.linalg.norm(filled[f, 7] - own[f, 7]) for f in (60, 89))
    assert jumps[True] < 0.0005 < 0.0015 < jumps[False]


def test_one_method_for_every_gap_or_none():
    trial, segments = segment_trial()
    cut = trial.markers.copy()
    cut[100:180, 1] = np.nan
    cut[0:5, 9] = np.nan
    spline = fill_gaps(trial_of(cut), GapFillOptions(method="spline"), segments)
    assert [g.method for g in spline.gaps] == ["spline", None]
    assert "measured samples on each side" in spline.gaps[1].reason
    off = fill_gaps(trial_of(cut), GapFillOptions(method="none"), segments)
    assert not off.filled.any() and all(g.reason == "gap filling is off" for g in off.gaps)
    np.testing.assert_array_equal(off.trial.markers, cut)
    short = fill_gaps(trial_of(cut), GapFillOptions(max_gap_s=0.5), segments)
    assert [g.method for g in short.gaps] == [None, "pca"] and "max_gap_s = 0.5 s" in short.gaps[0].reason


@pytest.mark.parametrize("options, words", [
    ({"method": "magic"}, "gap fill method"),
    ({"spline": "septic"}, "spline"),
    ({"max_gap_s": -1}, "max_gap_s"),
    ({"spline_max_s": "long"}, "spline_max_s"),
    ({"pca_meet_ends": "yes"}, "pca_meet_ends"),
    ({"pca_trusted_error_m": -0.01}, "GapFillOptions(pca_trusted_error_m=-0.01) is not a number of metres"),
    ({"hinge_trusted_error_m": "1 cm"}, "GapFillOptions(hinge_trusted_error_m='1 cm') is not a number of metres"),
])
def test_bad_options_say_what_is_wrong(options, words):
    with pytest.raises(InputError) as error:
        GapFillOptions(**options)
    assert words in error.value.one_line()
