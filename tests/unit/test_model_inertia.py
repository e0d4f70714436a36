"""Inertia tables: de Leva 1996 Table 4 and Lee 2009 Tables F.1/F.2, and the mechanics of combining parts."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.errors import ModelError
from mocap_dynamics.solver.model.inertia import (
    DE_LEVA, LEE, check_inertia, combine, part_inertia, point_inertia, table_rows,
)
from mocap_dynamics.solver.model.templates import ANATOMY


def body_fraction(rows):
    """Sum of the mass fractions over the body the templates use (signed rows, both sides)."""
    total = 0.0
    for a in ANATOMY:
        for row in a.inertia:
            total += (-1 if row.startswith("-") else 1) * rows[row.lstrip("-")].mass
    return total / 100


@pytest.mark.parametrize("sex", ["male", "female"])
def test_de_leva_fractions_sum_to_one(sex):
    rows = DE_LEVA[sex]
    whole = (rows["head"].mass + rows["trunk"].mass
             + 2 * sum(rows[r].mass for r in ("upper_arm", "forearm", "hand", "thigh", "shank", "foot")))
    assert whole / 100 == pytest.approx(1.0, abs=1.5e-4)  # female: 99.99 % in the published table
    assert body_fraction(rows) == pytest.approx(whole / 100, abs=1e-12)


def test_lee_fractions_sum_to_one():
    assert body_fraction(LEE) == pytest.approx(1.0, abs=1e-12)
    assert (LEE["trunk"].start, LEE["trunk"].com, LEE["trunk"].radii) == ("MSHO", 43.1, (38.4, 35.8, 19.7))
    assert LEE["foot"].radii == (25.7, 24.5, 12.4)  # smallest about the foot's long axis


@pytest.mark.parametrize("table,sex", [("de_leva", "male"), ("de_leva", "female"), ("lee", "male")])
def test_every_row_gives_a_valid_rigid_body(table, sex):
    for name, row in table_rows(table, sex).items():
        length = row.length / 1000
        start, end = np.zeros(3), np.array([0.02, 0.01, -length])
        com, inertia = part_inertia(row, 5.0, start, end)
        check_inertia(name, 5.0, inertia)
        assert np.linalg.norm(com - start) == pytest.approx(row.com / 100 * np.linalg.norm(end), rel=1e-12)
        axis = end / np.linalg.norm(end)
        assert axis @ inertia @ axis == pytest.approx(5.0 * (row.radii[2] / 100 * np.linalg.norm(end)) ** 2, rel=1e-12)


def test_torso_as_trunk_minus_lower_trunk_matches_upper_plus_middle_trunk():
    """de Leva's table is self-consistent: the trunk minus its lower part (how we get the torso) has about the
    mass distribution of his upper + middle trunk rows (not used otherwise); numbers from de Leva Table 4, male."""
    mass = 100.0
    midh, omph, xyph, supr = (np.array([0, 0, z]) for z in (0.0, 0.1457, 0.1457 + 0.2155, 0.5319))
    trunk = (0.4346 * mass, *part_inertia(DE_LEVA["male"]["trunk"], 0.4346 * mass, supr, midh))
    lower = (0.1117 * mass, *part_inertia(DE_LEVA["male"]["lower_trunk"], 0.1117 * mass, omph, midh))
    m, com, inertia = combine([trunk, (-lower[0], lower[1], lower[2])])
    upper = DE_LEVA["male"]["trunk"].__class__("SUPR", "XYPH", 15.96, 29.99, (71.6, 45.4, 65.9), 170.7)
    middle = DE_LEVA["male"]["trunk"].__class__("XYPH", "OMPH", 16.33, 45.02, (48.2, 38.3, 46.8), 215.5)
    m2, com2, inertia2 = combine([(0.1596 * mass, *part_inertia(upper, 0.1596 * mass, supr, xyph)),
                                  (0.1633 * mass, *part_inertia(middle, 0.1633 * mass, xyph, omph))])
    assert m == pytest.approx(m2, rel=1e-12)
    assert np.linalg.norm(com - com2) < 0.005
    np.testing.assert_allclose(np.diag(inertia), np.diag(inertia2), rtol=0.05)


def test_combine_is_the_parallel_axis_theorem():
    rng = np.random.default_rng(3)
    parts = [(m, rng.normal(size=3), np.diag(rng.uniform(1, 2, 3))) for m in (1.0, 2.5)]
    mass, com, inertia = combine(parts)
    assert mass == 3.5
    np.testing.assert_allclose(com, (parts[0][0] * parts[0][1] + parts[1][0] * parts[1][1]) / 3.5)
    about_origin = sum(i + m * point_inertia(c) for m, c, i in parts)
    np.testing.assert_allclose(inertia + mass * point_inertia(com), about_origin, atol=1e-12)
    back, _, _ = combine([(mass, com, inertia), (-parts[1][0], parts[1][1], parts[1][2])])
    assert back == pytest.approx(parts[0][0])


def test_impossible_inertia_is_a_model_error():
    with pytest.raises(ModelError, match="impossible inertial parameters"):
        check_inertia("thigh_l", 1.0, np.diag([1.0, 1.0, 3.0]))  # violates the triangle inequality
    with pytest.raises(ModelError, match="Unknown sex"):
        table_rows("de_leva", "other")
    with pytest.raises(ModelError, match="Unknown inertia table"):
        table_rows("dempster", "male")
