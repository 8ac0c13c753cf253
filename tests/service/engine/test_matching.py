"""Quick play's matching: oldest first, rating windows that widen, seat counts that
overlap, bots after the wait."""

from __future__ import annotations

from tablestate.engine.matching import Ticket, near, plan, pool_of, window


def ticket(
    n: int,
    at: float = 0.0,
    *,
    lo: int = 2,
    hi: int = 2,
    bots: bool = False,
    after: float = 30.0,
    rating: float | None = None,
) -> Ticket:
    return Ticket(
        id=f"p.{n}", pool="p", game_id="g", house_rules=(), options=None, min=lo, max=hi,
        bots=bots, after=after, at=at, name=f"P{n}", user=f"u{n}" if rating is not None else None,
        rating=rating,
    )  # fmt: skip


def ids(groups) -> list[list[str]]:
    return [[t.id for t in g.tickets] for g in groups]


def test_pools_part_games_rules_and_options_but_not_their_order():
    assert pool_of("g", ["a", "b"], {"x": 1, "y": 2}) == pool_of("g", ["b", "a"], {"y": 2, "x": 1})
    assert pool_of("g", ["a"], None) != pool_of("g", [], None)
    assert pool_of("g", [], {"x": 1}) != pool_of("g", [], {"x": 2})
    assert pool_of("g", [], None) != pool_of("h", [], None)


def test_the_oldest_are_matched_first():
    waiting = [ticket(3, at=3), ticket(1, at=1), ticket(2, at=2), ticket(4, at=4), ticket(5, 5)]
    assert ids(plan(waiting, now=6)) == [["p.1", "p.2"], ["p.3", "p.4"]]


def test_a_table_fills_to_the_largest_size_every_ticket_accepts():
    waiting = [ticket(1, lo=2, hi=4), ticket(2, lo=3, hi=6), ticket(3, lo=2, hi=3), ticket(4)]
    # 1 and 2 agree on 3 to 4; 3 narrows it to 3: full at three
    groups = plan(waiting, now=1)
    assert ids(groups) == [["p.1", "p.2", "p.3"]] and groups[0].seats == 3


def test_below_the_maximum_a_group_waits_until_the_oldest_has_waited():
    waiting = [ticket(1, at=0, lo=2, hi=4), ticket(2, at=1, lo=2, hi=4)]
    assert plan(waiting, now=10) == []
    groups = plan(waiting, now=30)
    assert ids(groups) == [["p.1", "p.2"]] and (groups[0].seats, groups[0].bots) == (2, 0)


def test_bots_fill_the_seats_left_after_the_wait_where_every_ticket_allows():
    alone = [ticket(1, at=0, lo=2, hi=4, bots=True, after=5)]
    assert plan(alone, now=4) == []
    (group,) = plan(alone, now=5)
    assert (group.seats, group.bots) == (4, 3)
    mixed = [ticket(1, lo=2, hi=4, bots=True, after=5), ticket(2, at=1, lo=2, hi=4, bots=False)]
    (group,) = plan(mixed, now=6)
    assert (group.seats, group.bots) == (2, 0)  # no bots: the two start alone
    no_bots = [ticket(1, lo=2, hi=4, bots=False, after=0)]
    assert plan(no_bots, now=100) == []  # never below the minimum without bots


def test_ratings_meet_within_a_window_that_widens():
    assert window(0) == 5.0 and window(10) == 15.0 and window(10_000) == 50.0
    strong, weak = ticket(1, at=0, rating=40.0), ticket(2, at=0, rating=20.0)
    assert not near(strong, weak, now=0) and not near(strong, weak, now=14)
    assert near(strong, weak, now=15)
    assert plan([strong, weak], now=5) == []
    assert ids(plan([strong, weak], now=16)) == [["p.1", "p.2"]]
    anonymous = ticket(3, at=0)
    assert near(strong, anonymous, now=0)  # no rating: by arrival


def test_a_ticket_that_cannot_start_blocks_nobody_behind_it():
    picky = ticket(1, at=0, lo=4, hi=4)
    waiting = [picky, ticket(2, at=1), ticket(3, at=2)]
    assert ids(plan(waiting, now=3)) == [["p.2", "p.3"]]
