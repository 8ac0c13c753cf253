"""Seeds: committed at creation, mixed with client seeds, verifiable once revealed."""

from __future__ import annotations

import hashlib

from tablestate.engine import fairness


def test_commitment_and_verify():
    seed = fairness.server_seed(b"secret", "table1", "nonce")
    c = fairness.commitment(seed)
    assert c == hashlib.sha256(seed).hexdigest()
    assert fairness.verify(seed.hex(), c)
    assert not fairness.verify("00" * 32, c)
    assert not fairness.verify("not hex", c)


def test_seed_depends_on_secret_table_and_nonce():
    base = fairness.server_seed(b"s", "t", "n")
    assert base != fairness.server_seed(b"s2", "t", "n")
    assert base != fairness.server_seed(b"s", "t2", "n")
    assert base != fairness.server_seed(b"s", "t", "n2")


def test_client_seeds_change_the_game_seed_unambiguously():
    seed = b"x" * 32
    assert fairness.game_seed(seed, []) == hashlib.sha256(seed).digest()
    assert fairness.game_seed(seed, ["a"]) != fairness.game_seed(seed, ["b"])
    assert fairness.game_seed(seed, ["ab", ""]) != fairness.game_seed(seed, ["a", "b"])
