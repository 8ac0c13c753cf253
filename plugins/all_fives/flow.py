"""The forced steps of All Fives: dealing, running the cards, fixing trump, scoring,
the end of a deal and of the game. A move's handler calls these inside the same ``apply``.

A ``Step`` gathers the new state and the events of one ``apply``; it is created per call
and never shared, so the functions stay pure from the outside.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from tablestate.engine import Event, Rng, RuleSet
from tablestate_all_fives import rules as r
from tablestate_all_fives.state import (
    BUNCH,
    DISCARD,
    GAME_OVER,
    PLAY,
    STAND_OR_BEG,
    Award,
    State,
)

PACKET = 3


class Step:
    """The state and events of one ``apply`` (or of ``setup``) as they build up."""

    __slots__ = ("events", "rng", "rules", "state")

    def __init__(self, state: State, rng: Rng, rules: RuleSet) -> None:
        self.state = state
        self.rng = rng
        self.rules = rules
        self.events: list[Event] = []

    def set(self, **changes: Any) -> State:
        self.state = replace(self.state, **changes)
        return self.state

    def emit(
        self,
        type_: str,
        data: Mapping[str, Any] | None = None,
        position: int | None = None,
        private: Mapping[int, Mapping[str, Any]] | None = None,
    ) -> None:
        seat = None if position is None else self.state.seats[position]
        self.events.append(Event(type_, dict(data or {}), seat, dict(private or {})))

    @property
    def over(self) -> bool:
        return self.state.phase == GAME_OVER


def scores_json(state: State) -> list[dict[str, int]]:
    """Each seat's total (its side's), in play order."""
    return [
        {"seat": seat, "score": state.scores[side], "dealPoints": state.deal_points[side]}
        for seat, side in zip(state.seats, state.sides, strict=True)
    ]


def first(found: Any) -> Any:
    """The answer of a ``firstresult`` hook, or None when no rule answered (a rule set
    without a plugin manager answers every hook with an empty list)."""
    return None if found is None or (isinstance(found, list) and not found) else found


def _flatten(results: Iterable[Sequence[Award] | None]) -> list[Award]:
    return [a for found in results if found for a in found]


# -- scoring ---------------------------------------------------------------------------


def finish(step: Step, sides: Sequence[int]) -> None:
    """End the game with these winning sides."""
    st = step.set(phase=GAME_OVER, winners=tuple(sorted(sides)))
    winners = [seat for side in st.winners for seat in st.side_seats(side)]
    step.emit("game.over", {"winners": sorted(winners), "scores": scores_json(st)})


def award(step: Step, a: Award) -> None:
    """Score an award; with peg-out, a side reaching the target wins at once."""
    if step.over or a.points == 0:
        return
    st = step.state
    scores = list(st.scores)
    deal = list(st.deal_points)
    scores[a.side] += a.points
    deal[a.side] += a.points
    st = step.set(scores=tuple(scores), deal_points=tuple(deal))
    step.emit(
        "points.scored",
        {
            "seats": list(st.side_seats(a.side)),
            "points": a.points,
            "reason": a.reason,
            "total": scores[a.side],
        },
    )
    if scores[a.side] >= st.target and any(step.rules.hook.all_fives_peg_out(state=st)):
        finish(step, (a.side,))


def end_deal(step: Step) -> None:
    """After the last trick: end-of-deal points, the check for a winner, the next deal."""
    for a in _flatten(step.rules.hook.all_fives_deal_awards(state=step.state)):
        award(step, a)
        if step.over:
            return
    st = step.state
    step.emit("deal.scored", {"scores": scores_json(st)})
    best = max(st.scores)
    if best >= st.target:
        top = [side for side, score in enumerate(st.scores) if score == best]
        if len(top) == 1:
            finish(step, top)
            return
    start_deal(step, st.after(st.dealer))


# -- dealing ---------------------------------------------------------------------------


def start_deal(step: Step, dealer: int, reason: str = "next") -> None:
    """Shuffle all 52 cards and deal: two packets of 3 each from eldest, then the turn-up."""
    st = step.state
    n, sides = st.n, st.n_sides
    st = step.set(
        dealer=dealer,
        deal_no=st.deal_no + 1,
        phase=STAND_OR_BEG,
        turn=(dealer + 1) % n,
        hands=((),) * n,
        stock=step.rng.shuffle(r.DECK),
        turn_up=None,
        proposed=None,
        set_aside=(),
        discards=(),
        trump=None,
        begged=False,
        runs=0,
        hand_limit=None,
        bunch_by=None,
        leader=(dealer + 1) % n,
        trick=(),
        last_trick=(),
        won=((),) * n,
        tricks=(0,) * n,
        held=((),) * n,
        voids=("",) * n,
        deal_points=(0,) * sides,
    )
    step.emit(
        "deal.started",
        {
            "deal": st.deal_no,
            "dealer": st.seats[dealer],
            "eldest": st.seats[st.eldest],
            "reason": reason,
        },
    )
    deal_packet(step, 1)
    deal_packet(step, 2)
    turn_up(step)
    step.set(proposed=r.suit(step.state.turn_up or ""))


def deal_packet(step: Step, packet: int) -> None:
    """Deal 3 cards to each player from eldest clockwise; each sees only its own."""
    st = step.state
    hands = list(st.hands)
    stock = st.stock
    private: dict[int, dict[str, Any]] = {}
    for i in range(st.n):
        pos = (st.eldest + i) % st.n
        cards, stock = stock[:PACKET], stock[PACKET:]
        hands[pos] = r.sort_cards(hands[pos] + cards)
        private[st.seats[pos]] = {"cards": list(cards)}
    st = step.set(hands=tuple(hands), stock=stock)
    step.emit(
        "cards.dealt",
        {
            "packet": packet,
            "perSeat": PACKET,
            "seats": [st.seats[(st.eldest + i) % st.n] for i in range(st.n)],
        },
        private=private,
    )


def turn_up(step: Step) -> None:
    """Turn up the top card of the stock."""
    st = step.state
    card, stock = st.stock[0], st.stock[1:]
    step.set(turn_up=card, stock=stock)
    step.emit("card.turned", {"card": card, "stockSize": len(stock)})


def run_cards(step: Step) -> None:
    """Run the cards: set the turn-up aside, deal 3 more each, turn up the next card;
    repeat while it shows the proposed suit. A stock too short voids the deal."""
    while True:
        st = step.state
        assert st.turn_up is not None
        st = step.set(set_aside=(*st.set_aside, st.turn_up), turn_up=None)
        step.emit("card.set-aside", {"card": st.set_aside[-1]})
        if len(st.stock) < PACKET * st.n + 1:
            step.emit("deal.void", {"reason": "stock"})
            start_deal(step, st.dealer, reason="redeal")
            return
        step.set(runs=st.runs + 1)
        deal_packet(step, 2 + step.state.runs)
        turn_up(step)
        card = step.state.turn_up
        assert card is not None
        if r.suit(card) != st.proposed:
            fix_trump(step, card, "run")
            return


def fix_trump(step: Step, card: str, by: str) -> None:
    """The turn-up's suit becomes trump; then the turn-up awards and the next phase."""
    st = step.set(trump=r.suit(card))
    step.emit("trump.fixed", {"suit": st.trump, "card": card, "by": by})
    for a in _flatten(step.rules.hook.all_fives_turn_up_awards(state=st, turn_up=card)):
        award(step, a)
        if step.over:
            return
    if by == "run" and any(step.rules.hook.all_fives_bunch_offered(state=step.state)):
        step.set(phase=BUNCH, turn=step.state.eldest, bunch_by=None)
        return
    after_bunch(step, by)


def after_bunch(step: Step, by: str) -> None:
    """Trump fixed and kept: discard down to the hand limit if a rule says so, then play."""
    st = step.state
    limit = first(step.rules.hook.all_fives_hand_limit(state=st)) if by == "run" else None
    if limit is not None and len(st.hands[st.eldest]) > limit:
        step.set(phase=DISCARD, turn=st.eldest, hand_limit=limit)
        return
    start_play(step)


def start_play(step: Step) -> None:
    """Eldest leads the first trick."""
    st = step.state
    step.set(phase=PLAY, turn=st.eldest, leader=st.eldest, held=st.hands, hand_limit=None)


def void_for_bunch(step: Step) -> None:
    """Both players agreed: the same dealer reshuffles and redeals."""
    st = step.state
    for side, points in enumerate(st.deal_points):
        if points:
            award(step, Award(side, -points, "voidDeal"))
    step.emit("deal.void", {"reason": "bunch"})
    start_deal(step, step.state.dealer, reason="redeal")
