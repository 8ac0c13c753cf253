"""Signed-in users from JWTs, verified by PyJWT: the signature with the issuer's key (by
``kid``, ``keys.py``) or the shared secret, then ``exp``, ``nbf``, ``iat``, ``iss`` and
``aud``, with the configured leeway for clock skew.

A token that looks like a JWT (three dot-separated parts; a table token has two) and fails
any check is ``UNAUTHENTICATED``, with a reason that names the check and never repeats the
token or anything of it. The algorithm a token names must be one the operator accepts
(``none`` never is), and it picks the kind of key: HS* only the shared secret, any other
only a key of the issuer's set whose own algorithm it is (so that a token "signed" with
the issuer's public key as an HMAC secret never verifies).
"""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Callable
from typing import Any, Final

import jwt
from jwt import PyJWK
from jwt.exceptions import (
    DecodeError,
    ExpiredSignatureError,
    ImmatureSignatureError,
    InvalidAlgorithmError,
    InvalidAudienceError,
    InvalidIssuedAtError,
    InvalidIssuerError,
    InvalidKeyError,
    InvalidSignatureError,
    InvalidSubjectError,
    MissingRequiredClaimError,
    PyJWTError,
)

from tablestate.config import SHARED, Settings, default_algorithms
from tablestate.engine.rights import User
from tablestate.errors import ApiError
from tablestate.identity.keys import KeySet, KeysUnavailable, reader

REQUIRED: Final = ("exp", "iss", "aud", "sub")
MAX_JWT: Final = 8192  # characters: a JWT longer than this is refused unread
MAX_SUB: Final = 255
MAX_KID: Final = 200
MAX_NAME: Final = 100

# The checks, by PyJWT's refusal, as the reason says them (subclasses before their bases).
_REASONS: Final[tuple[tuple[type[PyJWTError], str], ...]] = (
    (ExpiredSignatureError, "it has expired (exp)"),
    (InvalidAudienceError, "it is for another audience (aud)"),
    (InvalidIssuerError, "it is from another issuer (iss)"),
    (InvalidIssuedAtError, "its issue time is malformed (iat)"),
    (InvalidSubjectError, "its subject is malformed (sub)"),
    (InvalidSignatureError, "its signature does not verify"),
    (InvalidAlgorithmError, "its algorithm (alg) is not its key's"),
    (InvalidKeyError, "its key is unusable"),
    (DecodeError, "it is malformed"),
)


def looks_like_jwt(token: str) -> bool:
    """Whether a bearer token is meant as a JWT (a table token has one dot, a JWT two)."""
    return token.count(".") == 2


def refused(reason: str) -> ApiError:
    """The refusal of a JWT that fails a check."""
    return ApiError("UNAUTHENTICATED", f"sign-in refused: {reason}")


def _name(value: Any) -> str | None:
    """The display name of the name claim: printable text, at most ``MAX_NAME`` long."""
    if not isinstance(value, str):
        return None
    clean = "".join(c for c in value if not unicodedata.category(c).startswith("C")).strip()
    return clean[:MAX_NAME] or None


class Identity:
    """Verifies JWTs for one replica, with the settings of docs/identity.md."""

    def __init__(
        self,
        settings: Settings,
        keys: KeySet | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if settings.jwt_issuer is None or not settings.jwt_audience:
            raise ValueError("signing in needs an issuer and an audience")
        self.issuer = settings.jwt_issuer
        self.audience = list(settings.jwt_audience)
        self.secret = settings.jwt_secret
        self.algorithms = frozenset(
            settings.jwt_algorithms
            or default_algorithms(bool(settings.jwt_jwks_url), bool(settings.jwt_secret))
        )
        self.leeway = settings.jwt_leeway
        self.name_claim = settings.jwt_name_claim
        self.clock = clock  # PyJWT checks exp against the system's clock: so do users' rights
        if keys is None and settings.jwt_jwks_url:
            keys = KeySet(
                reader(settings.jwt_jwks_url),
                lifespan=settings.jwt_jwks_cache,
                cooldown=settings.jwt_jwks_refresh,
            )
        self.keys = keys

    async def verify(self, token: str) -> User:
        """The signed-in user of a JWT.

        Raises:
            ApiError: ``UNAUTHENTICATED`` naming the check it fails; ``UNAVAILABLE`` when
            the issuer's keys cannot be read (and none are held).
        """
        if len(token) > MAX_JWT:
            raise refused("it is too long")
        try:
            header = jwt.get_unverified_header(token)
        except PyJWTError:
            raise refused("it is malformed") from None
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self.algorithms:
            raise refused("its algorithm (alg) is not accepted here")
        key = self.secret if alg in SHARED else await self._key(header)
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=[alg],
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": list(REQUIRED), "enforce_minimum_key_length": True},
            )
        except MissingRequiredClaimError as exc:
            raise refused(f"it has no {exc.claim} claim") from None
        except ImmatureSignatureError as exc:  # PyJWT's own words name the claim
            claim = "iat" if "(iat)" in str(exc) else "nbf"
            raise refused(f"it is not valid yet ({claim})") from None
        except PyJWTError as exc:
            reason = next((r for kind, r in _REASONS if isinstance(exc, kind)), "it is invalid")
            raise refused(reason) from None
        sub = claims["sub"]
        if not isinstance(sub, str) or not 0 < len(sub) <= MAX_SUB:
            raise refused("its subject is malformed (sub)")
        expires = float(claims["exp"]) + self.leeway
        return User(f"{self.issuer}#{sub}", _name(claims.get(self.name_claim)), expires, self.clock)

    async def _key(self, header: dict[str, Any]) -> PyJWK:
        kid = header.get("kid")
        if kid is not None and (not isinstance(kid, str) or len(kid) > MAX_KID):
            raise refused("its key id (kid) is malformed")
        if self.keys is None:
            raise refused("its algorithm (alg) is not accepted here")
        try:
            found = await self.keys.key(kid)
        except KeysUnavailable:
            raise ApiError(
                "UNAVAILABLE", "the sign-in keys cannot be read now; retry later"
            ) from None
        if found is None:
            if kid is None:
                raise refused("it names no key id (kid)")
            raise refused("no key of the issuer has its key id (kid)")
        return found
