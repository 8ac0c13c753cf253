"""How uvicorn serves the app: its options, made from the settings in one place for
``tablestate serve`` and for the tests' servers (docs/security.md, "The edge").

- **The client address** is decided by the app alone (``ratelimit.Guard.client``, from
  ``TABLESTATE_TRUSTED_PROXIES``). uvicorn's own proxy-header handling is off: it would
  replace the TCP peer by an ``X-Forwarded-For`` address (from loopback peers by default,
  or whatever its ``FORWARDED_ALLOW_IPS`` says) before the app could tell, so that a
  setting of ours saying "trust nobody" meant nothing.
- **A WebSocket message over** ``TABLESTATE_MAX_BODY`` is refused by the protocol as soon
  as a frame's header announces it (close 1009), before its payload is read: uvicorn's
  default bound is 16 MiB, which the app only saw once it was all in memory. HTTP bodies
  need no such option: uvicorn's HTTP protocols stop reading while 64 KiB of a body wait
  unread, and ``app.BodyLimit`` refuses a body past the limit as it arrives.
"""

from __future__ import annotations

from typing import Any, Final

from service.config import Settings

PING_INTERVAL: Final = 20.0  # seconds between the server's pings; as long for the answer


def options(settings: Settings) -> dict[str, Any]:
    """uvicorn's options (``uvicorn.run``, ``uvicorn.Config``) that the settings decide."""
    return {
        "proxy_headers": False,
        "ws": "websockets-sansio",
        "ws_max_size": settings.max_body,
        "ws_ping_interval": PING_INTERVAL,
        "ws_ping_timeout": PING_INTERVAL,
        # Events are small: compressing each message for each subscriber costs more CPU
        # than it saves on a LAN (per-message deflate was a tenth of a fan-out's CPU).
        "ws_per_message_deflate": settings.ws_compression,
        "timeout_graceful_shutdown": 10,
    }
