"""Support surfaces found from resting points (``solver.contact.support``) and the default contact estimate
built on them: known-answer cases (synthetic resting samples, a body in free fall) and real trials with force
plates (a level walk, a drop jump from a box without a plate, sit-to-stand from a chair without a plate).
The plates are only compared with. Bounds are the issue's targets where the README shows them met, else
sanity bounds that say what is expected of the physics."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.contact import Surface, compare_with_plates, estimate_contact, simulate_contact
from mocap_dynamics.solver.contact.support import HEIGHT_GAP, patches_of
from mocap_dynamics.solver.dynamics.moments import joint_moments
from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.model.body_mass import STATIC_STANDING
from mocap_dynamics.solver.io.trc import write_trc
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from tests.unit.test_contact_synthetic import model  # noqa: F401  (fixture)

RATE = 100.0


def resting_layer(n_frames: int, height: float, centre, spread: float, points: int, frames: slice):
    """Resting samples of ``points`` points spread over a square of ``spread`` [m] at ``height``."""
    rng = np.random.default_rng(1)
    xy = np.asarray(centre) + rng.uniform(-spread / 2, spread / 2, (points, 2))
    positions = np.full((n_frames, points, 3), np.nan)
    positions[frames] = np.c_[xy, np.full(points, height)]
    resting = np.zeros((n_frames, points), bool)
    resting[frames] = True
    return positions, resting


def scene(*layers, n_frames=200, com_height=1.0):
    positions = np.concatenate([layer[0] for layer in layers], axis=1)
    resting = np.concatenate([layer[1] for layer in layers], axis=1)
    names = np.array([f"segment {k}" for k in range(positions.shape[1])])
    return patches_of(resting, positions, names, np.tile([0.0, 0.0, com_height], (n_frames, 1)), RATE)


def test_one_level_floor_and_a_box_beside_it():
    floor = resting_layer(200, 0.01, (0.0, 0.0), 1.0, 8, slice(100, 200))
    box = resting_layer(200, 0.35, (-1.2, 0.0), 0.3, 8, slice(0, 90))
    patches = scene(floor, box)
    assert [p.kind for p in patches] == ["floor", "raised"]
    assert patches[0].height == pytest.approx(0.01) and patches[0].tilt == pytest.approx(0.0, abs=1e-9)
    assert patches[1].height == pytest.approx(0.35) and patches[1].resting[:90].all() \
        and not patches[1].resting[90:].any()
    corners = patches[1].corners
    assert np.all(np.abs(corners[:, :2] - (-1.2, 0.0)) < 0.3)  # the box's extent, grown by the margin
    box_surface = patches[1].surface
    assert box_surface.distance(np.array([[-1.2, 0.0, 0.36]]))[0] == pytest.approx(0.01)
    assert box_surface.distance(np.array([[0.0, 0.0, 0.01]]))[0] > 0.2  # the floor beside it is not on the box


@pytest.mark.parametrize("turn", [0, 30, 45, 90, 135, 180, 250])
def test_a_box_is_one_patch_and_two_boxes_two_whichever_way_the_lab_faces(turn):
    """Two feet 0.2 m apart on one box, a second box 1 m away: the grouping depends on distances, not on the
    lab's axes (grid cells split the feet on the box at some headings)."""
    c, s = np.cos(np.radians(turn)), np.sin(np.radians(turn))
    heading = np.array([[c, -s], [s, c]])

    def foot(centre):  # a sole's points along its length, resting on the box
        positions = np.full((200, 6, 3), np.nan)
        along = np.c_[np.linspace(-0.12, 0.12, 6), np.zeros(6)] + centre
        positions[:100] = np.c_[along @ heading.T + (0.37, -0.61), np.full(6, 0.3)]
        resting = np.zeros((200, 6), bool)
        resting[:100] = True
        return positions, resting

    floor = resting_layer(200, 0.0, (0.0, 0.0), 1.0, 8, slice(100, 200))
    patches = scene(floor, foot((0.0, 0.1)), foot((0.0, -0.1)), foot((1.2, 0.1)), foot((1.2, -0.1)))
    assert [p.kind for p in patches] == ["floor", "raised", "raised"]
    assert [len(p.segments) for p in patches[1:]] == [12, 12]  # each box carries its two feet


