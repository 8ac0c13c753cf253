"""Tablestate: a GraphQL game-state service for tabletop games.

Plugin authors import ``hookimpl`` (and ``hookspec`` for a game's own hooks) from here,
and the game-definition types from ``service.engine``.
"""

from __future__ import annotations

import pluggy

PROJECT = "tablestate"

hookimpl = pluggy.HookimplMarker(PROJECT)
hookspec = pluggy.HookspecMarker(PROJECT)

__all__ = ["PROJECT", "hookimpl", "hookspec"]
