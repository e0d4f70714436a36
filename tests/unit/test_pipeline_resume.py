"""``run(path, options, previous=...)``: the steps whose options, files and earlier steps did not change are the
very objects of the previous run, the report says which; the result is the one a fresh run gives."""

from __future__ import annotations

import os
import shutil
from dataclasses import replace

import pytest

from mocap_dynamics.solver import stages
from mocap_dynamics.solver.options import READ_BY
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.report import summary

FIELDS = ("trial", "model", "gap_fill", "motion", "dynamics", "dynamics_with_plates", "contact",
          "plate_comparison", "zero_gravity")


@pytest.fixture(scope="module")
def walk(shared_data):
    """subject4's walk and its options (calibrated on the static trial, the mass given: one from the plates would
    rescale the motion in the dynamics step, ``test_the_mass_from_the_plates_carries_over``), run up to contact."""
    path = shared_data / "subject4_walking1.trc"
    options = PipelineOptions(static=str(shared_data / "subject4_static1.trc"), mass=63.7, until="contact")
    return path, options, run(path, options)


def same_figures(a, b) -> None:
    """Two results report the same figures (all but the times taken and the steps reused)."""
    ra, rb = a.report(), b.report()
    for report in (ra, rb):
        del report["timings_s"], report["reused"], report["reconstruction"]["seconds_per_frame"]
        report.get("contact", {}).pop("seconds", None)
    assert ra == rb


def test_unchanged_options_reuse_every_step(walk):
    path, options, first = walk
    again = run(path, options, previous=first)
    assert again.reused == ("import", "calibrate", "gap_fill", "reconstruct", "dynamics", "contact")
    assert again.timings == {}
    for name in FIELDS:
        assert getattr(again, name) is getattr(first, name), name
    report = again.report()
    assert report["reused"] == list(again.reused) and report["timings_s"] == {}
    assert "contact reused" in summary(report)


def test_a_contact_option_recomputes_contact_only(walk):
    path, options, first = walk
    springs = replace(options, contact_forces="spring", surfaces="plane")
    result = run(path, springs, previous=first)
    assert result.reused == ("import", "calibrate", "gap_fill", "reconstruct", "dynamics")
    assert list(result.timings) == ["contact"]
    assert result.motion is first.motion and result.dynamics is first.dynamics
    assert result.contact is not first.contact and result.contact.summary()["forces"] == "spring"
    same_figures(result, run(path, springs))


def test_a_filter_change_recomputes_dynamics_and_what_follows(walk):
    path, options, first = walk
    result = run(path, replace(options, cutoff=6.0, until="zero_gravity"), previous=first)
    assert result.reused == ("import", "calibrate", "gap_fill", "reconstruct")
    assert list(result.timings) == ["dynamics", "contact", "zero_gravity"]
    assert result.motion is first.motion and result.dynamics is not first.dynamics
    assert result.dynamics.options["cutoff_hz"] == 6.0


def test_an_earlier_stop_keeps_the_earlier_steps_only(walk):
    path, options, first = walk
    result = run(path, replace(options, until="reconstruct"), previous=first)
    assert result.reused == ("import", "calibrate", "gap_fill", "reconstruct") and result.timings == {}
    assert result.dynamics is None and result.contact is None and result.motion is first.motion


def test_the_mass_from_the_plates_carries_over(shared_data):
    """Without a static trial the mass is assumed, then taken from the walk's plates by the dynamics step, which
    rescales the model and the motion: a later step reuses the rescaled ones."""
    path = shared_data / "subject4_walking1.trc"
    first = run(path, PipelineOptions(until="dynamics"))
    assert first.model.mass_source != first.steps["calibrate"].outputs["model"].mass_source
    result = run(path, PipelineOptions(until="contact"), previous=first)
    assert result.reused == ("import", "calibrate", "gap_fill", "reconstruct", "dynamics")
    assert result.model is first.model and result.motion is first.motion
    assert result.contact.model is first.model
    same_figures(result, run(path, PipelineOptions(until="contact")))


def test_a_changed_file_is_read_again(shared_data, tmp_path):
    for name in ("subject4_walking1.trc", "subject4_walking1_grf.mot"):
        shutil.copy(shared_data / name, tmp_path / name)
    path = tmp_path / "subject4_walking1.trc"
    first = run(path, PipelineOptions(until="calibrate"))
    assert run(path, PipelineOptions(until="calibrate"), previous=first).reused == ("import", "calibrate")
    os.utime(tmp_path / "subject4_walking1_grf.mot", ns=(0, 0))  # the GRF found beside the trial changed
    again = run(path, PipelineOptions(until="calibrate"), previous=first)
    assert again.reused == () and again.trial is not first.trial
    other = tmp_path / "copy.trc"
    shutil.copy(path, other)
    assert run(other, PipelineOptions(until="calibrate"), previous=again).reused == ()


def test_an_option_no_step_claims_counts_as_read_by_the_first(walk, monkeypatch):
    """A new option that was not added to ``READ_BY`` recomputes everything rather than reuse a stale step."""
    path, options, first = walk
    monkeypatch.delitem(READ_BY, "derivatives")
    keys = {step.name: step.key(path, options) for step in stages.STEPS}
    assert ("derivatives", "central") in keys["import"]
    assert not any(("derivatives", "central") in key for name, key in keys.items() if name != "import")
    assert run(path, replace(options, derivatives="forward", until="calibrate"), previous=first).reused == ()
