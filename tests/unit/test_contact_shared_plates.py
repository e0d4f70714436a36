"""A force plate under both feet (one plate under a squat, a single-belt treadmill, plates combined before export),
split between them by its centre of pressure (``solver.contact.shared_plates``).

Known answers: two feet whose loads the plate sums are recovered exactly from the feet's centres of pressure and
slants, however wrongly the estimate shares the load; the split always keeps the plate's wrench. Real data: the
shared trials' per-foot plates summed into one plate give back the per-foot plates' body mass and joint torques
(before the split, the whole load went to the foot nearest the centre of pressure: no body mass from the drop
jump's plates, and the torques with the plates at r 0.34-0.86 with the per-foot plates' on the drop jump's hips,
knees and ankles, 0.58-0.91 on walking1's); the comparison alone says it cannot split such a plate."""

from __future__ import annotations

import shutil
import warnings
from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.contact import compare_with_plates
from mocap_dynamics.solver.contact.compare_moments import compare_moments_with_plates
from mocap_dynamics.solver.contact.shared_plates import _split
from mocap_dynamics.solver.io.mot import read_table, write_table
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.report import summary


def feet(frames: int, seed: int):
    """Two feet of three points each on a level plate at height 0.01 m, their point forces (T, 3, 3) pushing up
    and slanting fore and aft (one foot braking, the other propelling) and positions (T, 3, 3)."""
    rng = np.random.default_rng(seed)
    forces, points = [], []
    for centre, slant in (([0.0, 0.1, 0.01], -0.15), ([0.6, -0.1, 0.01], 0.2)):
        place = np.array(centre) + np.c_[rng.uniform(-0.1, 0.1, (3, 2)), np.zeros(3)]
        points.append(np.broadcast_to(place, (frames, 3, 3)).copy())
        vertical = rng.uniform(20.0, 200.0, (frames, 3))
        forces.append(np.stack([slant * vertical, 0.05 * vertical, vertical], axis=-1))
    return forces, points


def plate_of(forces, points):
    """What one plate under both feet measures: force, centre of pressure on its top and free moment about it."""
    force = sum(f.sum(1) for f in forces)
    moment = sum(np.cross(p, f).sum(1) for f, p in zip(forces, points))  # about the origin
    cop = np.zeros_like(force)
    cop[:, 2] = 0.01
    cop[:, 0] = (cop[:, 2] * force[:, 0] - moment[:, 1]) / force[:, 2]
    cop[:, 1] = (moment[:, 0] + cop[:, 2] * force[:, 1]) / force[:, 2]
    free = moment - np.cross(cop, force)
    return force, cop, free


def wrench(force, cop, moment):
    """Total force and moment about the origin of loads at ``cop`` (NaN: unloaded) with free ``moment``."""
    return force, np.cross(np.nan_to_num(cop), force) + moment


def test_the_feet_are_recovered_whatever_share_the_estimate_gives():
    true_forces, points = feet(50, seed=1)
    force, cop, free = plate_of(true_forces, points)
    np.testing.assert_allclose(free[:, :2], 0.0, atol=1e-9)  # a level plate's free moment is vertical
    estimate = [true_forces[0] * 2.5, true_forces[1] * 0.4]  # the shares wrong, each foot's COP and slant right
    split = _split(force, cop, free, estimate, points, least=10.0)
    for (f, c, m), truth, at in zip(split, true_forces, points):
        true_cop = (at * truth[..., 2:3]).sum(1) / truth[..., 2].sum(1)[:, None]
        np.testing.assert_allclose(f, truth.sum(1), atol=1e-9)
        np.testing.assert_allclose(c, true_cop, atol=1e-12)
        np.testing.assert_allclose(m, np.cross(at - true_cop[:, None], truth).sum(1), atol=1e-9)


@pytest.mark.parametrize("seed", [2, 3])
def test_the_split_keeps_the_plates_wrench_and_the_feet_push(seed):
    """An estimate unlike the plate (noise in its forces, COPs off by centimetres, one foot unloaded in some
    frames): the two feet's loads still sum to the plate's force and moment, and each foot pushes."""
    rng = np.random.default_rng(seed)
    true_forces, points = feet(80, seed)
    force, cop, free = plate_of(true_forces, points)
    estimate = [f * rng.uniform(0.3, 3.0, f.shape) for f in true_forces]
    estimate[1][:20] = 0.0  # the estimate lifts the right foot early
    moved = [p + rng.normal(0.0, 0.02, p.shape) * [1, 1, 0] for p in points]
    split = _split(force, cop, free, estimate, moved, least=10.0)
    total = [sum(w) for w in zip(*(wrench(*foot) for foot in split))]
    expected = wrench(force, cop, free)
    np.testing.assert_allclose(total[0], expected[0], atol=1e-9)
    np.testing.assert_allclose(total[1], expected[1], atol=1e-8)
    assert all((foot[0][:, 2] >= -1e-9).all() for foot in split)
    np.testing.assert_allclose(split[1][0][:20], 0.0, atol=1e-12)  # unloaded there: the left foot takes all


