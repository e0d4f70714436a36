"""Any marker set, end to end: the sprint's anatomical set, a lower-body set (head, arms and trunk as one
segment, HAT), a marker empty in every frame, and markers that cannot form a body."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from mocap_dynamics.solver.errors import ModelError
from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.io.c3d import write_c3d
from mocap_dynamics.solver.io.trc import write_trc
from mocap_dynamics.solver.kinematics import convergence_summary
from mocap_dynamics.solver.model import calibrate
from mocap_dynamics.solver.model.inertia import SHOE_MASS, table_rows
from mocap_dynamics.solver.model.templates import HAT_MEMBERS
from mocap_dynamics.solver.pipeline import PipelineOptions, run

ROOT = Path(__file__).resolve().parents[2]
UPPER = ("C7", "Shoulder", "Sternum", "elbow", "wrist", "humerus", "forearm")


def keep(trial, wanted):
    """``trial`` with only the markers whose label ``wanted(label)`` accepts."""
    kept = [i for i, label in enumerate(trial.labels) if wanted(label)]
    return replace(trial, labels=tuple(trial.labels[i] for i in kept), markers=trial.markers[:, kept], plates=(),
                   plate_samples=None)


def lower_body(label: str) -> bool:
    return not any(part in label for part in UPPER)


def lower_body_copy(path: Path, folder: Path, thorax: bool = False) -> Path:
    """The trial at ``path`` with only the markers its full-body calibration puts on the pelvis and legs (any marker
    set), and with ``thorax`` those on the torso that mark no acromion (C7 and the sternum: a lower-body gait set
    with a thorax), written to ``folder`` with its plates' ``NAME_grf.mot`` linked beside it."""
    trial = load_trial(path)
    calibration = calibrate(trial).metadata["calibration"]
    parts = ("pelvis", "thigh", "shank", "foot") + (("torso",) if thorax else ())
    kept = {label for label, marker in calibration.markers.items() if str(marker["segment"]).startswith(parts)
            and not {"acromion_l", "acromion_r"} & set(marker["landmarks"])}
    folder.mkdir(parents=True, exist_ok=True)
    copy = write_trc(keep(trial, lambda label: label in kept), folder / path.name)
    plates = folder / f"{path.stem}_grf.mot"
    if not plates.exists():
        plates.symlink_to(path.with_name(f"{path.stem}_grf.mot"))
    return copy


def converged_rms(result) -> float:
    summary = convergence_summary(result.motion)
    assert summary.converged == summary.frames
    return summary.marker_rms


def test_sprint_end_to_end_with_no_mapping_file(shared_data):
    """The sprint's anatomical set (LLEPI, LLMAL, LP1MT, thigh and shank clusters) through every stage; its
    eight plates come through ezc3d and the measured forces take most of the stance residual away."""
    result = run(shared_data / "sprint_forceplates_JA1Gait35.c3d", PipelineOptions(mass=75.0, cutoff=12.0))
    cal = result.model.metadata["calibration"]
    assert len(result.model.segments) == 15 and cal.welded == ("hand_l", "hand_r")
    assert cal.held == {"head": "level"}  # no head markers
    for segment, (low, high) in {"thigh_l": (0.38, 0.50), "shank_l": (0.38, 0.48), "foot_r": (0.22, 0.29),
                                 "upper_arm_r": (0.26, 0.36), "torso": (0.30, 0.45)}.items():
        assert low < cal.lengths[segment] < high, (segment, cal.lengths[segment])
    assert converged_rms(result) < 0.013  # 11.4 mm measured: a 9 m/s sprint, skin moves
    assert cal.markers["LLEPI"]["segment"] == "thigh_l" and cal.markers["LLEPI"]["landmarks"] == ["knee_lat_l"]
    assert "patella" in cal.ignored["LPAT"]
    assert len(result.trial.plates) == 8 and result.dynamics_with_plates is not None
    stance = np.nansum(result.trial.plate_samples.force[:, :, 2], axis=1) > 1.5 * 75 * 9.81
    frames = np.searchsorted(result.trial.times, result.dynamics.times)
    without_plates = np.linalg.norm(result.dynamics.root_wrench[:, :3], axis=1)[stance[frames]]
    with_plates = np.linalg.norm(result.dynamics_with_plates.root_wrench[:, :3], axis=1)[stance[frames]]
    assert np.median(with_plates) < 0.4 * np.median(without_plates)
    assert result.contact is not None and result.zero_gravity is not None


