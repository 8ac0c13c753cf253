"""Rematches: a FINISHED table opens its rematch once, with the same seats.

The new table's id, nonce and tokens are derived from the secret and the old table's id,
so callers racing each other build the same table (and nobody without the secret can guess
it). The old table is linked to it by a commit whose ``table.rematch`` event carries each
seat's new token in that seat's own private part.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import replace
from typing import Any

from tablestate.engine import fairness
from tablestate.engine import lobby as lobby_rules
from tablestate.engine import table as eng
from tablestate.engine.game import Rejected
from tablestate.engine.rights import HELD, Caller, Rights, here_check, rights, token_hash
from tablestate.errors import ApiError
from tablestate.store.base import TableExists
from tablestate.tables.commit import Change, Operation, now_iso
from tablestate.tables.loading import Loaded, refuse
from tablestate.tables.operations import Operations


def _mac(secret: bytes, *parts: str) -> bytes:
    return hmac.new(secret, "|".join(parts).encode(), hashlib.sha256).digest()


class Rematches:
    """``rematch``, for one replica."""

    def __init__(self, operations: Operations) -> None:
        self.operations = operations
        self.committer = operations.committer
        self.tables = operations.tables
        self.secret = operations.seeds.secret
        self.clock = operations.clock

    def _rematch_id(self, old_id: str) -> str:
        raw = base64.urlsafe_b64encode(_mac(self.secret, "rematch-id", old_id))
        return "".join(c for c in raw.decode() if c.isalnum())[:12]

    def _token(self, table_id: str, who: str) -> str:
        raw = _mac(self.secret, "rematch-token", table_id, who)
        return f"{table_id}.{base64.urlsafe_b64encode(raw).decode().rstrip('=')}"

    async def open(
        self, caller: Caller | None, table_id: str
    ) -> tuple[Loaded, int | None, str | None, str | None]:
        """Open (once) the rematch of a FINISHED table; the new table, the caller's seat at
        it, its seat token and (for the host) the new host token."""
        if caller is None:
            raise ApiError("UNAUTHENTICATED", "a rematch needs a seat's or the host's token")
        old = await self.tables.must_load(table_id)
        held = rights(caller, old.table)
        refused = here_check(held)
        if refused is not None:
            raise refuse(refused)
        if held.standing != HELD:  # a signed-in user who holds nothing at this table
            raise ApiError("FORBIDDEN", "a rematch is for the table's players and its host")
        if old.table.status != eng.FINISHED:
            raise ApiError("BAD_INPUT", "only a finished table can have a rematch")
        new_id = old.table.rematch or self._rematch_id(table_id)
        humans = [s.index for s in old.table.seats if s.kind == eng.HUMAN]
        tokens = {i: self._token(new_id, f"seat:{i}") for i in humans}
        host_token = self._token(new_id, "host")
        if old.table.rematch is None:
            await self._create(old, new_id, tokens, host_token)

            def link(cur: Loaded, _held: Rights) -> Change | Rejected:
                if cur.table.rematch == new_id:  # a racing caller linked it
                    return Rejected("BAD_INPUT", "linked already")
                private: dict[int, dict[str, Any]] = {}
                for i, token in tokens.items():
                    part: dict[str, Any] = {"playerToken": token, "seat": i}
                    if cur.table.seats[i].host:
                        part["hostToken"] = host_token
                    private[i] = part
                now = now_iso(self.clock)
                out = lobby_rules.link_rematch(cur.table, table_id=new_id, private=private, now=now)
                if isinstance(out, Rejected):
                    return out
                return Change(out[0], cur.state, out[1])

            try:
                await self.committer.commit(table_id, Operation("rematch", link), loaded=old)
            except ApiError:
                if (await self.tables.must_load(table_id)).table.rematch != new_id:
                    raise
        new = await self.tables.must_load(new_id)
        seat = held.seat if held.seat in tokens else None
        return (
            new,
            seat,
            tokens[seat] if seat is not None else None,
            host_token if held.host else None,
        )

    async def _create(
        self, old: Loaded, new_id: str, tokens: dict[int, str], host_token: str
    ) -> None:
        """Create the rematch table, unless a racing caller did (it is the same table)."""
        nonce = _mac(self.secret, "rematch-nonce", new_id).hex()[:32]
        seed = fairness.server_seed(self.secret, new_id, nonce)
        now = now_iso(self.clock)
        table, events = lobby_rules.rematch_table(
            old.table,
            table_id=new_id,
            nonce=nonce,
            host_hash=token_hash(host_token),
            commitment=fairness.commitment(seed),
            seat_hashes={i: token_hash(t) for i, t in tokens.items()},
            join_code=old.table.join_code,
            now=now,
        )
        try:
            await self.operations.add(table, events, now)
        except TableExists:
            return
        self.tables.remember(replace(table, version=1))
