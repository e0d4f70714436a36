"""Pipeline options from a TOML file: what a lab keeps next to its trials to process them all the same way."""

from __future__ import annotations

import pytest

from mocap_dynamics.solver.errors import InputError
from mocap_dynamics.solver.pipeline import PipelineOptions, options_from_dict, options_from_toml


def test_toml_sets_fields_and_import_table_and_resolves_relative_paths(tmp_path):
    (tmp_path / "options.toml").write_text('until = "dynamics"\nmass = 61.5\nstatic = "static.trc"\n'
                                           'method = "lee"\ncutoff = 8\ncontact_forces = "per_frame"\n'
                                           '[import]\nunits = "mm"\nup_axis = "y"\n')
    options = options_from_toml(tmp_path / "options.toml")
    assert (options.until, options.mass, options.method, options.cutoff, options.contact_forces) \
        == ("dynamics", 61.5, "lee", 8, "per_frame")
    assert options.static == str(tmp_path / "static.trc")
    assert (options.import_options.units, options.import_options.up_axis) == ("mm", "Y")
    assert options.import_options.strip_prefix is True and options.template == "full15"  # untouched defaults


def test_values_override_a_base():
    base = PipelineOptions(mass=70.0, template="brubaker12")
    options = options_from_dict({"mass": 80.0}, base)
    assert (options.mass, options.template) == (80.0, "brubaker12")


@pytest.mark.parametrize("text, words", [
    ('unknown_option = 1\n', "unknown_option"),
    ('[import]\nbogus = true\n', "import.bogus"),
    ('mass = "heavy"\n', "mass"),
    ('tolerance = -1\n', "tolerance"),
    ('tolerance = 5\n', "tolerance=5 is too loose for the joints' constraints"),
    ('until = "render"\n', "stage"),
    ('otm_mode = "slow"\n', "OTM mode"),
    ('head = "loose"\n', "head option"),
    ('contact_forces = "magic"\n', "contact force model"),
    ('[import]\nunits = "inch"\n', "units"),
    ('[gap_fill]\nmethod = "guess"\n', "gap fill method"),
    ('[gap_fill]\nmax_gap = 1\n', "gap_fill.max_gap (did you mean gap_fill.max_gap_s?)"),
    ('statik = "s.trc"\n[zerogravity]\nkind = "ladder"\n',
     "statik (did you mean static?), zerogravity (did you mean zero_gravity?)"),
    ('mass = \n', "not valid TOML"),
])
def test_bad_options_name_what_is_wrong(tmp_path, text, words):
    (tmp_path / "options.toml").write_text(text)
    with pytest.raises(InputError) as error:
        options_from_toml(tmp_path / "options.toml")
    assert words.lower() in error.value.one_line().lower()


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        options_from_toml(tmp_path / "missing.toml")


def test_zero_gravity_table(tmp_path):
    (tmp_path / "options.toml").write_text('[zero_gravity]\nkind = "sequence"\nangle_deg = 45\nv_max_deg_s = 90\n')
    options = options_from_toml(tmp_path / "options.toml")
    assert (options.zero_gravity.kind, options.zero_gravity.angle_deg, options.zero_gravity.v_max_deg_s) \
        == ("sequence", 45, 90)
    assert options.zero_gravity.duration_s == PipelineOptions().zero_gravity.duration_s


@pytest.mark.parametrize("table, words", [
    ('kind = "moonwalk"', "zero-gravity simulation"),
    ('momentum = "some"', "initial momentum"),
    ('duration_s = 0', "positive"),
    ('spin = 1', "zero_gravity.spin"),
    ('angle_deg = 400', "ZeroGravityOptions(angle_deg=400) is more than half a turn. Give "
                        "ZeroGravityOptions(angle_deg=<value>) in degrees between -180 and 180"),
    ('lift_deg = -200', "is more than half a turn"),
    ('rungs = 1', "ZeroGravityOptions(rungs=1) is no number of rungs for a ladder"),
    ('rungs = 2.5', "no number of rungs"),
])
def test_bad_zero_gravity_options(tmp_path, table, words):
    (tmp_path / "options.toml").write_text(f"[zero_gravity]\n{table}\n")
    with pytest.raises(InputError) as error:
        options_from_toml(tmp_path / "options.toml")
    assert words.lower() in error.value.one_line().lower()
