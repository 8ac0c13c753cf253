"""Settings, read once from the environment (nothing else reads ``os.environ``).

Every setting is documented in the README; flags of ``tablestate serve`` win over these.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit


class ConfigError(Exception):
    """A setting that cannot work; the message names it."""


def _int(env: Mapping[str, str], name: str, default: int, lo: int = 0) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, not {raw!r}") from None
    if value < lo:
        raise ConfigError(f"{name} must be at least {lo}")
    return value


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, not {raw!r}") from None
    if value < 0:
        raise ConfigError(f"{name} must not be negative")
    return value


def _list(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in env.get(name, "").split(",") if p.strip())


def _list_or(env: Mapping[str, str], name: str, default: tuple[str, ...]) -> tuple[str, ...]:
    """A comma-separated list; unset: ``default``; set but empty (or ``none``): empty."""
    raw = env.get(name)
    if raw is None:
        return default
    if raw.strip().lower() == "none":
        return ()
    return _list(env, name)


def _networks(env: Mapping[str, str], name: str, default: tuple[str, ...]) -> tuple[str, ...]:
    """A list of addresses or networks (``10.0.0.0/8``), each checked."""
    found = _list_or(env, name, default)
    for item in found:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ConfigError(f"{name}: {item!r} is not an address or a network") from None
    return found


def _addresses(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """A list of ``host:port`` addresses, each checked."""
    found = _list(env, name)
    for item in found:
        host, _, port = item.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ConfigError(f"{name}: {item!r} is not host:port")
    return found


def _bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name, "").strip().lower()
    if not raw:
        return default
    return raw in ("1", "true", "yes", "on")


# The origins of a development server on this machine (Settings.local_origins), as a regular
# expression an origin matches whole (the form browsers send: lowercase, no default port).
LOCAL_ORIGIN: Final = r"http://(?:localhost|127\.0\.0\.1|\[::1\])(?::[0-9]{1,5})?"
TRACING: Final = ("off", "otlp", "console")  # TABLESTATE_TRACING (service/tracing.py)
# TABLESTATE_REDIS_ACK: when a commit counts as made (docs/operations.md, "Durability").
ACKS: Final = ("primary", "replica", "aof")


def _choice(env: Mapping[str, str], name: str, default: str, choices: tuple[str, ...]) -> str:
    raw = env.get(name, "").strip().lower() or default
    if raw not in choices:
        raise ConfigError(f"{name} is one of {', '.join(choices)}, not {raw!r}")
    return raw


# Sign-in (docs/identity.md). Algorithms PyJWT verifies that may be named; "none" never is.
ASYMMETRIC: Final = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
SHARED: Final = frozenset({"HS256", "HS384", "HS512"})
DEFAULT_ALGORITHMS: Final = ("RS256", "ES256", "EdDSA")
MIN_JWT_SECRET: Final = 32  # bytes: HS256's own size; PyJWT refuses shorter keys too
SPECTATOR_POLICIES: Final = ("anyone", "signed-in", "seated")


def default_algorithms(jwks: bool, secret: bool) -> tuple[str, ...]:
    """The algorithms accepted when ``TABLESTATE_JWT_ALGORITHMS`` names none: the usual
    asymmetric ones with a JWKS, HS256 with a shared secret."""
    return (DEFAULT_ALGORITHMS if jwks else ()) + (("HS256",) if secret else ())


def _jwks(env: Mapping[str, str]) -> str | None:
    """Where the issuer's keys are: an https URL, a file (an absolute path or ``file://``),
    or, for tests only, plain http to a loopback address."""
    name = "TABLESTATE_JWT_JWKS_URL"
    raw = env.get(name, "").strip()
    if not raw:
        return None
    parts = urlsplit(raw)
    if parts.scheme == "https" and parts.hostname:
        return raw
    if parts.scheme == "http" and parts.hostname:
        try:
            loopback = ipaddress.ip_address(parts.hostname).is_loopback
        except ValueError:
            loopback = False
        if loopback:
            return raw
        raise ConfigError(f"{name}: plain http only to a loopback address (tests); use https")
    if parts.scheme == "file" and parts.path.startswith("/"):
        return parts.path
    if not parts.scheme and raw.startswith("/"):
        return raw
    raise ConfigError(f"{name} must be an https URL or an absolute file path, not {raw!r}")


def _sign_in(env: Mapping[str, str]) -> dict[str, Any]:
    """The sign-in settings, checked together: a JWKS or a shared secret needs an issuer
    and an audience; each algorithm needs its kind of key; ``none`` is never accepted."""
    jwks = _jwks(env)
    secret = env.get("TABLESTATE_JWT_SECRET", "").encode()
    if secret and len(secret) < MIN_JWT_SECRET:
        raise ConfigError(f"TABLESTATE_JWT_SECRET must be at least {MIN_JWT_SECRET} bytes")
    issuer = env.get("TABLESTATE_JWT_ISSUER", "").strip() or None
    audience = _list(env, "TABLESTATE_JWT_AUDIENCE")
    algorithms = _list(env, "TABLESTATE_JWT_ALGORITHMS") or default_algorithms(
        bool(jwks), bool(secret)
    )
    for alg in algorithms:
        if alg.lower() == "none":
            raise ConfigError("TABLESTATE_JWT_ALGORITHMS: 'none' is never accepted")
        if alg in SHARED and not secret:
            raise ConfigError(f"TABLESTATE_JWT_ALGORITHMS: {alg} needs TABLESTATE_JWT_SECRET")
        if alg in ASYMMETRIC and not jwks:
            raise ConfigError(f"TABLESTATE_JWT_ALGORITHMS: {alg} needs TABLESTATE_JWT_JWKS_URL")
        if alg not in SHARED | ASYMMETRIC:
            raise ConfigError(f"TABLESTATE_JWT_ALGORITHMS: unknown algorithm {alg!r}")
    signing_in = bool(jwks or secret)
    if signing_in and (issuer is None or not audience):
        raise ConfigError(
            "signing in needs TABLESTATE_JWT_ISSUER and TABLESTATE_JWT_AUDIENCE: a token of "
            "another issuer, or for another service of the same issuer, must not be accepted"
        )
    if signing_in and not algorithms:
        raise ConfigError("TABLESTATE_JWT_ALGORITHMS names no algorithm")
    spectators = env.get("TABLESTATE_SPECTATORS", "anyone").strip().lower() or "anyone"
    if spectators not in SPECTATOR_POLICIES:
        raise ConfigError(f"TABLESTATE_SPECTATORS is one of {', '.join(SPECTATOR_POLICIES)}")
    require = _bool(env, "TABLESTATE_REQUIRE_SIGN_IN", False)
    if (require or spectators == "signed-in") and not signing_in:
        raise ConfigError(
            "TABLESTATE_REQUIRE_SIGN_IN and TABLESTATE_SPECTATORS=signed-in need sign-in "
            "configured (TABLESTATE_JWT_JWKS_URL or TABLESTATE_JWT_SECRET)"
        )
    return {
        "jwt_jwks_url": jwks,
        "jwt_secret": secret,
        "jwt_issuer": issuer,
        "jwt_audience": audience,
        "jwt_algorithms": tuple(algorithms),
        "jwt_leeway": _float(env, "TABLESTATE_JWT_LEEWAY", 30.0),
        "jwt_name_claim": env.get("TABLESTATE_JWT_NAME_CLAIM", "").strip() or "name",
        "jwt_jwks_cache": max(1.0, _float(env, "TABLESTATE_JWT_JWKS_CACHE", 300.0)),
        "jwt_jwks_refresh": _float(env, "TABLESTATE_JWT_JWKS_REFRESH", 30.0),
        "require_sign_in": require,
        "spectators": spectators,
    }


@dataclass(frozen=True)
class Settings:
    redis_url: str | None = None
    secret: bytes = field(default=b"", repr=False)
    secret_is_random: bool = False
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    plugins: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()
    trace_plugins: bool = False
    idle_ttl: int = 7 * 24 * 3600
    finished_ttl: int = 24 * 3600
    # The archive of finished tables and the ratings (service/archive): a database URL
    # (postgresql://..., sqlite:///path); None: no archive, and a finished table expires
    # from the store with everything it holds. ``migrate``: bring the archive's schema up
    # to date at start-up (else `tablestate migrate` does).
    database_url: str | None = None
    migrate: bool = False
    redis_prefix: str = "ts:"
    redis_max_connections: int = 50
    redis_timeout: float = 2.0
    redis_cluster: bool = False
    # Sentinel (docs/operations.md): its addresses ("host:port") and the primary's name, from
    # TABLESTATE_REDIS_SENTINEL* or a ``redis+sentinel://`` REDIS_URL.
    redis_sentinels: tuple[str, ...] = ()
    redis_sentinel_master: str = "mymaster"
    redis_ack: str = "primary"
    redis_ack_timeout: int = 500  # milliseconds a commit waits for its acknowledgement
    # A long snapshot written as its difference from an earlier one (store/_deltas.py).
    snapshot_deltas: bool = True
    allowed_origins: tuple[str, ...] = ()
    # Pages on http://localhost:PORT and http://127.0.0.1:PORT (a frontend's dev server) may
    # call the API: tokens are bearer tokens, never cookies, so such a page borrows nobody's
    # identity. TABLESTATE_LOCAL_ORIGINS=0 refuses them as any other unlisted origin.
    local_origins: bool = True
    max_depth: int = 12
    max_tokens: int = 4000
    max_aliases: int = 30
    subscriber_queue: int = 256
    max_subscriptions_per_connection: int = 100
    bot_delay: float = 0.0
    bot_lease: float = 10.0
    # A strong bot's budget per move: playouts (deterministic), and a cap on its time in
    # milliseconds (0: none) that only a slow machine reaches; threads that think.
    bot_iterations: int = 96
    bot_budget_ms: int = 2000
    bot_workers: int = 2
    move_retries: int = 5
    # Moves a replica works on at once; more wait their turn before touching the store,
    # so that overload makes moves slower rather than failing them with UNAVAILABLE.
    moves_in_flight: int = 64
    graphiql: bool = True
    ws_compression: bool = False
    gc_tuning: bool = False  # from the environment: on (see app.tune_gc)
    # makeMove and tableEvents over graphql-transport-ws without the per-operation
    # machinery (api/direct.py); off: every operation through Strawberry's executor.
    direct_operations: bool = True
    web_dir: str | None = None
    log_level: str = "info"
    # Abuse resistance (docs/security.md). A rate of 0 turns that limit off.
    rate_address: float = 50.0
    rate_address_burst: int = 100
    rate_token: float = 20.0
    rate_token_burst: int = 40
    rate_exempt: tuple[str, ...] = ("127.0.0.1", "::1")
    # Proxies whose X-Forwarded-For names the client: none unless named, so that no client
    # connecting directly can choose its own address (docs/security.md).
    trusted_proxies: tuple[str, ...] = ()
    max_ws_per_address: int = 32
    # The edge (service/connections.py): seconds a connection may take to send a whole
    # request (0: no bound), and connections of any kind one address may hold open on one
    # replica (0: no limit; trusted proxies and exempt addresses are not counted).
    request_read_timeout: float = 10.0
    max_connections_per_address: int = 64
    # Addresses whose requests to /healthz, /readyz and /metrics are never limited (the
    # orchestrator's probes), when they connect directly (service/api/probes.py).
    probe_exempt: tuple[str, ...] = ()
    max_cost: int = 100_000
    max_mutations: int = 5
    # Bounded storage (docs/security.md): tables one address may create an hour (0: no
    # limit), chat and presence events kept per table and audience, idempotency records
    # kept per table.
    tables_per_address: int = 30
    chat_kept: int = 100
    idempotency_kept: int = 100
    # Bytes of a request body or a WebSocket message; the ASGI server refuses a larger
    # WebSocket message from its header, before buffering it (service/server.py).
    max_body: int = 256 * 1024
    # Pings (and other messages that start no operation) a second per WebSocket, and the
    # burst; past them the socket is closed (docs/security.md).
    ws_ping_rate: float = 1.0
    ws_ping_burst: int = 10
    # Chat and presence (service/tables/social.py).
    chat_rate: float = 1.0
    chat_burst: int = 5
    presence_ttl: float = 30.0
    # Sign-in (docs/identity.md): JWTs verified with the issuer's keys (a JWKS) or a shared
    # secret; both off by default. ``jwt_algorithms`` empty: those the keys allow.
    jwt_jwks_url: str | None = None
    jwt_secret: bytes = field(default=b"", repr=False)
    jwt_issuer: str | None = None
    jwt_audience: tuple[str, ...] = ()
    jwt_algorithms: tuple[str, ...] = ()
    jwt_leeway: float = 30.0
    jwt_name_claim: str = "name"
    jwt_jwks_cache: float = 300.0
    jwt_jwks_refresh: float = 30.0
    require_sign_in: bool = False
    spectators: str = "anyone"  # who may watch a table without a seat: SPECTATOR_POLICIES
    # Where the workers of ``serve --workers N`` write their metrics (None: a temporary
    # folder), and whether spans are made (service/tracing.py): off, otlp or console.
    metrics_dir: str | None = None
    tracing: str = "off"

    @property
    def sign_in(self) -> bool:
        """Whether signed-in users are verified here (a JWKS or a shared secret)."""
        return bool(self.jwt_jwks_url or self.jwt_secret)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """The settings of this process. With Redis a missing ``TABLESTATE_SECRET`` is an
        error (replicas must agree on it); the memory store makes a random one."""
        env = os.environ if env is None else env
        redis_url = env.get("REDIS_URL") or None
        sentinels = _addresses(env, "TABLESTATE_REDIS_SENTINEL")
        master = env.get("TABLESTATE_REDIS_SENTINEL_MASTER", "").strip() or "mymaster"
        if sentinels and redis_url:
            raise ConfigError(
                "set either REDIS_URL or TABLESTATE_REDIS_SENTINEL, not both (a "
                "redis+sentinel:// REDIS_URL names the sentinels itself)"
            )
        if sentinels:
            redis_url = f"redis+sentinel://{','.join(sentinels)}/{master}"
        if redis_url and redis_url.startswith("redis+sentinel://"):
            from tablestate.store.topology import parse_sentinel_url  # only with Sentinel

            try:
                parse_sentinel_url(redis_url)
            except ValueError as exc:
                raise ConfigError(f"REDIS_URL: {exc}") from None
        if (
            redis_url
            and redis_url.startswith("redis+sentinel://")
            and _bool(env, "TABLESTATE_REDIS_CLUSTER", False)
        ):
            raise ConfigError("TABLESTATE_REDIS_CLUSTER and Sentinel exclude each other")
        raw_secret = env.get("TABLESTATE_SECRET", "")
        if raw_secret:
            secret, random_secret = raw_secret.encode(), False
        elif redis_url:
            raise ConfigError(
                "TABLESTATE_SECRET is required with REDIS_URL: every replica needs the same "
                "secret to derive the tables' seeds (set it to a long random string)"
            )
        else:
            secret, random_secret = secrets.token_bytes(32), True
        ack_timeout = _int(env, "TABLESTATE_REDIS_ACK_TIMEOUT", 500, 1)
        if ack_timeout >= _float(env, "TABLESTATE_REDIS_TIMEOUT", 2.0) * 1000:
            raise ConfigError(
                "TABLESTATE_REDIS_ACK_TIMEOUT (ms) must be shorter than TABLESTATE_REDIS_TIMEOUT "
                "(s): a commit waiting for its acknowledgement would time out first"
            )
        database_url = env.get("DATABASE_URL", "").strip() or None
        if database_url is None and not redis_url and _bool(env, "TABLESTATE_ARCHIVE", True):
            # The embedded default, for one process on the memory store: a SQLite file in
            # the data folder. Replicas on Redis share one database, so they name it.
            folder = Path(env.get("TABLESTATE_DATA_DIR", "").strip() or "data").absolute()
            database_url = f"sqlite:///{folder / 'tablestate.db'}"
        migrate_default = database_url is not None and database_url.startswith("sqlite")
        return cls(
            redis_url=redis_url,
            database_url=database_url,
            migrate=_bool(env, "TABLESTATE_MIGRATE", migrate_default),
            secret=secret,
            secret_is_random=random_secret,
            host=env.get("TABLESTATE_HOST", "127.0.0.1"),
            port=_int(env, "TABLESTATE_PORT", 8000, 0),
            workers=_int(env, "TABLESTATE_WORKERS", 1, 1),
            plugins=_list(env, "TABLESTATE_PLUGINS"),
            disable=_list(env, "TABLESTATE_DISABLE"),
            trace_plugins=_bool(env, "TABLESTATE_TRACE_PLUGINS", False),
            idle_ttl=_int(env, "TABLESTATE_IDLE_TTL", 7 * 24 * 3600, 1),
            finished_ttl=_int(env, "TABLESTATE_FINISHED_TTL", 24 * 3600, 1),
            redis_prefix=env.get("TABLESTATE_REDIS_PREFIX", "ts:"),
            redis_max_connections=_int(env, "TABLESTATE_REDIS_MAX_CONNECTIONS", 50, 2),
            redis_timeout=_float(env, "TABLESTATE_REDIS_TIMEOUT", 2.0),
            redis_cluster=_bool(env, "TABLESTATE_REDIS_CLUSTER", False),
            redis_sentinels=sentinels,
            redis_sentinel_master=master,
            redis_ack=_choice(env, "TABLESTATE_REDIS_ACK", "primary", ACKS),
            redis_ack_timeout=ack_timeout,
            snapshot_deltas=_bool(env, "TABLESTATE_SNAPSHOT_DELTAS", True),
            allowed_origins=_list(env, "TABLESTATE_ALLOWED_ORIGINS"),
            local_origins=_bool(env, "TABLESTATE_LOCAL_ORIGINS", True),
            max_depth=_int(env, "TABLESTATE_MAX_DEPTH", 12, 2),
            max_tokens=_int(env, "TABLESTATE_MAX_TOKENS", 4000, 50),
            max_aliases=_int(env, "TABLESTATE_MAX_ALIASES", 30, 1),
            subscriber_queue=_int(env, "TABLESTATE_SUBSCRIBER_QUEUE", 256, 1),
            max_subscriptions_per_connection=_int(
                env, "TABLESTATE_MAX_SUBSCRIPTIONS_PER_CONNECTION", 100, 1
            ),
            bot_delay=_float(env, "TABLESTATE_BOT_DELAY", 0.0),
            bot_lease=_float(env, "TABLESTATE_BOT_LEASE", 10.0),
            bot_iterations=_int(env, "TABLESTATE_BOT_ITERATIONS", 96, 1),
            bot_budget_ms=_int(env, "TABLESTATE_BOT_BUDGET_MS", 2000, 0),
            bot_workers=_int(env, "TABLESTATE_BOT_WORKERS", 2, 1),
            move_retries=_int(env, "TABLESTATE_MOVE_RETRIES", 5, 0),
            moves_in_flight=_int(env, "TABLESTATE_MOVES_IN_FLIGHT", 64, 1),
            graphiql=_bool(env, "TABLESTATE_GRAPHIQL", True),
            ws_compression=_bool(env, "TABLESTATE_WS_COMPRESSION", False),
            gc_tuning=_bool(env, "TABLESTATE_GC_TUNING", True),
            direct_operations=_bool(env, "TABLESTATE_DIRECT_OPERATIONS", True),
            web_dir=env.get("TABLESTATE_WEB_DIR") or None,
            log_level=env.get("TABLESTATE_LOG_LEVEL", "info").lower(),
            rate_address=_float(env, "TABLESTATE_RATE_ADDRESS", 50.0),
            rate_address_burst=_int(env, "TABLESTATE_RATE_ADDRESS_BURST", 100, 1),
            rate_token=_float(env, "TABLESTATE_RATE_TOKEN", 20.0),
            rate_token_burst=_int(env, "TABLESTATE_RATE_TOKEN_BURST", 40, 1),
            rate_exempt=_networks(env, "TABLESTATE_RATE_EXEMPT", ("127.0.0.1", "::1")),
            trusted_proxies=_networks(env, "TABLESTATE_TRUSTED_PROXIES", ()),
            max_ws_per_address=_int(env, "TABLESTATE_MAX_WS_PER_ADDRESS", 32, 0),
            request_read_timeout=_float(env, "TABLESTATE_REQUEST_READ_TIMEOUT", 10.0),
            max_connections_per_address=_int(env, "TABLESTATE_MAX_CONNECTIONS_PER_ADDRESS", 64, 0),
            probe_exempt=_networks(env, "TABLESTATE_PROBE_EXEMPT", ()),
            max_cost=_int(env, "TABLESTATE_MAX_COST", 100_000, 100),
            max_mutations=_int(env, "TABLESTATE_MAX_MUTATIONS", 5, 1),
            tables_per_address=_int(env, "TABLESTATE_TABLES_PER_ADDRESS", 30, 0),
            chat_kept=_int(env, "TABLESTATE_CHAT_KEPT", 100, 1),
            idempotency_kept=_int(env, "TABLESTATE_IDEMPOTENCY_KEPT", 100, 1),
            max_body=_int(env, "TABLESTATE_MAX_BODY", 256 * 1024, 1024),
            ws_ping_rate=_float(env, "TABLESTATE_WS_PING_RATE", 1.0),
            ws_ping_burst=_int(env, "TABLESTATE_WS_PING_BURST", 10, 1),
            chat_rate=_float(env, "TABLESTATE_CHAT_RATE", 1.0),
            chat_burst=_int(env, "TABLESTATE_CHAT_BURST", 5, 1),
            presence_ttl=max(1.0, _float(env, "TABLESTATE_PRESENCE_TTL", 30.0)),
            metrics_dir=env.get("TABLESTATE_METRICS_DIR") or None,
            tracing=_choice(env, "TABLESTATE_TRACING", "off", TRACING),
            **_sign_in(env),
        )

    def with_overrides(self, **changes: object) -> Settings:
        """These settings with some changed (command-line flags)."""
        given: dict[str, Any] = {k: v for k, v in changes.items() if v is not None}
        return replace(self, **given)
