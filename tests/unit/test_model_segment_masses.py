"""The segments' shares of the body mass from Dumas, Chèze & Verriest (2007) (``model.inertia``): the shares as
their Table 2 gives them, and checked against force plates: the moment the model's motion leaves unbalanced with
the measured plates."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.errors import InputError, ModelError
from mocap_dynamics.solver.model import calibrate
from mocap_dynamics.solver.model.inertia import DUMAS_MASSES
from mocap_dynamics.solver.pipeline import PipelineOptions, run


def test_the_body_mass_is_shared_out_as_dumas_table_2(subject4_static):
    """60 kg less two 0.3 kg shoes, shared in proportion to the table's percentages (they sum to 100.2 for men);
    the torso is their torso (the trunk less the pelvis). The table's own shares with ``segment_masses="table"``
    (de Leva's lower trunk, 11.17 %, is the pelvis)."""
    dumas, table = (calibrate(subject4_static, mass=60.0, segment_masses=which) for which in ("dumas", "table"))
    assert dumas.metadata["segment_masses"] == "dumas" and table.metadata["segment_masses"] == "table"
    shares = DUMAS_MASSES["male"]
    total = shares["head"] + shares["trunk"] + 2 * sum(shares[row] for row in ("upper_arm", "forearm", "hand",
                                                                                   "thigh", "shank", "foot"))
    assert total == pytest.approx(100.2)
    mass = {s.name: s.mass for s in dumas.segments}
    body = 60.0 - 0.6
    for segment, percent in (("pelvis", 14.2), ("torso", 33.3), ("head", 6.7), ("thigh_l", 12.3), ("shank_r", 4.8),
                             ("upper_arm_l", 2.4)):
        assert mass[segment] == pytest.approx(body * percent / total, rel=1e-9)
    assert mass["foot_l"] == pytest.approx(body * 1.2 / total + 0.3, rel=1e-9)
    assert sum(mass.values()) == pytest.approx(60.0, rel=1e-12)
    assert {s.name: s.mass for s in table.segments}["pelvis"] == pytest.approx(body * 11.17 / 100.0, rel=1e-3)


def test_unknown_segment_masses_are_one_line(subject4_static):
    with pytest.raises(ModelError, match="Unknown segment masses"):
        calibrate(subject4_static, mass=60.0, segment_masses="zatsiorsky")
    with pytest.raises(InputError, match="Unknown segment masses"):
        PipelineOptions(segment_masses="zatsiorsky")


def unbalanced_moment(result) -> float:
    """RMS [N·m/kg] of the moment about the lateral axis through the plates' combined centre of pressure that the
    model's motion needs beyond the plates' loads (the root residual with the measured plates, moved there), over
    the frames in which the plates see all the contact and carry half the body weight, away from touch-downs
    (``PlateComparison.away_from_touchdowns``, where the markers do not follow the impact): zero for a model whose
    masses and motion are the body's."""
    comparison, dynamics = result.plate_comparison, result.dynamics_with_plates
    load = comparison.measured_feet[..., 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        point = np.nansum(np.nan_to_num(comparison.measured_cop) * load[..., None], axis=1) / load.sum(1)[:, None]
    residual = dynamics.root_wrench
    moment = residual[:, 3:] + np.cross(dynamics.q[:, :3] - point, residual[:, :3])
    frames = comparison.plates_see_all & (load.sum(1) > 0.5 * comparison.body_weight)
    frames &= comparison.away_from_touchdowns
    lateral = np.cross([0.0, 0.0, 1.0], comparison.forward)
    return float(np.sqrt(np.mean((moment[frames] @ lateral) ** 2))) / result.model.total_mass


@pytest.mark.parametrize("trial", ["subject4_STS1", "subject4_walking1"])
def test_the_plates_leave_less_moment_unbalanced_with_dumas_masses(shared_data, trial):
    """Against the trial's own force plates, which the model did not come from: the moment about the plates'
    centre of pressure that the motion needs beyond the plates' loads is smaller with Dumas's shares than with de
    Leva's: sit-to-stand 0.383 -> 0.346 N·m/kg, walking1 0.167 -> 0.153 (also walking4, DJ3 and both video trials,
    by 1-10 %)."""
    rms = {which: unbalanced_moment(run(shared_data / f"{trial}.trc",
                                        PipelineOptions(until="contact", segment_masses=which)))
           for which in ("dumas", "table")}
    assert rms["dumas"] < 0.95 * rms["table"]
