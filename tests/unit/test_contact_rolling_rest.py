"""Where no body point rests long enough, the soles' points are judged with their foot (``contact.support``'s
last resort, ``rolling_speeds``), checked against rigid-body kinematics in closed form and on the sprint with a
stricter rest than the default's."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.contact import support
from mocap_dynamics.solver.contact.sliding import sliding_speeds
from mocap_dynamics.solver.contact.support import rolling_speeds
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from tests.unit.test_contact_sliding import CORNERS, SOLES


def _rolling(axis_x: float, turn_rate: float, carried=(0.0, 0.0, 0.0)) -> np.ndarray:
    """Velocities (1, 5, 3) of ``CORNERS`` turning at ``turn_rate`` [rad/s] about the lateral axis through
    (``axis_x``, 0, 0) and carried at ``carried`` [m/s]: ω ŷ × (p - c) + u."""
    return (np.cross([0.0, turn_rate, 0.0], CORNERS - [axis_x, 0.0, 0.0]) + np.asarray(carried))[None]


def test_a_sole_rolling_over_a_line_across_it_is_judged_as_sliding_is():
    """A foot rolling at 5 rad/s over a line between its heel and its metatarsal heads: its points move up behind
    the line and down ahead of it (0.35-0.5 m/s at the corners), none horizontally; judged as the sliding factor
    judges it, the corner nearest the line still."""
    velocities = _rolling(0.1, 5.0)
    judged = rolling_speeds(velocities, SOLES)
    np.testing.assert_allclose(judged, sliding_speeds(velocities, SOLES), atol=1e-12)
    assert np.linalg.norm(velocities, axis=-1)[0, :4].min() > 0.3 and judged[0, 2] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("carried", [(0.0, 0.0, 1.0), (0.0, 0.0, -0.6)])
def test_a_sole_carried_up_or_down_as_a_whole_is_judged_at_that_speed(carried):
    """A foot lifted or lowered at 1 or 0.6 m/s as a whole (a trampoline's bed carrying it), rolling a little
    or not: no point of its sole is still, though its slowest point horizontally is (``sliding_speeds`` alone
    judges it still)."""
    for turn_rate in (0.0, 2.0):
        velocities = _rolling(0.1, turn_rate, carried)
        judged = rolling_speeds(velocities, SOLES)[0]
        assert sliding_speeds(velocities, SOLES)[0, :4].min() == pytest.approx(0.0, abs=1e-12)
        assert judged[:4].min() >= abs(carried[2]) - 2.0 * 0.1 - 1e-12  # the corners' vertical speeds at least
        assert judged[4] == pytest.approx(np.linalg.norm(velocities[0, 4]))


def test_a_sprint_no_point_of_which_rests_long_enough_finds_its_floor_with_its_soles(shared_data, monkeypatch):
    """The sprint asked to rest 0.08 s (its stances last 0.1): no point rests that long at either cutoff, and no
    support was found (its vertical GRF 147 % BW from the plates); its soles rolling on the floor find it, 0.2 cm
    lower than as built, and the forces follow the plates as closely (22.8 against 22.7 % BW)."""
    path = shared_data / "sprint_forceplates_JA1Gait35.c3d"
    built = run(path, PipelineOptions(until="contact"))
    assert not built.contact.patches[0].found_rolling
    monkeypatch.setattr(support, "REST_TIME", 0.08)
    strict = run(path, PipelineOptions(until="contact"))
    contact, plates = strict.contact, strict.plate_comparison
    assert [p.kind for p in contact.patches] == ["floor"] and contact.patches[0].found_rolling
    assert abs(contact.patches[0].height - built.contact.patches[0].height) < 0.01
    assert plates.rmse_vertical < built.plate_comparison.rmse_vertical + 1.0 and plates.correlation_vertical > 0.98
    assert any("judged as a whole" in warning for warning in contact.warnings)
