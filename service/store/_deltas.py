"""A snapshot written as its difference from an earlier one, in the Redis store.

A move changes a snapshot in a few places: often in one stretch near its end (the game's
state grows at its end, and the table's fields that change at every move come after it:
``engine/table.py``), or in a handful of short ones (a card leaves a hand and joins the
discard, a die lands on the board, a score and a turn change). So a commit of a table
whose snapshot is long writes, instead of the whole of it, what differs from the base, an
earlier snapshot of the same table kept whole: the stretch from the first to the last
character that differ, or where that stretch is long, each of the short stretches that
differ. The base is written again whole (a rebase) once the difference grows past a share
of it. What redis-server receives, keeps in its append-only file and hands to its replicas
at each move is then about the size of the change, not of the table.

``Base.delta`` writes a difference and ``patch`` reads one; ``Bases`` is the bounded memory
of the bases this process wrote or read, by table.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

SHORTEST: Final = 1024
"""A snapshot shorter than this (in characters) is written whole: its difference would
save little."""

_SHARE: Final = 8
_LEAST: Final = 256
_LONGEST_WAIT: Final = 6  # 2^6 - 1 snapshots whole at most between two looks
# Characters of the base after a change that, found again in the new text, end that
# change's stretch: long enough to be found rarely by chance in a JSON snapshot.
_ANCHOR: Final = 24
# Several stretches are sought only in a snapshot at least this long. The search costs the
# worker some 5 µs a stretch (30 to 50 µs a move of the bundled games: bench/games.py),
# and saves redis-server about 3 µs a kilobyte not sent (bench/commit_cost.py): below
# this, a worker would spend many times what redis-server saves.
_SCATTERED: Final = 3072


def _run(a: str, i: int, b: str, j: int, most: int, known: int = 0) -> int:
    """The length of the longest beginning that ``a[i:]`` and ``b[j:]`` share, at most
    ``most`` and at least ``known`` (already compared): by steps that double, then halves."""
    got, step = known, 32
    while got + step <= most and b.startswith(a[i + got : i + got + step], j + got):
        got += step
        step *= 2
    lo, hi = got, min(most, got + step)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if b.startswith(a[i + lo : i + mid], j + lo):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _back(a: str, i: int, b: str, j: int, most: int) -> int:
    """The length of the longest end that ``a[:i]`` and ``b[:j]`` share, at most ``most``."""
    got, step = 0, 8
    while got + step <= most and b.endswith(a[i - got - step : i - got], 0, j - got):
        got += step
        step *= 2
    lo, hi = got, min(most, got + step)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if b.endswith(a[i - mid : i - lo], 0, j - lo):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _stretches(
    a: str, b: str, p: int, end_a: int, end_b: int, most: int, hints: Sequence[int] = ()
) -> list[tuple[int, int, str]] | None:
    """The stretches that turn ``a`` into ``b``: ``(start, end, text)``, ``a[start:end]``
    becoming ``text``, in order and apart, all between ``p`` and ``end_a`` (``end_b`` in
    ``b``: before and after them the two agree). After each difference, the nearest
    ``_ANCHOR`` characters of ``a`` found again in ``b`` end its stretch (sought 1, 2, 4,
    ... characters on). None once the stretches pass ``most`` characters (written, with
    their lengths): a difference that long is not worth writing. Any stretches found
    patch ``a`` into ``b`` exactly; an anchor found by chance only makes them longer.

    ``hints``: where in ``a`` the stretches found last time began, in order. What lies
    before the next of them is compared whole first: where it agrees (the move changed
    nothing new there), one comparison takes the search there."""
    found: list[tuple[int, int, str]] = []
    size = 1
    i, j, known, h = p, p, 0, 0
    while True:
        while h < len(hints) and hints[h] < i + known:
            h += 1
        if h < len(hints):
            skip = hints[h] - i
            if skip <= end_a - i and skip <= end_b - j and b.startswith(a[i : hints[h]], j):
                i, j, known = i + skip, j + skip, 0
        if known or i >= end_a or j >= end_b or a[i] == b[j]:
            step = _run(a, i, b, j, min(end_a - i, end_b - j), known)
            i += step
            j += step
        if i >= end_a or j >= end_b:
            if i < end_a or j < end_b:
                found.append((i, end_a, b[j:end_b]))
                size += end_b - j + 16
            break
        k, at = 8, -1
        while i + k + _ANCHOR <= end_a:
            at = b.find(a[i + k : i + k + _ANCHOR], j, min(end_b, j + k + most + _ANCHOR))
            if at >= 0:
                break
            k *= 2
        if at < 0:  # no anchor: what is left differs
            same = _back(a, end_a, b, end_b, min(end_a - i, end_b - j))
            found.append((i, end_a - same, b[j : end_b - same]))
            size += end_b - same - j + 16
            break
        same = _back(a, i + k, b, at, min(k, at - j))
        found.append((i, i + k - same, b[j : at - same]))
        size += at - same - j + 16
        if size > most:
            return None
        i, j, known = i + k, at, _ANCHOR
    return found if size <= most else None


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
    # The last difference was several stretches: the next is sought as such, not first
    # as the one stretch between a beginning and an end shared with the base; ``places``:
    # where in the base they began, looked at first.
    scattered: bool = False
    places: tuple[int, ...] = ()

    def delta(self, new: str) -> str | None:
        """``new`` as a difference from this base: ``"<p>,<s>,<middle>"``, ``new`` being
        the first ``p`` characters of the base, ``middle`` and its last ``s``, or where
        that middle is long, ``"*"`` followed by each stretch that differs as
        ``"<start>,<end>,<n>:<text>"`` (the base's characters ``start`` to ``end`` become
        the ``n`` characters of ``text``). None when even that is longer than an eighth
        of ``new`` (at least 256 characters), or while recent differences were: time to
        write it whole."""
        if self.wait:
            return None
        most = max(_LEAST, len(new) // _SHARE)
        if self.scattered:  # the last difference was several stretches: look for them again
            found = _stretches(self.text, new, 0, len(self.text), len(new), most, self.places)
        else:
            head, tail = self.head, self.tail
            if (
                head is None
                or len(head) + len(tail) > len(new)
                or not new.startswith(head)
                or not new.endswith(tail)
                or len(new) - len(head) - len(tail) > most
            ):
                most_common = min(len(self.text), len(new))
                p = _run(self.text, 0, new, 0, most_common)
                s = _back(self.text, len(self.text), new, len(new), most_common - p)
                head, tail = self.text[:p], self.text[len(self.text) - s :]
                self.head, self.tail = head, tail
            if len(new) - len(head) - len(tail) <= most:
                self.misses = 0
                return f"{len(head)},{len(tail)},{new[len(head) : len(new) - len(tail)]}"
            found = None
            # Places are sought in a long snapshot whose one stretch is well past its bound:
            # one just past it is most often a game that grew at its end since its base,
            # better written whole again than searched at every move.
            if len(new) >= _SCATTERED and len(new) - len(head) - len(tail) > most * 3 // 2:
                found = _stretches(
                    self.text,
                    new,
                    len(head),
                    len(self.text) - len(tail),
                    len(new) - len(tail),
                    most,
                )
        if found is None:
            self.misses += 1
            self.scattered = False
            return None
        self.misses = 0
        self.scattered = len(found) > 1
        self.places = tuple(start for start, _, _ in found) if self.scattered else ()
        if not self.scattered:
            self.head, self.tail = None, ""
            start, end, text = found[0] if found else (0, 0, "")
            return f"{start},{len(self.text) - end},{text}"
        return "*" + "".join(f"{start},{end},{len(text)}:{text}" for start, end, text in found)


def patch(base: str, difference: str) -> str:
    """The snapshot that ``difference`` (from ``delta``) makes of ``base``."""
    if not difference.startswith("*"):
        p, s, middle = difference.split(",", 2)
        return base[: int(p)] + middle + base[len(base) - int(s) :]
    parts: list[str] = []
    done, at = 0, 1
    while at < len(difference):
        first = difference.index(",", at)
        second = difference.index(",", first + 1)
        colon = difference.index(":", second + 1)
        start, end = int(difference[at:first]), int(difference[first + 1 : second])
        at = colon + 1 + int(difference[second + 1 : colon])
        parts += (base[done:start], difference[colon + 1 : at])
        done = end
    parts.append(base[done:])
    return "".join(parts)


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
            base.misses, base.scattered = old.misses, old.scattered
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
