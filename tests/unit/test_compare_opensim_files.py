"""Which files ``scripts/compare_opensim_id.py`` compares a trial with: found by ``../shared/data``'s names
beside the trial, or given by the user for a trial of their own (``--reference-model``, ``--reference-ik``,
``--reference-grf``); what is missing is named with the flag that gives it. OpenSim itself is not needed here
(the comparison is in ``tests/peers/test_opensim_reference.py``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from compare_opensim_id import ReferenceFiles, reference_files
from mocap_dynamics.solver.errors import InputError

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "compare_opensim_id.py"


@pytest.fixture
def folder(tmp_path):
    for name in ("subject9_DJ1.trc", "subject9_DJ1_opensim_ik.mot", "subject9_DJ1_grf.mot",
                 "subject9_opensim_model.osim", "jump.trc", "jump coordinates.mot", "plates.mot", "model.osim"):
        (tmp_path / name).write_text("")
    return tmp_path


def test_a_trial_named_as_the_shared_data_finds_its_reference_beside_it(folder):
    assert reference_files(folder / "subject9_DJ1.trc") == (
        folder / "subject9_opensim_model.osim", folder / "subject9_DJ1_opensim_ik.mot", folder / "subject9_DJ1_grf.mot")


def test_files_named_otherwise_are_given(folder):
    given = ReferenceFiles(folder / "model.osim", folder / "jump coordinates.mot", folder / "plates.mot")
    assert reference_files(folder / "jump.trc", given) == given
    partly = ReferenceFiles(ik=folder / "jump coordinates.mot")  # the rest found by name
    assert reference_files(folder / "subject9_DJ1.trc", partly) == (
        folder / "subject9_opensim_model.osim", folder / "jump coordinates.mot", folder / "subject9_DJ1_grf.mot")


def test_what_is_missing_is_named_with_the_flag_that_gives_it(folder):
    with pytest.raises(InputError, match=r"jump.trc: no OpenSim reference SUBJECT_opensim_model.osim beside it\. "
                                         r"Give its file with --reference-model FILE"):
        reference_files(folder / "jump.trc")
    with pytest.raises(InputError, match=r"no OpenSim reference jump_opensim_ik.mot beside it\. Give its file "
                                         r"with --reference-ik FILE"):
        reference_files(folder / "jump.trc", ReferenceFiles(model=folder / "model.osim"))
    with pytest.raises(InputError, match=r"no OpenSim reference nope.mot at .*\. Check the path"):
        reference_files(folder / "jump.trc", ReferenceFiles(folder / "model.osim", folder / "nope.mot"))


def test_one_trials_files_with_several_trials_is_one_line(folder):
    done = subprocess.run([sys.executable, str(SCRIPT), str(folder / "jump.trc"), str(folder / "subject9_DJ1.trc"),
                           "--reference-ik", str(folder / "jump coordinates.mot")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: --reference-model, --reference-ik and --reference-grf are one trial's files: give one trial with "
        "them. Run compare_opensim_id.py --help for the options."]


@pytest.mark.parametrize("flags, message", [
    (["--opensim-cutoff", "-1", "--filter-plates"], "--filter-plates low-passes the reference's plates at "
     "--opensim-cutoff, which -1 turns off: give a cutoff in Hz with it"),
    (["--opensim-cutoff", "0"], "--opensim-cutoff 0 is no cutoff: give one in Hz above 0, or -1 for none")])
def test_a_cutoff_that_filters_nothing_is_one_line(folder, flags, message):
    """Before, the plates 'low-passed' at -1 Hz gave a reference of garbage (its pelvis residual -6279 N·m/kg)."""
    done = subprocess.run([sys.executable, str(SCRIPT), str(folder / "jump.trc"), *flags],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"error: {message}. Run compare_opensim_id.py --help for the options."]