def test_a_patch_that_cannot_be_told_from_the_floor_is_the_floor():
    floor = resting_layer(200, 0.0, (0.0, 0.0), 1.0, 8, slice(0, 100))
    near = resting_layer(200, HEIGHT_GAP * 0.75, (1.0, 0.0), 0.3, 8, slice(100, 200))
    assert [p.kind for p in scene(floor, near)] == ["floor"]


def test_what_rests_at_the_height_of_the_centre_of_mass_is_not_a_support():
    """Forearms crossed on the chest rest near the centre of mass: on the body, not on a surface."""
    floor = resting_layer(200, 0.0, (0.0, 0.0), 0.5, 8, slice(0, 200))
    arms = resting_layer(200, 0.95, (0.1, 0.0), 0.3, 8, slice(0, 200))
    assert [p.kind for p in scene(floor, arms, com_height=1.0)] == ["floor"]


def test_a_sloped_floor_needs_a_long_spread_to_slope():
    rng = np.random.default_rng(2)
    xy = rng.uniform(-1.0, 1.0, (40, 2)) * [1.0, 0.05]  # steps along a narrow walkway rising 5 % along x
    xy[:, 0] = np.round(xy[:, 0] / 0.3) * 0.3  # footprints 30 cm apart: the floor is one surface all the same
    positions = np.c_[xy, 0.05 * xy[:, 0]][None].repeat(100, axis=0)
    patches = patches_of(np.ones((100, 40), bool), positions, np.array(["foot"] * 40),
                         np.tile([0.0, 0.0, 1.0], (100, 1)), RATE)
    assert patches[0].tilt == pytest.approx(np.degrees(np.arctan(0.05)), abs=0.05)
    normal = patches[0].surface.top.normal
    assert abs(normal[1]) < 1e-3  # too narrow across to slope sideways
    assert len(patches) == 1


def test_a_floor_rising_less_than_the_soles_error_is_level():
    """Two footprints 0.6 m apart whose resting points differ by 2 cm in height (a heel against a toe: the sole
    model's error, not a slope): spread enough to slope, but a 1.9° plane would rise less than ``MIN_RISE``
    across them, so the floor is level; at 4 cm it slopes."""
    rng = np.random.default_rng(5)
    xy = np.r_[rng.normal([-0.3, 0.0], 0.03, (20, 2)), rng.normal([0.3, 0.0], 0.03, (20, 2))]
    for rise, level in ((0.02, True), (0.04, False)):
        positions = np.c_[xy, rise * (xy[:, 0] > 0)][None].repeat(100, axis=0)
        patches = patches_of(np.ones((100, 40), bool), positions, np.array(["foot"] * 40),
                             np.tile([0.0, 0.0, 1.0], (100, 1)), RATE)
        assert len(patches) == 1 and (patches[0].tilt == 0.0) == level, (rise, patches[0].tilt)


@pytest.mark.parametrize("thrown_up", [0.0, 1.5])
def test_a_body_in_the_air_has_no_support(model, thrown_up):  # noqa: F811
    """A body falling for 0.3 s from 2 m above the floor, or thrown up at 1.5 m/s (the top of its flight at
    0.15 s, where every point of it moves slower than ``REST_SPEED`` for 40 ms: a floor was found there before
    ``SUPPORTED``): nothing rests, so there is no made-up floor."""
    q0, v0 = model.neutral_q(), np.zeros(model.nv)
    q0[2], v0[2] = 3.0, thrown_up
    fall = simulate_contact(model, q0, v0, Surface.floor(0.0), duration=0.3, rate=RATE * 10)
    contact = estimate_contact(fall.motion)
    assert contact.surfaces == () and contact.summary()["surfaces"] == []
    assert "no support found" in contact.warnings[0]
    assert np.all(contact.total_force == 0.0)


