"""The rules in force at one table: a game and the house rules enabled there."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from service.engine.game import GameDef


class HookNamespace:
    """Hook callers by name, each calling only the plugins a rule set allows.

    ``rules.hook.five_crowns_meld_allowed(meld=..., wild=...)`` calls that hook on the
    game's plugins and on the house rules enabled at the table, and on no other rule.
    """

    __slots__ = ("_cache", "_factory")

    def __init__(self, factory: Callable[[str], Callable[..., Any]]) -> None:
        self._factory = factory
        self._cache: dict[str, Callable[..., Any]] = {}

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        caller = self._cache.get(name)
        if caller is None:
            caller = self._cache[name] = self._factory(name)
        return caller


def _no_hooks(name: str) -> Callable[..., list[Any]]:
    def call(**kwargs: Any) -> list[Any]:
        return []

    return call


@dataclass(frozen=True, eq=False)
class RuleSet:
    """A game with its enabled house rules.

    Args:
        game: the game definition.
        enabled: ids of the house rules on at the table.
        hook: the game's hooks, called on the enabled rules only (results in pluggy's
            order: last registered first; sort where order matters).
    """

    game: GameDef[Any]
    enabled: frozenset[str] = frozenset()
    hook: Any = field(default_factory=lambda: HookNamespace(_no_hooks))

    def is_on(self, rule_id: str) -> bool:
        """Whether a house rule is enabled here."""
        return rule_id in self.enabled