def test_sprint_with_the_default_options_runs_every_stage(shared_data):
    """As the command line runs it: the body mass from the plates' vertical impulse over the stances on them,
    Winter's cutoff, contact from motion on the floor the feet rest on for a tenth of a second."""
    result = run(shared_data / "sprint_forceplates_JA1Gait35.c3d")
    assert converged_rms(result) < 0.013 and result.zero_gravity is not None
    assert result.model.mass_source.startswith("force plates") and 55 < result.model.total_mass < 80
    assert [p.kind for p in result.contact.patches] == ["floor"]
    assert result.plate_comparison.correlation_vertical > 0.9


@pytest.fixture(scope="module")
def lower_body_files(shared_data, tmp_path_factory):
    """subject4's walk and static trial with every upper-body marker removed, the plates beside them."""
    folder = tmp_path_factory.mktemp("lower_body")
    for name in ("subject4_walking1", "subject4_static1"):
        trial = keep(load_trial(shared_data / f"{name}.trc"), lower_body)
        write_trc(trial, folder / f"{name}.trc")
        (folder / f"{name}_grf.mot").symlink_to(shared_data / f"{name}_grf.mot")
    return folder


def test_lower_body_set_gets_one_upper_body_segment(shared_data, lower_body_files):
    """Pelvis and legs only: the head, arms and trunk become one segment (HAT) on the pelvis, following its slow
    motion (``kinematics.following_trunk``), with the default masses (Dumas et al.'s shares on de Leva's rows), its
    centre of mass where the full-body model has its upper body's when standing."""
    full_static = load_trial(shared_data / "subject4_static1.trc")
    lower = calibrate(load_trial(lower_body_files / "subject4_static1.trc"), mass=60.0)
    full = calibrate(full_static, mass=60.0)
    assert lower.names == ("pelvis", "hat", "thigh_l", "shank_l", "foot_l", "thigh_r", "shank_r", "foot_r")
    hat = lower.segments[1]
    assert hat.joint == "ball" and hat.held == "follow" and not hat.markers
    upper = [full.index(name) for name in HAT_MEMBERS]
    assert hat.mass == pytest.approx(sum(full.segments[k].mass for k in upper))
    rows = table_rows("de_leva", "male", "dumas")
    fraction = sum(rows[r].mass for r in ("trunk", "head")) - rows["lower_trunk"].mass + 2 * sum(
        rows[r].mass for r in ("upper_arm", "forearm", "hand"))
    assert hat.mass == pytest.approx((60.0 - 2 * SHOE_MASS) * fraction / sum(  # the shoes on the feet
        rows[r].mass * (2 if r in ("upper_arm", "forearm", "hand", "thigh", "shank", "foot") else 1)
        for r in rows if r != "lower_trunk"))
    q_lower, q_full = lower.metadata["calibration"].initial_q, full.metadata["calibration"].initial_q
    com_lower = lower.com_positions(np.asarray(q_lower))[1]
    com_full = full.com_positions(np.asarray(q_full))[upper]
    masses = np.array([full.segments[k].mass for k in upper])
    assert np.linalg.norm(com_lower - masses @ com_full / masses.sum()) < 0.05
    assert lower.metadata["calibration"].lengths["thigh_l"] == pytest.approx(
        full.metadata["calibration"].lengths["thigh_l"], abs=1e-9)
    assert any("HAT" in note for note in lower.metadata["calibration"].notes)


def test_lower_body_trial_through_dynamics_and_contact(lower_body_files):
    """The lower-body walk through reconstruction, dynamics with its plates, and contact from motion; its plates
    weigh the subject at 63.5 kg, 6 % more than the static trial's quiet standing, and replace its 60.0 kg."""
    options = PipelineOptions(until="contact", static=str(lower_body_files / "subject4_static1.trc"))
    result = run(lower_body_files / "subject4_walking1.trc", options)
    assert result.model.names[1] == "hat" and result.model.total_mass == pytest.approx(63.5, abs=0.5)
    warnings = result.model.metadata["calibration"].warnings
    assert "than the 60.0 kg of the quiet standing in the static trial" in warnings[-1]
    assert converged_rms(result) < 0.0075  # 7.0 mm; the full-body model fits the same leg markers to 7.4 mm
    report = result.report()
    assert report["dynamics"]["with_measured_plates"]["root_force_mean_percent_bw"] < 35
    assert report["contact"]["explained_force"] > 0.6
    assert "hat" in report["dynamics"]["peak_joint_torque_nm"]  # held, not welded: its joint carries a torque


