"""A file that holds several subjects (A:LASI and B:LASI: people captured together) is read as one of them."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from mocap_dynamics.solver.errors import InputError
from mocap_dynamics.solver.io import ImportOptions, load_trial, write_c3d, write_trc
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from tests.conftest import ROOT

#: Where the second subject stands: 3 m to the side of the first (both spread wider than tall: read before the
#: subject is chosen, they would be taken as lying down).
APART = np.array([0.0, 3.0, 0.0])


@pytest.fixture(scope="module")
def pair(sample_walk, tmp_path_factory):
    """The sample walk captured twice, as subjects A and B (B 3 m to the side), with a prop whose marker names
    no other prefix repeats: (the one-subject trial as read from its file one.c3d, the two-subject file two.c3d
    beside it)."""
    folder = tmp_path_factory.mktemp("pair")
    write_c3d(replace(sample_walk.trial, plates=()), folder / "one.c3d")
    one = load_trial(folder / "one.c3d")
    prop = one.markers[:, :2] + [0.0, 0.0, 1.0]
    labels = tuple(f"A:{x}" for x in one.labels) + tuple(f"B:{x}" for x in one.labels) + ("Ball:b1", "Ball:b2")
    two = replace(one, markers=np.concatenate([one.markers, one.markers + APART, prop], axis=1), labels=labels)
    write_c3d(two, folder / "two.c3d")
    write_trc(two, folder / "two.trc")
    return one, folder / "two.c3d"


def test_without_a_subject_the_one_with_most_markers_is_read_and_the_others_named(pair):
    one, path = pair
    trial = load_trial(path)
    assert trial.labels == one.labels + ("b1", "b2")
    np.testing.assert_allclose(trial.markers[:, :one.n_markers], one.markers, atol=1e-6)
    assert f"labels: kept subject A's {one.n_markers} markers, dropped the {one.n_markers} markers of B" \
        in trial.conversions
    assert ("two.c3d holds 2 subjects whose marker names repeat (A, B): processed A's markers; for another, give "
            "ImportOptions(subject='B')") in trial.warnings


@pytest.mark.parametrize("name, suffix", [("B", ".c3d"), ("b:", ".c3d"), (" B ", ".trc")])
def test_the_subject_named_is_read(pair, name, suffix):
    one, path = pair
    trial = load_trial(path.with_suffix(suffix), ImportOptions(subject=name))
    assert trial.labels == one.labels + ("b1", "b2")
    np.testing.assert_allclose(trial.markers[:, :one.n_markers], one.markers + APART, atol=1e-6)
    assert not any("subjects" in warning for warning in trial.warnings)


def test_a_subject_the_file_does_not_hold_is_one_line_naming_those_it_does(pair):
    with pytest.raises(InputError) as error:
        load_trial(pair[1], ImportOptions(subject="C"))
    assert error.value.one_line() == ("ImportOptions(subject='C') names no subject of two.c3d, whose labels' "
                                      "prefixes are A, B, Ball. Give one of A, B, Ball.")


def test_a_subject_named_for_a_file_without_prefixes_reads_every_marker_with_a_warning(pair):
    one, path = pair
    trial = load_trial(path.with_name("one.c3d"), ImportOptions(subject="A"))
    assert trial.labels == one.labels
    assert any(w.startswith("ImportOptions(subject='A'): no label of") for w in trial.warnings)


def test_props_whose_names_repeat_one_another_beside_one_subject_are_no_subjects(pair, tmp_path):
    """Two balls labelled alike (Ball1:b1, Ball2:b1) beside subject A: every marker is read, no subject is
    chosen. Before, the balls were the file's two subjects: Ball2's markers dropped and a warning that said
    Ball1's markers were processed."""
    one = pair[0]
    prop = one.markers[:, :2] + [0.0, 0.0, 1.0]
    labels = tuple(f"A:{x}" for x in one.labels) + ("Ball1:b1", "Ball1:b2", "Ball2:b1", "Ball2:b2")
    props = replace(one, markers=np.concatenate([one.markers, prop, prop + APART], axis=1), labels=labels)
    write_c3d(props, tmp_path / "props.c3d")
    trial = load_trial(tmp_path / "props.c3d")
    assert trial.labels == one.labels + ("Ball1:b1", "Ball1:b2", "Ball2:b1", "Ball2:b2")
    np.testing.assert_allclose(trial.markers[:, :one.n_markers], one.markers, atol=1e-6)
    assert not any("subject" in line for line in trial.conversions + trial.warnings)


def test_the_pipeline_builds_one_body_from_one_subject(pair):
    """Before, both subjects' markers went into one body: each landmark the mean of A's and B's markers 2 m
    apart."""
    one, path = pair
    alone = run(path.with_name("one.c3d"), PipelineOptions(until="calibrate")).model
    chosen = run(path, PipelineOptions(until="calibrate")).model
    assert set(chosen.marker_labels) == set(alone.marker_labels)
    np.testing.assert_allclose([s.length for s in chosen.segments], [s.length for s in alone.segments], atol=1e-6)


def test_the_command_line_names_the_flag(pair, tmp_path):
    command = [sys.executable, "-m", "solver", str(pair[1]), "--subject", "C", "--out", str(tmp_path / "o")]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 2
    assert done.stderr.strip() == ("error: --subject C names no subject of two.c3d, whose labels' prefixes are A, B, "
                                   "Ball. Give one of A, B, Ball.")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("labels, read, warned", [
    (("A:LASI", "A:LASI", "A:RASI"), ("LASI", "LASI_2", "RASI"), "Marker names used more than once were numbered"),
    (("A:LASI", "B1:b", "B2:b"), ("LASI", "B1:b", "B2:b"), "Kept the label prefixes of B1:b, B2:b"),
    (("LASI", "A:LASI"), ("LASI", "A:LASI"), "Kept the label prefixes of A:LASI")])
def test_a_prefix_is_kept_only_where_its_name_would_repeat_another_marker_s(pair, tmp_path, labels, read, warned):
    """Label by label: a label repeated whole loses its prefix and is numbered; two labels that differ only by
    their prefixes keep them; the others lose theirs."""
    one = pair[0]
    trial = replace(one, markers=one.markers[:, :len(labels)], labels=labels)
    write_trc(trial, tmp_path / "labels.trc")
    read_back = load_trial(tmp_path / "labels.trc", ImportOptions(subject=None))
    assert read_back.labels == read
    assert any(w.startswith(warned) for w in read_back.warnings)
