"""A feed's position in its table's events (``service/_position.py``): when a commit this
replica hands over is delivered at once, and when the feed fetches."""

from __future__ import annotations

from typing import Any

import pytest

from tablestate._position import UNKNOWN, Position
from tablestate.store.base import cursor_key


def at(last: str | None = "3-1", **fields: Any) -> Position:
    """A position that delivered the event at ``last`` (None: none yet)."""
    position = Position(**fields)
    if last is not None:
        position.advance(cursor_key(last), last)
    return position


@pytest.mark.parametrize(
    "position, first, appended, follows",
    [
        pytest.param(at(), (4, 0), "", True, id="the-next-version"),
        pytest.param(at(None), (4, 0), "", False, id="nothing-held-yet"),
        pytest.param(at(), (5, 0), "", False, id="a-version-missed"),
        pytest.param(at(), (4, 1), "", False, id="not-the-commits-first-event"),
        pytest.param(at(fetching=True), (4, 0), "", False, id="a-fetch-under-way"),
        pytest.param(at(appends=1), (4, 0), "", False, id="an-append-in-flight-here"),
        pytest.param(at(pending=cursor_key("3-2")), (4, 0), "", False, id="an-append-heard-of"),
        pytest.param(at(pending=UNKNOWN), (4, 0), "", False, id="something-heard-of"),
        pytest.param(at(pending=(4, 0)), (4, 0), "", True, id="its-own-announcement"),
        pytest.param(at(), (4, 0), "3-2", False, id="an-append-the-store-names"),
        pytest.param(at(), (4, 0), "3-1", True, id="an-append-held-already"),
    ],
)
def test_a_handed_over_commit_follows_only_what_the_feed_holds(
    position: Position, first: tuple[int, int], appended: str, follows: bool
) -> None:
    assert position.follows(first, appended) is follows


def test_an_announcement_of_what_was_delivered_wakes_nothing() -> None:
    position = at("4-0")
    position.announce("4-0")
    position.announce("3-5")
    assert not position.wake.is_set() and position.announced is None


@pytest.mark.parametrize("cursor", ["", "not-a-cursor"])
def test_an_announcement_without_a_cursor_wakes_the_feed_and_blocks_handing_over(
    cursor: str,
) -> None:
    position = at()
    position.announce(cursor)
    assert position.wake.is_set() and position.pending == UNKNOWN
    assert not position.follows((4, 0), "")


def test_a_commit_announced_before_it_is_handed_over_needs_no_fetch() -> None:
    position = at()
    position.announce("4-0")  # the store's word came first, on its own connection
    assert position.wake.is_set() and position.follows((4, 0), "")
    position.advance(cursor_key("4-0"), "4-0")
    position.settle()
    assert not position.wake.is_set() and position.pending is None


def test_an_announcement_past_the_commit_still_fetches() -> None:
    position = at()
    position.announce("5-0")  # another replica's commit after it
    position.advance(cursor_key("4-0"), "4-0")
    position.settle()
    assert position.wake.is_set()


def test_a_fetch_reads_everything_heard_of() -> None:
    position = at()
    position.announce("4-0")
    position.begin_fetch()
    assert position.fetching and not position.wake.is_set()
    assert position.announced is None and position.pending is None


def test_appends_in_flight_are_counted_and_never_below_zero() -> None:
    position = at()
    position.appending(True)
    position.appending(True)
    position.appending(False)
    assert position.appends == 1
    position.appending(False)
    position.appending(False)  # one given up after the feed was made: nothing to take
    assert position.appends == 0
