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


def test_several_stretches_are_sought_only_in_a_long_snapshot() -> None:
    base = "a" * 3000
    new = "b" + base[1:1500] + "b" + base[1501:2999] + "b"
    assert delta(base, new) is None  # one stretch, too long; too short to look further
    assert delta(base * 2, new * 2) is not None


def test_a_game_growing_at_its_end_is_written_again_whole_not_searched() -> None:
    """Its one stretch (what grew, then the fields after the game's state, then the time)
    passes its bound little by little: a rebase, not a search for places at every move."""
    bases = Bases()
    head = '{"seats":[' + ",".join(f'{{"index":{i},"name":"p{i}"}}' for i in range(40)) + "],"
    forms = []
    for n in range(100, 1500):
        text = (
            f'{head}"game":{{"list":[{",".join("7" * n)}]}},"result":null,"undo":null,'
            f'"private":false,"rematch":null,"chance":0,"updated_at":"12:{n % 60:02d}"}}'
        )
        base = bases.get("t")
        difference = None if base is None else base.delta(text)
        if difference is None:
            bases.put("t", n, text)
            forms.append("whole")
        else:
            forms.append("places" if difference.startswith("*") else "stretch")
    assert len(text) > 3072 and "places" not in forms
    assert forms.count("whole") < len(forms) / 20


def test_a_change_spread_over_the_text_is_written_whole() -> None:
    base = "a" * 4000
    new = "".join("b" if i % 10 == 0 else "a" for i in range(4000))  # 400 stretches
    assert delta(base, new) is None


def snapshot(turn: int, hand: list[str], board: list[int]) -> str:
    """A card game's snapshot, as long as Table.encode writes one: what changes at a move
    lies in several short places (a hand, the board, the turn, the time)."""
    config = ",".join(f'"rule-{i}":[{i},{i * 7 % 5}]' for i in range(160))
    return (
        f'{{"config":{{{config}}},"turn":{turn},"hand":{hand},"board":{board},'
        f'"log":"{"x" * 900}","updated_at":"2026-12-06T10:00:{turn:02d}.000Z"}}'
    ).replace("'", '"')


def test_a_change_in_a_few_short_places_is_written_as_those_places() -> None:
    base = snapshot(1, ["5H", "KS", "2C"], [0] * 25)
    new = snapshot(2, ["5H", "2C", "JD"], [0] * 12 + [3] + [0] * 12)
    assert len(new) > 3072  # several stretches are sought in a snapshot this long
    difference = delta(base, new)
    assert difference is not None and difference.startswith("*"), difference
    assert patch(base, difference) == new
    assert len(difference) < 120  # one stretch, from the hand to the time, would be 900 more


def test_a_base_keeps_writing_a_game_that_changes_in_a_few_places() -> None:
    """Move after move from one base, each difference patches exactly and stays short,
    as stretches found again each time (the base remembers the last was several)."""
    bases = Bases()
    hand, board = ["5H", "KS", "2C", "9D"], [0] * 25
    text = snapshot(0, hand, board)
    bases.put("t", 1, text)
    written = []
    for turn in range(1, 40):
        hand = [*hand[1:], f"{turn % 13}C"]
        board[(turn * 7) % 25] = turn % 6
        text = snapshot(turn % 60, hand, board)
        base = bases.get("t")
        assert base is not None
        difference = base.delta(text)
        if difference is None:
            bases.put("t", turn + 1, text)
            written.append(len(text))
        else:
            assert patch(base.text, difference) == text
            written.append(len(difference))
    assert sum(written) / len(written) < len(text) / 6, written


@given(
    st.text(min_size=3100, max_size=4500),
    st.lists(
        st.tuples(st.floats(0, 1), st.integers(0, 12), st.text(max_size=12)),
        min_size=1,
        max_size=6,
    ),
)
def test_changes_in_several_places_patch_exactly(
    base: str, changes: list[tuple[float, int, str]]
) -> None:
    new = base
    for at, removed, inserted in changes:
        cut = int(len(new) * at)
        new = new[:cut] + inserted + new[cut + removed :]
    kept = Base(1, base)
    for text in (new, new[::-1], new + "x", base):  # and on from the same base
        difference = kept.delta(text)
        if difference is not None:
            assert patch(base, difference) == text


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