def test_a_frame_without_a_pose_is_left_unsplit():
    """No pose (no marker to place the feet) or no plate sample: both feet get NaN there (neither compared nor
    applied), without a numpy warning; the other frames are split as before."""
    true_forces, points = feet(10, seed=4)
    force, cop, free = plate_of(true_forces, points)
    force[7] = np.nan
    points = [p.copy() for p in points]
    for p in points:
        p[3] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        split = _split(force, cop, free, true_forces, points, least=10.0)
    for f, c, _ in split:
        assert np.isnan(f[[3, 7]]).all() and np.isnan(c[[3, 7]]).all() and np.isfinite(f[[0, 1, 2, 4, 5, 6]]).all()


def one_plate(shared_data, folder, name: str):
    """The trial ``name`` with its plates' columns summed into one plate (force, centre of pressure weighted by
    vertical force, free moment about it), written to ``folder``: a single plate under both feet."""
    shutil.copy(shared_data / f"{name}.trc", folder)
    table = read_table(shared_data / f"{name}_grf.mot")
    stems = [c[:-3] for c in table.columns if c.endswith("_vx")]
    force = sum(np.stack([table.column(f"{s}_v{a}") for a in "xyz"], 1) for s in stems)  # Y up
    point = [np.stack([table.column(f"{s}_p{a}") for a in "xyz"], 1) for s in stems]
    load = [table.column(f"{s}_vy") for s in stems]
    with np.errstate(invalid="ignore", divide="ignore"):
        cop = sum(p * w[:, None] for p, w in zip(point, load)) / force[:, 1:2]
    cop = np.nan_to_num(np.where(force[:, 1:2] > 20.0, cop, 0.0))
    cop[:, 1] = 0.0
    moment = sum(np.cross(p - cop, np.stack([table.column(f"{s}_v{a}") for a in "xyz"], 1))
                 + np.stack([table.column(f"{s.replace('force', 'torque')}_{a}") if f"{s.replace('force', 'torque')}_x"
                             in table.columns else table.column(f"{s}_m{a}") for a in "xyz"], 1)
                 for s, p in zip(stems, point))
    moment[:, [0, 2]] = 0.0  # the plates lie in one level plane: the free moment is vertical
    columns = ("time", *(f"ground_force_v{a}" for a in "xyz"), *(f"ground_force_p{a}" for a in "xyz"),
               *(f"ground_torque_{a}" for a in "xyz"))
    write_table(replace(table, columns=columns, data=np.column_stack([table.time, force, cop, moment])),
                folder / f"{name}_grf.mot")
    return folder / f"{name}.trc"


@pytest.mark.parametrize("name", ["subject4_DJ3", "subject4_walking1"])
def test_one_plate_under_both_feet_gives_the_per_foot_plates_torques(shared_data, tmp_path, name):
    per_foot = run(shared_data / f"{name}.trc", PipelineOptions(until="contact"))
    assert per_foot.plate_comparison.warnings == ()  # one plate per foot: never taken for a shared one
    path = one_plate(shared_data, tmp_path, name)
    shared = run(path, PipelineOptions(until="contact"))
    alone = compare_with_plates(shared.contact, shared.trial)  # the comparison by itself does not split: it says so
    assert len(alone.warnings) == 1 and "'ground_force' carries both feet at once: its load goes" in alone.warnings[0]
    assert shared.model.total_mass == pytest.approx(per_foot.model.total_mass, abs=0.3)
    assert "carries both feet at once for " in shared.plate_comparison.warnings[0]
    assert "): split between them by the plate's centre of pressure" in shared.plate_comparison.warnings[0]
    assert shared.dynamics_with_plates.options["external"].endswith("split between the feet")
    against = compare_moments_with_plates(shared.dynamics_with_plates, per_foot.dynamics_with_plates,
                                          per_foot.plate_comparison.plates_see_all).summary()["moments"]
    assert len(against) == 6  # hip and knee flexion, ankle dorsiflexion, both sides
    for joint, figures in against.items():
        assert figures["r"] > 0.97 and figures["rmse_nm_per_kg"] < 0.12, (joint, figures)
    stopped = run(path, PipelineOptions(until="dynamics"))  # the torques with the plates need no contact step
    assert stopped.contact is None
    assert stopped.dynamics_with_plates.options["external"].endswith("split between the feet")
    np.testing.assert_array_equal(stopped.dynamics_with_plates.joint_torque_world,
                                  shared.dynamics_with_plates.joint_torque_world)
    notes = [line for line in summary(stopped.report()).splitlines() if "carries both feet at once" in line]
    assert len(notes) == 1 and notes[0].startswith("  note: force plate 'ground_force' carries both feet")
    assert not [line for line in summary(shared.report()).splitlines() if line.startswith("  note: force plate")]
