"""Five by Five's own hooks: the points where its house rules may change play.

The game calls these on the house rules enabled at a table, and on no other. Every hook
is pure: it gets values, returns a value and may mutate nothing (no argument, no state).
The game collects the answers of all enabled rules (pluggy returns a list, last
registered first) and reads them as each docstring says; with no rule answering, the base
rules of DECISIONS.md section 3 apply. A hookimpl may take only the arguments it needs.
The reference with examples is ``docs/hooks/five-by-five.md``.
"""

# Hookspecs only: pluggy reads their signatures and never runs their (empty) bodies.
# mypy: disable-error-code="empty-body"

from __future__ import annotations

from collections.abc import Sequence

from tablestate import hookspec

Square = tuple[int, int]


@hookspec
def five_by_five_extra_lines() -> Sequence[Sequence[Square]]:
    """Lines that count for line objectives besides the rows and columns.

    Called once, at setup; the lines are kept in the state for the whole game (a view
    has no rule set). Every line objective then counts them: full-line sums, all even,
    all odd, full house, the small straight and the three specials. Squares touching
    (three of a number, Swap) stay orthogonal whatever the answer.

    Returns:
        Lines of 5 squares ``(row, col)``, each read in order (the small straight needs 4
        consecutive squares of a line). An empty list adds none; a line already counted
        is counted once.
    """


@hookspec
def five_by_five_objectives_public() -> bool:
    """Whether objective hands are public at this table.

    Called once, at setup; the answer is kept in the state (a view has no rule set).
    Objective hands are hidden by default (FB-13). Action hands stay hidden whatever the
    answer.

    Returns:
        True to make them public: every view then shows every seat's objective cards, and
        the objectives dealt, drawn and discarded are in the public part of the events.
        They are public when any enabled rule answers True.
    """


@hookspec
def five_by_five_adjust_value(value: int, delta: int) -> int | None:
    """The value of a die after +1/-1, where the base rule refuses it.

    Called only when ``value + delta`` leaves 1..6 (a 6 going up, a 1 going down), both
    to list the legal moves and to play one.

    Args:
        value: the die's value, 1..6.
        delta: +1 or -1.

    Returns:
        The new value 1..6 to allow the change, or None to leave it refused. The first
        answer that is not None counts.
    """


@hookspec
def five_by_five_swap_allowed(first: str | None, second: str | None) -> bool:
    """Whether a Swap between two adjacent squares stands where one of them is empty.

    The base rule swaps two dice only. Called for orthogonally adjacent squares of which
    exactly one holds a die; two empty squares, or squares not side by side, never swap.

    Args:
        first: the first square's content, a die such as ``"R3"`` or None (empty).
        second: the second square's content, likewise.

    Returns:
        True to allow it; the swap stands when any enabled rule answers True.
    """


@hookspec
def five_by_five_die_leaves_game(die: str) -> bool:
    """Whether a die taken off the board by Remove or Paint leaves the game.

    By default it returns to the supply (FB-8), so a colour can come back. Called for the
    die on the target square of a Remove or Paint, when the move is checked and when it
    is played. While a die would leave, Remove and Paint are legal only if the supply,
    less the die they take, can still fill every empty square.

    Args:
        die: the die taken off, e.g. ``"G5"``.

    Returns:
        True to put it out of the game for good; it leaves when any rule answers True.
    """


@hookspec
def five_by_five_special_shared(objective: str, claimed_by: Sequence[int], seat: int) -> bool:
    """Whether a seat may still score a special objective that others have scored.

    By default the first seat to claim a special takes it. Called only when the special is
    satisfied, already claimed by other seats, and not by ``seat``.

    Args:
        objective: the special's id, e.g. ``"special-large-straight"``.
        claimed_by: the seats that scored it so far, in play order.
        seat: the seat that would claim it.

    Returns:
        True to let the seat score it too; allowed when any rule answers True.
    """


@hookspec
def five_by_five_forfeit_discards(hand: Sequence[str]) -> Sequence[Sequence[str]]:
    """More ways to forfeit a turn by discarding action cards.

    By default a forfeit discards the whole action hand (then draws back to the hand
    size). The move's cards must equal (as a multiset) the whole hand or one of the
    choices the enabled rules return; each allowed choice is listed in ``legalMoves``.
    The player then takes cards, one ``drawAction`` each, back up to the hand size.

    Args:
        hand: the action cards in hand, in canonical order.

    Returns:
        Each allowed discard, as a list of cards from ``hand`` (a multiset). Empty
        choices and choices that are not part of the hand are ignored.
    """


@hookspec
def five_by_five_finish_round() -> bool:
    """Whether play goes on after the board fills until the round of turns is complete.

    By default the game ends as soon as the last square fills (FB-14) and the last
    objective plays start from the player who filled it. Called when the last square
    fills and at the end of each turn after that.

    Returns:
        True to play the round out: the turn that filled the board goes on as usual and
        the remaining players of the round (in play order, up to the first player) take
        their turns, with no colour card playable on the full board; then every player,
        from the first player on, makes the last objective plays. Played out when any
        enabled rule answers True.
    """
