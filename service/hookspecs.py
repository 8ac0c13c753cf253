"""The plugin contract of Tablestate. These docstrings are the plugin author's reference.

A plugin is any module or object with functions marked ``@hookimpl`` (``from tablestate
import hookimpl``). Register it through the entry-point group ``tablestate`` of your
distribution, or name its module in ``TABLESTATE_PLUGINS``. Hooks are pure: they take
values and return values, and get no store, no request and no clock.

A game also declares its own hookspecs (``plugins/<game>/hookspecs.py``, passed as
``GameDef.hookspecs``) for the points where its house rules may change play; the core
adds them to the plugin manager at start-up.
"""

# Hookspecs only: pluggy reads their signatures and never runs their (empty) bodies.
# mypy: disable-error-code="empty-body"

from __future__ import annotations

from typing import Any

from tablestate import hookspec
from tablestate.engine.game import GameDef, HouseRuleDef


@hookspec
def tablestate_games() -> list[GameDef[Any]]:
    """Contribute games.

    Returns:
        The ``GameDef`` of each game this plugin provides. A game id may be claimed by
        one plugin only: two claims stop start-up with both plugins named. Called once at
        start-up; the definitions must not change afterwards.
    """


@hookspec
def tablestate_house_rules() -> list[HouseRuleDef]:
    """Contribute a house rule.

    Returns:
        A list holding the ``HouseRuleDef`` of the one rule this plugin is. The rule is
        off at every table until a host enables it there; while it is off, none of this
        plugin's game hooks are called for that table. Its ``game_id`` must name an
        installed game and its id must start with ``"<game id>/"``.
    """
