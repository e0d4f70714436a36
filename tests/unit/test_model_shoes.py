"""Shoes (``model.inertia``, Shoes): part of the body mass the scales and plates weigh, worn on the feet and
distributed like them; kept as they are when the body's mass is found later (``with_body_mass``)."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.errors import InputError
from mocap_dynamics.solver.model import calibrate, with_body_mass
from mocap_dynamics.solver.pipeline import PipelineOptions

SHOE = 0.3


@pytest.fixture(scope="module")
def models(subject4_static):
    return {shoe: calibrate(subject4_static, mass=60.0, shoe_mass=shoe) for shoe in (0.0, SHOE)}


def test_the_shoes_are_part_of_the_body_mass_and_ride_on_the_feet(models):
    barefoot, shod = models[0.0], models[SHOE]
    assert barefoot.total_mass == pytest.approx(60.0) and shod.total_mass == pytest.approx(60.0)
    assert barefoot.metadata["shoes"] == {} and shod.metadata["shoes"] == {"foot_l": SHOE, "foot_r": SHOE}
    body = (60.0 - 2 * SHOE) / 60.0  # the table shares out the body without its shoes
    for bare, worn in zip(barefoot.segments, shod.segments):
        mass = bare.mass * body + (SHOE if bare.name.startswith("foot") else 0.0)
        assert worn.mass == pytest.approx(mass, rel=1e-12), bare.name
        np.testing.assert_allclose(worn.com, bare.com, atol=1e-12)  # a shoe wraps its foot
        np.testing.assert_allclose(worn.inertia, bare.inertia * mass / bare.mass, rtol=1e-12)


def test_a_body_mass_found_later_keeps_the_shoes(models):
    shod = models[SHOE]
    heavier = with_body_mass(shod, 80.0, "force plates")
    assert heavier.total_mass == pytest.approx(80.0) and heavier.metadata["shoes"] == shod.metadata["shoes"]
    body = (80.0 - 2 * SHOE) / (60.0 - 2 * SHOE)
    for before, after in zip(shod.segments, heavier.segments):
        shoe = SHOE if before.name.startswith("foot") else 0.0
        assert after.mass == pytest.approx((before.mass - shoe) * body + shoe, rel=1e-12), before.name
        np.testing.assert_allclose(after.inertia / after.mass, before.inertia / before.mass, rtol=1e-12)


def test_no_shoe_is_heavier_than_a_shoe(subject4_static):
    with pytest.raises(InputError, match="is not a shoe's mass for a body of 60.0 kg"):
        calibrate(subject4_static, mass=60.0, shoe_mass=4.0)
    for bad in (-0.1, float("nan"), "light", True):
        with pytest.raises(InputError, match="shoe_mass=.* is not a shoe's mass"):
            PipelineOptions(shoe_mass=bad)
