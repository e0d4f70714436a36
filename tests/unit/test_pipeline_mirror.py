"""A trial mirrored through a vertical plane, its left and right labels swapped, is the same motion by a mirrored
subject: the whole pipeline must give the mirrored forces and the other side's joint moments. Physics has no
handedness, so any difference is a side or axis the code favours (a marker set that differs between the sides,
as subject 4's thigh and shank clusters do, included)."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.dynamics.moments import joint_moments
from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.io.trc import write_trc
from mocap_dynamics.solver.pipeline import PipelineOptions, run

OTHER_SIDE = {"L": "R", "R": "L", "l": "r", "r": "l"}


def mirrored(path, folder):
    """The trial at ``path`` mirrored through the lab's X-Z plane (Y -> -Y), its side prefixes (``L_``, ``r.``
    ...) swapped, written to ``folder`` without its plates."""
    trial = load_trial(path)
    labels = tuple(re.sub(r"^([LRlr])([._])", lambda m: OTHER_SIDE[m[1]] + m[2], label) for label in trial.labels)
    moved = folder / f"{path.stem}_mirrored.trc"
    write_trc(replace(trial, markers=trial.markers * (1.0, -1.0, 1.0), labels=labels), moved)
    return moved


@pytest.mark.parametrize("name", ["subject4_walking1", "subject4_DJ3"])
def test_a_mirrored_trial_gives_mirrored_forces_and_the_other_sides_moments(shared_data, tmp_path, name):
    path = shared_data / f"{name}.trc"
    original = run(path, PipelineOptions(until="contact"))
    mass = original.model.total_mass
    mirror = run(mirrored(path, tmp_path), PipelineOptions(until="contact", mass=mass))
    lab, seen = original.contact, mirror.contact
    assert [(p.kind, round(p.height, 3)) for p in seen.patches] == [(p.kind, round(p.height, 3)) for p in lab.patches]
    assert seen.feet == lab.feet == ("foot_l", "foot_r")
    weight = lab.body_weight
    gap = seen.foot_force[:, ::-1] * (1.0, -1.0, 1.0) - lab.foot_force  # the left foot's force is the right's
    assert np.sqrt(np.nanmean(gap ** 2)) < 1e-4 * weight  # found exact to 1e-12
    ours, theirs = joint_moments(lab.dynamics), joint_moments(seen.dynamics)
    for joint in ("hip", "knee", "ankle"):
        for side, other in (("l", "r"), ("r", "l")):
            for component in theirs.components[theirs.joints.index(f"{joint}_{side}")]:
                moment = ours.moment(f"{joint}_{side}", component)
                gap = theirs.moment(f"{joint}_{other}", component) - moment
                assert np.sqrt(np.nanmean(gap ** 2)) < 1e-4 * mass, (joint, side, component)
