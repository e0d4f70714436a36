"""Contact points (Brubaker et al. 2009 §5): eight around each segment's end, four under each foot."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.model import ContactConfig, calibrate, with_contact_points


@pytest.fixture(scope="module")
def model(shared_data):
    return calibrate(load_trial(shared_data / "cmu_dribble_shoot_basketball.c3d"), template="brubaker12")


def test_default_rings_and_soles(model):
    seat = {"pelvis": 2, "thigh_l": 8, "thigh_r": 8}  # ischial tuberosities, mid-thigh rings
    for s in model.segments:
        assert len(s.contact_points) == (4 if s.name.startswith("foot") else 8 + seat.get(s.name, 0)), s.name
        if not s.name.startswith("foot"):
            axis = s.tip / s.length
            offsets = s.contact_points[:8] - s.tip
            np.testing.assert_allclose(offsets @ axis, 0, atol=1e-12)  # in the plane through the tip
            radius = np.sqrt(axis @ s.inertia @ axis / s.mass)
            np.testing.assert_allclose(np.linalg.norm(offsets, axis=1), radius, rtol=1e-12)
    assert model.segments[model.index("forearm_l")].length > 0.3  # brubaker12: the forearm ends at the hand


def test_seat_points_under_the_hips_and_along_the_thighs(model):
    pelvis = model.segments[model.index("pelvis")]
    hips = np.array([model.segments[model.index(f"thigh_{side}")].joint_offset for side in "lr"])
    ischia = pelvis.contact_points[8:]
    width = np.linalg.norm(hips[0] - hips[1])
    assert np.all(ischia[:, 2] < hips[:, 2] - 0.5 * width)  # below the hip centres
    assert np.all(ischia[:, 0] < hips[:, 0])  # behind them
    assert np.ptp(ischia[:, 1]) < 0.7 * width  # closer together than the hips
    thigh = model.segments[model.index("thigh_l")]
    np.testing.assert_allclose(thigh.contact_points[8:].mean(0), thigh.tip / 2, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(thigh.contact_points[8:] - thigh.tip / 2, axis=1),
                               np.sqrt(2) * np.linalg.norm(thigh.contact_points[0] - thigh.tip), rtol=1e-12)
    without = with_contact_points(model, ContactConfig(seat=False))
    assert len(without.segments[0].contact_points) == 8


def test_the_seat_points_are_padded_with_soft_tissue(model):
    from mocap_dynamics.solver.contact.model import ContactPoints
    pad = ContactConfig().seat_padding
    assert 0.01 <= pad <= 0.05 and model.metadata["contact_padding"] == {"pelvis": [0.0] * 8 + [pad] * 2}
    points = ContactPoints.of(model)
    padded = np.flatnonzero(points.padding)
    np.testing.assert_array_equal(points.segments[padded], model.index("pelvis"))
    np.testing.assert_array_equal(points.local[padded], model.segments[model.index("pelvis")].contact_points[8:])
    assert not ContactPoints.of(with_contact_points(model, ContactConfig(seat=False))).padding.any()


def test_the_knee_rings_touch_only_the_floor(model):
    """The thigh's ring at the knee (its first ``ring_points``) is pushed only by the floor; the mid-thigh ring
    sits on seats (module docstring); without the seat model, every point touches every surface."""
    from mocap_dynamics.solver.contact.model import ContactPoints
    ring = ContactConfig().ring_points
    assert model.metadata["contact_floor_only"] == {f"thigh_{s}": [True] * ring + [False] * ring for s in "lr"}
    points = ContactPoints.of(model)
    for side in "lr":
        thigh = model.index(f"thigh_{side}")
        np.testing.assert_array_equal(points.local[points.floor_only & (points.segments == thigh)],
                                      model.segments[thigh].contact_points[:ring])
    assert points.floor_only.sum() == 2 * ring
    assert not ContactPoints.of(with_contact_points(model, ContactConfig(seat=False))).floor_only.any()


def test_feet_points_on_the_sole(model):
    """The soles as built from the markers (calibration then levels them where the feet rest flat,
    ``test_model_level_soles.py``)."""
    built = with_contact_points(model)
    for side in "lr":
        foot = built.segments[built.index(f"foot_{side}")]
        sole = built.metadata["feet"][foot.name]
        points = foot.contact_points
        np.testing.assert_array_equal(points[:, 2], sole["sole"])
        assert sole["sole"] < min(foot.marker_offsets[:, 2])  # below every foot marker
        heel, toe = points[:2], points[2:]
        assert (toe[:, 0] > heel[:, 0] + 0.1).all()  # toes in front of the heel
        assert heel[0, 1] > heel[1, 1] and toe[0, 1] > toe[1, 1]  # +Y (left) first
        assert np.ptp(toe[:, 1]) > np.ptp(heel[:, 1])  # forefoot wider than heel


def test_configurable(model):
    few = with_contact_points(model, ContactConfig(segments=("foot_l", "foot_r", "forearm_l"), ring_points=4))
    counts = {s.name: len(s.contact_points) for s in few.segments}
    assert counts == {**{n: 0 for n in model.names}, "foot_l": 4, "foot_r": 4, "forearm_l": 4}
    rings = with_contact_points(model, ContactConfig(feet=False, ring_scale=2.0, seat=False))
    assert len(rings.segments[rings.index("foot_l")].contact_points) == 8
    s, s2 = model.segments[0], rings.segments[0]
    np.testing.assert_allclose(s2.contact_points - s2.tip, 2 * (s.contact_points[:8] - s.tip), atol=1e-12)
