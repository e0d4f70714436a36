"""Contact from motion alone on real trials cut where a recording may start or end: a drop jump that begins in
flight after the box, a sit-to-stand that begins seated, one walking step; and the warning for a trial that ends
within a landing's impact. The plates are only compared with (``scripts/bench_contact.py`` section 9 prints the
figures against the same frames of the whole trials).
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np

from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.io.trc import write_trc
from mocap_dynamics.solver.pipeline import PipelineOptions, run


def cut(path: Path, folder: Path, start: float, stop: float) -> Path:
    """The trial at ``path`` cut to its frames from ``start`` to ``stop`` [s], written to ``folder`` with its
    plates' ``NAME_grf.mot`` beside it (the plates whole: only the markers' frames are compared)."""
    trial = load_trial(path)
    keep = (trial.times >= start - 1e-9) & (trial.times <= stop + 1e-9)
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / path.name
    write_trc(replace(trial, markers=trial.markers[keep], start_time=float(trial.times[keep][0]), plates=(),
                      plate_samples=None), out)
    shutil.copy(path.with_name(f"{path.stem}_grf.mot"), folder / f"{path.stem}_grf.mot")
    return out


def test_a_drop_jump_that_begins_in_flight_has_only_the_floor_and_nothing_before_touch_down(shared_data, tmp_path):
    """DJ3 from 1.1 s, after she left the box: no box, no load before the plates see her land (1.30 s), the
    landing's vertical force still follows the plates (r 0.98, 16.6 % BW against 16.9 over the same frames of
    the whole trial)."""
    result = run(cut(shared_data / "subject4_DJ3.trc", tmp_path, 1.1, 3.0), PipelineOptions(until="contact"))
    contact, plates = result.contact, result.plate_comparison
    assert [p.kind for p in contact.patches] == ["floor"]
    assert contact.headline.startswith("contact on floor: explains ")
    onset = min(event.measured_onset for event in plates.events)
    before = contact.times < onset - 0.03
    assert before.any() and np.nanmax(np.abs(contact.point_forces[before])) < 1e-6 * contact.body_weight
    assert plates.summary()["correlation_vertical"] >= 0.95
    # it ends, as the whole trial does, 0.09 s after the second landing: within the impact, and the report says so
    assert result.dynamics.options["cut_in_impact"] == ["ends"]
    assert any("within a landing's impact" in warning for warning in contact.warnings)


def test_a_sit_to_stand_that_begins_seated_finds_its_seat(shared_data, tmp_path):
    """STS1's first 1.5 s (seated, then up): the seat is found from that one sitting and carries her at the
    start; the vertical force follows the plates at r 0.99."""
    result = run(cut(shared_data / "subject4_STS1.trc", tmp_path, 0.0, 1.5), PipelineOptions(until="contact"))
    contact = result.contact
    assert [p.kind for p in contact.patches] == ["floor", "raised"]
    assert 0.3 < contact.patches[1].height - contact.patches[0].height < 0.45
    seat = contact.surface_force[: int(0.2 * result.trial.rate), 1] @ contact.surfaces[1].top.normal
    assert np.all(seat > 0.5 * contact.body_weight)
    assert result.plate_comparison.summary()["correlation_vertical"] >= 0.95
    assert contact.explained_force >= 0.9


def test_a_sit_to_stand_whose_thighs_mostly_rest_while_standing_keeps_its_seat_and_its_mass(shared_data, tmp_path):
    """STS1 from 8.49 s to 13.27 s: one whole sitting and two brief ones at the ends; the thighs rest on the seat
    about as long while she rises and sits down, her feet carrying her, as while she sits. Judged over the frames
    that need a support, the seat is kept (over all its resting frames the need averaged 0.13 of the body weight,
    under ``NEEDED``), so the plates' impulse gives her mass (59.7 kg, as the whole trial; 47.0 without the seat)
    and the vertical force follows the plates (8.3 % BW against 46.6)."""
    result = run(cut(shared_data / "subject4_STS1.trc", tmp_path, 8.49, 13.27), PipelineOptions(until="contact"))
    assert [p.kind for p in result.contact.patches] == ["floor", "raised"]
    assert abs(result.model.total_mass - 59.7) < 0.6
    summary = result.plate_comparison.summary()
    assert summary["rmse_vertical_bw_percent"] < 10 and summary["correlation_vertical"] >= 0.95


def test_a_walk_cut_to_one_step_keeps_its_floor_and_is_not_warned_of_an_impact(shared_data, tmp_path):
    """walking1's 0.3-0.9 s: one floor, COP within the target in single support; its ends lie in soft heel
    strikes, not in an impact (the filter's ends still cost it: r 0.939 against the whole trial's 0.984 over
    the same frames, README)."""
    result = run(cut(shared_data / "subject4_walking1.trc", tmp_path, 0.3, 0.9), PipelineOptions(until="contact"))
    assert [p.kind for p in result.contact.patches] == ["floor"]
    assert result.contact.plane_angle <= 1.0
    assert "cut_in_impact" not in result.dynamics.options and not result.contact.warnings
    assert result.plate_comparison.summary()["cop_error_single_support_cm"] <= 3.0


def test_a_walk_cut_shorter_than_a_step_keeps_a_level_floor(shared_data, tmp_path):
    """walking1's 0.3-0.6 s: the two feet's resting points, 0.6 m apart, once tilted the floor by 2.0° (heel and
    toe points' sole-model errors); a plane that rises less than 3 cm across them is level."""
    result = run(cut(shared_data / "subject4_walking1.trc", tmp_path, 0.3, 0.6),
                 PipelineOptions(until="contact", mass=63.8))
    assert [p.kind for p in result.contact.patches] == ["floor"] and result.contact.plane_angle < 0.1


def test_a_drop_jump_cut_to_its_fall_has_no_support_and_no_landing(shared_data, tmp_path):
    """DJ3 from 1.05 to 1.28 s, after she left the box and before she lands: nothing rests, so no support is
    made up; and the falling feet's last frames, the lowest of the clip, are no touch-down (they still come
    down at 2.6 m/s), so nothing is filtered as a landing nor warned of as cut within one."""
    result = run(cut(shared_data / "subject4_DJ3.trc", tmp_path, 1.05, 1.28),
                 PipelineOptions(until="contact", mass=63.0))
    options = result.dynamics.options
    assert options["touchdown_share"] == 0.0 and "cut_in_impact" not in options
    assert "settling_cutoff_hz" not in options and "after a hard landing" not in options["cutoff_source"]
    assert result.contact.surfaces == () and "no support found" in result.contact.warnings[0]
    assert result.contact.headline == "no support found: no contact forces"
