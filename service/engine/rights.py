"""Who a credential is at a table, and what that viewer may see: the one place that decides.

A connection carries a credential, never a seat: a ``Credential`` (a table token, parsed
once; never the token's text) or a ``User`` (a signed-in user, from a verified JWT, with
the time its sign-in ends). Which seat and which host rights it holds is a function of the
table's own records at the version being served: ``rights(credential, table)``. A token
holds what the table's token hashes give it; a user, the seat and the host role the table
binds to its id, from any device. Every path asks this module, at the table it is about to
serve: queries, mutations (inside the operation, at the version it commits on), the direct
path and every delivery of the fan-out. When a commit takes a seat from a credential (a
kick, a replacement, leaving, a bot taking over, a grace period ending), or a user's
sign-in ends, the credential's next question gets the answer of that moment on, so
nothing private reaches it any more.

Who may watch a table without a seat is here too (``may_watch``: the operator's policy and
the table's ``spectators`` option). What a viewer with given rights is shown of the game
state and of an event is decided in ``engine/views.py``, from their ``Sight``.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, TypeAlias

from tablestate.engine.game import Rejected
from tablestate.engine.options import core

MAX_TOKEN: Final = 200
SPECTATORS: Final = "spectators"  # an event's audience: viewers without a seat only

# What a credential is to a table (``Rights.standing``).
NONE: Final = "none"  # no credential: a spectator
ELSEWHERE: Final = "elsewhere"  # a credential for another table: a spectator here
SIGNED_IN: Final = "signed-in"  # a signed-in user the table binds nothing to: a spectator
HELD: Final = "held"  # the table knows it: a seat, host rights, or both
LOST: Final = "lost"  # a credential the table no longer knows, or a sign-in that ended

EXPIRED: Final = "the sign-in has expired (exp)"

# Who may watch a table without a seat or the host's rights (``TABLESTATE_SPECTATORS``).
ANYONE: Final = "anyone"
SIGNED_IN_ONLY: Final = "signed-in"
SEATED_ONLY: Final = "seated"


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


@dataclass(frozen=True, slots=True)
class User:
    """A signed-in user, as a verified JWT says: ``id`` is ``<issuer>#<sub>``, ``name`` the
    configured claim (None: none). Its sign-in ends at ``expires`` (epoch seconds) as read
    on ``clock``, the verifier's: from then on it holds nothing anywhere (``LOST``)."""

    id: str
    name: str | None
    expires: float
    clock: Callable[[], float] = field(compare=False, repr=False)

    def remaining(self) -> float:
        """Seconds until the sign-in ends (0 or less: it has)."""
        return self.expires - self.clock()


Caller: TypeAlias = Credential | User
"""What a connection carries: a table token or a signed-in user."""


def token_hash(token: str) -> str:
    """How a token is stored: the SHA-256 hex of its text."""
    return hashlib.sha256(token.encode()).hexdigest()


def user_of(credential: Caller | None) -> User | None:
    """The signed-in user of a credential whose sign-in has not ended (None otherwise)."""
    if isinstance(credential, User) and credential.remaining() > 0:
        return credential
    return None


class _Seat(Protocol):
    @property
    def index(self) -> int: ...
    @property
    def token_hash(self) -> str | None: ...
    @property
    def host(self) -> bool: ...
    @property
    def user(self) -> str | None: ...


class _Table(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def host_hash(self) -> str: ...
    @property
    def host_user(self) -> str | None: ...
    @property
    def seats(self) -> tuple[Any, ...]: ...
    @property
    def options(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Rights:
    """What a credential holds at one table, at one version."""

    seat: int | None = None
    host: bool = False
    standing: str = NONE
    why: str = ""  # what a refusal says of rights that are gone (LOST), when it is known

    @property
    def audience(self) -> tuple[int | None, bool]:
        """What the viewer's answers depend on: the seat and the host rights."""
        return self.seat, self.host


SPECTATOR: Final = Rights()


def rights(credential: Caller | None, table: _Table | None) -> Rights:
    """What ``credential`` holds at ``table`` now (a table gone: nothing)."""
    if credential is None:
        return SPECTATOR
    if table is None:
        return Rights(standing=LOST)
    if isinstance(credential, User):
        return _user_rights(credential, table)
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


def _user_rights(user: User, table: _Table) -> Rights:
    if user.remaining() <= 0:
        return Rights(standing=LOST, why=EXPIRED)
    for seat in table.seats:
        if seat.user is not None and seat.user == user.id:
            return Rights(seat.index, bool(seat.host), HELD)
    if table.host_user is not None and table.host_user == user.id:
        return Rights(None, True, HELD)
    return Rights(standing=SIGNED_IN)


def may_watch(held: Rights, table: _Table, policy: str) -> bool:
    """Whether a viewer holding ``held`` at ``table`` may see it: its seats and its host
    always; anyone else (a spectator) unless the table's ``spectators`` option is off or
    the operator's ``policy`` asks more (``SIGNED_IN_ONLY``: a signed-in user,
    ``SEATED_ONLY``: nobody)."""
    return may_watch_with(held, bool(core(table.options, "spectators")), policy)


def may_watch_with(held: Rights, spectators: bool, policy: str) -> bool:
    """``may_watch`` at a table whose ``spectators`` option is ``spectators`` (what a lobby
    notice says of it, with no table at hand)."""
    if held.standing == HELD:
        return True
    if not spectators or policy == SEATED_ONLY:
        return False
    return policy != SIGNED_IN_ONLY or held.standing == SIGNED_IN


def watch_refusal(table: _Table, policy: str) -> Rejected:
    """Why a spectator may not watch ``table`` (``FORBIDDEN``), in words."""
    if not core(table.options, "spectators"):
        return Rejected("FORBIDDEN", "this table has no spectators: only its players see it")
    if policy == SEATED_ONLY:
        return Rejected("FORBIDDEN", "tables here are seen by their players only")
    return Rejected("FORBIDDEN", "sign in to watch tables here")


def sign_in_check(credential: Caller | None, required: bool, what: str) -> Rejected | None:
    """None unless the caller's sign-in has ended, or signing in is ``required`` for
    ``what`` (``TABLESTATE_REQUIRE_SIGN_IN``) and the caller is not a signed-in user."""
    if isinstance(credential, User) and credential.remaining() <= 0:
        return Rejected("UNAUTHENTICATED", EXPIRED)
    if required and user_of(credential) is None:
        return Rejected("UNAUTHENTICATED", f"sign in to {what} here")
    return None


def lost(before: Rights, now: Rights) -> bool:
    """Whether rights held before are gone now (a seat, or host rights)."""
    if before.seat is not None and now.seat != before.seat:
        return True
    return before.host and not now.host


def seat_of(held: Rights, what: str) -> int | Rejected:
    """The seat these rights act for, or the refusal, in the documented order."""
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
            return Rejected("UNAUTHENTICATED", "this token or sign-in no longer holds its seat")
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
        return held.why or "this token holds nothing at this table any more"
    return otherwise
