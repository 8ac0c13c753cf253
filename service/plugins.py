"""The plugin manager: finds games and house rules at start-up and builds rule sets.

Plugins come from the entry-point group ``tablestate`` (the bundled games too), then from
the module paths in ``TABLESTATE_PLUGINS``; ``TABLESTATE_DISABLE`` blocks plugins by name.
A bad plugin stops start-up with a ``PluginError`` that names it.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, cast

import pluggy

from tablestate import PROJECT, hookspecs, webviews
from tablestate.engine.contract import ContractError, check_game
from tablestate.engine.game import GameDef, HouseRuleDef
from tablestate.engine.options import CORE_OPTIONS, OptionError, check_schema
from tablestate.engine.ruleset import HookNamespace, RuleSet

GAME_ID: Final = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
BUNDLED_DISTRIBUTION: Final = "tablestate"


class PluginError(Exception):
    """A plugin that cannot be loaded; the message names it."""


def camel(game_id: str) -> str:
    """``five-crowns`` -> ``fiveCrowns`` (the game's ``MoveInput`` field)."""
    head, *rest = game_id.split("-")
    return head + "".join(part.capitalize() for part in rest)


def pascal(game_id: str) -> str:
    """``five-crowns`` -> ``FiveCrowns`` (the prefix of the game's GraphQL types)."""
    return "".join(part.capitalize() for part in game_id.split("-"))


@dataclass
class PluginInfo:
    """One loaded plugin, as ``tablestate plugins`` and the ``plugins`` query show it."""

    name: str
    source: str  # "entry point <dist>", "TABLESTATE_PLUGINS" or "registered"
    hooks: tuple[str, ...]
    games: tuple[str, ...] = ()
    house_rules: tuple[str, ...] = ()
    bundled: bool = False


@dataclass
class Registry:
    """Every installed game and house rule, and the rule sets built from them."""

    pm: pluggy.PluginManager
    games: dict[str, GameDef[Any]] = field(default_factory=dict)
    house_rules: dict[str, HouseRuleDef] = field(default_factory=dict)
    plugins: list[PluginInfo] = field(default_factory=list)
    _rule_plugin: dict[str, object] = field(default_factory=dict)
    _rulesets: dict[tuple[str, frozenset[str]], RuleSet] = field(default_factory=dict)
    _fields: dict[str, str] = field(default_factory=dict)  # MoveInput field -> game id

    def game_of_field(self, name: str | None) -> str | None:
        """The id of the game whose ``MoveInput`` field is ``name`` (None: no such game)."""
        if len(self._fields) != len(self.games):
            self._fields = {camel(g.id): g.id for g in self.games.values()}
        return self._fields.get(name) if name is not None else None

    def rules_of(self, game_id: str) -> list[HouseRuleDef]:
        """The house rules of one game, sorted by id."""
        return sorted(
            (r for r in self.house_rules.values() if r.game_id == game_id), key=lambda r: r.id
        )

    def conflicts(self, rule_id: str) -> tuple[str, ...]:
        """The installed rules that conflict with ``rule_id``, declared on either side."""
        rule = self.house_rules[rule_id]
        out = {c for c in rule.conflicts_with if c in self.house_rules}
        out |= {r.id for r in self.house_rules.values() if rule_id in r.conflicts_with}
        out.discard(rule_id)
        return tuple(sorted(out))

    def ruleset(self, game_id: str, enabled: Iterable[str] = ()) -> RuleSet:
        """The rule set of a game with these house rules on, cached per set."""
        key = (game_id, frozenset(enabled))
        found = self._rulesets.get(key)
        if found is None:
            off = [p for rid, p in self._rule_plugin.items() if rid not in key[1]]
            pm = self.pm

            def factory(name: str) -> Any:
                return pm.subset_hook_caller(name, remove_plugins=off)

            found = RuleSet(key[1], HookNamespace(factory))
            self._rulesets[key] = found
        return found


def _hooks_of(pm: pluggy.PluginManager, plugin: object) -> tuple[str, ...]:
    return tuple(sorted(h.name for h in pm.get_hookcallers(plugin) or ()))


def _load_module(path: str) -> object:
    try:
        return importlib.import_module(path)
    except Exception as exc:  # any import failure must name the plugin, whatever it was
        raise PluginError(
            f"plugin module {path!r} (TABLESTATE_PLUGINS) failed to import: {exc}"
        ) from exc


def _register(pm: pluggy.PluginManager, plugin: object, name: str) -> None:
    try:
        pm.register(plugin, name=name)
    except ValueError as exc:
        raise PluginError(f"plugin {name!r} cannot be registered: {exc}") from exc
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"plugin {name!r} is invalid: {exc}") from exc


def _check_game(game: object, plugin: str) -> GameDef[Any]:
    if not isinstance(game, GameDef):
        raise PluginError(f"plugin {plugin!r}: tablestate_games returned {game!r}, not a GameDef")
    where = f"plugin {plugin!r}, game {game.id!r}"
    if not GAME_ID.match(game.id):
        raise PluginError(f"{where}: a game id is lower-case words joined by '-'")
    if not 1 <= game.min_players <= game.max_players:
        raise PluginError(f"{where}: needs 1 <= min_players <= max_players")
    opts = game.options
    if opts.get("type") != "object" or not isinstance(opts.get("properties", {}), Mapping):
        raise PluginError(f"{where}: options must be a JSON Schema of type object")
    try:
        check_schema(opts)
    except OptionError as exc:
        raise PluginError(f"{where}: options: {exc}") from None
    for key, prop in opts.get("properties", {}).items():
        if "default" not in prop:
            raise PluginError(f"{where}: option {key!r} has no default")
        if key in CORE_OPTIONS:
            raise PluginError(f"{where}: option {key!r} is a core table option; rename it")
    if game.web_view is not None:
        try:
            webviews.locate(game.web_view)
        except ValueError as exc:
            raise PluginError(f"{where}: web_view {exc}") from None
    for kind in game.event_texts:
        if kind not in game.event_types:
            raise PluginError(f"{where}: event_texts names {kind!r}, not in event_types")
    return game


