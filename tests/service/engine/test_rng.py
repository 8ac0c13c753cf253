"""The seeded generator: deterministic, specified, and fair enough to trust."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from tablestate.engine.rng import Rng


def _below(seed: bytes, step: int, n: int) -> int:
    """The spec of ``_below`` from the module docstring, written out independently."""
    block, buf = 0, b""
    limit = 2**64 - (2**64 % n)
    while True:
        if len(buf) < 8:
            buf += hashlib.sha256(
                seed + step.to_bytes(8, "big") + block.to_bytes(8, "big")
            ).digest()
            block += 1
        x, buf = int.from_bytes(buf[:8], "big"), buf[8:]
        if x < limit:
            return x % n


def test_randint_follows_the_published_algorithm():
    rng = Rng(b"seed")
    got = [rng.randint(1, 6) for _ in range(50)]
    assert got == [1 + _below(b"seed", k, 6) for k in range(50)]
    assert rng.counter == 50


def test_same_seed_same_draws_and_counter_resumes():
    a, b = Rng(b"x"), Rng(b"x")
    assert a.shuffle(range(20)) == b.shuffle(range(20))
    a.roll(5)
    resumed = Rng(b"x", a.counter)
    assert a.randint(0, 1000) == resumed.randint(0, 1000)
    assert Rng(b"x").shuffle(range(20)) != Rng(b"y").shuffle(range(20))


def test_shuffle_is_a_permutation_and_roughly_uniform():
    counts: Counter[tuple[int, ...]] = Counter()
    rng = Rng(b"uniform")
    for _ in range(6000):
        counts[rng.shuffle((1, 2, 3))] += 1
    assert len(counts) == 6
    assert all(800 < c < 1200 for c in counts.values())


@pytest.mark.parametrize(("call", "error"), [("randint", ValueError), ("choice", ValueError)])
def test_bad_arguments(call, error):
    rng = Rng(b"z")
    with pytest.raises(error):
        rng.randint(3, 1) if call == "randint" else rng.choice([])


def test_roll_values():
    dice = Rng(b"d").roll(100, sides=6)
    assert len(dice) == 100 and set(dice) <= set(range(1, 7)) and len(set(dice)) == 6
