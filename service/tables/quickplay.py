"""Quick play: a ticket per player who wants to play now, matched into a table.

``enqueue`` checks a wish as ``createTable`` would check its table, and adds a ticket to
its pool (``engine/matching.py``) in the store, so that any replica may match it. Every
replica runs the matcher; a pool is matched by one replica at a time (a lease in the
store, renewed while it works), oldest ticket first. A group is made into a table in full
(a private table, joined seat by seat, its bots added, started) before any ticket is
settled; the tickets are then settled all together or not at all, so a ticket is never
matched twice, and a replica that dies in the middle leaves its tickets waiting to be
matched again (the table it made, private and unknown to anyone, expires unused).

A ticket's holder listens with ``events``: its place and an estimated wait, then the table
and the seat (with a seat token for an anonymous player; a signed-in user's seat is bound
to the user). A ticket whose listener has been gone for ``GRACE`` seconds expires, as a
ticket dies with its socket in Nakama.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import Any, Final

from tablestate.archive.db import Player
from tablestate.engine import matching, opening
from tablestate.engine.game import Rejected
from tablestate.engine.matching import CANCELLED, EXPIRED, MATCHED, WAITING, Group, Ticket
from tablestate.engine.rights import Caller, User, user_of
from tablestate.errors import ApiError
from tablestate.plugins import Registry
from tablestate.store.base import QuickPlayQueue, StoreUnavailable
from tablestate.tables._background import Background
from tablestate.tables.loading import Tables, refuse
from tablestate.tables.operations import Operations

log = logging.getLogger("tablestate.quickplay")

GRACE: Final = 15.0  # seconds a ticket waits without anyone listening
KEPT: Final = 3600.0  # seconds a ticket is kept at most (settled ones: to be read once more)
POOL_LIMIT: Final = 10_000  # waiting tickets per pool: more is UNAVAILABLE
MAX_WAIT: Final = 300  # the longest afterSeconds a ticket may ask
LEASE: Final = 5.0  # a matcher's hold on a pool, renewed at every round
POLL: Final = 0.5  # how often a listener looks at its ticket
# How often an idle matcher (no pool waiting when it last looked, no ticket made here since)
# asks the store again: another replica's tickets wait at most this long for a matcher
# here, should that replica die; a replica that makes a ticket looks at once.
IDLE_LOOK: Final = 5.0


@dataclass(frozen=True, slots=True)
class Wish:
    """What ``quickPlay`` asks for, as given."""

    game_id: str
    house_rules: tuple[str, ...]
    options: Any
    min: int | None
    max: int | None
    bots: bool
    after: int
    name: str


@dataclass(frozen=True, slots=True)
class Status:
    """What a ticket's listener is told: its place while it waits, then how it ended."""

    status: str
    ticket: Ticket
    ahead: int | None = None
    estimated_wait: float | None = None
    table_id: str | None = None
    seat: int | None = None
    token: str | None = None


def outcome(ticket: Ticket, status: str, **found: Any) -> str:
    """A settled ticket's JSON: the ticket, its status and what it found."""
    return json.dumps({"ticket": json.loads(ticket.to_json()), "status": status, **found})


def read_status(text: str) -> Status:
    data = json.loads(text)
    if "status" not in data:  # still as enqueued
        return Status(WAITING, Ticket.from_json(text))
    ticket = Ticket.from_json(json.dumps(data["ticket"]))
    return Status(
        data["status"],
        ticket,
        table_id=data.get("table"),
        seat=data.get("seat"),
        token=data.get("token"),
    )


def seat_names(names: list[str]) -> list[str]:
    """The names the tickets' seats take: each its own, a second "Ann" as "Ann 2" (a table
    never seats two players of one name)."""
    taken: set[str] = set()
    out: list[str] = []
    for name in names:
        mine, n = name, 1
        while mine in taken:
            n += 1
            suffix = f" {n}"
            mine = name[: opening.MAX_NAME - len(suffix)] + suffix
        taken.add(mine)
        out.append(mine)
    return out