@pytest.fixture(scope="module")
def trials(shared_data):
    """The real trials with plates, run as a user runs them (no flags but the static trial)."""
    static = str(shared_data / "subject4_static1.trc")
    return {name: run(shared_data / f"subject4_{name}.trc", PipelineOptions(until="contact", static=static))
            for name in ("walking1", "DJ3", "STS1")}


def plate_floor_height(result) -> float:
    cop = result.trial.plate_samples.cop[..., 2]
    return float(np.nanmedian(cop))


def test_a_level_walk_has_exactly_one_floor(trials):
    result = trials["walking1"]
    contact, plates = result.contact, result.plate_comparison
    assert len(contact.surfaces) == 1 and contact.patches[0].kind == "floor"
    assert contact.plane_angle < 1.0
    assert abs(contact.patches[0].height - plate_floor_height(result)) < 0.01
    assert plates.rmse_vertical < 8.0 and plates.correlation_vertical > 0.95
    assert np.all(np.abs(plates.onset_errors) < 0.06)
    feet = plates.summary()["feet"]
    assert all(figures["cop_error_single_support_cm"] < 4.0 for figures in feet.values())


def test_a_drop_jump_stands_on_a_box_then_on_the_floor(trials):
    result = trials["DJ3"]
    contact, plates = result.contact, result.plate_comparison
    kinds = [p.kind for p in contact.patches]
    assert kinds == ["floor", "raised"]
    box = contact.patches[1]
    assert 0.2 < box.height < 0.45 and box.tilt < 2.0
    assert abs(contact.patches[0].height - plate_floor_height(result)) < 0.01 and contact.plane_angle < 1.0
    above = contact.surface_summary(1)["height_above_floor_m"]  # the report's, on the vertical through the box
    assert above == pytest.approx(box.height - contact.patches[0].height, abs=0.005)
    assert "height_above_floor_m" not in contact.surface_summary(0)
    on_box, on_floor = contact.load_intervals(1), contact.load_intervals(0)
    assert on_box[0][0] < 0.05 and 0.8 < on_box[0][1] < 1.0  # standing on the box from the start
    assert on_floor[0][0] > 1.2  # the floor is loaded only after the drop
    weight = contact.body_weight
    box_phase = contact.times < 0.8
    assert np.abs(contact.root_wrench[box_phase, 2]).mean() < 0.1 * weight  # the box carries the body weight
    assert contact.explained_force > 0.9
    assert plates.rmse_vertical < 15.0 and plates.correlation_vertical > 0.95
    landing = plates.summary()["where_plates_see_all"]  # the box phase left out: the landings alone
    seen_times = plates.times[plates.plates_see_all]
    assert seen_times.min() > 0.8 and landing["frames_compared"] < plates.covered.sum()
    assert landing["rmse_vertical_bw_percent"] < 20.0 and landing["correlation_vertical"] > 0.95  # 17.8, 0.984


def test_sit_to_stand_sits_on_a_seat(trials):
    result = trials["STS1"]
    contact, plates = result.contact, result.plate_comparison
    assert [p.kind for p in contact.patches] == ["floor", "raised"]
    seat = contact.patches[1]
    assert 0.3 < seat.height < 0.55 and {"pelvis"} <= set(seat.segments)
    seated = contact.surface_force[:, 1, 2] > 0.5 * contact.body_weight
    assert seated.mean() > 0.2  # five sit-to-stand cycles: seated for a good part of the trial
    assert np.nanmean(plates.measured[seated, 2]) < 0.25 * contact.body_weight  # and the plates agree
    # seated, the feet carry the legs' weight, not a share of the body's (the effort term of per_frame)
    assert np.nanmean(plates.estimated[seated, 2] - plates.measured[seated, 2]) < 0.1 * contact.body_weight
    assert contact.explained_force > 0.9
    assert plates.correlation_vertical > 0.95 and plates.rmse_vertical < 8.0  # 6.8 % BW (README)


