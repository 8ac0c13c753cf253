"""Signing in: who a JWT says the caller is (docs/identity.md).

``tokens.Identity`` verifies a JWT with PyJWT and makes the signed-in ``User`` credential
(``service/engine/rights.py`` decides what it holds at each table); ``keys.KeySet`` keeps
the issuer's keys. Nothing here knows of tables.
"""

from __future__ import annotations

from tablestate.identity.keys import KeySet, KeysUnavailable
from tablestate.identity.tokens import Identity, looks_like_jwt

__all__ = ["Identity", "KeySet", "KeysUnavailable", "looks_like_jwt"]
