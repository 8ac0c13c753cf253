"""A simple All Fives bot: stands on a fair trump holding, follows suit sensibly, wins
tricks that hold honours and protects its own tens and fives of trumps.

It never uses chance, so a bot game is as reproducible as the deal. It decides from its
own hand and the cards in sight (``BotView``: the other hands and the stock are guesses).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tablestate.engine import Move, Rng, RuleSet
from tablestate.engine.bots import BotView
from tablestate_all_fives import rules as r
from tablestate_all_fives.state import (
    BUNCH,
    DISCARD,
    GAME_OVER,
    GIVE_OR_RUN,
    PLAY,
    STAND_OR_BEG,
    State,
)


def _trumps(hand: Iterable[str], trump: str | None) -> list[str]:
    return [c for c in hand if r.suit(c) == trump]


def _strong(hand: Sequence[str], suit: str | None) -> bool:
    """Worth keeping this suit as trump: two trumps, or one of the top honours."""
    trumps = _trumps(hand, suit)
    return len(trumps) >= 2 or any(r.rank(c) in ("A", "K", "10") for c in trumps)


def _cheap(card: str, trump: str) -> tuple[int, int, int]:
    """The order in which to throw cards away: no points, no trump, low rank first."""
    return (r.trick_points([card], trump), int(r.suit(card) == trump), r.rank_order(card))


def _choose_play(state: State, pos: int, cards: list[str]) -> str:
    trump = state.trump
    assert trump is not None
    plays = [c for _, c in state.trick]
    if not plays:
        trumps = _trumps(cards, trump)
        if len(trumps) >= 2 and any(r.rank(c) == "A" for c in trumps):
            return max(trumps, key=r.rank_order)  # draw trumps with the ace on top
        plain = [c for c in cards if r.suit(c) != trump]
        return min(plain or cards, key=lambda c: _cheap(c, trump))
    best = r.trick_winner(plays, trump)
    partner_winning = state.sides[state.trick[best][0]] == state.sides[pos]
    last = len(plays) == state.n - 1
    if partner_winning and last:
        return max(cards, key=lambda c: (r.trick_points([c], trump), -r.rank_order(c)))
    winners = [c for c in cards if r.trick_winner([*plays, c], trump) == len(plays)]
    at_stake = r.trick_points(plays, trump)
    if winners and not partner_winning:
        if last:
            # Safe: capture with the card worth most, the cheapest among equals.
            return max(winners, key=lambda c: (r.trick_points([c], trump), -r.rank_order(c)))
        safe = [c for c in winners if r.trick_points([c], trump) < 5] or winners
        if at_stake or any(r.trick_points([c], trump) for c in cards):
            return max(safe, key=r.rank_order)
    return min(cards, key=lambda c: _cheap(c, trump))


def bot(view: BotView[State], rng: Rng) -> Move:
    """A legal move for a bot in ``view.seat``."""
    state, seat = view.state, view.seat
    moves = view.legal
    if not moves:
        raise ValueError(f"seat {seat} has no move to make")
    pos = state.position(seat)
    assert pos is not None
    hand = state.hands[pos]
    kinds = {next(iter(m)) for m in moves}
    if state.phase == STAND_OR_BEG:
        return {"stand": True} if _strong(hand, state.proposed) else {"beg": True}
    if state.phase == GIVE_OR_RUN:
        if "giveOne" in kinds and _strong(hand, state.proposed):
            return {"giveOne": True}
        return {"run": True}
    if state.phase == BUNCH:
        return {"declineBunch": True} if _trumps(hand, state.trump) else {"bunch": True}
    if state.phase == DISCARD:
        trump = state.trump or ""
        return {"discard": {"card": min(hand, key=lambda c: _cheap(c, trump))}}
    assert state.phase == PLAY
    cards = [m["play"]["card"] for m in moves]
    return {"play": {"card": _choose_play(state, pos, cards)}}


def standing(state: State, seat: int, rules: RuleSet) -> float:
    """The seat's side's lead in game points, the points of its tricks in a deal still in
    play counted in again at a tenth, and 100 for a game won (the strong bot's judge of a
    playout)."""
    pos = state.position(seat)
    assert pos is not None
    trump = state.trump or "" if state.phase != GAME_OVER else ""
    deal = [0.0] * state.n_sides
    for p, cards in enumerate(state.won):
        deal[state.sides[p]] += r.trick_points(list(cards), trump) / 10 if trump else 0.0
    mine = state.sides[pos]
    points = [state.scores[s] + deal[s] for s in range(state.n_sides)]
    won = 100.0 * (mine in state.winners) if state.phase == GAME_OVER else 0.0
    return won + points[mine] - max(v for s, v in enumerate(points) if s != mine)


def stage(state: State) -> int:
    """The deal a state is in: a strong bot's playout ends with it, once it is scored."""
    return state.deal_no
