"""All Fives' own hooks: the points where its house rules change play.

At a table these hooks are called on the house rules enabled there and on no other. Every
hook is pure: it reads the state it is given (a frozen ``State``; positions, not seats, see
``plugins/all_fives/state.py``) and returns a value; it never changes anything. A hook
implementation may take only the arguments it needs.
"""

from __future__ import annotations

from collections.abc import Sequence

from tablestate import hookspec
from tablestate_all_fives.state import Award, State


@hookspec(firstresult=True)
def all_fives_sides(players: int) -> Sequence[int] | None:
    """How the players form scoring sides.

    Args:
        players: the number of players at the table.

    Returns:
        The side of each position (0-based, consecutive), or None to leave every player
        a side of its own. The first answer counts. Called once, at setup.
    """


@hookspec
def all_fives_may_trump(state: State, position: int) -> bool | None:
    """May a player who holds the plain suit led play a trump instead of following?

    Args:
        state: the game, in the PLAY phase, with a trick led.
        position: the player about to play.

    Returns:
        True to allow it (any True allows it); None or False to leave the rule: follow
        suit if able.
    """


@hookspec(firstresult=True)
def all_fives_gift_sides(state: State) -> Sequence[int] | None:
    """Who gets the point when the dealer gives one.

    Args:
        state: the game, in the GIVE_OR_RUN phase.

    Returns:
        The sides that each score 1, in scoring order, or None for the default: eldest's
        side alone. The first answer counts.
    """


@hookspec
def all_fives_may_give(state: State, sides: Sequence[int]) -> bool | None:
    """May the dealer give one now?

    Args:
        state: the game, in the GIVE_OR_RUN phase.
        sides: the sides that would score 1 (``all_fives_gift_sides``).

    Returns:
        False to forbid the gift (the dealer must run the cards); any False forbids it.
        True or None allows it.
    """


@hookspec
def all_fives_turn_up_awards(state: State, turn_up: str) -> Sequence[Award] | None:
    """Points scored at once when a turn-up becomes trump (after a gift, if any).

    Args:
        state: the game with ``trump`` just fixed to ``turn_up``'s suit.
        turn_up: the card that became trump.

    Returns:
        The awards, in scoring order, or None for none.
    """


@hookspec
def all_fives_deal_awards(state: State) -> Sequence[Award] | None:
    """Points scored at the end of a deal, after the last trick.

    Args:
        state: the game after the last trick: ``won``, ``held``, ``trump`` and
            ``tricks`` are complete.

    Returns:
        The awards, in scoring order (with peg-out, the first side to reach the target
        wins), or None for none.
    """


@hookspec
def all_fives_peg_out(state: State) -> bool | None:
    """Does a side win the moment its total reaches the target (mid-deal)?

    Args:
        state: the game just after a side scored.

    Returns:
        True for yes (any True); otherwise the game is checked only after each deal.
    """


@hookspec(firstresult=True)
def all_fives_hand_limit(state: State) -> int | None:
    """After a run fixed trump (and no redeal was agreed), the hand size each player
    discards down to, eldest first.

    Args:
        state: the game with trump just fixed by a run.

    Returns:
        The hand size to keep, or None to keep every card. The first answer counts.
    """


@hookspec
def all_fives_bunch_offered(state: State) -> bool | None:
    """After a run fixed trump, do the players get to agree on a redeal?

    Args:
        state: the game with trump just fixed by a run.

    Returns:
        True to open the BUNCH phase (any True): the players in turn from eldest may
        propose a redeal; if the other agrees, the same dealer redeals.
    """
