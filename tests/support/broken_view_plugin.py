"""A plugin (``TABLESTATE_PLUGINS=support.broken_view_plugin``) whose game's view holds a
key its state type lacks: start-up must refuse it."""

from __future__ import annotations

from typing import Any

from support.tiny_games import BROKEN_COUNT_UP
from tablestate import GameDef, hookimpl


@hookimpl
def tablestate_games() -> list[GameDef[Any]]:
    return [BROKEN_COUNT_UP["view-key-not-in-state-type"]]
