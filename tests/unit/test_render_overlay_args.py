"""render_overlay.py's sizes and frame ranges as people type them (the renders themselves are tested in Blender,
``tests/blender/test_render.py``)."""

from __future__ import annotations

import pytest

from mocap_dynamics.solver.errors import InputError
from render_overlay import _integers


@pytest.mark.parametrize("text, expected", [("1280x720", (1280, 720)), ("1280X720", (1280, 720)),
                                            ("1280×720", (1280, 720))])
def test_a_resolution(text, expected):
    assert _integers(text, "Resolution", "1280x720") == expected


@pytest.mark.parametrize("text, expected", [("1:120", (1, 120)), ("1-120", (1, 120)), ("50-10", (50, 10)),
                                            ("-5:10", (-5, 10))])
def test_a_frame_range_with_a_colon_or_a_dash(text, expected):
    assert _integers(text, "Frame range", "1:120") == expected  # the range's bounds are checked against the trial


@pytest.mark.parametrize("text", ["wide", "5-", "1:2:3", "1x2"])
def test_what_is_no_range_says_its_form(text):
    with pytest.raises(InputError, match=r"Frame range .* is not of the form 1:120. Give e.g. 1:120"):
        _integers(text, "Frame range", "1:120")
