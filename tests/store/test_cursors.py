"""How both stores number events and order cursors (service/store/base.py), without a store."""

from __future__ import annotations

import pytest

from tablestate.store.base import (
    SPECTATOR_BASE,
    SPECTATOR_STEP,
    SPECTATORS,
    BadCursor,
    CursorsSpent,
    appended_cursors,
    cursor_key,
)


def heard(version: int, s: int, m: int) -> str:
    return f"{version}-{SPECTATOR_BASE + s * SPECTATOR_STEP + m}"


def test_spectators_events_come_between_the_events_every_viewer_sees() -> None:
    order = ["1-0", heard(1, 1, 0), heard(1, 1, 1), "1-1", "1-2", heard(1, 3, 0), "2-0"]
    assert sorted(order, key=cursor_key) == order
    assert sorted([heard(2, 0, 0), "1-9", "2-0"], key=cursor_key) == ["1-9", heard(2, 0, 0), "2-0"]


@pytest.mark.parametrize(
    ("seats", "before", "audiences", "expected"),
    [
        pytest.param(1, None, [None, None], ["3-1", "3-2"], id="everyone"),
        pytest.param(1, None, [SPECTATORS, None], [heard(3, 1, 0), "3-1"], id="spectators-first"),
        pytest.param(2, (2, 4), [SPECTATORS], [heard(3, 2, 5)], id="after-spectators"),
        pytest.param(2, (1, 4), [SPECTATORS], [heard(3, 2, 0)], id="after-a-seats-event"),
        pytest.param(
            1,
            None,
            [SPECTATORS, SPECTATORS, None, SPECTATORS],
            [heard(3, 1, 0), heard(3, 1, 1), "3-1", heard(3, 2, 0)],
            id="mixed",
        ),
    ],
)
def test_appended_cursors(
    seats: int, before: tuple[int, int] | None, audiences: list[str | None], expected: list[str]
) -> None:
    found = appended_cursors(3, seats, before, audiences)
    assert list(found) == expected
    assert sorted(found, key=cursor_key) == list(found)


def test_no_number_left_for_spectators_is_refused() -> None:
    with pytest.raises(CursorsSpent):
        appended_cursors(3, 1, (1, SPECTATOR_STEP - 1), [SPECTATORS])
    with pytest.raises(CursorsSpent):
        appended_cursors(3, SPECTATOR_STEP, None, [SPECTATORS])
    # everyone's events still get theirs
    assert appended_cursors(3, 1, (1, SPECTATOR_STEP - 1), [None]) == ("3-1",)


def test_a_number_past_the_spectators_space_is_no_cursor() -> None:
    with pytest.raises(BadCursor):
        cursor_key(f"1-{2**53}")
    assert cursor_key(f"1-{2**53 - 1}") > cursor_key(f"1-{SPECTATOR_STEP - 2}")
