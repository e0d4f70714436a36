"""Which foot a force plate measures, frame by frame (``contact.plate_feet``): a foot landing on a plate the other
has not left (a crossover step on a split-belt treadmill), and the hand-over's timing left unmeasured."""

from __future__ import annotations

import numpy as np

from mocap_dynamics.solver.contact.compare import _contact_events
from mocap_dynamics.solver.contact.plate_feet import SHARED, feet_of_plates, pieces

#: A left belt: the plate's outline, x along the walk, its edge with the right belt at y = 0.
LEFT_BELT = np.array([[0.5, 0.85, 0.0], [-0.5, 0.85, 0.0], [-0.5, 0.0, 0.0], [0.5, 0.0, 0.0]])
#: Two soles of four points (x, y), segments 4 (left foot) and 7 (right foot); the right one's medial edge 2 cm over
#: the left belt's edge.
SOLE = np.array([[-0.05, -0.04], [-0.05, 0.04], [0.15, -0.04], [0.15, 0.04]])
SEGMENTS = np.array([4] * 4 + [7] * 4)


def feet_at(y_left: float, y_right: float) -> np.ndarray:
    """The eight points (8, 3) on the floor with the soles' centre lines at ``y_left`` and ``y_right``."""
    points = np.concatenate([SOLE + [0.0, y_left], SOLE + [0.0, y_right]])
    return np.column_stack([points, np.zeros(8)])


def test_a_plate_goes_to_the_foot_over_its_centre_of_pressure_and_to_neither_while_both_load_it():
    """Frame 0: the left foot alone loads the belt; 1: the right foot lands across the belts' edge while the left
    still pushes off (both inside the outline): neither share is measured; 2: the left foot has left, the belt
    carries the right one's medial edge; 3: no centre of pressure."""
    positions = np.stack([feet_at(0.15, -0.02)] * 4)  # (4, 8, 3)
    load = np.zeros((4, 8))
    load[0, :4] = 150.0
    load[1, :4], load[1, [5, 7]] = 80.0, 100.0  # the right foot's medial points (y = +0.02) on the belt
    load[2, 4:] = 150.0
    cop = np.array([[0.05, 0.15, 0.0], [0.08, 0.08, 0.0], [0.05, 0.01, 0.0], [np.nan] * 3])[:, None]
    owners = feet_of_plates(positions, SEGMENTS, load, [4, 7], LEFT_BELT[None], cop, threshold=30.0)
    assert owners[:, 0].tolist() == [0, SHARED, 1, -1]
    no_outline = feet_of_plates(positions, SEGMENTS, load, [4, 7], np.full((1, 4, 3), np.nan), cop, 30.0)
    assert no_outline[:, 0].tolist() == [0, 0, 1, -1]  # a GRF file's plate: the foot nearest its COP
    assert feet_of_plates(positions, SEGMENTS, load, [], LEFT_BELT[None], cop, 30.0).tolist() == [[-1]] * 4


def test_a_stance_is_cut_where_its_foot_changes():
    owner = np.array([0, 0, SHARED, SHARED, 1, 1, -1, 1])
    assert pieces(owner, whole=1) == [(0, 2, 0), (2, 4, SHARED), (4, 8, 1)]
    assert pieces(np.array([-1, -1, 0]), whole=0) == [(0, 3, 0)]


def test_a_hand_over_is_neither_an_offset_nor_an_onset():
    """Plate 0 carries the left foot over frames 10-30, then (after two shared frames) the right one to frame 45,
    while plate 1 carries the right one from frame 30 to 60: the left foot's offset and the right one's part on
    plate 0 are not measured; the right foot's onset and offset are plate 1's."""
    times, dt = np.arange(100) * 0.01, 0.01
    handed_over = {(0, 30), (0, 32)}
    left = _contact_events([(10, 30, 0)], [(9, 31)], 0, times, dt, handed_over)
    right = _contact_events([(32, 45, 0), (30, 60, 1)], [(29, 61)], 1, times, dt, handed_over)
    assert left[0].measured_onset == times[10] and np.isnan(left[0].measured_offset)
    assert right[0].measured_onset == times[30] and right[0].measured_offset == times[59] + dt
    assert np.isnan(_contact_events([(32, 45, 0)], [(31, 44)], 1, times, dt, handed_over)[0].measured_onset)
