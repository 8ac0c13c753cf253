"""Plugins are found through entry points and module paths; bad ones stop start-up."""

from __future__ import annotations

import pytest
from support import bad_plugins
from support.tiny_games import BROKEN_COUNT_UP, COUNT_UP, plugin_of

from tablestate import plugins
from tablestate.plugins import PluginError, load


def test_entry_points_find_the_third_party_plugin():
    reg = load()
    assert "lucky-draw" in reg.games
    info = {p.name: p for p in reg.plugins}
    assert info["lucky-draw"].source == "entry point of tablestate-example"
    assert not info["lucky-draw"].bundled
    assert info["lucky-draw.double-evens"].house_rules == ("lucky-draw/double-evens",)


def test_bundled_only_leaves_third_party_plugins_out():
    reg = load(bundled_only=True)
    assert "lucky-draw" not in reg.games
    assert all(p.bundled for p in reg.plugins)


def test_module_paths_add_plugins():
    reg = load(["support.extra_rule"])
    assert "lucky-draw/triple-tens" in reg.house_rules
    assert reg.conflicts("lucky-draw/double-evens") == (
        "lucky-draw/odd-bonus",
        "lucky-draw/triple-tens",
    )


def test_disable_removes_plugins_by_name():
    reg = load(disable=["lucky-draw.odd-bonus"])
    assert "lucky-draw/odd-bonus" not in reg.house_rules
    assert "lucky-draw/double-evens" in reg.house_rules


@pytest.mark.parametrize(
    ("name", "message"),
    [
        pytest.param("same_game", "claimed by plugins", id="duplicate-game"),
        pytest.param("not_a_game", "not a GameDef", id="not-a-game"),
        pytest.param("bad_id", "lower-case words", id="bad-game-id"),
        pytest.param("two_rules", "exactly one rule", id="two-rules"),
        pytest.param("rule_for_missing_game", "no installed game", id="rule-without-game"),
        pytest.param("unknown_hook", "unknown hook", id="unknown-hook"),
        pytest.param("core_option", "core table option", id="core-option-name"),
        pytest.param("view_file_missing", "no file web/view.js", id="view-missing"),
        pytest.param("view_beside_the_code", "a folder of its own", id="view-beside-code"),
        pytest.param("view_out_of_its_folder", "a folder of its own", id="view-dot-dot"),
        pytest.param("view_not_a_module", ".js or .mjs", id="view-not-js"),
        pytest.param("view_package_missing", "no package", id="view-no-package"),
        pytest.param("text_of_no_event", "'card.burnt', not in event_types", id="text-no-event"),
    ],
)
def test_bad_plugins_are_refused_by_name(name, message):
    with pytest.raises(PluginError) as info:
        load(objects=[(f"culprit-{name}", getattr(bad_plugins, name))])
    assert message in str(info.value)
    assert f"culprit-{name}" in str(info.value)


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        pytest.param(
            "view-key-not-in-state-type",
            'view of a spectator: field "secret": CountUpState has no field "secret"',
            id="view-key",
        ),
        pytest.param(
            "view-value-of-another-type",
            'view of a spectator: field "total": expected Int!, got "0"',
            id="view-value",
        ),
        pytest.param(
            "legal-move-the-input-lacks",
            'legal move {"skip": true} of seat 0: field "skip": CountUpMoveInput has no field',
            id="move-kind",
        ),
        pytest.param("no-state-type", "declares no state_type", id="no-state-type"),
        pytest.param("no-move-input-type", "declares no move_input_type", id="no-move-type"),
        pytest.param("move-input-not-one-of", "is not a @oneOf input", id="not-one-of"),
        pytest.param(
            "undeclared-event",
            'event "count.added" is not declared in event_types',
            id="undeclared-event",
        ),
    ],
)
def test_a_game_that_breaks_its_contract_is_refused(broken, message):
    """Start-up refuses a game whose view, legal moves or events do not fit its types,
    naming the plugin, the game, the field and what was expected."""
    with pytest.raises(PluginError) as info:
        load(objects=[("culprit", plugin_of(BROKEN_COUNT_UP[broken]))], use_entry_points=False)
    assert str(info.value).startswith("plugin 'culprit': game \"count-up\": ")
    assert message in str(info.value)


def test_a_game_that_keeps_its_contract_loads():
    reg = load(objects=[("count-up", plugin_of(COUNT_UP))], use_entry_points=False)
    assert list(reg.games) == ["count-up"]


def test_unimportable_module_is_named():
    with pytest.raises(PluginError, match="no_such_module"):
        load(["no_such_module"])


def test_rule_sets_call_only_enabled_rules_and_are_cached():
    reg = load(["support.extra_rule"])
    plain = reg.ruleset("lucky-draw", [])
    evens = reg.ruleset("lucky-draw", ["lucky-draw/double-evens"])
    tens = reg.ruleset("lucky-draw", ["lucky-draw/triple-tens"])
    assert plain.hook.lucky_draw_points(card="4A", rank=4) is None
    assert evens.hook.lucky_draw_points(card="4A", rank=4) == 8
    assert tens.hook.lucky_draw_points(card="4A", rank=4) is None
    assert tens.hook.lucky_draw_points(card="10A", rank=10) == 30
    assert reg.ruleset("lucky-draw", ["lucky-draw/double-evens"]) is evens
    assert evens.is_on("lucky-draw/double-evens") and not plain.is_on("lucky-draw/double-evens")


def test_names():
    assert plugins.camel("five-by-five") == "fiveByFive"
    assert plugins.pascal("five-by-five") == "FiveByFive"
