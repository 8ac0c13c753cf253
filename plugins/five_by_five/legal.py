"""Who is to act and which moves the rules allow (DECISIONS.md 3.2-3.3).

Every move is JSON with one key, its kind (``moves.MOVE_KINDS``), already shape-checked by
``moves.check_move``. ``refusal`` says why the rules refuse a move (None: legal);
``candidates`` lists every move that could be legal now, so ``legal`` is exactly the
candidates ``refusal`` accepts. ``apply.py`` plays a legal move.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import combinations
from typing import Any, Final

from tablestate.engine import Move, RuleSet
from tablestate_five_by_five import _cards
from tablestate_five_by_five._table import Table, square_json, square_of
from tablestate_five_by_five.moves import ACTION_KINDS, CARD_KINDS
from tablestate_five_by_five.rules import (
    COLORS,
    OBJECTIVE_BY_ID,
    PAINT,
    PLUS_MINUS,
    REMOVE,
    REROLL,
    SPECIAL_IDS,
    SQUARES,
    SWAP,
    Square,
    adjacent,
    neighbours,
    occupied_squares,
    parse_die,
)
from tablestate_five_by_five.state import (
    ACTED,
    FINAL,
    OVER,
    PLACE,
    REFILL,
    TURN,
    State,
    sort_actions,
)

CARD_NAMES: Final[Mapping[str, str]] = {
    "R": "red",
    "Y": "yellow",
    "B": "blue",
    "G": "green",
    REROLL: "Reroll",
    REMOVE: "Remove",
    SWAP: "Swap",
    PLUS_MINUS: "+1/-1",
    PAINT: "Paint",
}


def to_act(state: State) -> tuple[int, ...]:
    """The seat awaited now (none once the game is over)."""
    position = state.acting()
    return () if position is None else (state.players[position].seat,)


def legal_moves(state: State, seat: int, rules: RuleSet) -> list[Move]:
    """Exactly the legal moves of ``seat`` now (none when it is not to act)."""
    if seat not in to_act(state):
        return []
    return legal(Table(state, rules), state.position(seat))


def _where(sq: Square) -> str:
    return f"square ({sq[0]}, {sq[1]})"


# --- legality ---------------------------------------------------------------------------


def refusal(t: Table, position: int, move: Move) -> str | None:
    """Why the rules refuse this move of the player at ``position`` (None: it is legal)."""
    s = t.state
    ((kind, arg),) = move.items()
    if s.phase == OVER:
        return "the game is over"
    if kind == "place":
        if s.phase != PLACE:
            return "there is no rolled die to place"
        sq = square_of(arg["square"])
        return None if t.at(sq) is None else f"{_where(sq)} already holds a die"
    if s.phase == PLACE:
        return f"place the rolled die {s.pending} on an empty square first"
    if kind in ACTION_KINDS:
        if s.phase == FINAL:
            return "the board is full: only objectives can be played now"
        if s.phase != TURN:
            return "you have already played your action this turn"
        return _action_refusal(t, position, kind, arg)
    if kind in ("playObjective", "claimSpecial"):
        return _objective_refusal(t, position, kind, arg["objective"])
    if kind == "drawAction":
        if s.phase not in (ACTED, REFILL):
            return "you take an action card only once your action or forfeit is done"
        return None
    if kind == "done":
        return None if s.phase == FINAL else "the game is not at its last objective plays"
    # forfeits
    if s.phase != TURN:
        return "you can forfeit only instead of playing an action"
    if s.scored_this_turn:
        return "you have played objectives this turn, so you cannot forfeit it"
    player = s.players[position]
    if kind == "forfeitActions":
        if sort_actions(arg["cards"]) not in t.forfeit_choices(position):
            if not _cards.is_sub_multiset(arg["cards"], player.actions):
                return "you do not hold all of those action cards"
            return "a forfeit discards your whole action hand"
        return None
    objectives = arg["objectives"]
    if not objectives:
        return "name at least one objective card to discard"
    if not _cards.is_sub_multiset(objectives, player.objectives):
        return "you do not hold all of those objective cards"
    return None


def _action_refusal(t: Table, position: int, kind: str, arg: Mapping[str, Any]) -> str | None:
    card = arg["card"] if kind == "playColor" else CARD_KINDS[kind]
    if card not in t.state.players[position].actions:
        return f"you hold no {CARD_NAMES[card]} card"
    if kind == "playColor":
        color = arg["color"]
        if not t.empties:
            return "the board is full"
        if t.supply(color) == 0:
            return f"no {CARD_NAMES[color]} die is left in the supply"
        if color != card and t.supply(card) > 0:
            return (
                f"the {CARD_NAMES[card]} card is wild only once the {CARD_NAMES[card]} dice run out"
            )
        return None
    if kind == "swap":
        return _swap_refusal(t, square_of(arg["first"]), square_of(arg["second"]))
    sq = square_of(arg["square"])
    old = t.at(sq)
    if old is None:
        return f"{_where(sq)} holds no die"
    old_color, value = parse_die(old)
    if kind == "plusMinus":
        new = value + arg["delta"]
        if 1 <= new <= 6:
            return None
        wrapped = t.rules.hook.five_by_five_adjust_value(value=value, delta=arg["delta"])
        if any(w is not None for w in wrapped):
            return None
        return "a 6 cannot go up and a 1 cannot go down"
    if kind in ("remove", "paint"):
        color = arg["color"]
        leaves = t.leaves(old)
        available = t.supply(color) + (1 if color == old_color and not leaves else 0)
        if kind == "paint" and color == old_color:
            return "Paint changes a die to a different colour"
        if available == 0:
            return f"no {CARD_NAMES[color]} die is left in the supply"
        if leaves and not t.fillable_after_using_one():
            return "the supply would hold too few dice to fill the board"
    return None


def _swap_refusal(t: Table, a: Square, b: Square) -> str | None:
    if not adjacent(a, b):
        return f"{_where(a)} and {_where(b)} are not side by side"
    first, second = t.at(a), t.at(b)
    if first is None and second is None:
        return "both squares are empty"
    if first is None or second is None:
        if any(t.rules.hook.five_by_five_swap_allowed(first=first, second=second)):
            return None
        return "a swap needs a die on both squares"
    return None


def _objective_refusal(t: Table, position: int, kind: str, objective: str) -> str | None:
    s = t.state
    if s.phase not in (TURN, ACTED, FINAL):
        return "objectives cannot be played while you refill a forfeited hand"
    if s.phase == TURN and not has_legal_action(t, position):
        return (
            "you hold no action card you can play, so you must forfeit this turn, "
            "and a forfeited turn plays no objectives"
        )
    name = OBJECTIVE_BY_ID[objective].name
    player = s.players[position]
    if kind == "playObjective":
        if objective in SPECIAL_IDS:
            return "special objectives are claimed with claimSpecial"
        if objective not in player.objectives:
            return f"you hold no {name} card"
    else:
        if objective not in SPECIAL_IDS:
            return f"{name} is not a special objective"
        if player.has_scored(objective):
            return f"you have already scored {name}"
        if not t.special_open(objective, player.seat):
            return f"{name} is already claimed"
    if objective not in t.satisfied:
        return f"the board does not satisfy {name}"
    return None


# --- candidates -------------------------------------------------------------------------


def _action_candidates(t: Table, position: int) -> Iterator[Move]:
    hand = set(t.state.players[position].actions)
    board = t.state.board
    occupied = occupied_squares(board)
    for card in COLORS:
        if card in hand:
            for color in COLORS:
                yield {"playColor": {"card": card, "color": color}}
    for sq in occupied:
        if REROLL in hand:
            yield {"reroll": {"square": square_json(sq)}}
        if PLUS_MINUS in hand:
            for delta in (1, -1):
                yield {"plusMinus": {"square": square_json(sq), "delta": delta}}
        for card, kind in ((REMOVE, "remove"), (PAINT, "paint")):
            if card in hand:
                for color in COLORS:
                    yield {kind: {"square": square_json(sq), "color": color}}
    if SWAP in hand:
        for sq in SQUARES:
            for nb in neighbours(sq):
                yield {"swap": {"first": square_json(sq), "second": square_json(nb)}}


def has_legal_action(t: Table, position: int) -> bool:
    """Whether the player holds an action card they can play now."""
    found = t.legal_action.get(position)
    if found is None:
        found = t.legal_action[position] = any(
            _action_refusal(t, position, kind, arg) is None
            for move in _action_candidates(t, position)
            for kind, arg in move.items()
        )
    return found


def _sub_multisets(cards: tuple[str, ...]) -> list[list[str]]:
    found = {combo for n in range(1, len(cards) + 1) for combo in combinations(cards, n)}
    return [list(c) for c in sorted(found, key=lambda c: (len(c), c))]


def candidates(t: Table, position: int) -> Iterator[Move]:
    """Every move that may be legal for the player at ``position`` now (a superset)."""
    s = t.state
    player = s.players[position]
    if s.phase == PLACE:
        for sq in t.empties:
            yield {"place": {"square": square_json(sq)}}
        return
    if s.phase in (TURN, ACTED, FINAL):
        for objective in dict.fromkeys(player.objectives):
            yield {"playObjective": {"objective": objective}}
        for special in SPECIAL_IDS:
            yield {"claimSpecial": {"objective": special}}
    if s.phase == TURN:
        yield from _action_candidates(t, position)
        for choice in t.forfeit_choices(position):
            yield {"forfeitActions": {"cards": list(choice)}}
        for objectives in _sub_multisets(player.objectives):
            yield {"forfeitObjectives": {"objectives": objectives}}
    if s.phase in (ACTED, REFILL):
        for deck in _cards.DECK_NAMES:
            yield {"drawAction": {"deck": deck}}
    if s.phase == FINAL:
        yield {"done": True}


def legal(t: Table, position: int) -> list[Move]:
    """Exactly the legal moves of the player at ``position``."""
    return [m for m in candidates(t, position) if refusal(t, position, m) is None]
