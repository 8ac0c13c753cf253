"""Benchmark of the Five Crowns meld solver (issue 3): a whole round-11 turn, that is
``min_leftover`` of 13 cards plus ``can_go_out`` for all 14 discards, K wild.

    python bench/five_crowns_meld.py [hands] [--cpu] [--exact N]

Prints the median, p99 and max over random hands, with the memo kept across hands (as
in play) and cleared before each hand (cold), for each rule set; then the slowest of a
set of hard, constructed hands; with ``--exact N``, a check of N random hands against the
brute-force reference of the tests (``tests/plugins/five_crowns/reference.py``).

Times are wall-clock (``perf_counter``). On a shared, busy machine, other processes
preempt this one and inflate the tail; ``--cpu`` measures this process's CPU time
instead (``process_time``, nanosecond resolution on Linux), which they do not touch.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]  # before tests/, whose folders must not shadow the packages
sys.path.append(str(ROOT / "tests" / "plugins" / "five_crowns"))

from reference import random_hand, ref_min_leftover, suited_hand  # noqa: E402

from tablestate_five_crowns import _solver, rules  # noqa: E402
from tablestate_five_crowns.rules import MeldLimits  # noqa: E402

LIMITS = {
    "publisher": MeldLimits(),
    "natural-required": MeldLimits(1, None),
    "wilds-not-exceed": MeldLimits(1, 1),
}
HARD = [
    ["5T", "8C", "8H", "3T", "JS", "JK", "3D", "JK", "6S", "JK", "10C", "4T", "9H", "KS"],
    ["10S", "9S", "5S", "9S", "JS", "KS", "10S", "8S", "6S", "JK", "QS", "JK", "3S", "6S"],
    ["4C", "4C", "4D", "4D", "4H", "4H", "4S", "4S", "4T", "4T", "5D", "7H", "9S", "JK"],
    ["JK"] * 6 + ["KS", "KH", "3H", "5D", "7C", "9S", "JT", "QH"],
    ["3S", "3S", "4S", "4S", "5S", "5S", "6S", "6S", "7S", "7S", "8S", "8S", "JK", "JK"],
    ["3S", "4H", "5C", "6D", "7T", "8S", "9H", "10C", "JD", "QT", "JK", "JK", "KS", "KH"],
    # the slowest found by a hill-climbing search over one- and two-suit hands
    ["10C", "JC", "5C", "4C", "8C", "JK", "7C", "QS", "JK", "JK", "6C", "9C", "5C", "4C"],
    ["JK", "3T", "8T", "9T", "JK", "7T", "JT", "6T", "4C", "JT", "5T", "3T", "QT", "JK"],
]


def turn(hand: list[str], limits: MeldLimits) -> None:
    rules.min_leftover(
        hand[:13],
        "K",
        min_naturals=limits.min_naturals,
        max_wilds_per_natural=limits.max_wilds_per_natural,
    )
    for d in hand:
        rules.can_go_out(
            hand,
            "K",
            d,
            min_naturals=limits.min_naturals,
            max_wilds_per_natural=limits.max_wilds_per_natural,
        )


def clear() -> None:
    for sv in _solver._SOLVERS.values():
        sv.memo.clear()
        sv.can_memo.clear()


CLOCK = time.process_time if "--cpu" in sys.argv else time.perf_counter


def measure(limits: MeldLimits, hands: list[list[str]], cold: bool) -> tuple[float, ...]:
    times = []
    for hand in hands:
        if cold:
            clear()
        start = CLOCK()
        turn(hand, limits)
        times.append(CLOCK() - start)
    times.sort()
    p99 = times[int(len(times) * 0.99)]
    return statistics.median(times) * 1e3, p99 * 1e3, times[-1] * 1e3


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 5000
    rng = random.Random(7)
    hands = [random_hand(rng, 14, "K") for _ in range(n)]
    for hand in hands[:200]:  # warm the option tables (built once per process)
        turn(hand, MeldLimits())
    clock = "CPU time" if "--cpu" in sys.argv else "wall-clock"
    print(f"{n} random round-11 hands (14 cards, K wild); {clock} ms per turn: median / p99 / max")
    for name, limits in LIMITS.items():
        warm = measure(limits, hands, cold=False)
        cold = measure(limits, hands, cold=True)
        print(
            f"  {name:18} warm {warm[0]:.3f} / {warm[1]:.3f} / {warm[2]:.2f}"
            f"   cold {cold[0]:.3f} / {cold[1]:.3f} / {cold[2]:.2f}"
        )
    print("hard hands, memo cold, slowest of 5 runs (ms):")
    for hand in HARD:
        worst = 0.0
        for limits in LIMITS.values():
            for _ in range(5):
                clear()
                start = CLOCK()
                turn(hand, limits)
                worst = max(worst, CLOCK() - start)
        print(f"  {worst * 1e3:6.2f}  {' '.join(hand)}")
    if "--exact" in sys.argv:
        count = int(sys.argv[sys.argv.index("--exact") + 1])
        bad = 0
        for i in range(count):
            wild = rng.choice(rules.RANKS)
            size = rng.randint(3, 10)
            hand = (
                random_hand(rng, size, wild, 0.3 if i % 2 else 0.0)
                if i % 3
                else suited_hand(rng, size, wild, 1 + i % 2)
            )
            for limits in LIMITS.values():
                got = rules.min_leftover(
                    hand,
                    wild,
                    min_naturals=limits.min_naturals,
                    max_wilds_per_natural=limits.max_wilds_per_natural,
                )
                bad += got != ref_min_leftover(
                    hand, wild, limits.min_naturals, limits.max_wilds_per_natural
                )
        print(f"exactness: {count} hands x {len(LIMITS)} rule sets, {bad} mismatches")


if __name__ == "__main__":
    main()
