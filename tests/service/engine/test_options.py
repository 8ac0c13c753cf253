"""Table options are checked against the game's JSON Schema, defaults filled."""

from __future__ import annotations

import pytest

from tablestate.engine.options import CORE_OPTIONS, OptionError, resolve, table_schema
from tablestate.plugins import load

SCHEMA = {
    "type": "object",
    "properties": {
        "rounds": {"type": "integer", "minimum": 1, "maximum": 11, "default": 11},
        "tieBreak": {"type": "string", "enum": ["shared", "playoffRound"], "default": "shared"},
        "points": {"type": "array", "items": {"type": "integer"}, "maxItems": 3, "default": [1]},
        "fast": {"type": "boolean", "default": False},
        "nested": {
            "type": "object",
            "properties": {"x": {"type": "number", "default": 0.5}},
            "default": {"x": 0.5},
        },
    },
}


def test_defaults_fill_in():
    assert resolve(SCHEMA, None) == {
        "rounds": 11,
        "tieBreak": "shared",
        "points": [1],
        "fast": False,
        "nested": {"x": 0.5},
    }


def test_given_values_are_kept():
    got = resolve(SCHEMA, {"rounds": 3.0, "tieBreak": "playoffRound", "nested": {"x": 2}})
    assert got["rounds"] == 3 and isinstance(got["rounds"], int)
    assert got["nested"] == {"x": 2}


@pytest.mark.parametrize(
    "given",
    [
        pytest.param({"rounds": 0}, id="below-minimum"),
        pytest.param({"rounds": 12}, id="above-maximum"),
        pytest.param({"rounds": "3"}, id="string-for-integer"),
        pytest.param({"rounds": True}, id="bool-for-integer"),
        pytest.param({"rounds": 2.5}, id="fraction-for-integer"),
        pytest.param({"tieBreak": "coin"}, id="not-in-enum"),
        pytest.param({"points": [1, 2, 3, 4]}, id="too-many-items"),
        pytest.param({"points": ["a"]}, id="wrong-item-type"),
        pytest.param({"fast": 1}, id="int-for-bool"),
        pytest.param({"colour": "red"}, id="unknown-option"),
        pytest.param({"nested": {"y": 1}}, id="unknown-nested-option"),
    ],
)
def test_bad_options_are_refused(given):
    with pytest.raises(OptionError):
        resolve(SCHEMA, given)


def test_core_options_join_every_game_schema_without_clashing():
    for game in load().games.values():
        own = set(game.options.get("properties", {}))
        assert not own & set(CORE_OPTIONS), game.id
        merged = table_schema(game.options)
        assert set(merged["properties"]) == own | set(CORE_OPTIONS)
        defaults = resolve(merged, {})
        assert defaults["turnSeconds"] == 0 and defaults["undo"] is False
    with pytest.raises(OptionError, match="reserveSeconds"):
        resolve(table_schema({"type": "object"}), {"reserveSeconds": -5})


@pytest.mark.parametrize(
    ("given", "keyword"),
    [
        pytest.param({"rounds": 0}, "minimum", id="minimum"),
        pytest.param({"tieBreak": "coin"}, "enum", id="enum"),
        pytest.param({"points": [1, 2, 3, 4]}, "maxItems", id="maxItems"),
        pytest.param({"fast": 1}, "type", id="type"),
        pytest.param({"colour": "red"}, "additionalProperties", id="unknown"),
        pytest.param({"step": 5}, "multipleOf", id="a-keyword-the-old-checker-ignored"),
    ],
)
def test_a_refusal_names_the_option_and_the_keyword(given, keyword):
    schema = {**SCHEMA, "properties": {**SCHEMA["properties"], "step": {
        "type": "integer", "multipleOf": 2, "default": 2}}}  # fmt: skip
    with pytest.raises(OptionError, match=keyword) as info:
        resolve(schema, given)
    assert next(iter(given)) in str(info.value)


def test_a_game_with_an_invalid_option_schema_stops_start_up():
    from tablestate.engine.options import check_schema

    with pytest.raises(OptionError):
        check_schema({"type": "object", "properties": {"x": {"type": "integr", "default": 1}}})
