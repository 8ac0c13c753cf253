"""Seeded random full games of All Fives, with the DESIGN.md invariants checked at every
step: conservation, secrecy, determinism, every legal move accepted, progress."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from plugins.all_fives import rules as r
from plugins.all_fives.game import GAME
from plugins.all_fives.presets import traditional
from plugins.all_fives.state import PLAY
from service.engine import Outcome, Rejected, Rng
from service.testing import GameDriver

from .support import (
    ALL_RULES,
    BUNCH,
    DISCARD_SIX,
    GIFT_ALL,
    HLJG,
    JACK_BONUS,
    MAY_TRUMP,
    NO_GIFT_WIN,
    PARTNERS,
    PEG_OUT,
    Tracker,
    assert_conserved,
    assert_views_secret,
    event_json,
    registry,
    ruleset,
)

FAST = {"targetScore": 31}


def _check_moves(d: GameDriver, seat: int, legal: list[dict[str, Any]]) -> None:
    """Every listed move is accepted; in play, a card is refused iff it is not listed."""
    for move in legal:
        assert GAME.check_move(move) is None
        out = GAME.apply(d.state, seat, move, Rng(b"probe"), d.rules)
        assert isinstance(out, Outcome), f"listed move {move} refused: {out}"
    if d.state.phase == PLAY:
        for card in r.DECK:
            move = {"play": {"card": card}}
            out = GAME.apply(d.state, seat, move, Rng(b"probe"), d.rules)
            assert isinstance(out, Rejected) != (move in legal), card
            if isinstance(out, Rejected):
                assert out.code == "ILLEGAL_MOVE"
                named = {w.strip("().,") for w in out.reason.split()} & set(r.DECK)
                assert named <= {card}, "a refusal names another card"
    for other in d.state.seats:
        if other != seat:
            assert d.legal(other) == []


def play_game(
    seats: Sequence[int],
    rules: Sequence[str] = (),
    options: dict[str, Any] | None = None,
    seed: str = "s",
    bots: Sequence[int] = (),
    probe: bool = True,
) -> GameDriver:
    """One full game: random legal moves (bots in ``bots``), invariants at every step."""
    d = GameDriver(GAME, list(seats), options=options, rules=ruleset(*rules), seed=seed)
    pick = random.Random(seed)
    bot_rng = Rng(b"bot")
    tracker = Tracker(seats)
    declared = set(GAME.event_types)
    for event in d.events:
        tracker.feed(event)
    for _ in range(5000):
        st = d.state
        assert_conserved(st)
        assert_views_secret(st)
        tracker.check(st)
        if d.result() is not None:
            assert d.to_act() == ()
            return d
        (seat,) = d.to_act()
        legal = d.legal(seat)
        assert legal, f"seat {seat} is to act with no legal move"
        if probe:
            _check_moves(d, seat, legal)
        if seat in bots:
            move = GAME.bot(st, seat, bot_rng, d.rules)
            assert move in legal, f"the bot chose an illegal move {move}"
        else:
            move = pick.choice(legal)
        for event in d.move(seat, move):
            assert event.type in declared
            tracker.feed(event)
        d.check_roundtrip()
    raise AssertionError("the game did not end")


def _config_id(seats, rules, options) -> str:
    names = "+".join(x.split("/")[1] for x in rules) or "default"
    return f"{len(seats)}p{''.join(map(str, seats))}-{names}-{options.get('targetScore', 60)}"


CONFIGS = [
    ((0, 1), (), {}),
    ((1, 3), (), FAST),
    ((0, 1, 2), (), {}),
    ((0, 2, 3), (), FAST),
    *[((0, 1), (rule,), FAST) for rule in ALL_RULES if rule not in (PARTNERS, GIFT_ALL)],
    *[((0, 1, 3), (rule,), FAST) for rule in ALL_RULES if rule not in (PARTNERS, BUNCH)],
    ((0, 1, 2, 3), (PARTNERS,), FAST),
    ((0, 1, 2, 3), (PARTNERS, MAY_TRUMP, HLJG), {"gameTie": "dealerOpponents"}),
    ((0, 2), (HLJG, MAY_TRUMP), {"lowGoesTo": "won", "gameTie": "eldest"}),
    ((0, 1, 2), (HLJG, PEG_OUT, GIFT_ALL), {"gameTie": "dealerOpponents", "targetScore": 41}),
    ((2, 3), (BUNCH, DISCARD_SIX, JACK_BONUS, NO_GIFT_WIN), FAST),
    ((0, 1), tuple(x for x in ALL_RULES if x not in (PARTNERS, GIFT_ALL)), {}),
    *[(tuple(range(n)), tuple(traditional(n)[0]), traditional(n)[1]) for n in (2, 3, 4)],
]


@pytest.mark.parametrize(
    "seats, rules, options", [pytest.param(*c, id=_config_id(*c)) for c in CONFIGS]
)
def test_random_games_keep_the_invariants(seats, rules, options):
    for k in range(3):
        d = play_game(seats, rules, options, seed=f"{_config_id(seats, rules, options)}-{k}")
        result = d.result()
        assert result is not None and set(result.scores) == set(seats)
        assert set(result.winners) <= set(seats) and result.winners


def _random_rules(chooser: random.Random) -> tuple[tuple[int, ...], tuple[str, ...]]:
    n = chooser.choice((2, 3, 4))
    allowed = {
        2: [x for x in ALL_RULES if x not in (PARTNERS, GIFT_ALL)],
        3: [x for x in ALL_RULES if x not in (PARTNERS, BUNCH)],
        4: [x for x in ALL_RULES if x not in (GIFT_ALL, BUNCH)],
    }[n]
    rules = {x for x in allowed if chooser.random() < 0.5}
    if n == 4:
        rules.add(PARTNERS)
    seats = tuple(sorted(chooser.sample(range(4), n)))
    return seats, tuple(sorted(rules))


@pytest.mark.parametrize("k", range(12))
def test_random_house_rule_sets_with_bots(k):
    chooser = random.Random(k)
    seats, rules = _random_rules(chooser)
    for x in rules:
        assert not set(registry().conflicts(x)) & set(rules)
    bots = [s for s in seats if chooser.random() < 0.5]
    options = {
        "targetScore": chooser.choice((21, 31, 61)),
        "lowGoesTo": chooser.choice(("dealt", "won")),
        "gameTie": chooser.choice(("none", "eldest", "dealerOpponents")),
    }
    play_game(seats, rules, options, seed=f"random-{k}", bots=bots, probe=k % 3 == 0)


@pytest.mark.parametrize(
    "seats, rules",
    [
        pytest.param((0, 2), (), id="2p"),
        pytest.param((0, 1, 2), (GIFT_ALL, HLJG), id="3p"),
        pytest.param((0, 1, 2, 3), (PARTNERS, PEG_OUT), id="4p"),
        pytest.param((0, 1), (BUNCH, DISCARD_SIX, JACK_BONUS), id="2p-bunch"),
    ],
)
def test_the_same_seed_gives_the_same_game(seats, rules):
    games = [
        play_game(seats, rules, FAST, seed="same", bots=seats[:1], probe=False) for _ in range(2)
    ]
    first, second = ([event_json(e) for e in g.events] for g in games)
    assert first == second and games[0].state == games[1].state
    other = play_game(seats, rules, FAST, seed="other", bots=seats[:1], probe=False)
    assert [event_json(e) for e in other.events] != first


@pytest.mark.parametrize("players", [2, 3])
def test_bots_play_whole_games(players):
    seats = tuple(range(players))
    for k in range(3):
        d = GameDriver(GAME, players, seed=f"bots-{k}")
        rng = Rng(b"bots")
        while d.result() is None:
            (seat,) = d.to_act()
            d.move(seat, GAME.bot(d.state, seat, rng, d.rules))
        assert set(d.result().scores) == set(seats)


def test_bots_beat_random_play():
    wins = 0
    for k in range(30):
        d = GameDriver(GAME, 2, options=FAST, seed=f"duel-{k}")
        pick, rng = random.Random(k), Rng(b"bot")
        while d.result() is None:
            (seat,) = d.to_act()
            move = GAME.bot(d.state, seat, rng, d.rules) if seat == 0 else pick.choice(d.legal(1))
            d.move(seat, move)
        wins += d.result().winners == (0,)
    assert wins >= 18


@pytest.mark.parametrize("seats", [(0, 1), (1, 2, 3)])
def test_the_driver_random_playout(seats):
    d = GameDriver(GAME, list(seats), options=FAST, seed="driver")
    assert d.random_playout(chooser=random.Random(1)).winners