def test_a_hat_following_the_pelvis_explains_a_lower_body_walk_better_than_welded(lower_body_files):
    """Welded, the HAT (60 % of the body) copies the pelvis's gait oscillations, forces the plates do not see.
    Following the pelvis's slow motion: horizontal RMSE 3.9 % BW instead of 7.5, 97.9 % of the root force
    explained instead of 92.8, COP in single support 3.4 cm instead of 4.2 (when written; the README's table
    keeps the markers its calibration puts on the legs, these all but the upper body's)."""
    held, welded = (run(lower_body_files / "subject4_walking1.trc", PipelineOptions(until="contact", head=head))
                    for head in ("level", "welded"))
    assert held.model.metadata["calibration"].held == {"hat": "follow"}
    assert welded.model.segments[welded.model.index("hat")].joint == "weld"
    assert any("(HAT) welded to the pelvis" in note for note in welded.model.metadata["calibration"].notes)
    assert any("hat: no markers; follows the pelvis" in note for note in held.model.metadata["calibration"].notes)
    figures = [result.plate_comparison.summary() for result in (held, welded)]
    assert figures[0]["rmse_horizontal_bw_percent"] < 0.7 * figures[1]["rmse_horizontal_bw_percent"]
    assert figures[0]["rmse_vertical_bw_percent"] < figures[1]["rmse_vertical_bw_percent"]
    assert figures[0]["cop_error_single_support_cm"] < figures[1]["cop_error_single_support_cm"]
    assert held.contact.explained_force > welded.contact.explained_force + 0.03


def test_a_drop_jump_with_lower_body_markers_gets_its_mass_from_the_longest_run_on_the_plates(shared_data,
                                                                                            tmp_path):
    """The video drop jump's pelvis and leg markers only: a 0.55 s run of full support on the plates gives 95.3 kg,
    one of 0.12 s at the trial's end 67.5; together they disagree by 7.8 %, and the longest gives the mass (the
    full-body trial's plates: 95.0 kg), not the assumed 70 kg."""
    result = run(lower_body_copy(shared_data / "opencap_video_DJ4.trc", tmp_path), PipelineOptions(until="contact"))
    assert result.model.names[1] == "hat"
    assert result.model.total_mass == pytest.approx(95.0, rel=0.01)
    assert "the longest of 2 runs" in result.model.mass_source


def test_marker_empty_in_every_frame(shared_data, tmp_path):
    """CLAV written as 'not seen' in every frame: the import drops it, the jugular notch comes from
    STRN, C7 and T10, and the model fits as well as with CLAV."""
    cmu = load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d")
    clav = cmu.labels.index("CLAV")
    markers = cmu.markers.copy()
    markers[:, clav] = np.nan
    path = write_c3d(replace(cmu, markers=markers, plates=()), tmp_path / "no_clav.c3d")
    options = PipelineOptions(until="reconstruct")
    empty, full = run(path, options), run(shared_data / "cmu_dribble_shoot_basketball.c3d", options)
    assert "CLAV" not in empty.trial.labels and any("CLAV" in w for w in empty.trial.warnings)
    cal = empty.model.metadata["calibration"]
    assert cal.joint_centres["supr"].startswith("stand-in 0.83 STRN + 0.64 C7 - 0.47 T10")
    assert converged_rms(empty) < converged_rms(full) + 0.0005
    lengths = full.model.metadata["calibration"].lengths
    assert all(abs(cal.lengths[s] - lengths[s]) < 0.05 for s in lengths), cal.lengths


def test_markers_that_cannot_form_a_body(shared_data):
    """Four pelvis markers: what was found, what is missing, what would make it work."""
    cmu = load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d")
    four = keep(cmu, lambda label: label.endswith("WT"))
    with pytest.raises(ModelError) as error:
        calibrate(four)
    message = str(error.value)
    assert "cannot form a body" in message and "Found: pelvis (LFWT, RFWT, LBWT, RBWT)" in message
    for missing in ("thigh_l", "shank_r", "foot_l"):
        assert missing in message.split("Found:")[0]
    assert "both legs" in message and "markerset=<path>" in message


