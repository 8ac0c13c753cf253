"""The issuer's signing keys: a JWKS read from an https URL (plain http only on loopback, for
tests) or a file, fetched by PyJWT's ``PyJWKClient`` and parsed by its ``PyJWKSet``.

- The set is kept ``lifespan`` seconds, then read again when next needed.
- A token whose key id (``kid``) is not in the set has it read again at most once per
  ``cooldown`` seconds, whoever sends it: a flood of made-up key ids costs one read per
  interval, not one per request, and a key the issuer has just rotated in is picked up.
- One read at a time: whoever needs the set meanwhile waits for the read under way.
- A read that fails keeps the keys held (a short outage of the issuer signs nobody out) and
  is not tried again before the cooldown; with no keys held at all, no token can be
  checked: ``KeysUnavailable``.
- Only asymmetric signing keys count (``kty`` RSA, EC or OKP, ``use`` "sig" or none): a
  shared secret in a key set would let anyone who can read the set sign tokens.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from jwt import PyJWK, PyJWKClient, PyJWKSet
from jwt.exceptions import PyJWTError

log = logging.getLogger("tablestate.identity")

READ_TIMEOUT: Final = 5.0  # seconds a read of the key set may take
ASYMMETRIC_KTY: Final = frozenset({"RSA", "EC", "OKP"})

Reader = Callable[[], dict[str, Any]]
"""A blocking read of a JWKS: its JSON object."""


class KeysUnavailable(Exception):
    """The key set cannot be read, and no keys are held."""


def reader(source: str, timeout: float = READ_TIMEOUT) -> Reader:
    """The read of the JWKS at ``source``: an http(s) URL, else a file path."""
    if source.startswith(("https://", "http://")):
        client = PyJWKClient(
            source, cache_jwk_set=False, timeout=timeout, headers={"User-Agent": "tablestate"}
        )

        def fetch() -> dict[str, Any]:
            found: dict[str, Any] = client.fetch_data()  # PyJWT types it Any
            return found

        return fetch
    path = Path(source)

    def read_file() -> dict[str, Any]:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError(f"{path} does not hold a JSON object")
        return data

    return read_file


def signing_keys(data: dict[str, Any]) -> tuple[PyJWK, ...]:
    """The asymmetric signing keys of a JWKS (PyJWT skips the ones it cannot use)."""
    found = PyJWKSet.from_dict(data)
    return tuple(
        k for k in found.keys if k.key_type in ASYMMETRIC_KTY and k.public_key_use in ("sig", None)
    )


class KeySet:
    """The issuer's keys by key id, read and kept as the module says."""

    def __init__(
        self,
        read: Reader,
        *,
        lifespan: float,
        cooldown: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._read = read
        self.lifespan = lifespan
        self.cooldown = cooldown
        self._clock = clock
        self._keys: tuple[PyJWK, ...] | None = None
        self._loaded_at = -math.inf  # the last read that succeeded
        self._tried_at = -math.inf  # the last read begun
        self._reading: asyncio.Future[None] | None = None
        self.reads = 0  # reads begun (tests and logs read it)

    async def key(self, kid: str | None) -> PyJWK | None:
        """The signing key of ``kid`` (None: the set's only key, if it has one key), or
        None when the issuer has no such key.

        Raises:
            KeysUnavailable: no keys are held and the set cannot be read.
        """
        if self._due():
            await self._refresh()
        elif self._reading is not None:
            await asyncio.shield(self._reading)
        found = self._find(kid)
        if found is None and self._keys is not None and kid is not None and self._may_read():
            await self._refresh()
            found = self._find(kid)
        if self._keys is None:
            raise KeysUnavailable("the issuer's keys cannot be read")
        return found

    def _may_read(self) -> bool:
        return self._clock() - self._tried_at >= self.cooldown

    def _due(self) -> bool:
        """Whether the set is to be read now: never read, or kept past its lifespan; never
        within the cooldown after a read that failed."""
        failed_lately = self._tried_at > self._loaded_at and not self._may_read()
        if failed_lately or self._reading is not None:
            return False
        return self._keys is None or self._clock() - self._loaded_at >= self.lifespan

    def _find(self, kid: str | None) -> PyJWK | None:
        keys = self._keys or ()
        if kid is None:
            return keys[0] if len(keys) == 1 else None
        return next((k for k in keys if k.key_id == kid), None)

    async def _refresh(self) -> None:
        """Read the set, or wait for the read under way."""
        if self._reading is None:
            self._tried_at = self._clock()
            self.reads += 1
            self._reading = asyncio.ensure_future(self._read_once())
        await asyncio.shield(self._reading)

    async def _read_once(self) -> None:
        try:
            keys = signing_keys(await asyncio.to_thread(self._read))
            if not keys:
                raise ValueError("the key set holds no asymmetric signing key")
        except (PyJWTError, OSError, ValueError) as exc:
            held = "keeping the keys held" if self._keys else "no keys held"
            log.warning("the issuer's keys were not read (%s): %s", held, exc)
        else:
            self._keys = keys
            self._loaded_at = self._clock()
        finally:
            self._reading = None
