"""Golden logs: a game's moves, events and result as lines, recorded once and replayed to
check that a change of the rules' code changes nothing a table would see."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tablestate.engine.bots import NORMAL, choose
from tablestate.engine.contract import contract_of
from tablestate.engine.game import Event
from tablestate.engine.rng import Rng

if TYPE_CHECKING:
    pass

from tablestate.testing.driver import GameDriver

T = TypeVar("T")


def _golden_line(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _golden_event(event: Event) -> str:
    private = {str(k): v for k, v in sorted(event.private.items())}
    return _golden_line(
        {"event": event.type, "seat": event.seat, "data": event.data, "private": private}
    )


def _golden_result(driver: GameDriver) -> str:
    result = driver.result()
    assert result is not None, "the game has not ended"
    scores = {str(k): v for k, v in sorted(dict(result.scores).items())}
    return _golden_line({"result": {"winners": list(result.winners), "scores": scores}})


def golden_record(
    driver: GameDriver, case: Any, bot_rng: Rng, max_moves: int = 20_000
) -> list[str]:
    """The log of a game that the game's own bot plays to the end: the case, every event,
    every move (``{"by": seat, "move": ...}``) and the result, one JSON object a line.
    ``case`` is what rebuilds the driver (seats, options, rules, seed). The game's contract
    with the API (``tablestate.engine.contract``) is checked at every step."""
    contract = contract_of(driver.game)
    contract.check_events(driver.events)
    lines = [_golden_line({"case": case}), *map(_golden_event, driver.events)]
    for _ in range(max_moves):
        contract.check_state(driver.state, driver.seats, driver.rules)
        if driver.result() is not None:
            break
        seat = driver.to_act()[0]
        move = choose(driver.game, driver.state, seat, NORMAL, bot_rng, driver.rules)
        lines.append(_golden_line({"by": seat, "move": move}))
        events = driver.move(seat, move)
        contract.check_events(events)
        lines += map(_golden_event, events)
    lines.append(_golden_result(driver))
    return lines


def golden_replay(lines: Sequence[str], make_driver: Callable[[Any], GameDriver]) -> list[str]:
    """Replay a golden log's moves on ``make_driver(case)``; the log that results, which
    equals ``lines`` when the rules still produce the same events and result."""
    case = json.loads(lines[0])["case"]
    driver = make_driver(case)
    out = [lines[0], *map(_golden_event, driver.events)]
    for line in lines[1:]:
        item = json.loads(line)
        if "move" in item:
            out.append(line)
            out += map(_golden_event, driver.move(item["by"], item["move"]))
    out.append(_golden_result(driver))
    return out


def check_golden(
    path: Path, case: Any, make_driver: Callable[[Any], GameDriver], bot_rng: Rng
) -> None:
    """A golden log stays true: the bot still plays the game ``path`` holds, and its moves
    replay to the same events and result. ``TABLESTATE_UPDATE_GOLDEN=1`` rewrites the file
    after a deliberate change of the rules."""
    lines = golden_record(make_driver(case), case, bot_rng)
    if os.environ.get("TABLESTATE_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text("\n".join(lines) + "\n")
    kept = path.read_text().splitlines()
    assert golden_replay(kept, make_driver) == kept, "the moves no longer replay the same"
    assert lines == kept, "the bot no longer plays the same game"


# -- the invariants every game keeps (docs/architecture.md), for any game --------------------
