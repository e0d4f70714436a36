"""The root force in flight (``contact.flight``): closed forms on given activations, and real trials whose plates
say which frames fly and how far the forces from the motion alone are off."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.batch import report_figures
from mocap_dynamics.solver.contact.flight import EDGE, MIN_FLIGHT, WARN_ABOVE, flight
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.report import summary
from mocap_dynamics.solver.report_schema import FlightSummary
from mocap_dynamics.solver.sample import MASS, write_sample

WEIGHT = 700.0
LEAST = 1e-3


def trial(airborne: slice, force_in_flight: np.ndarray, rate: float = 100.0, n: int = 100):
    """Activations (T, 4) of 1 but 0 in the frames ``airborne``, a root force (T, 3) of the body weight on the
    ground and ``force_in_flight`` in flight."""
    activation = np.ones((n, 4))
    activation[airborne] = 0.0
    force = np.tile([0.0, 0.0, WEIGHT], (n, 1))
    force[airborne] = force_in_flight
    return activation, force, np.arange(n) / rate


E = int(round(EDGE * 100))  # frames left out at each end of a flight at 100 Hz


def test_exact_kinematics_need_no_root_force_in_flight():
    found = flight(*trial(slice(30, 60), np.zeros(3)), WEIGHT, LEAST)
    assert np.flatnonzero(found.frames).tolist() == list(range(30 + E, 60 - E))
    assert np.flatnonzero(~found.in_reach).tolist() == list(range(30, 60))  # the edges are in flight, not in reach
    assert found.seconds == pytest.approx(0.3 - 2 * E / 100)
    assert found.root_force_rms_bw == 0.0 and found.warning is None


def test_the_root_force_in_flight_is_its_rms_over_those_frames():
    """Half the flight needs 0.3 BW up, half 0.4 BW sideways: RMS sqrt((0.09 + 0.16) / 2) BW, above the warning."""
    activation, force, times = trial(slice(30, 60), np.zeros(3))
    force[30:45] = [0.0, 0.0, 0.3 * WEIGHT]
    force[45:60] = [0.4 * WEIGHT, 0.0, 0.0]
    found = flight(activation, force, times, WEIGHT, LEAST)
    assert found.root_force_rms_bw == pytest.approx(np.sqrt(0.125))
    assert found.summary() == {"seconds": pytest.approx(0.3 - 2 * E / 100), "frames": 30 - 2 * E,
                               "root_force_rms_percent_bw": pytest.approx(100 * np.sqrt(0.125))}
    assert "35 % BW RMS" in found.warning and found.root_force_rms_bw > WARN_ABOVE


def test_the_edges_of_a_flight_do_not_count():
    """The filter spreads a stance's force into the flight's first and last frames; the contact never pushes
    there, so they say nothing of the forces' error."""
    activation, force, times = trial(slice(30, 60), np.zeros(3))
    force[30:30 + E] = force[60 - E:60] = [0.0, 0.0, 2.0 * WEIGHT]
    assert flight(activation, force, times, WEIGHT, LEAST).root_force_rms_bw == 0.0


def test_a_point_in_reach_or_a_frame_without_a_pose_is_no_flight():
    activation, force, times = trial(slice(30, 60), np.zeros(3))
    activation[30:35, 2] = 2 * LEAST  # one point still within reach
    force[55:60] = np.nan  # no root force: no pose
    found = flight(activation, force, times, WEIGHT, LEAST)
    assert np.flatnonzero(found.frames).tolist() == list(range(35 + E, 55 - E))


def test_too_short_a_flight_says_nothing():
    frames = int(MIN_FLIGHT * 100) + 2 * E - 1
    assert flight(*trial(slice(30, 30 + frames), np.zeros(3)), WEIGHT, LEAST) is None
    assert flight(*trial(slice(30, 60), np.zeros(3)), 0.0, LEAST) is None
    assert flight(*trial(slice(0, 30), np.zeros(3)), WEIGHT, LEAST).frames[:E + 1].tolist() == [False] * E + [True]


@pytest.fixture(scope="module")
def drop_jump(shared_data):
    return run(shared_data / "subject4_DJ3.trc", PipelineOptions(until="contact"))


def test_a_drop_jump_flies_where_its_plates_see_nothing_and_needs_little_there(drop_jump):
    """DJ3 flies off the box and in its jump (0.47 s without the flights' edges); its plates carry nothing in those
    frames (an independent check of the frames), and the motion needs 6.5 % BW there, below the warning (its
    vertical GRF from motion alone is within 12.7 % BW of the plates)."""
    contact, plates = drop_jump.contact, drop_jump.plate_comparison
    found = contact.flight
    assert 0.3 < found.seconds < 0.7
    measured = np.interp(contact.times, plates.times, np.linalg.norm(plates.measured, axis=1))
    assert measured[found.frames].max() < 0.02 * contact.body_weight
    assert found.root_force_rms_bw < 0.10 and found.warning is None
    assert not any("in flight" in w for w in contact.warnings)
    report = drop_jump.report()
    assert set(report["contact"]["flight"]) == set(FlightSummary.__annotations__)
    assert report["contact"]["flight"]["frames"] == int(np.count_nonzero(found.frames))
    assert f"in flight {found.seconds:.2f} s" in summary(report)
    assert report_figures(report)["flight_root_force_percent_bw"] == pytest.approx(100 * found.root_force_rms_bw)
    in_reach = report["contact"]["flight"]["explained_force_in_reach"]
    assert report_figures(report)["explained_force_in_reach_percent"] == pytest.approx(100 * in_reach)
    assert f"the contact explains {100 * in_reach:.0f} % of the root force in the frames with a body point" \
        in summary(report)


def test_the_sprint_is_flagged_and_its_unexplained_root_force_lies_in_flight(shared_data):
    """At 9 m/s the markers' motion needs a third of the body weight and more in flight (36.5 % BW RMS on
    2026-12-07): the contact warns (its forces from motion alone miss the plates by 22.1 % BW). It explains 74 %
    of the root force over the whole trial, 86 % over the frames in which a body point is within reach of the
    floor: over half of what it leaves lies in the other 41 % of the frames, where no contact can act."""
    contact = run(shared_data / "sprint_forceplates_JA1Gait35.c3d", PipelineOptions(until="contact")).contact
    assert contact.flight.root_force_rms_bw > 0.3
    assert any(w.startswith("in flight") and "check them against force plates" in w for w in contact.warnings)
    in_reach = contact.summary()["flight"]["explained_force_in_reach"]
    assert contact.explained_force < 0.8 and in_reach > contact.explained_force + 0.1
    assert 0.3 < np.mean(~contact.flight.in_reach) < 0.5


def test_a_walk_never_flies(tmp_path):
    """The project's sample walk: a foot is always on the floor, so no flight and no figure for it."""
    contact = run(write_sample(tmp_path)["c3d"], PipelineOptions(mass=MASS, until="contact")).contact
    assert contact.flight is None and "flight" not in contact.summary()
