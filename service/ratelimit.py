"""Rate limits and connection caps at the service's edge (docs/security.md).

Every HTTP request to ``/graphql``, WebSocket handshake and operation sent over a WebSocket
is counted against its client address's bucket (a request to a probe is counted apart, in
the replica's memory: ``api/probes.py``); every mutation also against its token's bucket
(hashed: no token is ever a key), so that a seat's moves are bounded whatever the
addresses they come from; a costly operation counts as more than one (``api/cost.py``). The
buckets live in the store, so with Redis they hold across replicas (one key each, apart
from every table, checked by one Lua script); with the memory store, in the process.
WebSocket connections per address are counted per replica (a connection is a resource of
the replica that holds it). Tables created are counted per address too, by the hour, in a
bucket of their own (``TABLESTATE_TABLES_PER_ADDRESS``), so that one address cannot fill
the store with tables that each live for days.

Who the client is: the TCP peer, unless the peer is a trusted proxy
(``TABLESTATE_TRUSTED_PROXIES``, none by default) and the request carries
``X-Forwarded-For``: then the nearest address in that header that is not a trusted proxy.
This is the only place that decides it (uvicorn's own proxy-header handling is off:
``service/server.py``). A peer in ``TABLESTATE_RATE_EXEMPT`` (loopback by default: the
host itself) skips these rate limits and the WebSocket cap, unless the request carries
``X-Forwarded-For``: a forwarded request is never exempt, whoever forwarded it.

A ``Budget`` bounds what one connection may send that no bucket here counts (pings).
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from graphql import GraphQLFormattedError

from tablestate.config import Settings
from tablestate.metrics import Metrics
from tablestate.store.base import RateBuckets

log = logging.getLogger("tablestate.ratelimit")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
_WARN_EVERY: Final = 30.0  # seconds between two warnings that the limits could not be read
# A replica takes a shared bucket's requests in chunks of a tenth of its burst (see
# ``Guard._take``); with the default burst of 100, one store call per 10 requests.
RESERVE_SHARE: Final = 10
_MAX_RESERVED_KEYS: Final = 100_000


def _networks(items: Iterable[str]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(i, strict=False) for i in items)


def _ip(text: str) -> Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[::1]:1234"
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # "1.2.3.4:1234"
        text = text.split(":", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _within(ip: Address | None, nets: Iterable[Network]) -> bool:
    if ip is None:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip.version == n.version and ip in n for n in nets)


class AddressSet:
    """The addresses and networks of a setting (``10.0.0.0/8``, ``::1``): whether a peer's
    address is among them (an IPv4 address mapped into IPv6 counts as itself)."""

    __slots__ = ("_nets",)

    def __init__(self, items: Iterable[str]) -> None:
        self._nets = _networks(items)

    def __contains__(self, host: object) -> bool:
        return isinstance(host, str) and _within(_ip(host), self._nets)

    def __bool__(self) -> bool:
        return bool(self._nets)


@dataclass(frozen=True, slots=True)
class Client:
    """Who sent a request: its address (as the limits count it) and whether it is exempt."""

    address: str
    exempt: bool


def token_key(token: str) -> str:
    """The bucket of a token: a hash, so that no token is ever written as a key."""
    return "t:" + hashlib.sha256(token.encode()).hexdigest()[:32]


class Budget:
    """A token bucket of one connection, in this process: ``rate`` a second, at most
    ``burst`` at once (a rate of 0: no bound)."""

    __slots__ = ("_at", "_tokens", "burst", "rate")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._at = time.monotonic()

    def spend(self) -> bool:
        """Whether one more may go (and it is counted)."""
        if self.rate <= 0:
            return True
        now = time.monotonic()
        self._tokens = min(float(self.burst), self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True

    def take(self) -> float:
        """Spend one: 0.0 when it may go (and it is counted), else the seconds until it may."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        self._tokens = min(float(self.burst), self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens < 1.0:
            return (1.0 - self._tokens) / self.rate
        self._tokens -= 1.0
        return 0.0

    def full(self) -> bool:
        """Whether the bucket has filled up again: forgetting it now changes nothing."""
        if self.rate <= 0:
            return True
        return self._tokens + (time.monotonic() - self._at) * self.rate >= self.burst


