"""Seeded, verifiable randomness for the rules.

Every shuffle and roll of a table comes from here. A generator is derived from the table's
game seed and a chance-step counter that the engine keeps in the table (never from the
version): step ``k`` draws its bytes from ``SHA-256(seed || k || block)``, so anyone who
knows the revealed seed can recompute every deal in any language. The algorithm:

- ``_below(n)``: take 8 bytes of the step's stream as a big-endian integer ``x``; reject
  ``x >= 2**64 - (2**64 % n)`` and take the next 8 bytes; answer ``x % n``.
- ``shuffle(items)``: one chance step; Fisher-Yates from the last index down,
  swapping ``i`` with ``_below(i + 1)``.
- ``randint(a, b)``: one chance step, ``a + _below(b - a + 1)``.
- ``roll(n, sides)``: one chance step, ``n`` values of ``1 + _below(sides)``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Final, TypeVar

T = TypeVar("T")

_SPAN: Final = 2**64


class _Stream:
    """The byte stream of one chance step."""

    __slots__ = ("_block", "_buf", "_prefix")

    def __init__(self, seed: bytes, step: int) -> None:
        self._prefix = seed + step.to_bytes(8, "big")
        self._block = 0
        self._buf = b""

    def take8(self) -> int:
        if len(self._buf) < 8:
            self._buf += hashlib.sha256(self._prefix + self._block.to_bytes(8, "big")).digest()
            self._block += 1
        out, self._buf = self._buf[:8], self._buf[8:]
        return int.from_bytes(out, "big")

    def below(self, n: int) -> int:
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _SPAN - (_SPAN % n)
        while True:
            x = self.take8()
            if x < limit:
                return x % n


class Rng:
    """A deterministic generator: the same seed and counter give the same results.

    Each public call is one chance step and advances ``counter`` by one. The engine
    stores ``counter`` with the table, so a game never has to.
    """

    __slots__ = ("_seed", "counter")

    def __init__(self, seed: bytes, counter: int = 0) -> None:
        self._seed = seed
        self.counter = counter

    def _step(self) -> _Stream:
        stream = _Stream(self._seed, self.counter)
        self.counter += 1
        return stream

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        """A shuffled copy of ``items`` (Fisher-Yates)."""
        out = list(items)
        stream = self._step()
        for i in range(len(out) - 1, 0, -1):
            j = stream.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return tuple(out)

    def randint(self, a: int, b: int) -> int:
        """A whole number in ``[a, b]``, both ends included."""
        if b < a:
            raise ValueError("randint() needs a <= b")
        return a + self._step().below(b - a + 1)

    def choice(self, items: Sequence[T]) -> T:
        """One of ``items``."""
        if not items:
            raise ValueError("choice() from an empty sequence")
        return items[self._step().below(len(items))]

    def roll(self, n: int = 1, sides: int = 6) -> tuple[int, ...]:
        """``n`` dice of ``sides`` faces, in one chance step."""
        stream = self._step()
        return tuple(1 + stream.below(sides) for _ in range(n))

    def fork(self, label: bytes) -> Rng:
        """A generator of its own for ``label``, from this one's seed and counter: drawing
        from it leaves this one as it is (a bot's search draws apart from the table's)."""
        return Rng(self._seed + b"/" + label, self.counter)
