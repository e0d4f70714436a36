"""A recording of a few frames: each stage that cannot work on it says so in one line, naming the option that
lets the run go on, and the stages that can work do (the sample walk, and a real walk, cut to three frames)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mocap_dynamics.solver.errors import MocapError
from mocap_dynamics.solver.io import load_trial
from mocap_dynamics.solver.io.trc import write_trc
from mocap_dynamics.solver.pipeline import PipelineOptions, run
from mocap_dynamics.solver.sample import write_sample
from mocap_dynamics.solver.zerog.variant import ZeroGravityOptions


def first_frames(path, folder, n=3):
    trial = load_trial(path)
    return write_trc(replace(trial, markers=trial.markers[:n], plates=(), plate_samples=None), folder / "three.trc")


@pytest.fixture(scope="module")
def three_frames(tmp_path_factory):
    folder = tmp_path_factory.mktemp("short")
    return first_frames(write_sample(folder)["trc"], folder)


def test_too_few_frames_to_filter_point_to_no_filter(three_frames):
    """Winter's residual analysis cannot run on three frames, and neither can any filter: the message names the
    unfiltered option, not a fixed cutoff that would fail next."""
    with pytest.raises(MocapError) as found:
        run(three_frames, PipelineOptions(until="dynamics"))
    assert "cutoff='none'" in found.value.one_line()
    with pytest.raises(MocapError) as found:
        run(three_frames, PipelineOptions(until="dynamics", cutoff=8.0))
    assert "cutoff='none'" in found.value.one_line()


def test_unfiltered_three_frames_find_the_floor_and_zero_gravity_names_its_way_out(three_frames):
    """Unfiltered, the one frame with accelerations still gets its contact (a resting cluster of fewer than the
    three samples a plane needs is no surface: before, such a cluster made a plane without a normal and stopped
    the run); the zero-gravity simulation needs four frames and names the option that skips it."""
    result = run(three_frames, PipelineOptions(until="contact", cutoff="none"))
    assert [patch.kind for patch in result.contact.patches] == ["floor"]
    with pytest.raises(MocapError) as found:
        run(three_frames, PipelineOptions(cutoff="none"))
    assert "ZeroGravityOptions(kind='none')" in found.value.one_line()
    done = run(three_frames, PipelineOptions(cutoff="none", zero_gravity=ZeroGravityOptions(kind="none")))
    assert done.zero_gravity is None


def test_a_resting_cluster_too_small_for_a_plane_is_no_surface(shared_data, tmp_path):
    """walking1's first three frames, unfiltered: among the points resting in its one frame with accelerations
    is a cluster of a single sample above the floor; it made a raised surface without a normal ("A plane needs a
    non-zero normal") and stopped the run. Now only the floor."""
    result = run(first_frames(shared_data / "subject4_walking1.trc", tmp_path),
                 PipelineOptions(until="contact", cutoff="none"))
    assert [patch.kind for patch in result.contact.patches] == ["floor"]