def test_cli_says_it_in_one_line(shared_data, tmp_path):
    cmu = load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d")
    path = write_trc(keep(cmu, lambda label: label.endswith("WT")), tmp_path / "four.trc")
    done = subprocess.run([sys.executable, "-m", "solver", str(path), "--out", str(tmp_path / "out")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "cannot form a body" in done.stderr


def test_when_the_motion_cannot_make_a_body_either_the_labels_reason_comes_first(shared_data, tmp_path):
    """The video walk without six markers, two of them the pelvis's (three left would do): the labels make no
    body, and the segments found from the motion make a torso of impossible inertia. The error leads with what the
    labels lack and how to fix it (it said only "Segment 'torso' has impossible inertial parameters")."""
    walk = load_trial(shared_data / "opencap_video_walking3.trc")
    lost = ("L_ankle", "r_5meta", "r.ASIS", "L_Shoulder", "L_thigh3", "L.PSIS")
    path = write_trc(keep(walk, lambda label: label not in lost), tmp_path / "walk.trc")
    with pytest.raises(ModelError, match=r"^These markers cannot form a body\. Missing: pelvis \(markers found: "
                                         r"L\.ASIS, r\.PSIS; needs 3 markers\).*The segments found from the motion "
                                         r"failed too: .*the pelvis \(3 markers"):
        run(path, PipelineOptions(until="calibrate", mass=70.0))


def test_a_trunk_without_arm_markers_keeps_its_trunk_and_hangs_the_arms(shared_data):
    """Trunk and head markers but none on the arms: the torso and head follow their markers, and each arm is one
    segment hanging from its shoulder, welded to the torso, with a warning (it was the whole upper body one
    segment on the pelvis, the HAT)."""
    cmu = load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d")
    arms = ("UPA", "ELB", "FRM", "WRA", "WRB", "FIN")
    model = calibrate(keep(cmu, lambda label: not label.endswith(arms)))
    cal = model.metadata["calibration"]
    assert {"torso", "head", "arm_l", "arm_r"} <= set(model.names) and "hat" not in model.names
    for side in "lr":
        arm = model.segments[model.index(f"arm_{side}")]
        assert arm.joint == "weld" and model.names[arm.parent] == "torso" and not arm.markers
        assert cal.joint_centres[f"arm_{side}"].startswith("hanging straight down from the shoulder")
    assert {"C7", "LFHD", "LSHO"} <= set(cal.markers)
    assert sum("hangs straight down from the shoulder" in w for w in cal.warnings) == 2


def test_a_thorax_without_acromions_carries_the_trunk_of_a_lower_body_walk(shared_data, tmp_path):
    """Legs and a thorax marked at C7 and the sternum only (no acromion, arm or head marker, as lower-body gait sets
    with a thorax are): the acromions are placed from the trunk (``stand_ins.acromion_from_trunk``), the torso
    follows its markers and the arms hang from it. Against the legs alone (the head, arms and trunk one segment
    following the pelvis, as this set got before), the moments from motion alone against ours with the plates
    r 0.975 instead of 0.922 where the plates see all, the centre of pressure 1.6 cm from the plates' in single
    support instead of 3.1, and the vertical force 3.6 % BW from them instead of 4.0."""
    path = shared_data / "subject4_walking1.trc"
    thorax, legs = (run(lower_body_copy(path, tmp_path / str(marked), thorax=marked), PipelineOptions(until="contact"))
                    for marked in (True, False))
    assert {"torso", "arm_l", "arm_r"} <= set(thorax.model.names) and "hat" not in thorax.model.names
    assert sum("placed without its marker: 31.5 % of the trunk's length" in w
               for w in thorax.model.metadata["calibration"].warnings) == 2
    figures = [result.plate_comparison.summary() for result in (thorax, legs)]
    moments = [f["joint_moments"]["where_plates_see_all"]["mean_r"] for f in figures]
    assert moments[0] > 0.95 and moments[0] > moments[1] + 0.03
    assert figures[0]["cop_error_single_support_cm"] < 0.6 * figures[1]["cop_error_single_support_cm"]
    assert figures[0]["rmse_vertical_bw_percent"] < figures[1]["rmse_vertical_bw_percent"]


@pytest.fixture(scope="module")
def drop_jump(shared_data):
    """Subject 4's drop jump with every marker, from the motion alone (its plates compared with)."""
    return run(shared_data / "subject4_DJ3.trc", PipelineOptions(until="contact"))


def drop_jump_without(shared_data, folder: Path, lost) -> object:
    """The drop jump without the markers whose label ``lost(label)`` accepts, its plates beside it."""
    path = shared_data / "subject4_DJ3.trc"
    copy = write_trc(keep(load_trial(path), lambda label: not lost(label)), folder / path.name)
    (folder / f"{path.stem}_grf.mot").symlink_to(path.with_name(f"{path.stem}_grf.mot"))
    return run(copy, PipelineOptions(until="contact"))


def assert_figures_near(full, fewer, rmse: float, r: float) -> None:
    """Vertical GRF RMSE from motion alone within ``rmse`` % BW of the full set's, and the moments from it against
    ours with the plates (where they see all) within ``r``."""
    figures = [result.plate_comparison.summary() for result in (full, fewer)]
    assert figures[1]["rmse_vertical_bw_percent"] < figures[0]["rmse_vertical_bw_percent"] + rmse
    moments = [f["joint_moments"]["where_plates_see_all"]["mean_r"] for f in figures]
    assert moments[1] > moments[0] - r


def test_an_arm_its_markers_cannot_build_hangs_and_the_rest_still_moves(shared_data, drop_jump, tmp_path):
    """Subject 4's drop jump without both left elbow markers: the left arm hangs from its shoulder and the rest of
    the upper body follows its markers. Vertical GRF from motion alone 12.5 % BW against 11.8 with every marker
    (12.8 and 12.7 before the pelvis's markers weighed more, ``kinematics.marker_weights``), and the moments from
    it against ours with the plates r 0.91 against 0.93, where the plates see all; the whole upper body one segment
    on the pelvis, as before, gave 18.7 % BW and r 0.70."""
    fewer = drop_jump_without(shared_data, tmp_path, lambda label: label.startswith("L_elbow"))
    assert set(drop_jump.model.names) - set(fewer.model.names) == {"upper_arm_l", "forearm_l", "hand_l"}
    assert {"arm_l", "upper_arm_r", "forearm_r", "torso"} <= set(fewer.model.names)
    assert any("arm_l hangs straight down" in w and "upper_arm_l (needs elbow_lat_l" in w
               for w in fewer.model.metadata["calibration"].warnings)
    assert_figures_near(drop_jump, fewer, 0.8, 0.04)


def test_a_drop_jump_without_its_acromions_keeps_every_segment(shared_data, drop_jump, tmp_path):
    """Subject 4's drop jump without both acromion markers: both placed from the trunk, every segment kept. Vertical
    GRF from motion alone 12.4 % BW against 11.8 with every marker, the moments from it against ours with the plates
    r 0.921 against 0.942 where the plates see all; the whole upper body one segment on the pelvis, as before, gave
    19.9 % BW and r 0.778."""
    fewer = drop_jump_without(shared_data, tmp_path, lambda label: label.endswith("_Shoulder"))
    assert fewer.model.names == drop_jump.model.names
    assert_figures_near(drop_jump, fewer, 1.0, 0.04)


@pytest.mark.parametrize("lost", [("C7",), ("L_Shoulder",), ("L_shank_antsup", "L_sh2", "L_sh3"),
                                  ("L_thigh1", "L_thigh2", "L_thigh3", "L_thigh4"), ("L_knee",)])
def test_a_drop_jump_with_lost_markers_keeps_every_segment(shared_data, drop_jump, tmp_path, lost):
    """Without C7 (placed from the sternum markers and the acromions): 12.6 % BW and r 0.930 against 12.7 and
    0.933 with it; without the left acromion (the right one mirrored) 12.9 and 0.931; either made the whole upper
    body one segment on the pelvis: 18.7 % BW and r 0.705. Without the left shank's cluster (the shank keeps its
    ankle marker and turns about the knee's hinge toward it) 12.4 and 0.926; without the left thigh's (it keeps
    its knee marker, and the shank's markers fix its turn through the knee's hinge) 12.3 and 0.936; without its
    knee marker (the knee the point fixed in the thigh's and the shank's clusters) 12.5 and 0.933; all three were
    refused."""
    fewer = drop_jump_without(shared_data, tmp_path, lambda label: label in lost)
    assert fewer.model.names == drop_jump.model.names
    assert_figures_near(drop_jump, fewer, 0.5, 0.02)
