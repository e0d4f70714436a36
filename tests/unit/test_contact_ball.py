"""The bouncing ball of §3: a point mass on a plane; its surface height, stiffness and damping from its motion."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.contact import Material, Plane, Surface, estimate_ball, simulate_ball
from mocap_dynamics.solver.errors import SolverError

#: The paper's two surfaces: a hard table (κ ≈ 24) and a softer, slightly more damped mouse pad (κ ≈ 15).
TABLE = Surface.floor(0.72, material=Material(24.0, 4.0, 2.0))
MOUSE_PAD = Surface.floor(0.725, material=Material(15.0, 5.0, 3.0))


@pytest.mark.parametrize("surface", [TABLE, MOUSE_PAD], ids=["table", "mouse pad"])
def test_ball_recovers_its_surface(surface):
    ball = simulate_ball(surface, start=(0.0, 0.0, 1.0), velocity=(0.5, 0.1, 0.0), rate=240.0, duration=2.0)
    heights = ball.positions[:, 2]
    bounces = np.flatnonzero((heights[1:-1] > heights[:-2]) & (heights[1:-1] > heights[2:]))
    assert len(bounces) >= 2 and heights.min() < surface.top.offset  # it bounces (sinking into the surface)
    estimate = estimate_ball(ball.times, ball.positions)
    found = estimate.surface
    assert found.top.height_at(0.0, 0.0) == pytest.approx(surface.top.offset, abs=1e-3)
    assert found.top.angle < 0.1
    np.testing.assert_allclose(found.material.array(), surface.material.array(), rtol=0.01)
    assert estimate.explained > 0.999
    np.testing.assert_allclose(estimate.modelled, ball.forces[:len(estimate.times)], atol=1e-3)


def test_table_is_stiffer_than_the_mouse_pad():
    found = {}
    for name, surface in (("table", TABLE), ("pad", MOUSE_PAD)):
        ball = simulate_ball(surface, start=(0.0, 0.0, 1.0), velocity=(0.3, 0.0, 0.0), duration=1.5)
        found[name] = estimate_ball(ball.times, ball.positions).surface.material
    assert found["table"].stiffness > found["pad"].stiffness
    assert found["pad"].normal_damping > found["table"].normal_damping


def test_ball_on_a_tilted_plane():
    tilted = Surface((Plane.through((0.0, 0.0, 0.5), (0.05, 0.0, 1.0)),), Material(30.0, 6.0, 4.0))
    ball = simulate_ball(tilted, start=(0.0, 0.2, 0.8), velocity=(0.2, -0.4, 0.0), duration=2.0)
    found = estimate_ball(ball.times, ball.positions).surface
    assert np.degrees(np.arccos(found.top.normal @ tilted.top.normal)) < 0.1
    np.testing.assert_allclose(found.material.array(), tilted.material.array(), rtol=0.01)


def test_ball_input_is_checked():
    with pytest.raises(SolverError, match="at least 4 frames"):
        estimate_ball(np.arange(3.0), np.zeros((3, 3)))
    with pytest.raises(SolverError, match="uniformly"):
        estimate_ball(np.array([0.0, 0.1, 0.3, 0.4]), np.zeros((4, 3)))
