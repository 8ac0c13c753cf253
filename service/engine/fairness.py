"""Provably fair seeds (docs/security.md, "Secrets at rest").

``server_seed = HMAC-SHA256(secret, table_id + nonce)`` is never stored; the public
``shuffleCommitment`` is its SHA-256. At start the game seed becomes
``SHA-256(server_seed || client seeds in seat order)``. Once the table finishes, the server
seed is revealed and anyone can check the commitment and recompute every shuffle.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence


def server_seed(secret: bytes, table_id: str, nonce: str) -> bytes:
    """The table's secret seed."""
    return hmac.new(secret, (table_id + nonce).encode(), hashlib.sha256).digest()


def commitment(seed: bytes) -> str:
    """The public commitment to a server seed: SHA-256, hex."""
    return hashlib.sha256(seed).hexdigest()


def game_seed(seed: bytes, client_seeds: Sequence[str]) -> bytes:
    """The seed every shuffle and roll of the game derives from. Each client seed is
    length-prefixed so that no two lists of seeds give the same input."""
    h = hashlib.sha256(seed)
    for s in client_seeds:
        raw = s.encode()
        h.update(len(raw).to_bytes(4, "big") + raw)
    return h.digest()


def verify(revealed_hex: str, commitment_hex: str) -> bool:
    """Whether a revealed server seed matches the commitment published at creation."""
    try:
        raw = bytes.fromhex(revealed_hex)
    except ValueError:
        return False
    return hmac.compare_digest(commitment(raw), commitment_hex)
