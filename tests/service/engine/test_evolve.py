"""``evolve``: the same copy as ``dataclasses.replace``, for every kind of dataclass."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from tablestate.engine.evolve import evolve
from tablestate.engine.table import BOT, Seat, Table
from tablestate.tables.commit import Change


@dataclass(frozen=True, slots=True)
class Checked:
    low: int
    high: int

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError("low above high")


@dataclass(frozen=True)
class Plain:
    a: int
    b: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Derived:
    a: int
    b: int = field(init=False, default=0)


TABLE = Table(
    "t1", "lucky-draw", "PLAYING", {"x": 1}, ("r",), (Seat(0), Seat(1, kind=BOT)),
    "hh", "nn", "cc", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", (1, 0), 3,
)  # fmt: skip


@pytest.mark.parametrize(
    "value, changes",
    [
        pytest.param(TABLE, {"chance": 4, "updated_at": "later"}, id="table"),
        pytest.param(TABLE, {}, id="table unchanged"),
        pytest.param(TABLE, {"version": 9, "game": {"a": [1]}}, id="table, the last field"),
        pytest.param(Seat(2), {"kind": BOT, "name": "Bo"}, id="seat"),
        pytest.param(Change(TABLE, None, ()), {"log": "x", "movers": (1,)}, id="change"),
        pytest.param(Plain(1), {"a": 2}, id="not slotted"),
        pytest.param(Derived(1), {"a": 2}, id="a field not set by __init__"),
    ],
)
def test_a_copy_is_replaces(value: object, changes: dict[str, object]) -> None:
    copy = evolve(value, **changes)
    assert copy == dataclasses.replace(value, **changes)  # type: ignore[type-var]
    assert copy is not value and type(copy) is type(value)
    assert value == dataclasses.replace(value)  # type: ignore[type-var]  # unchanged


def test_post_init_still_checks() -> None:
    assert evolve(Checked(1, 2), high=5) == Checked(1, 5)
    with pytest.raises(ValueError, match="low above high"):
        evolve(Checked(1, 2), low=3)


def test_an_unknown_field_is_refused() -> None:
    with pytest.raises(TypeError, match="no field 'colour'"):
        evolve(TABLE, colour="red")
    with pytest.raises(TypeError):
        evolve(Plain(1), colour="red")
