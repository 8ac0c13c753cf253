"""The plugin contract is documented and tested: every hookspec has a docstring, a section
in docs/plugins.md that repeats its signature, and a ``test_hook_<name>`` test."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from tablestate import hookspecs
from tablestate.engine import GameDef, HouseRuleDef
from tablestate.plugins import load

DOCS = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"
SPECS = sorted(
    name
    for name, fn in vars(hookspecs).items()
    if name.startswith("tablestate_") and inspect.isfunction(fn)
)


@pytest.mark.parametrize("name", SPECS)
def test_hookspec_is_documented(name):
    fn = getattr(hookspecs, name)
    assert fn.__doc__ and len(fn.__doc__.strip()) > 40
    ret = fn.__annotations__["return"]
    assert f"### `{name}() -> {ret}`" in DOCS.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", SPECS)
def test_hookspec_has_a_test(name):
    assert f"test_hook_{name}" in globals()


def test_hook_tablestate_games():
    reg = load()
    games = reg.pm.hook.tablestate_games()
    assert any(isinstance(g, GameDef) and g.id == "lucky-draw" for batch in games for g in batch)


def test_hook_tablestate_house_rules():
    reg = load()
    rules = [r for batch in reg.pm.hook.tablestate_house_rules() for r in batch]
    assert all(isinstance(r, HouseRuleDef) for r in rules)
    assert {"lucky-draw/double-evens", "lucky-draw/odd-bonus"} <= {r.id for r in rules}