class QuickPlay(Background):
    """Quick play's tickets and this replica's matcher."""

    def __init__(
        self,
        registry: Registry,
        queue: QuickPlayQueue,
        reads: Tables,
        operations: Operations,
        clock: Callable[[], float],
    ) -> None:
        Background.__init__(self, log, "quick play matcher")
        self.registry = registry
        self.queue = queue
        self.reads = reads
        self.operations = operations
        self.clock = clock
        self.owner = secrets.token_hex(8)  # this replica, as the leases know it
        self.grace, self.lease, self.pool_limit = GRACE, LEASE, POOL_LIMIT
        self._quiet_until = 0.0  # monotonic: until when the idle matcher does not look

    # -- tickets ------------------------------------------------------------------

    async def enqueue(self, caller: Caller | None, wish: Wish, address: str) -> Ticket:
        """A new waiting ticket for ``wish``.

        Raises:
            ApiError: what ``createTable`` would refuse of such a table (``NOT_FOUND``,
            ``BAD_INPUT``, ``RULE_CONFLICT``), ``BAD_INPUT`` for a player count or a wait
            out of range, ``UNAVAILABLE`` when the pool is full or the store away.
        """
        game = self.registry.games.get(wish.game_id)
        if game is None:
            raise ApiError("NOT_FOUND", f"no game {wish.game_id[:80]!r}")
        lo = wish.min if wish.min is not None else game.min_players
        hi = wish.max if wish.max is not None else game.max_players
        if not game.min_players <= lo <= hi <= game.max_players:
            raise ApiError(
                "BAD_INPUT",
                f"players: min and max within {game.min_players} to {game.max_players}, "
                "min at most max",
            )
        if not 0 <= wish.after <= MAX_WAIT:
            raise ApiError("BAD_INPUT", f"bots.afterSeconds is 0 to {MAX_WAIT}")
        name = opening.clean_name(wish.name)
        if name is None:
            raise ApiError("BAD_INPUT", f"a name is 1 to {opening.MAX_NAME} printable characters")
        rules = tuple(sorted(set(wish.house_rules)))
        for seats in {lo, hi}:  # the table a match makes, checked as createTable checks it
            made = opening.create(
                table_id="check",
                game=game,
                options=wish.options,
                rule_ids=list(rules),
                seats=seats,
                house_rules=self.registry.house_rules,
                conflicts=self.registry.conflicts,
                now="1970-01-01T00:00:00Z",
                nonce="",
                host_hash="",
                commitment="",
            )
            if isinstance(made, Rejected):
                raise refuse(made)
        user = user_of(caller)
        pool = matching.pool_of(game.id, rules, wish.options)
        ticket = Ticket(
            id=f"{pool}.{secrets.token_urlsafe(16)}",
            pool=pool,
            game_id=game.id,
            house_rules=rules,
            options=wish.options,
            min=lo,
            max=hi,
            bots=wish.bots,
            after=float(wish.after),
            at=self.clock(),
            name=name,
            user=user.id if user is not None else None,
            rating=await self._rating(user, game.id, rules),
            address=address,
        )
        try:
            added = await self.queue.enqueue(
                pool, ticket.id, ticket.to_json(), ticket.at, limit=self.pool_limit, ttl=KEPT
            )
        except StoreUnavailable as exc:
            raise ApiError("UNAVAILABLE", "the store is unreachable; retry later") from exc
        self._quiet_until = 0.0  # a ticket here: the matcher looks at once
        if not added:
            raise ApiError(
                "UNAVAILABLE", "the quick play queue of this game is full; retry in a minute"
            )
        return ticket

    async def _rating(
        self, user: User | None, game_id: str, rules: tuple[str, ...]
    ) -> float | None:
        """The user's ordinal in this game and variant (None: anonymous, unrated, or no
        answer from the archive: then matched by arrival)."""
        archive = self.reads.archive
        if user is None or archive is None:
            return None
        try:
            async with asyncio.timeout(0.5):
                found = await archive.rating(game_id, "+".join(rules), Player("user", user.id))
        except Exception as exc:  # an archive away costs the ticket its window, nothing more
            log.info("quick play without the rating of a user: %s", exc)
            return None
        return None if found is None else found.ordinal

    async def status(self, caller: Caller | None, ticket_id: str) -> Status:
        """The ticket now, as its holder may see it.

        Raises:
            ApiError: ``NOT_FOUND`` for no such ticket, ``FORBIDDEN`` for a signed-in
            user's ticket asked by anyone else.
        """
        if not isinstance(ticket_id, str) or not 0 < len(ticket_id) <= 80:
            raise ApiError("NOT_FOUND", "no such ticket")
        try:
            text = await self.queue.ticket(ticket_id)
        except StoreUnavailable as exc:
            raise ApiError("UNAVAILABLE", "the store is unreachable; retry later") from exc
        if text is None:
            raise ApiError("NOT_FOUND", "no such ticket")
        found = read_status(text)
        owner, who = found.ticket.user, user_of(caller)
        if owner is not None and (who is None or who.id != owner):
            raise ApiError("FORBIDDEN", "this ticket is another user's")
        return found

    async def cancel(self, caller: Caller | None, ticket_id: str) -> bool:
        """End a waiting ticket: True; False when it was settled already (matched: the
        table is there to play)."""
        found = await self.status(caller, ticket_id)
        if found.status != WAITING:
            return False
        ticket = found.ticket
        return await self.queue.settle(
            ticket.pool, {ticket.id: outcome(ticket, CANCELLED)}, ttl=KEPT
        )

    async def events(self, caller: Caller | None, ticket_id: str) -> AsyncIterator[Status]:
        """The ticket's place while it waits (when it changes), then how it ended."""
        told: tuple[Any, ...] | None = None
        while True:
            found = await self.status(caller, ticket_id)
            if found.status != WAITING:
                yield found
                return
            now = self.clock()
            ahead = await self.queue.seen(ticket_id, now)
            if ahead is None:  # settled since it was read: told at the next look
                continue
            ticket = found.ticket
            wait = max(0.0, ticket.after - (now - ticket.at)) if ticket.bots else None
            view = (ahead, None if wait is None else round(wait))
            if view != told:
                told = view
                yield replace(found, ahead=ahead, estimated_wait=view[1])
            await asyncio.sleep(POLL)

    # -- the matcher --------------------------------------------------------------

    async def run_due_once(self) -> int:
        """Match every pool this replica holds the lease of now; the tables made."""
        now = time.monotonic()
        if now < self._quiet_until:
            return 0
        pools = await self.queue.pools()
        if not pools:
            self._quiet_until = now + IDLE_LOOK
        made = 0
        for pool in pools:
            if await self.queue.lease(f"match:{pool}", self.owner, self.lease):
                made += await self.match(pool)
        return made

    async def match(self, pool: str) -> int:
        """One round of a pool: expire the tickets nobody listens to, make the tables
        ``plan`` finds; the number made."""
        now = self.clock()
        live: list[Ticket] = []
        for text, seen in await self.queue.waiting(pool):
            ticket = Ticket.from_json(text)
            if seen < now - self.grace:
                await self.queue.settle(pool, {ticket.id: outcome(ticket, EXPIRED)}, ttl=KEPT)
            else:
                live.append(ticket)
        made = 0
        for group in matching.plan(live, now):
            start = time.perf_counter()
            try:
                done = await self.make(group)
            except ApiError as exc:
                # A table the rules would not make (none known: the wish was checked when
                # the ticket was made): its tickets end, rather than make a table a round.
                log.error("quick play could not make a table: %s", exc)
                ended = {t.id: outcome(t, EXPIRED, reason=str(exc)) for t in group.tickets}
                await self.queue.settle(pool, ended, ttl=KEPT)
                continue
            # Held again after each table: a long round keeps its pool from another
            # replica, which would only make tables whose tickets are settled already.
            if not await self.queue.lease(f"match:{pool}", self.owner, self.lease):
                log.warning("quick play lost its lease on a pool mid-round")
                return made + int(done)
            if done:
                made += 1
                log.info(
                    "quick play matched %d tickets (%d bots) in %.3f s",
                    len(group.tickets),
                    group.bots,
                    time.perf_counter() - start,
                )
        return made

    async def make(self, group: Group) -> bool:
        """Make a group's table in full, then settle its tickets; False when a ticket had
        gone meanwhile (the table is cancelled, the others wait on)."""
        first = group.tickets[0]
        ops = self.operations
        loaded, host = await ops.create(
            first.game_id, first.house_rules, first.options, group.seats, private=True
        )
        table_id, code = loaded.table.id, loaded.table.join_code
        found: dict[str, str] = {}
        names = seat_names([t.name for t in group.tickets])
        for ticket, name in zip(group.tickets, names, strict=True):
            player = None
            if ticket.user is not None:
                player = User(ticket.user, ticket.name, self.clock() + 60, self.clock)
            _, seat, token = await ops.join(player, table_id, name, None, None, code=code)
            found[ticket.id] = outcome(
                ticket,
                MATCHED,
                table=table_id,
                seat=seat,
                token=None if ticket.user is not None else token,
            )
        hosting = await self.reads.authenticate(host)
        for _ in range(group.bots):
            await ops.add_bot(hosting, table_id, None)
        await ops.start(hosting, table_id)
        if await self.queue.settle(first.pool, found, ttl=KEPT):
            return True
        await ops.cancel(hosting, table_id)
        return False

    def start_worker(self, interval: float = 0.25) -> None:
        super().start_worker(interval)
