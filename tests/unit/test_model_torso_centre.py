"""The torso's centre of mass at Dumas, Chèze & Verriest (2007)'s position (``model.inertia``), checked in closed
form and against the force plates of subject 4's static trial."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.errors import InputError, ModelError
from mocap_dynamics.solver.model import calibrate
from mocap_dynamics.solver.model.inertia import LUMBOSACRAL_HEIGHT, dumas_torso_centre
from mocap_dynamics.solver.pipeline import PipelineOptions, run


@pytest.mark.parametrize("sex, ahead, below", [("male", -0.036, 0.420), ("female", -0.016, 0.436)])
def test_dumas_puts_the_torsos_centre_behind_its_axis_below_the_neck(sex, ahead, below):
    """Table 2 of Dumas et al. (2007), in percent of their torso's length, from the cervical joint centre to L5/S1:
    ours 0.5 m from its lumbar joint to the neck, L5/S1 0.1 m below that joint; upright, then leaning 30°."""
    lumbar, neck, length = np.zeros(3), np.array([0.0, 0.0, 0.5]), 0.6
    np.testing.assert_allclose(dumas_torso_centre(lumbar, neck, 0.1, sex),
                               [ahead * length, 0.0, 0.5 - below * length], atol=1e-12)
    lean = np.radians(30.0)
    up, forward = np.array([np.sin(lean), 0.0, np.cos(lean)]), np.array([np.cos(lean), 0.0, -np.sin(lean)])
    expected = (0.5 - below * length) * up + ahead * length * forward
    np.testing.assert_allclose(dumas_torso_centre(lumbar, 0.5 * up, 0.1, sex), expected, atol=1e-12)


def test_dumas_torso_reaches_down_to_the_lumbosacral_joint(subject4_static):
    """Our lumbar joint is de Leva's omphalion, 27.4 % of the way up from the hips; Dumas's torso ends at L5/S1,
    Reed et al.'s 0.56 hip widths above the hips: on subject 4 that carries the torso 5 cm further down and its CM
    2 cm lower than 42 % of our torso's length."""
    model = calibrate(subject4_static, mass=60.0)
    index = {s.name: k for k, s in enumerate(model.segments)}
    torso, hip_l, hip_r = (model.segments[index[n]] for n in ("torso", "thigh_l", "thigh_r"))
    lumbar_above_hips = np.linalg.norm(torso.joint_offset - (hip_l.joint_offset + hip_r.joint_offset) / 2)
    depth = lumbar_above_hips - LUMBOSACRAL_HEIGHT["male"] * np.linalg.norm(hip_l.joint_offset - hip_r.joint_offset)
    assert 0.03 < depth < 0.07
    neck = torso.tip
    below_neck = neck[2] - torso.com[2]
    assert below_neck == pytest.approx(0.42 * (np.linalg.norm(neck) + depth), abs=0.002)  # the table's parts move it


def test_only_the_torsos_centre_moves(subject4_static):
    dumas, table = (calibrate(subject4_static, mass=60.0, torso_centre=where) for where in ("dumas", "table"))
    assert dumas.metadata["torso_centre"] == "dumas" and table.metadata["torso_centre"] == "table"
    for a, b in zip(dumas.segments, table.segments):
        assert a.mass == b.mass and np.allclose(a.inertia, b.inertia, rtol=0, atol=1e-12)
        if a.name != "torso":
            np.testing.assert_array_equal(a.com, b.com)
    torso = [s.name for s in dumas.segments].index("torso")
    behind = table.segments[torso].com[0] - dumas.segments[torso].com[0]
    assert 0.02 < behind < 0.04  # the table's lies ahead of the axis, Dumas's behind it


def test_the_body_stands_over_the_plates_centre_of_pressure(shared_data):
    """Quiet standing on force plates (subject 4's static trial): the body's CM lies above the plates' centre of
    pressure. 0.41 cm from it with Dumas's torso (0.44 with its percentages taken of our shorter torso), 1.37 cm
    (ahead) with the table's."""
    off = {}
    for where in ("dumas", "table"):
        result = run(shared_data / "subject4_static1.trc", PipelineOptions(until="reconstruct", torso_centre=where))
        plates = result.trial.plate_samples
        load = np.nan_to_num(plates.force[..., 2])
        cop = (np.nan_to_num(plates.cop[..., :2]) * load[..., None]).sum(1) / load.sum(1)[:, None]
        off[where] = np.linalg.norm(np.mean(result.model.body_com(result.motion.q)[:, :2] - cop, axis=0))
    assert off["dumas"] < 0.006 and off["table"] > 0.012


def test_an_unknown_torso_centre_is_one_line(subject4_static):
    with pytest.raises(InputError, match="torso_centre"):
        PipelineOptions(torso_centre="gait2392")
    with pytest.raises(ModelError, match="torso_centre"):
        calibrate(subject4_static, mass=60.0, torso_centre="gait2392")
