"""``service._json``: orjson's speed, ``json``'s values and errors."""

from __future__ import annotations

import json
import math

import pytest

from service import _json


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"a": [1, 2.5, -0.0, true, null, "é"]}', id="plain"),
        pytest.param('{"big": 123456789012345678901234567890}', id="an integer past 64 bits"),
        pytest.param('{"n": -9223372036854775809}', id="just past 64 bits"),
        pytest.param('{"x": 1e400}', id="a float past range"),
        pytest.param('{"a": 1, "a": 2}', id="a key twice"),
        pytest.param('"\\ud800"', id="a lone surrogate escape"),
        pytest.param("[NaN, Infinity]", id="NaN"),
        pytest.param("[" * 2000 + "]" * 2000, id="deeper than orjson reads"),
    ],
)
def test_the_values_are_json_loads(text: str) -> None:
    try:
        expected = json.loads(text)
    except RecursionError:
        with pytest.raises(RecursionError):
            _json.loads(text)
        return
    got = _json.loads(text)
    assert repr(got) == repr(expected)  # NaN != NaN, yet both print "nan"
    assert repr(_json.loads(text.encode())) == repr(expected)  # bytes read alike


def test_an_integer_keeps_every_digit() -> None:
    assert _json.loads("[123456789012345678901234567890]") == [123456789012345678901234567890]
    assert math.isinf(_json.loads("1e400"))


@pytest.mark.parametrize("text", ["", "{", '{"a" 1}', "[1,]", "nul"])
def test_invalid_json_is_json_loads_error(text: str) -> None:
    with pytest.raises(json.JSONDecodeError):
        _json.loads(text)
