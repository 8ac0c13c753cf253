"""Ratings: places from a game's result, and the Weng-Lin update through openskill."""

from __future__ import annotations

import pytest

from tablestate.archive.ratings import DEFAULT, ordinal, ranks, rate


@pytest.mark.parametrize(
    ("result", "seats", "places"),
    [
        # higher is better: the winner scored most
        ({"winners": [1], "scores": [10, 30, 20]}, [0, 1, 2], [3, 1, 2]),
        # lower is better (Five Crowns): the winner scored least
        ({"winners": [2], "scores": [40, 55, 12]}, [0, 1, 2], [2, 3, 1]),
        # equal scores tie, shared wins tie
        ({"winners": [0, 1], "scores": [9, 9, 3, 3]}, [0, 1, 2, 3], [1, 1, 2, 2]),
        # scores that point no way: everyone behind the winners, tied
        ({"winners": [1], "scores": [5, 3, 1]}, [0, 1, 2], [2, 1, 2]),
        # no winner at all: one shared place
        ({"winners": [], "scores": [0, 0]}, [0, 1], [1, 1]),
        # only the seats asked about (an empty seat between them)
        ({"winners": [2], "scores": [4, 0, 8]}, [0, 2], [2, 1]),
    ],
)
def test_places_follow_the_winners_and_the_scores(result, seats, places):
    assert ranks(result, seats) == places


def test_the_winner_gains_and_the_loser_loses():
    (w_mu, w_sigma), (l_mu, l_sigma) = rate([None, None], [1, 2])
    assert w_mu > DEFAULT[0] > l_mu
    assert w_sigma < DEFAULT[1] and l_sigma < DEFAULT[1]
    assert ordinal(w_mu, w_sigma) > ordinal(l_mu, l_sigma)


def test_a_tie_between_equals_moves_no_skill():
    (a_mu, _), (b_mu, _) = rate([None, None], [1, 1])
    assert a_mu == pytest.approx(DEFAULT[0]) and b_mu == pytest.approx(DEFAULT[0])


def test_an_upset_moves_more_than_the_expected_result():
    strong, weak = (35.0, 3.0), (15.0, 3.0)
    expected = rate([strong, weak], [1, 2])
    upset = rate([strong, weak], [2, 1])
    assert upset[1][0] - weak[0] > expected[0][0] - strong[0] > 0


def test_one_rank_per_player():
    with pytest.raises(ValueError):
        rate([None, None], [1])
