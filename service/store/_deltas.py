"""A snapshot written as its difference from an earlier one, in the Redis store.

A move most often changes a snapshot in one stretch near its end (the game's state grows
at its end, and the table's fields that change at every move come after it:
``engine/table.py``), so a commit of a table whose snapshot is long writes, instead of the
whole of it, the stretch from the first to the last character that differ from the base,
an earlier snapshot of the same table kept whole. The base is written again whole (a
rebase) once that stretch grows past a share of it. What redis-server receives, keeps in
its append-only file and hands to its replicas at each move is then about the size of the
change, not of the table.

``Base.delta`` writes a difference and ``patch`` reads one; ``Bases`` is the bounded memory
of the bases this process wrote or read, by table.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

SHORTEST: Final = 1024
"""A snapshot shorter than this (in characters) is written whole: its difference would
save little."""

_SHARE: Final = 8
_LEAST: Final = 256
_LONGEST_WAIT: Final = 6  # 2^6 - 1 snapshots whole at most between two looks


def _common(base: str, new: str) -> tuple[int, int]:
    """The lengths of the longest beginning and then end (not overlapping it) that ``base``
    and ``new`` share, found by halves: each test is one comparison of memory."""
    most = min(len(base), len(new))
    lo, hi = 0, most
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if new.startswith(base[:mid]):
            lo = mid
        else:
            hi = mid - 1
    p = lo
    lo, hi = 0, most - p
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if new.endswith(base[len(base) - mid :]):
            lo = mid
        else:
            hi = mid - 1
    return p, lo


@dataclass(slots=True)
class Base:
    """A snapshot kept whole in the store (its ``version``) and the beginning and end that
    the snapshots written since share with it, found once and then only checked: a game
    that grows at its end keeps them from one move to the next."""

    version: int
    text: str
    head: str | None = None
    tail: str = ""
    # Differences found too long one after the other, and the snapshots still to write
    # whole before looking again: a game whose moves change it all over is not searched
    # at every move (``Bases.put`` carries both from one base to the next).
    misses: int = 0
    wait: int = 0

    def delta(self, new: str) -> str | None:
        """``new`` as a difference from this base: ``"<p>,<s>,<middle>"``, ``new`` being
        the first ``p`` characters of the base, ``middle`` and its last ``s``; None when
        that middle is longer than an eighth of ``new`` (at least 256 characters), or
        while recent differences were: time to write it whole."""
        if self.wait:
            return None
        head, tail = self.head, self.tail
        if (
            head is None
            or len(head) + len(tail) > len(new)
            or not new.startswith(head)
            or not new.endswith(tail)
            or len(new) - len(head) - len(tail) > max(_LEAST, len(new) // _SHARE)
        ):
            p, s = _common(self.text, new)
            head, tail = self.text[:p], self.text[len(self.text) - s :]
            self.head, self.tail = head, tail
        middle = new[len(head) : len(new) - len(tail)]
        if len(middle) > max(_LEAST, len(new) // _SHARE):
            self.misses += 1
            return None
        self.misses = 0
        return f"{len(head)},{len(tail)},{middle}"


def patch(base: str, difference: str) -> str:
    """The snapshot that ``difference`` (from ``delta``) makes of ``base``."""
    p, s, middle = difference.split(",", 2)
    return base[: int(p)] + middle + base[len(base) - int(s) :]


class Bases:
    """The newest base of each table this process wrote or read: the least recently used
    go beyond ``chars`` characters in all."""

    def __init__(self, chars: int = 32 << 20) -> None:
        self._kept: OrderedDict[str, Base] = OrderedDict()
        self._chars = 0
        self._most = chars

    def get(self, table_id: str) -> Base | None:
        found = self._kept.get(table_id)
        if found is not None:
            self._kept.move_to_end(table_id)
        return found

    def put(self, table_id: str, version: int, text: str) -> None:
        """``text``, written whole at ``version``, the table's base from now on. After two
        differences or more found too long in a row, the next 3, 7, ... 63 snapshots are
        written whole without looking."""
        old = self._kept.get(table_id)
        self.drop(table_id)
        if len(text) > self._most:
            return
        base = Base(version, text)
        if old is not None:
            base.misses = old.misses
            if old.wait:
                base.wait = old.wait - 1
            elif old.misses >= 2:
                base.wait = 2 ** min(old.misses, _LONGEST_WAIT) - 1
        self._kept[table_id] = base
        self._chars += len(text)
        while self._chars > self._most:
            _, old = self._kept.popitem(last=False)
            self._chars -= len(old.text)

    def drop(self, table_id: str) -> None:
        old = self._kept.pop(table_id, None)
        if old is not None:
            self._chars -= len(old.text)