def test_the_grf_plot_draws_what_the_plates_measure_and_the_seat_apart(trials, tmp_path, monkeypatch):
    """The GRF plot's total compares the estimate on the plates' surfaces with the plates (the figures in its
    title), and draws the seat's share apart: the total with the seat left the plates by the body weight in
    every seated phase."""
    from mocap_dynamics.solver import plots
    drawn = []
    monkeypatch.setattr(plots, "save_figure", lambda figure, path: drawn.append(figure) or path)
    result = trials["STS1"]
    plates = result.plate_comparison
    plots.plot_grf(result.contact, plates, tmp_path / "grf.png")
    total = next(ax for ax in drawn[0].axes if ax.get_title() == "total")  # the vertical forces (the top row)
    lines = {line.get_label(): line.get_ydata() for line in total.get_lines()}
    np.testing.assert_allclose(lines["estimated from motion"], plates.estimated[:, 2])
    np.testing.assert_allclose(lines["force plates"], plates.measured[:, 2])
    np.testing.assert_allclose(lines["estimated, on surfaces without plates"], plates.off_plates)
    assert plates.off_plates.max() > 0.8 * result.contact.body_weight  # she sits


@pytest.mark.parametrize("cutoff", [12.0, "auto"])
def test_a_sprinters_short_stances_are_found_at_a_runners_cutoff(shared_data, cutoff):
    """The sprint (250 Hz, stances of about 0.1 s on the plates): filtered at 12 Hz, as running often is, its
    foot points rest for only 44 ms at a time; the floor is still found where the plates are, and the stance
    frames load it (``REST_TIME`` 0.06 s found no support at 17.5 Hz and below)."""
    result = run(shared_data / "sprint_forceplates_JA1Gait35.c3d", PipelineOptions(until="contact", cutoff=cutoff))
    contact, comparison = result.contact, result.plate_comparison
    plates_height = float(np.nanmedian(result.trial.plate_samples.cop[..., 2]))
    assert contact.surfaces and abs(contact.plane_height - plates_height) < 0.04  # 2.1-2.7 cm off (README)
    stance = comparison.measured[:, 2] > 0.5 * contact.body_weight
    assert np.mean(contact.surface_force[stance, 0, 2] > 0.2 * contact.body_weight) > 0.9


def test_a_padded_seat_carries_load_as_the_buttocks_touch(shared_data):
    """subject4_STS1 (no static trial): sitting down and standing up, the plates under the feet lose and regain
    the body's weight while the ischial points are still 3-5 cm above their seated level; with the seat points'
    soft-tissue padding (``ContactConfig.seat_padding``) the feet's vertical force follows the plates closer than
    with bare points (README: 11.4 -> 10.3 % BW)."""
    result = run(shared_data / "subject4_STS1.trc", PipelineOptions(until="dynamics"))
    dynamics = result.dynamics
    bare = replace(dynamics, model=replace(dynamics.model, metadata={**dynamics.model.metadata,
                                                                       "contact_padding": {}}))
    rmse = {name: compare_with_plates(estimate_contact(dynamics=d), result.trial).rmse_vertical
            for name, d in (("padded", dynamics), ("bare", bare))}
    assert rmse["padded"] < rmse["bare"] - 0.7


