"""Templates: a consistent tree over the fifteen anatomical segments, with the documented DoF counts."""

from __future__ import annotations

import numpy as np
import pytest

from mocap_dynamics.solver.errors import ModelError
from mocap_dynamics.solver.model.body import JOINT_AXES, JOINT_SIZES
from mocap_dynamics.solver.model.frames import axis_rotation
from mocap_dynamics.solver.model.templates import ANATOMY, ANATOMY_BY_NAME, TEMPLATES, get_template


def counts(template):
    return (sum(JOINT_SIZES[s.joint][0] for s in template.segments),
            sum(JOINT_SIZES[s.joint][1] for s in template.segments))


def test_anatomy_is_a_tree_parents_first():
    seen = set()
    for a in ANATOMY:
        assert a.parent is None or a.parent in seen, a.name
        seen.add(a.name)
    assert len(ANATOMY) == 15 and ANATOMY[0].name == "pelvis"


def test_each_joint_centre_is_the_parents_tip_or_a_branch():
    """A segment starts where its parent ends, except at branch points (hips on the pelvis, shoulders on
    the torso), which the parent locates from its own markers."""
    for a in ANATOMY[1:]:
        parent = ANATOMY_BY_NAME[a.parent]
        assert a.origin == parent.tip or a.origin.split("_")[0] in ("hip", "shoulder"), a.name


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_template_is_a_tree_covering_every_anatomical_segment_once(name):
    t = get_template(name)
    seen = set()
    for s in t.segments:
        assert s.parent is None or s.parent in seen, s.name
        assert len(s.axes) == JOINT_AXES[s.joint], s.name
        seen.add(s.name)
    members = [m for s in t.segments for m in s.members]
    assert sorted(members) == sorted(ANATOMY_BY_NAME)
    for s in t.segments:  # merged members hang, in order, below the segment's first member
        for parent, child in zip(s.members, s.members[1:]):
            assert ANATOMY_BY_NAME[child].parent == parent
    assert t.segments[0].joint == "free" and t.segments[0].parent is None


def test_dof_counts():
    # Brubaker et al. 2009 Fig. 4: ankle 2, knee 1, hip 3, pelvis-torso 3, shoulder 3, elbow 1 -> 23 (+ 6 root).
    assert counts(get_template("brubaker12")) == (35, 23 + 6)
    assert len(get_template("brubaker12").segments) == 12
    # full15 (documented): ball lumbar, neck, shoulders, wrists, hips, ankles; hinge elbows and knees.
    assert counts(get_template("full15")) == (51, 40)
    assert len(get_template("full15").segments) == 15


def test_positive_angles_are_flexion_dorsiflexion_inversion():
    """Rotate each segment's tip (or a foot border) by +0.3 rad about its joint axis and see where it goes."""
    t = {s.name: s for s in get_template("brubaker12").segments}
    down, toe = np.array([0.0, 0.0, -1.0]), np.array([1.0, 0.0, 0.0])
    assert (axis_rotation(t["shank_l"].axes[0], 0.3) @ down)[0] < 0  # knee flexion: the ankle goes back
    assert (axis_rotation(t["forearm_r"].axes[0], 0.3) @ down)[0] > 0  # elbow flexion: the wrist goes forward
    for side, medial in (("l", -1.0), ("r", 1.0)):  # Y is left: the left foot's medial border is at -Y
        dorsi, inversion = t[f"foot_{side}"].axes
        assert (axis_rotation(dorsi, 0.3) @ toe)[2] > 0  # dorsiflexion lifts the toes
        # inversion lifts the medial border
        assert (axis_rotation(inversion, 0.3) @ np.array([0.0, medial, 0.0]))[2] > 0
    assert get_template("full15").segments[4].axes == t["forearm_l"].axes


def test_unknown_template_is_a_model_error():
    with pytest.raises(ModelError, match="Unknown body template 'full14'.*full15"):
        get_template("full14")
