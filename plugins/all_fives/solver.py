"""The rest of a two-hand deal solved with every card in sight: the strong bot's judge.

The strong bot draws the hidden cards (``views.determinize``) and asks, for each draw and
each move it weighs, how the deal would end if both players played on at their best
knowing that draw (``GameDef.bot_solve``): the determinized search of trick-taking bots
(perfect-information Monte Carlo). This replaces a playout by the heuristic once the
trump is fixed, where a playout's noise hides what a card is worth.

What is left of a deal is a game of perfect information in the draw, with no chance, and
its points are those of the tricks still to be won: each trick's trump honours to its
winner (DECISIONS 2.2 rules 6-8). So the value of a position is the leader's points less
the follower's over the tricks left, a function of the two hands alone, found by minimax
over cards as bits: alpha-beta, a table of the bounds found for each position met, and
cards that play alike (neighbours in a suit, of equal points) tried once. The seat's
standing after the deal is increasing in that difference (the points left are fixed, and
the game is checked once the deal is scored), so the move best for the difference is best
for the standing too.

Where the rules add what this does not model (Seven-up's points at the end of a deal,
pegging out during it) or more than two hands play, it answers None and the bot plays the
deal out with the heuristic as before.
"""

from __future__ import annotations

from typing import Final

from plugins.all_fives import rules as r
from plugins.all_fives.legal import may_trump
from plugins.all_fives.state import PLAY, State
from service.engine import RuleSet

#: House rules that change nothing this solves: they act before the play (the gift, the
#: turn-up, the discard, a redeal) or only in what may be played (``may_trump``, asked).
SOLVABLE_WITH: Final = frozenset(
    {
        "all-fives/beg-gift-to-all-opponents",
        "all-fives/bunch-on-agreement",
        "all-fives/dealer-cannot-gift-win",
        "all-fives/discard-to-six-after-run",
        "all-fives/may-trump-instead-of-following",
        "all-fives/turn-up-jack-bonus",
    }
)