def test_a_seat_lets_go_of_the_knees(shared_data):
    """subject4_STS1 with its static trial: the knee rings rest at the seat's height while she sits, but only the
    floor pushes them (``ContactPoints.floor_only``). Pushed by the seat too, they kept it carrying load while
    she rose on her feet (a quarter of the body weight with the ischia 20 cm above it) and the feet's vertical
    force missed the plates by 8.9 % BW (6.8 with the knees on the floor only; 9.1 and 7.4 before the seated
    effort, ``PerFrameOptions.seated_effort``)."""
    from dataclasses import replace
    from mocap_dynamics.solver.contact import compare_with_plates
    static = str(shared_data / "subject4_static1.trc")
    result = run(shared_data / "subject4_STS1.trc", PipelineOptions(until="dynamics", static=static))
    dynamics = result.dynamics
    anywhere = replace(dynamics, model=replace(dynamics.model, metadata={**dynamics.model.metadata,
                                                                           "contact_floor_only": {}}))
    rmse, lifted_load = {}, {}
    for name, d in (("floor only", dynamics), ("anywhere", anywhere)):
        contact = estimate_contact(dynamics=d)
        rmse[name] = compare_with_plates(contact, result.trial).rmse_vertical
        seat = contact.patches[1]
        pelvis = contact.point_segments == d.model.index("pelvis")
        ischia = contact.point_positions[:, pelvis][:, -2:, 2].min(1)
        lifted_load[name] = np.nanmax(contact.surface_force[ischia > seat.height + 0.15, 1, 2]) / contact.body_weight
    assert lifted_load["floor only"] < 0.01 < 0.1 < lifted_load["anywhere"]
    assert rmse["floor only"] < 8.0 and rmse["floor only"] < rmse["anywhere"] - 1.5


def test_a_sprint_filtered_low_finds_its_floor_at_winters_cutoff(shared_data):
    """The sprint at ``--cutoff 8``: its 0.1 s stances are smoothed until no foot point rests long enough, so the
    floor is found in the motion filtered at Winter's cutoff (33 Hz) and the user is told, and the body mass
    comes from the plates (README: 29.7 % BW); without the motion to look in again, its soles rolling on the floor
    find it in the 8 Hz motion, 1.4 cm lower (26.7 % BW from the plates, 25.8 at Winter's cutoff; no support was
    found before ``support.rolling_speeds``)."""
    result = run(shared_data / "sprint_forceplates_JA1Gait35.c3d", PipelineOptions(until="contact", cutoff=8.0))
    contact = result.contact
    assert len(contact.surfaces) == 1 and contact.patches[0].found_at_hz > 30
    assert result.model.mass_source.startswith("force plates")
    assert "supports found in the motion filtered at Winter's" in contact.warnings[0]
    assert result.plate_comparison.correlation_vertical > 0.95 and result.plate_comparison.rmse_vertical < 35
    alone = estimate_contact(dynamics=result.dynamics)
    assert len(alone.surfaces) == 1 and alone.patches[0].found_rolling and alone.patches[0].found_at_hz is None
    assert abs(alone.patches[0].height - contact.patches[0].height) < 0.02
    alone_plates = compare_with_plates(alone, result.trial)
    assert alone_plates.correlation_vertical > 0.95 and alone_plates.rmse_vertical < 35


@pytest.mark.parametrize("trial, mass", [("subject4_walking1", 63.7), ("subject4_STS1", 60.0)])
def test_the_trials_plates_check_the_static_trials_body_mass(shared_data, trial, mass):
    """Calibrated on subject 4's static trial, whose quiet standing gives 60.0 kg: the walk's own plates give 63.7
    kg by the impulse over its full support, 6 % more, and replace it, saying so (vertical GRF from motion alone
    3.1 % BW from its plates, 7.1 with 60.0 kg, README); the sit-to-stand's give 59.7 kg and keep the static's."""
    from mocap_dynamics.solver.report import build_report, summary
    static = str(shared_data / "subject4_static1.trc")
    result = run(shared_data / f"{trial}.trc", PipelineOptions(until="contact", static=static))
    assert result.model.total_mass == pytest.approx(mass, abs=0.1)
    warned = [w for w in result.model.metadata["calibration"].warnings if w.startswith("Body mass")]
    assert not result.plate_comparison.warnings
    if mass == 60.0:
        assert not warned and result.model.mass_source == STATIC_STANDING + " subject4_static1.trc)"
    else:
        assert warned == [
            "Body mass 63.7 kg from the trial's force plates (m(a_CM + g) = F over 1.19 s of full support), 6 % more "
            "than the 60.0 kg of the quiet standing in the static trial subject4_static1.trc: the trial's dynamics "
            "balance its own plates. The plates' calibration or the session may differ; set mass=<kg> to choose"]
        assert warned[0] in summary(build_report(result))
        assert result.plate_comparison.rmse_vertical < 4.0


