"""Joint moments with the estimated contact against those with the plates (``compare_moments_with_plates``): a
closed form on an analytic motion, and the pipeline's report on a real trial with force plates."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.batch import report_figures
from mocap_dynamics.solver.contact import compare_moments_with_plates
from mocap_dynamics.solver.dynamics import ExternalForces, joint_moments, rnea
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.report import joint_moments_text, summary
from tests.unit.test_dynamics_models import analytic_motion, humanoid


def test_a_known_foot_force_changes_the_moments_by_its_lever_arms():
    """A force ``f`` on the left foot at ``p``: each joint ``j`` it passes through needs ``(p - o_j) × f`` less
    (eq. 9 per joint), resolved on the clinical axes; the other leg's moments do not change."""
    model = humanoid()
    times = np.linspace(0.0, 0.5, 21)
    q, v, a = analytic_motion(model, np.random.default_rng(5), times)
    bare = rnea(model, times, q, v, a)
    foot = model.index("foot_l")
    rotations, origins = model.forward_kinematics(q)
    point = origins[:, foot] + np.einsum("tij,j->ti", rotations[:, foot], [0.1, 0.02, -0.05])
    force = np.stack([40 * np.sin(8 * times), 10 * np.cos(5 * times), 300 + 200 * np.sin(6 * times)], axis=1)
    pushed = rnea(model, times, q, v, a, external=ExternalForces(np.array([foot]), point[:, None], force[:, None]))
    compared = compare_moments_with_plates(pushed, bare, np.ones(len(times), bool))

    axes = joint_moments(bare)
    mass = model.total_mass
    for joint, segment, component in (("hip_l", "thigh_l", "flexion"), ("knee_l", "shank_l", "flexion"),
                                      ("ankle_l", "foot_l", "dorsiflexion")):
        j = axes.joints.index(joint)
        axis = axes.axes[:, j, list(axes.components[j]).index(component)]
        lever = point - origins[:, model.index(segment)]
        expected = -np.einsum("ti,ti->t", np.cross(lever, force), axis) / mass
        n = compared.names.index(f"{joint}_{component}_moment")
        np.testing.assert_allclose(compared.from_estimate[:, n] - compared.from_plates[:, n], expected, atol=1e-9)
        assert compared.summary()["moments"][f"{joint}_{component}_moment"]["rmse_nm_per_kg"] == \
            pytest.approx(np.sqrt(np.mean(expected ** 2)), rel=1e-9)
    right = compared.figures(np.ones(len(times), bool))["moments"]
    for name in ("hip_r_flexion_moment", "knee_r_flexion_moment", "ankle_r_dorsiflexion_moment"):
        assert right[name]["r"] == pytest.approx(1.0) and right[name]["rmse_nm_per_kg"] < 1e-12


def test_frames_apart_are_not_compared():
    model = humanoid()
    times = np.linspace(0.0, 0.5, 11)
    q, v, a = analytic_motion(model, np.random.default_rng(1), times)
    dynamics = rnea(model, times, q, v, a)
    later = rnea(model, times + 0.01, q, v, a)
    assert compare_moments_with_plates(dynamics, later, np.ones(len(times), bool)) is None
    assert compare_moments_with_plates(dynamics, dynamics, np.ones(3, bool)) is None


@pytest.fixture(scope="module")
def drop_jump(shared_data):
    return run(shared_data / "subject4_DJ3.trc", PipelineOptions(until="contact"))


def test_a_drop_jump_reports_its_moments_where_the_plates_see_all(drop_jump):
    """DJ3: on the box the plates see nothing and the moments with them miss the box's load, so the figures
    where the plates see all (the frames of the force comparison) are the reference; there the estimate's
    moments follow the plates' (mean r 0.93 measured on 2026-12-03; ankles and knees above 0.9)."""
    comparison = drop_jump.plate_comparison
    report = drop_jump.report()["contact"]["plates"]["joint_moments"]
    seen = report["where_plates_see_all"]
    assert set(seen["moments"]) == {f"{j}_{s}_{c}_moment" for j, c in (("hip", "flexion"), ("knee", "flexion"),
                                                                       ("ankle", "dorsiflexion")) for s in "lr"}
    assert all(m["frames"] == int(comparison.plates_see_all.sum()) for m in seen["moments"].values())
    assert seen["mean_r"] > 0.9 and seen["mean_rmse_nm_per_kg"] < 0.3
    assert report["mean_r"] < seen["mean_r"]  # the box phase: the plates' moments miss the box
    for name in ("knee_l_flexion_moment", "knee_r_flexion_moment", "ankle_l_dorsiflexion_moment",
                 "ankle_r_dorsiflexion_moment"):
        assert seen["moments"][name]["r"] > 0.9
    text = summary(drop_jump.report())
    assert "joint moments, estimate vs plates (where the plates see all): mean r 0.9" in text
    figures = report_figures(drop_jump.report())
    assert figures["plate_moments_mean_r"] == pytest.approx(seen["mean_r"])


def test_the_moments_line_reads_figures_left_out():
    """Blender's stored metadata leaves out figures that do not exist (None): the line says n/a for them; with no
    frame where the plates see all it falls back to the whole trial."""
    seen = {"moments": {"hip_l_flexion_moment": {"frames": 10}, "hip_r_flexion_moment": {"r": 0.8, "frames": 10}}}
    text = joint_moments_text({"joint_moments": {"mean_r": 0.5, "moments": {}, "where_plates_see_all": seen}})
    assert "(where the plates see all): mean r n/a, RMSE n/a N·m/kg" in text and "hip flexion n/a / 0.80" in text
    never = {"moments": {"hip_l_flexion_moment": {"frames": 0}}}
    whole = {"mean_r": 0.5, "mean_rmse_nm_per_kg": 0.25, "moments": {"hip_l_flexion_moment": {"r": 0.5, "frames": 9}},
             "where_plates_see_all": never}
    assert joint_moments_text({"joint_moments": whole}).startswith(
        "joint moments, estimate vs plates (all frames): mean r 0.50, RMSE 0.25 N·m/kg; r (left / right) hip flexion "
        "0.50 (l)")
    assert joint_moments_text({}) is None