class Guard:
    """The limits of one replica: who a client is, whether it may send one more request,
    whether it may open one more WebSocket."""

    def __init__(
        self, settings: Settings, store: RateBuckets, metrics: Metrics | None = None
    ) -> None:
        self.settings = settings
        self.metrics = metrics or Metrics()
        self._store = store
        self._reserved: dict[str, int] = {}  # requests paid in the shared bucket, not spent
        self._exempt = _networks(settings.rate_exempt)
        self._probe_exempt = _networks((*settings.rate_exempt, *settings.probe_exempt))
        self._trusted = _networks(settings.trusted_proxies)
        self._sockets: dict[str, int] = {}
        self._warned = -math.inf

    # -- who ---------------------------------------------------------------------------

    def client(self, scope: Mapping[str, Any]) -> Client:
        """The client of an ASGI HTTP or WebSocket scope."""
        return self._client(scope, self._exempt)

    def probe_client(self, scope: Mapping[str, Any]) -> Client:
        """The client of a request to a probe (``/healthz``, ``/readyz``, ``/metrics``):
        exempt also from ``TABLESTATE_PROBE_EXEMPT`` when it connects directly."""
        return self._client(scope, self._probe_exempt)

    def _client(self, scope: Mapping[str, Any], exempt: tuple[Network, ...]) -> Client:
        peer = scope.get("client")
        host = str(peer[0]) if peer else ""
        forwarded = [
            value.decode("latin-1")
            for name, value in scope.get("headers", ())
            if name == b"x-forwarded-for"
        ]
        if forwarded and _within(_ip(host), self._trusted):
            hops = [h.strip() for h in ",".join(forwarded).split(",") if h.strip()]
            address = host
            for hop in reversed(hops):
                ip = _ip(hop)
                address = str(ip) if ip is not None else hop[:64]
                if not _within(ip, self._trusted):
                    break
            return Client(address, exempt=False)
        # A proxy that is not trusted (say, on this host, not yet named in the setting)
        # forwards everyone as itself: limited as one client, never exempt as the host.
        return Client(host, exempt=not forwarded and _within(_ip(host), exempt))

    # -- rates -------------------------------------------------------------------------

    async def admit(
        self, client: Client, token: str | None = None, cost: int = 1, token_cost: int = 1
    ) -> float:
        """Count ``cost`` requests of ``client`` and, with a ``token``, ``token_cost`` of
        that token: 0.0 when they may go on, else the seconds to wait (``RATE_LIMITED``)."""
        if client.exempt:
            return 0.0
        for key, rate, burst, n in self._checks(client, token, cost, token_cost):
            try:
                wait = await self._take(key, rate, burst, n)
            except Exception as exc:
                # Fail open: a store that is away fails the request itself soon enough,
                # and a limit must never be the reason a request fails.
                now = time.monotonic()
                if now - self._warned > _WARN_EVERY:
                    self._warned = now
                    log.warning("rate limits not checked: %s: %s", type(exc).__name__, exc)
                return 0.0
            if wait > 0:
                self.metrics.inc("tablestate_errors_total", code="RATE_LIMITED")
                return wait
        return 0.0

    def admit_now(
        self, client: Client, token: str | None = None, cost: int = 1, token_cost: int = 1
    ) -> bool:
        """``admit``'s answer when it needs no store call: True when the requests may go on,
        counted (an exempt client, no limits, or requests this replica has paid already);
        False when only ``admit`` can tell (nothing is counted)."""
        if client.exempt:
            return True
        checks = self._checks(client, token, cost, token_cost)
        reserved = self._reserved
        if any(reserved.get(key, 0) < n for key, _, _, n in checks):
            return False
        for key, _, _, n in checks:
            reserved[key] -= n
        return True

    def _checks(
        self, client: Client, token: str | None, cost: int, token_cost: int
    ) -> list[tuple[str, float, int, int]]:
        """The buckets a request is counted in: (key, rate, burst, requests to spend)."""
        s = self.settings
        checks: list[tuple[str, float, int, int]] = []
        # a costly request may spend a whole burst, never more (else it never could)
        if s.rate_address > 0 and cost > 0:
            burst = s.rate_address_burst
            checks.append(("a:" + client.address, s.rate_address, burst, min(cost, burst)))
        if token and s.rate_token > 0 and token_cost > 0:
            burst = s.rate_token_burst
            checks.append((token_key(token), s.rate_token, burst, min(token_cost, burst)))
        return checks

    async def _take(self, key: str, rate: float, burst: int, n: int) -> float:
        """Spend ``n`` requests of a bucket: 0.0, or the seconds to wait.

        A shared bucket (in Redis) is paid in chunks: when this replica holds fewer than
        ``n`` requests paid already, it takes a chunk (a tenth of the burst, at least
        ``n``) in one store call and spends the rest of it on the next requests without
        calling the store. The shared limit holds exactly, as every request spent is paid
        in the shared bucket first; a replica only pays up to one chunk early, so a client
        may be refused by another replica up to ``burst / 10`` requests sooner than by one
        exact count. When a whole chunk no longer fits, exactly ``n`` are asked for."""
        held = self._reserved.get(key, 0)
        if held >= n:
            self._reserved[key] = held - n
            return 0.0
        want = min(burst, max(n, burst // RESERVE_SHARE))
        wait = float(await self._store.rate_limit(key, rate, burst, want))
        if wait > 0 and want > n:
            want = n
            wait = float(await self._store.rate_limit(key, rate, burst, n))
        if wait > 0:
            return wait
        if want > n:
            if len(self._reserved) >= _MAX_RESERVED_KEYS:
                self._reserved.clear()  # forgets some paid requests: stricter, never looser
            self._reserved[key] = self._reserved.get(key, 0) + want - n
        return 0.0

    async def admit_table(self, client: Client) -> float:
        """Count one table created by ``client``: 0.0, or the seconds until it may create
        one more (``RATE_LIMITED``). The bucket holds ``TABLESTATE_TABLES_PER_ADDRESS``
        tables and refills at that many an hour; it is kept in the store, so shared by
        every replica, and taken one table at a time (never paid ahead)."""
        per_hour = self.settings.tables_per_address
        if client.exempt or per_hour <= 0:
            return 0.0
        try:
            wait = float(
                await self._store.rate_limit("c:" + client.address, per_hour / 3600, per_hour)
            )
        except Exception as exc:
            # Fail open, as admit does: the creation itself then fails if the store is away.
            log.warning("table cap not checked: %s: %s", type(exc).__name__, exc)
            return 0.0
        if wait > 0:
            self.metrics.inc("tablestate_errors_total", code="RATE_LIMITED")
        return wait

    # -- WebSocket connections ---------------------------------------------------------

    def open_socket(self, client: Client) -> bool:
        """Whether ``client`` may open one more WebSocket here; if so it is counted until
        ``close_socket``."""
        cap = self.settings.max_ws_per_address
        held = self._sockets.get(client.address, 0)
        if cap and not client.exempt and held >= cap:
            self.metrics.inc("tablestate_errors_total", code="RATE_LIMITED")
            return False
        self._sockets[client.address] = held + 1
        return True

    def close_socket(self, client: Client) -> None:
        held = self._sockets.get(client.address, 0) - 1
        if held > 0:
            self._sockets[client.address] = held
        else:
            self._sockets.pop(client.address, None)


def refusal(wait: float) -> GraphQLFormattedError:
    """The GraphQL error of a request refused by a rate limit."""
    return {
        "message": f"too many requests; retry in {wait:.2f} s",
        "extensions": {"code": "RATE_LIMITED", "retryAfter": round(wait, 3)},
    }