def _check_rule(rule: object, plugin: str, games: Mapping[str, GameDef[Any]]) -> HouseRuleDef:
    if not isinstance(rule, HouseRuleDef):
        raise PluginError(
            f"plugin {plugin!r}: tablestate_house_rules returned {rule!r}, not a HouseRuleDef"
        )
    where = f"plugin {plugin!r}, house rule {rule.id!r}"
    if rule.game_id not in games:
        raise PluginError(f"{where}: no installed game {rule.game_id!r}")
    prefix, _, name = rule.id.partition("/")
    if prefix != rule.game_id or not GAME_ID.match(name):
        raise PluginError(f"{where}: a house rule id is '<game id>/<rule>'")
    return rule


def entry_points() -> list[importlib.metadata.EntryPoint]:
    """The entry points of the ``tablestate`` group, in a stable order."""
    eps = importlib.metadata.entry_points(group=PROJECT)
    return sorted(eps, key=lambda ep: ep.name)


def load(
    modules: Sequence[str] = (),
    disable: Sequence[str] = (),
    *,
    use_entry_points: bool = True,
    bundled_only: bool = False,
    objects: Sequence[tuple[str, object]] = (),
    trace: bool = False,
) -> Registry:
    """Find and check every plugin; build the registry.

    Args:
        modules: extra plugin modules by import path (``TABLESTATE_PLUGINS``).
        disable: plugin names to leave out (``TABLESTATE_DISABLE``).
        use_entry_points: load the ``tablestate`` entry-point group.
        bundled_only: of the entry points, only those of this distribution.
        objects: plugins already imported, as ``(name, plugin)`` (tests, embedding).
        trace: write every hook call to stderr (``TABLESTATE_TRACE_PLUGINS``).

    Every game's contract with the API is checked (``engine/contract.py``: its types, and
    a short self-play in which every view must fit its state type, every legal move its
    move input, every event its declared types), once per ``GameDef`` object.

    Raises:
        PluginError: a plugin failed to import, is invalid, claims a taken name, or gives
            a game that breaks its contract.
    """
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)
    if trace:
        pm.trace.root.setwriter(sys.stderr.write)
        pm.enable_tracing()
    for name in disable:
        pm.set_blocked(name)
    infos: dict[str, PluginInfo] = {}

    def add(plugin: object, name: str, source: str, bundled: bool = False) -> None:
        if pm.is_blocked(name):
            return
        _register(pm, plugin, name)
        infos[name] = PluginInfo(name, source, (), bundled=bundled)

    if use_entry_points:
        for ep in entry_points():
            dist = ep.dist.name if ep.dist is not None else "?"
            bundled = dist == BUNDLED_DISTRIBUTION
            if (bundled_only and not bundled) or pm.is_blocked(ep.name):
                continue
            try:
                plugin = ep.load()
            except Exception as exc:  # any import failure must name the plugin
                raise PluginError(
                    f"plugin {ep.name!r} (entry point of {dist}) failed to load: {exc}"
                ) from exc
            add(plugin, ep.name, f"entry point of {dist}", bundled)
    for path in modules:
        add(_load_module(path), path, "TABLESTATE_PLUGINS")
    for name, plugin in objects:
        add(plugin, name, "registered")

    reg = Registry(pm)
    claimed: dict[str, str] = {}
    for impl in pm.hook.tablestate_games.get_hookimpls():
        # pluggy types a hook's answer as object: the spec's list, each item checked here.
        for found in cast("Iterable[object]", impl.function() or ()):
            game = _check_game(found, impl.plugin_name)
            if game.id in reg.games:
                raise PluginError(
                    f"game {game.id!r} is claimed by plugins {claimed[game.id]!r} and "
                    f"{impl.plugin_name!r}"
                )
            reg.games[game.id] = game
            claimed[game.id] = impl.plugin_name
            infos[impl.plugin_name].games += (game.id,)
            if game.hookspecs is not None:
                pm.add_hookspecs(game.hookspecs)
    for impl in pm.hook.tablestate_house_rules.get_hookimpls():
        rules = list(cast("Iterable[object]", impl.function() or ()))
        if len(rules) != 1:
            raise PluginError(
                f"plugin {impl.plugin_name!r}: a house-rule plugin returns exactly one rule, "
                f"not {len(rules)}"
            )
        rule = _check_rule(rules[0], impl.plugin_name, reg.games)
        if rule.id in reg.house_rules:
            raise PluginError(
                f"house rule {rule.id!r} is claimed by plugins {claimed[rule.id]!r} and "
                f"{impl.plugin_name!r}"
            )
        reg.house_rules[rule.id] = rule
        reg._rule_plugin[rule.id] = impl.plugin
        claimed[rule.id] = impl.plugin_name
        infos[impl.plugin_name].house_rules += (rule.id,)
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        name = pm.get_name(exc.plugin) or repr(exc.plugin)
        raise PluginError(f"plugin {name!r} implements an unknown hook: {exc}") from exc
    for game in reg.games.values():
        try:
            check_game(game, reg.ruleset(game.id))
        except ContractError as exc:
            raise PluginError(f"plugin {claimed[game.id]!r}: {exc}") from None
    for name, info in infos.items():
        plugin = pm.get_plugin(name)
        info.hooks = _hooks_of(pm, plugin) if plugin is not None else ()
    reg.plugins = sorted(infos.values(), key=lambda i: i.name)
    return reg
