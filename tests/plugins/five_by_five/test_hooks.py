"""Five by Five's own hooks: each has a docstring and a test, and each is called on the
enabled house rules only."""

from __future__ import annotations

import inspect

import pytest

from plugins.five_by_five import hookspecs
from plugins.five_by_five.rules import DIAGONALS

from .helpers import ruleset

HOOKS = sorted(
    name
    for name, fn in vars(hookspecs).items()
    if inspect.isfunction(fn) and name.startswith("five_by_five_")
)


def test_there_are_hooks() -> None:
    assert len(HOOKS) == 8


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_has_a_docstring_and_a_test(name: str) -> None:
    assert inspect.getdoc(getattr(hookspecs, name))
    assert f"test_hook_{name}" in globals()


def test_hook_five_by_five_extra_lines() -> None:
    assert ruleset().hook.five_by_five_extra_lines() == []
    assert ruleset("diagonal-lines").hook.five_by_five_extra_lines() == [list(DIAGONALS)]


def test_hook_five_by_five_objectives_public() -> None:
    assert ruleset("diagonal-lines").hook.five_by_five_objectives_public() == []
    assert ruleset("open-objectives").hook.five_by_five_objectives_public() == [True]


@pytest.mark.parametrize(
    "value, delta, wrapped", [(6, 1, 1), (1, -1, 6), (3, 1, 4)], ids=["six-up", "one-down", "mid"]
)
def test_hook_five_by_five_adjust_value(value: int, delta: int, wrapped: int) -> None:
    hook = ruleset("plus-minus-wrap").hook.five_by_five_adjust_value
    assert hook(value=value, delta=delta) == [wrapped]
    assert ruleset().hook.five_by_five_adjust_value(value=value, delta=delta) == []


def test_hook_five_by_five_swap_allowed() -> None:
    hook = ruleset("swap-into-empty").hook.five_by_five_swap_allowed
    assert hook(first=None, second="R3") == [True]
    assert hook(first="R3", second=None) == [True]
    assert ruleset().hook.five_by_five_swap_allowed(first=None, second="R3") == []


def test_hook_five_by_five_die_leaves_game() -> None:
    assert ruleset("removed-dice-leave").hook.five_by_five_die_leaves_game(die="G5") == [True]
    assert ruleset().hook.five_by_five_die_leaves_game(die="G5") == []


def test_hook_five_by_five_special_shared() -> None:
    args = {"objective": "special-large-straight", "claimed_by": [0], "seat": 1}
    assert ruleset("shared-specials").hook.five_by_five_special_shared(**args) == [True]
    assert ruleset().hook.five_by_five_special_shared(**args) == []


def test_hook_five_by_five_forfeit_discards() -> None:
    hook = ruleset("partial-action-discard").hook.five_by_five_forfeit_discards
    (choices,) = hook(hand=["R", "SWAP", "SWAP"])
    assert sorted(map(tuple, choices)) == sorted(
        [("R",), ("SWAP",), ("R", "SWAP"), ("SWAP", "SWAP"), ("R", "SWAP", "SWAP")]
    )
    assert ruleset().hook.five_by_five_forfeit_discards(hand=["R"]) == []


def test_hook_five_by_five_finish_round() -> None:
    assert ruleset("equal-turns").hook.five_by_five_finish_round() == [True]
    assert ruleset("open-objectives").hook.five_by_five_finish_round() == []
