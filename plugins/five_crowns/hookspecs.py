"""Five Crowns' own hooks: the points where its house rules change play.

At a table these hooks are called on the house rules enabled there and on no other. Every
hook is pure: it gets values and returns a value, and changes nothing. A hook
implementation may take only the arguments it needs. No hook is ``firstresult``: the game
combines every answer as each docstring says, and a rule with nothing to say returns None.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tablestate import hookspec
from tablestate_five_crowns.rules import MeldLimits


@hookspec
def five_crowns_meld_limits() -> MeldLimits | None:
    """May this meld stand? What every book and run needs beyond the publisher's rules.

    The answer is a ``MeldLimits`` (``min_naturals``, ``max_wilds_per_natural``) rather than
    a yes or no per meld, so that the exact solver (going out, final-turn scoring, the solo
    piles, lay-offs) knows the rule too.

    Returns:
        The limits this rule sets, or None. The game keeps the strictest of all answers
        (the highest ``min_naturals``, the lowest ``max_wilds_per_natural``).
    """


@hookspec
def five_crowns_card_points() -> Mapping[str, int] | None:
    """What is a card left in hand worth? Points that differ from the publisher's.

    The answer is a table rather than a score per hand, so that the exact solver (the
    engine's last-turn scoring, the bots, the legal moves' best arrangements, the solo
    piles) minimizes the leftover under these points too.

    Returns:
        Overrides keyed by a rank name (``"3"`` .. ``"10"``, ``"J"``, ``"Q"``, ``"K"``: a
        natural card of that rank), ``"WILD"`` (a card of the round's wild rank) or
        ``"JK"`` (a joker), each an int from 0 to 1000; or None. The game merges every
        answer into the standard points (3..13 by rank, wild rank 20, joker 50); where two
        answers give one key different values, the highest counts. A bad key or value is
        a programming error and raises when the table's rules are first read.
    """


@hookspec
def five_crowns_may_lay_off(final_turn: bool) -> bool | None:
    """May a card go on another's meld? Whether a player may add cards from hand to the
    melds on the table (anyone's, those of the player who went out included).

    Args:
        final_turn: whether the player is taking a last turn (someone has gone out).

    Returns:
        True to allow the ``layOff`` move now (any True allows it); None or False
        otherwise. Without any True, ``layOff`` is refused with ILLEGAL_MOVE.
    """


@hookspec
def five_crowns_may_discard(card: str, taken: str | None) -> bool | None:
    """May this card be discarded now (going out and laying down included)?

    Args:
        card: the card the player wants to discard.
        taken: the card taken from the discard pile this turn, or None if the player
            drew from the stock.

    Returns:
        False to refuse it (any False refuses); None or True to leave it allowed.
    """


@hookspec
def five_crowns_deck(players: int) -> Sequence[str] | None:
    """The cards this table plays with.

    Args:
        players: how many players are seated.

    Returns:
        Every card of the deck (twins repeated), or None. The first answer that is not
        None counts; without one the table plays the two standard decks (116 cards).
    """


@hookspec
def five_crowns_restock(discard: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """How the discard pile becomes the new stock when the stock runs out.

    Args:
        discard: the discard pile, top card last.

    Returns:
        ``(kept, shuffled)``: the cards that stay face up as the discard pile (top last)
        and those shuffled into the new stock, together exactly ``discard``; or None. The
        first answer that is not None counts; the default keeps the top card (FC-5).
    """


@hookspec
def five_crowns_declares_final_melds() -> bool | None:
    """Must players declare their melds on the last turn?

    Returns:
        True if a last turn's leftover is what the player did not lay down (any True);
        None or False for the default (FC-12): the engine lays down the best arrangement
        of what the player keeps and scores the minimum leftover.
    """
