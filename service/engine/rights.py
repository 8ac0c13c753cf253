"""Who a credential is at a table, and what that viewer may see: the one place that decides.

A connection carries a ``Credential`` (a table token, parsed once; never the token's
text), never a seat. Which seat and which host rights it holds is a function of the
table's own records at the version being served: ``rights(credential, table)``. Every
path asks this module, at the table it is about to serve: queries, mutations (inside the
operation, at the version it commits on), the direct path and every delivery of the
fan-out. When a commit takes a seat from a credential (a kick, a replacement, leaving, a
bot taking over, a grace period ending), the credential's next question gets the answer
of that commit on, so nothing private reaches it any more.

Redaction is here too: what a viewer with given rights may see of an event
(``visible``, ``redact``). The game state's view for a seat is the game's own
(``GameDef.view``), asked with the seat these rights give.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Protocol

from service.engine.game import Rejected

MAX_TOKEN: Final = 200
SPECTATORS: Final = "spectators"  # an event's audience: viewers without a seat only

# What a credential is to a table (``Rights.standing``).
NONE: Final = "none"  # no credential: a spectator
ELSEWHERE: Final = "elsewhere"  # a credential for another table: a spectator here
HELD: Final = "held"  # the table knows it: a seat, host rights, or both
LOST: Final = "lost"  # a credential for this table that it no longer knows


class MalformedToken(ValueError):
    """A token that is not ``<table id>.<secret>``."""


@dataclass(frozen=True, slots=True)
class Credential:
    """What a caller presents: a table token, as the table's id and the token's digest."""

    table_id: str
    digest: str

    @classmethod
    def of_token(cls, token: str | None) -> Credential | None:
        """The credential of a token; None for none.

        Raises:
            MalformedToken: for a token that is not ``<table id>.<secret>``.
        """
        if token is None or token == "":
            return None
        table_id, dot, secret = token.partition(".")
        if not dot or not table_id or not secret or len(token) > MAX_TOKEN:
            raise MalformedToken("malformed token")
        return cls(table_id, token_hash(token))


def token_hash(token: str) -> str:
    """How a token is stored: the SHA-256 hex of its text."""
    return hashlib.sha256(token.encode()).hexdigest()


class _Seat(Protocol):
    @property
    def index(self) -> int: ...
    @property
    def token_hash(self) -> str | None: ...
    @property
    def host(self) -> bool: ...


class _Table(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def host_hash(self) -> str: ...
    @property
    def seats(self) -> tuple[Any, ...]: ...


@dataclass(frozen=True, slots=True)
class Rights:
    """What a credential holds at one table, at one version."""

    seat: int | None = None
    host: bool = False
    standing: str = NONE

    @property
    def audience(self) -> tuple[int | None, bool]:
        """What the viewer's answers depend on: the seat and the host rights."""
        return self.seat, self.host


SPECTATOR: Final = Rights()


def rights(credential: Credential | None, table: _Table | None) -> Rights:
    """What ``credential`` holds at ``table`` now (a table gone: nothing)."""
    if credential is None:
        return SPECTATOR
    if table is None:
        return Rights(standing=LOST)
    if credential.table_id != table.id:
        return Rights(standing=ELSEWHERE)
    digest = credential.digest
    for seat in table.seats:
        held = seat.token_hash
        if held is not None and hmac.compare_digest(held, digest):
            return Rights(seat.index, bool(seat.host), HELD)
    if hmac.compare_digest(table.host_hash, digest):
        return Rights(None, True, HELD)
    return Rights(standing=LOST)


def lost(before: Rights, now: Rights) -> bool:
    """Whether rights held before are gone now (a seat, or host rights)."""
    if before.seat is not None and now.seat != before.seat:
        return True
    return before.host and not now.host


def seat_of(held: Rights, what: str) -> int | Rejected:
    """The seat these rights act for, or the refusal, in DESIGN.md's order."""
    if held.standing in (NONE, LOST):
        return Rejected("UNAUTHENTICATED", _who(held, f"{what} needs a seat token"))
    if held.standing == ELSEWHERE:
        return Rejected("FORBIDDEN", "this token is for another table")
    if held.seat is None:
        return Rejected("FORBIDDEN", f"only a seated player may {what}")
    return held.seat


def host_check(held: Rights) -> Rejected | None:
    """None when these rights are the host's; else the refusal."""
    if held.standing in (NONE, LOST):
        return Rejected("UNAUTHENTICATED", _who(held, "this needs the host's token"))
    if held.standing == ELSEWHERE or not held.host:
        return Rejected("FORBIDDEN", "only the host may do this")
    return None


def holding(seat: int, what: str) -> Callable[[Rights], Rejected | None]:
    """The check of an operation for ``seat``: refused unless these rights hold it."""

    def check(held: Rights) -> Rejected | None:
        now = seat_of(held, what)
        if isinstance(now, Rejected):
            return now
        if now != seat:
            return Rejected("UNAUTHENTICATED", "this token no longer holds its seat")
        return None

    return check


def known_check(held: Rights) -> Rejected | None:
    """None unless a credential for this table is no longer known to it."""
    if held.standing == LOST:
        return Rejected("UNAUTHENTICATED", _who(held, ""))
    return None


def here_check(held: Rights) -> Rejected | None:
    """None for no credential, or one this table still knows; else the refusal: a
    credential of another table is ``FORBIDDEN``, one it no longer knows
    ``UNAUTHENTICATED``."""
    if held.standing == ELSEWHERE:
        return Rejected("FORBIDDEN", "this token is for another table")
    return known_check(held)


def _who(held: Rights, otherwise: str) -> str:
    if held.standing == LOST:
        return "this token holds nothing at this table any more"
    return otherwise


# -- redaction -------------------------------------------------------------------------


class _Event(Protocol):
    @property
    def data(self) -> dict[str, Any]: ...
    @property
    def private(self) -> dict[str, dict[str, Any]]: ...
    @property
    def audience(self) -> str | None: ...


def visible(event: _Event, seat: int | None) -> bool:
    """Whether a viewer at ``seat`` (None: without a seat) may see the event at all."""
    return event.audience is None or (event.audience == SPECTATORS and seat is None)


def redact(event: _Event, seat: int | None) -> dict[str, Any]:
    """The event's data as ``seat`` (None: a viewer without one) sees it: the public part,
    plus ``private``: that seat's own private part, if any."""
    if seat is None:
        return event.data
    own = event.private.get(str(seat))
    if own is None:
        return event.data
    return {**event.data, "private": own}


def sees_private(event: _Event, seat: int | None) -> bool:
    """Whether ``seat`` gets a private part of this event (else it sees what a spectator
    sees of it)."""
    return seat is not None and event.private.get(str(seat)) is not None