_INDEX: Final = {card: i for i, card in enumerate(r.DECK)}  # suit-major: rank order = i % 13
_SUIT_BITS: Final = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
_SUIT_OF: Final = tuple(i // 13 for i in range(52))

# (trump, may_trump) -> {(leader's hand, follower's hand): bounds (low, high) on the
# leader's points less the follower's}. True bounds of pure positions, so sharing them
# between the moves and draws of one search (and between searches) changes no answer, only
# its cost; bounded so it cannot grow.
_TABLES: dict[tuple[str, bool], dict[tuple[int, int], tuple[int, int]]] = {}
_MOST: Final = 30_000
_INF: Final = 1_000  # beyond any value: a deal holds at most 25 points of honours
_UNKNOWN: Final = (-_INF, _INF)
#: The most cards in the two hands it solves: eight each takes a few milliseconds, nine
#: each tens to hundreds; a larger deal (after a run) is played on until it is this small.
MOST_CARDS: Final = 16


def _bits(cards: tuple[str, ...]) -> int:
    out = 0
    for c in cards:
        out |= 1 << _INDEX[c]
    return out


def _points(trump: str) -> tuple[int, ...]:
    return tuple(r.HONOURS.get(r.rank(c), 0) if r.suit(c) == trump else 0 for c in r.DECK)


class _Solver:
    """Minimax over the tricks left for one trump and following rule."""

    __slots__ = ("may_trump", "points", "table", "trump")

    def __init__(self, trump: str, trumping: bool) -> None:
        self.trump = r.SUITS.index(trump)
        self.may_trump = trumping
        self.points = _points(trump)
        table = _TABLES.get((trump, trumping))
        if table is None or len(table) > _MOST:
            table = _TABLES[(trump, trumping)] = {}
        self.table = table

    def replies(self, hand: int, led: int) -> int:
        """The cards of ``hand`` that may follow ``led``."""
        s = _SUIT_OF[led]
        following = hand & _SUIT_BITS[s]
        if not following:
            return hand
        if self.may_trump and s != self.trump:
            return following | (hand & _SUIT_BITS[self.trump])
        return following

    def distinct(self, cards: int, held: int) -> int:
        """``cards`` less each card whose next higher card of its suit still held by
        anyone is also in ``cards`` and scores the same: the two play alike."""
        points = self.points
        out = cards
        rest = cards
        while rest:
            low = rest & -rest
            rest ^= low
            i = low.bit_length() - 1
            above = held & _SUIT_BITS[_SUIT_OF[i]] & ~((low << 1) - 1)
            if above:
                nxt = above & -above
                if nxt & cards and points[nxt.bit_length() - 1] == points[i]:
                    out ^= low
        return out

    def reply_value(self, lead: int, hl: int, hf: int, alpha: int = -_INF, beta: int = _INF) -> int:
        """The leader's value once ``lead`` is out of ``hl`` and on the table, the follower
        answering at its best: exact within ``(alpha, beta)``, else a bound beyond it."""
        points, trump = self.points, self.trump
        worst = _INF
        replies = self.distinct(self.replies(hf, lead), hl | hf | 1 << lead)
        s = _SUIT_OF[lead]
        while replies:  # highest first: a card that wins is likelier to cut the search
            b = replies.bit_length() - 1
            low = 1 << b
            replies ^= low
            p = points[lead] + points[b]
            sb = _SUIT_OF[b]
            rest = hf ^ low
            top = beta if beta < worst else worst
            if (lead > b) if sb == s else (sb != trump):
                v = p + self.value(hl, rest, alpha - p, top - p)
            else:
                v = -p - self.value(rest, hl, -top - p, -alpha - p)
            if v < worst:
                worst = v
                if worst <= alpha:
                    break
        return worst

    def value(self, hl: int, hf: int, alpha: int = -_INF, beta: int = _INF) -> int:
        """The leader's points less the follower's over the tricks left: exact within
        ``(alpha, beta)``, else a bound beyond it (alpha-beta, the table holding bounds)."""
        if not hl:
            return 0
        key = (hl, hf)
        lo, hi = self.table.get(key, _UNKNOWN)
        if lo == hi or lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        a = alpha if alpha > lo else lo
        b = beta if beta < hi else hi
        best = -_INF
        leads = self.distinct(hl, hl | hf)
        while leads:
            i = leads.bit_length() - 1
            low = 1 << i
            leads ^= low
            v = self.reply_value(i, hl ^ low, hf, best if best > a else a, b)
            if v > best:
                best = v
                if best >= b:
                    break
        if best <= a:
            hi = best
        elif best >= b:
            lo = best
        else:
            lo = hi = best
        self.table[key] = (lo, hi)
        return best


def solve(state: State, seat: int, rules: RuleSet) -> float | None:
    """The seat's standing (``bot.standing``'s scale) once the deal in play is scored, both
    hands played at their best with every card in sight; None where this cannot tell."""
    if state.phase != PLAY or state.n != 2 or state.n_sides != 2:
        return None
    if not rules.enabled <= SOLVABLE_WITH or sum(map(len, state.hands)) > MOST_CARDS:
        return None
    trump = state.trump
    assert trump is not None
    trumping = {may_trump(state, p, rules) for p in range(2)}
    if len(trumping) != 1:
        return None
    solver = _Solver(trump, trumping.pop())
    pos = state.position(seat)
    assert pos is not None
    if state.trick:
        leader, card = state.trick[0]
        follower = 1 - leader
        lead = _INDEX[card]
        hl, hf = _bits(state.hands[leader]), _bits(state.hands[follower])
        d = solver.reply_value(lead, hl, hf)
        left = solver.points[lead]
    else:
        leader = state.turn
        hl, hf = _bits(state.hands[leader]), _bits(state.hands[1 - leader])
        d = solver.value(hl, hf)
        left = 0
    left += sum(solver.points[_INDEX[c]] for h in state.hands for c in h)
    mine = d if leader == pos else -d
    gain = (left + mine) / 2
    side = state.sides[pos]
    scores = list(state.scores)
    scores[side] += gain
    scores[1 - side] += left - gain
    best = max(scores)
    won = best >= state.target and scores[side] == best and scores[1 - side] < best
    return 100.0 * won + scores[side] - scores[1 - side]