def turning(degrees: float) -> np.ndarray:
    """The rotation (3, 3) by ``degrees`` about the vertical."""
    c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def turned(path, folder, degrees: float):
    """The trial at ``path`` with the lab turned by ``degrees`` about the vertical (and its origin moved), written
    to ``folder`` without its plates."""
    trial = load_trial(path)
    markers = trial.markers @ turning(degrees).T + (1.0, -2.0, 0.0)
    moved = folder / f"{path.stem}_turned_{degrees:g}.trc"
    write_trc(replace(trial, markers=markers), moved)
    return moved


@pytest.mark.parametrize("degrees", [37, 90, 180])
def test_the_box_is_found_whichever_way_the_lab_faces(shared_data, tmp_path, degrees):
    """The video drop jump with the lab turned: the same box under both feet, the same floor, the same forces
    (grid cells that followed the lab's axes kept one foot on the box at 90 and 180 degrees)."""
    path = shared_data / "opencap_video_DJ4.trc"
    lab = run(path, PipelineOptions(until="contact")).contact
    contact = run(turned(path, tmp_path, degrees), PipelineOptions(until="contact", mass=lab.model.total_mass)).contact
    assert [(p.kind, p.segments) for p in contact.patches] == [(p.kind, p.segments) for p in lab.patches]
    assert lab.patches[1].segments == ("foot_l", "foot_r", "shank_l", "shank_r")
    assert np.allclose([p.height for p in contact.patches], [p.height for p in lab.patches], atol=1e-3)
    sides = lambda corners: np.sort(np.linalg.norm(np.diff(corners[[0, 1, 2]], axis=0), axis=1))  # noqa: E731
    assert np.allclose(sides(contact.patches[1].corners), sides(lab.patches[1].corners), atol=0.01)
    gap = contact.foot_force[..., 2] - lab.foot_force[..., 2]
    assert np.sqrt(np.nanmean(gap ** 2)) < 0.005 * lab.body_weight


@pytest.mark.parametrize("name", ["subject4_walking1", "subject4_DJ3"])
def test_the_forces_and_moments_turn_with_the_lab(shared_data, tmp_path, name):
    """The same motion in a lab turned by 37° gives the turned forces and the same joint moments: the friction
    pyramids are set by the way the subject faces (by the lab's axes they gave forces 0.2 % BW RMS apart)."""
    path = shared_data / f"{name}.trc"
    lab = run(path, PipelineOptions(until="contact")).contact
    mass = lab.model.total_mass
    contact = run(turned(path, tmp_path, 37), PipelineOptions(until="contact", mass=mass)).contact
    assert [(p.kind, round(p.height, 3)) for p in contact.patches] == [(p.kind, round(p.height, 3))
                                                                       for p in lab.patches]
    gap = contact.foot_force @ turning(37) - lab.foot_force  # turned back
    assert np.sqrt(np.nanmean(gap ** 2)) < 1e-4 * lab.body_weight  # 3e-9 of it found (the file's rounding)
    ours, theirs = joint_moments(lab.dynamics), joint_moments(contact.dynamics)
    for joint in ("hip_l", "hip_r", "knee_l", "knee_r", "ankle_l", "ankle_r"):
        for component in ours.components[ours.joints.index(joint)]:
            gap = theirs.moment(joint, component) - ours.moment(joint, component)
            assert np.sqrt(np.nanmean(gap ** 2)) < 1e-4 * mass, (joint, component)
