"""The security tests' report: what an ordinary client saw while each attack ran, and the
fuzzer's figures, printed at the end of the run (``kit.LATENCIES``, ``kit.REPORT``)."""

from __future__ import annotations

from typing import Any

from .kit import LATENCIES, REPORT


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not LATENCIES and not REPORT:
        return
    tr = terminalreporter
    tr.section("security: an ordinary client under attack")
    if LATENCIES:
        tr.write_line(f"{'attack':40} {'requests':>8} {'median':>9} {'p95':>9} {'worst':>9}")
        for attack, n, median, p95, worst in LATENCIES:
            tr.write_line(
                f"{attack:40} {n:>8} {median * 1000:>7.1f}ms {p95 * 1000:>7.1f}ms {worst * 1000:>7.1f}ms"
            )
    for line in REPORT:
        tr.write_line(line)
