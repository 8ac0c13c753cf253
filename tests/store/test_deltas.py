"""A snapshot as its difference from a base: exact whatever the two texts, written only
while the difference stays small, and a bounded memory of bases."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from tablestate.store._deltas import Base, Bases, patch


def delta(base: str, new: str) -> str | None:
    return Base(1, base).delta(new)


@given(st.text(max_size=3000), st.text(max_size=3000))
def test_a_difference_patches_its_base_into_the_new_text(base: str, new: str) -> None:
    difference = delta(base, new)
    if difference is not None:
        assert patch(base, difference) == new


@given(st.text(max_size=2000), st.text(max_size=250), st.integers(0, 250), st.floats(0, 1))
def test_a_change_in_one_stretch_is_written_as_that_stretch(
    base: str, inserted: str, removed: int, at: float
) -> None:
    cut = int(len(base) * at)
    new = base[:cut] + inserted + base[cut + removed :]
    difference = delta(base, new)
    assert difference is not None  # at most 250 characters: under 256
    assert patch(base, difference) == new
    assert len(difference.split(",", 2)[2]) <= len(inserted)


def test_a_game_growing_at_its_end_writes_a_few_characters() -> None:
    head = '{"id":"t1","seats":[{"index":0,"name":"Zoë"}],"game":{"list":['
    base = head + ",".join("7" * 400) + ']},"updated_at":"2026-12-06T10:00:00.000Z"}'
    new = head + ",".join("7" * 401) + ']},"updated_at":"2026-12-06T10:00:01.500Z"}'
    difference = delta(base, new)
    assert difference is not None and len(difference) < 60, difference
    assert patch(base, difference) == new


def test_a_change_spread_over_the_text_is_written_whole() -> None:
    base = "a" * 4000
    new = "b" + "a" * 3998 + "b"
    assert delta(base, new) is None


def test_bases_keep_the_newest_used_within_their_size() -> None:
    bases = Bases(chars=10)
    bases.put("t1", 1, "aaaa")
    bases.put("t2", 1, "bbbb")
    assert bases.get("t1") == Base(1, "aaaa")  # now the newest used
    bases.put("t3", 2, "cccc")  # past 10 characters: t2 goes
    assert bases.get("t2") is None
    assert bases.get("t1") == Base(1, "aaaa") and bases.get("t3") == Base(2, "cccc")
    bases.put("t1", 5, "dd")  # replaced, not added
    assert bases.get("t1") == Base(5, "dd")
    bases.put("big", 1, "x" * 11)  # larger than all of it: not kept
    assert bases.get("big") is None and bases.get("t3") == Base(2, "cccc")
    bases.drop("t3")
    assert bases.get("t3") is None


@given(st.lists(st.text(max_size=300), min_size=1, max_size=8), st.text(max_size=1500))
def test_one_base_writes_each_snapshot_after_it_exactly(tails: list[str], base: str) -> None:
    """The beginning and end found for one snapshot are only checked for the next: any
    sequence of snapshots still patches exactly."""
    kept = Base(1, base)
    for i, tail in enumerate(tails):
        new = base[: len(base) // (i + 1)] + tail
        difference = kept.delta(new)
        if difference is not None:
            assert patch(base, difference) == new


def test_a_game_growing_move_after_move_is_compared_not_searched() -> None:
    head = '{"game":{"list":['
    base = Base(1, head + ",".join("7" * 600) + '],"at":0}')
    assert base.delta(head + ",".join("7" * 601) + '],"at":1}') is not None
    found = (base.head, base.tail)
    for n in range(602, 640):
        difference = base.delta(head + ",".join("7" * n) + f'],"at":{n}}}')
        assert difference is not None
        assert patch(base.text, difference) == head + ",".join("7" * n) + f'],"at":{n}}}'
        assert base.head is found[0] and base.tail is found[1]  # nothing searched again


def test_a_game_changing_all_over_is_looked_at_less_and_less_often() -> None:
    """Differences found too long twice in a row: the next 3 snapshots are written whole
    without looking, then 7, ... up to 63; one difference found short again resets it."""
    bases = Bases()
    looked: list[int] = []
    for v in range(1, 200):
        base = bases.get("t")
        text = str(v % 10) * 2000  # every character changes at every move
        if base is not None:
            searched = base.wait == 0
            assert base.delta(text) is None
            if searched:
                looked.append(v)
        bases.put("t", v, text)  # written whole: the new base
    gaps = [b - a for a, b in itertools.pairwise(looked)]
    assert gaps[:7] == [1, 4, 8, 16, 32, 64, 64]
    base = bases.get("t")
    assert base is not None and base.misses > 2
    while base.wait:  # wait out the pause, then a snapshot that differs a little
        bases.put("t", base.version + 1, base.text)
        base = bases.get("t")
        assert base is not None
    assert base.delta(base.text + "x") is not None and base.misses == 0
    bases.put("t", base.version + 1, base.text)
    after = bases.get("t")
    assert after is not None and after.wait == 0
