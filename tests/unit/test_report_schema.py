"""The report's one schema (``solver.report_schema``) against what the result objects' ``summary()`` write."""

from __future__ import annotations

import json
import typing

import pytest

from mocap_dynamics.solver import report_schema as schema
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.report import filter_text, summary
from mocap_dynamics.solver.sample import MASS, write_sample

SECTIONS = {"trial": schema.TrialSummary, "model": schema.ModelSummary, "gap_fill": schema.GapFillSummary,
            "reconstruction": schema.ReconstructionSummary, "dynamics": schema.DynamicsSummary,
            "contact": schema.ContactSummary, "zero_gravity": schema.ZeroGravitySummary}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """The project's sample walk (two force plates) through every stage."""
    c3d = write_sample(tmp_path_factory.mktemp("sample"))["c3d"]
    return run(c3d, PipelineOptions(mass=MASS)).report()


def _check(value: dict, declared, where: str, extra_allowed: bool = False) -> None:
    keys = set(value)
    assert declared.__required_keys__ <= keys, f"{where}: missing {declared.__required_keys__ - keys}"
    if not extra_allowed:
        assert keys <= declared.__required_keys__ | declared.__optional_keys__, \
            f"{where}: not in the schema {keys - declared.__required_keys__ - declared.__optional_keys__}"


def test_every_section_has_the_schemas_keys(report):
    _check(report, schema.Report, "report")
    for name, declared in SECTIONS.items():
        # a zero-gravity variant adds its own figures (``ZeroGravity.info``)
        _check(report[name], declared, name, extra_allowed=name == "zero_gravity")
    hints = typing.get_type_hints(schema.DynamicsSummary)
    _check(report["dynamics"]["without_external_forces"], hints["without_external_forces"], "dynamics residual")
    _check(report["contact"]["plates"], schema.PlateComparisonSummary, "contact plates")
    moments = report["contact"]["plates"]["joint_moments"]
    _check(moments, schema.MomentComparisonSummary, "joint moments vs plates")
    _check(moments["where_plates_see_all"], schema.MomentComparisonFigures, "joint moments where the plates see all")
    for figures in moments["moments"].values():
        _check(figures, schema.MomentFigures, "one joint moment vs plates")
    for surface in report["contact"]["surfaces"]:
        _check(surface, schema.SurfaceSummary, "contact surface")


def test_the_report_is_strict_json_and_reads_as_text(report):
    """No NaN (JSON has none: figures that do not exist are None), and the text summary reads every section."""
    json.dumps(report, allow_nan=False)
    text = summary(report)
    assert "reconstruction (otm)" in text and "estimated vs plates" in text


def test_figures_that_do_not_exist_read_as_n_a(report):
    plates = report["contact"]["plates"]
    missing = {**report, "contact": {**report["contact"], "plates": {**plates, "correlation_vertical": None}}}
    assert "r = n/a" in summary(missing)


def test_plates_that_see_no_frame_say_so_instead_of_figures(report):
    """A GRF file covering none of the frames compared (its time range elsewhere, every foot off the plates):
    one line saying there is nothing to compare, not a row of n/a nor a box that carries load."""
    plates = report["contact"]["plates"]
    nothing = {**plates, "frames_compared": 0, "where_plates_see_all": {"frames_compared": 0}}
    text = summary({**report, "contact": {**report["contact"], "plates": nothing}})
    assert f"estimated vs plates: no frame to compare (of {plates['frames']}," in text
    assert "box or seat" not in text and "foot_l: vertical RMSE" not in text


def test_the_filter_is_told_in_a_few_words_for_the_sidebar(report):
    """The sidebar's Dynamics line: the cutoffs of the default filter, a fixed one, or none."""
    derivatives = report["dynamics"]["derivatives"]
    told = filter_text(derivatives)
    assert told.startswith(f"low-pass {derivatives['cutoff_hz']:.3g} Hz"), told
    assert filter_text({"derivatives": "central differences", "cutoff_hz": 6.0}) == "low-pass 6 Hz"
    assert filter_text({"cutoff_hz": 16.5, "steady_cutoff_hz": 8.0, "settling_cutoff_hz": 6.0}) == \
        "low-pass 16.5 Hz at touch-downs, 6 Hz after hard landings, 8 Hz elsewhere"
    assert filter_text({"derivatives": "central differences"}) == "no filter"


def test_the_markers_not_used_are_named_with_why(report):
    """A headless user reads in the text which markers the model leaves out, grouped by reason (the Blender
    panel shows them per row); a trial using every marker has no such line."""
    assert "markers not used" not in summary({**report, "model": {**report["model"], "ignored_markers": {}}})
    ignored = {"P1": "not a marker name the vocabulary knows", "P2": "not a marker name the vocabulary knows",
               "LPAT": "the patella slides over the knee"}
    text = summary({**report, "model": {**report["model"], "ignored_markers": ignored, "markers_moving_with": {}}})
    assert ("markers not used (3): P1, P2 (not a marker name the vocabulary knows); LPAT (the patella slides over "
            "the knee). To place one on a segment: --markerset FILE.toml") in text
    moving = {"P1": {"segment": "pelvis", "spread_m": 0.0041}, "P2": {"segment": "pelvis", "spread_m": 0.0030}}
    text = summary({**report, "model": {**report["model"], "ignored_markers": ignored, "markers_moving_with": moving}})
    assert "(the patella slides over the knee). Moving rigidly with a segment (their distances' spread): P1, P2 " \
           "with the pelvis (3-4 mm). To place one" in text
    on_purpose = {"LPAT": "the patella slides over the knee"}  # nothing to place: no advice
    text = summary({**report, "model": {**report["model"], "ignored_markers": on_purpose}})
    assert "markers not used (1): LPAT (the patella slides over the knee)\n" in text


def test_each_foot_reads_against_its_plates_as_the_issue_asks(report):
    """Per foot, the text gives what report.json has: vertical RMSE and r, horizontal RMSE, the COP error in
    single support, and how far the estimated onsets and offsets of load fall from the plates'."""
    text = summary(report)
    feet = report["contact"]["plates"]["feet"]
    assert feet
    for foot, figures in feet.items():
        line = next(line for line in text.splitlines() if line.strip().startswith(f"{foot}: vertical RMSE"))
        assert f"horizontal RMSE {figures['rmse_horizontal_bw_percent']:.1f} % BW" in line, line
        assert (f"onsets / offsets {1000 * figures['onset_error_mean_abs_s']:.0f} / "
                f"{1000 * figures['offset_error_mean_abs_s']:.0f} ms off on average") in line, line
