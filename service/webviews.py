"""The games' own web views: the ES module a plugin ships as package data
(``GameDef.web_view``), found at start-up; ``app.py`` serves it at ``/games/<game id>/``.

A plugin declares ``"<package>:<folder>/<file>.js"``. The module and the files beside it
(styles, images) are served from that folder and nowhere else: each path segment a plain
name (no ``..``, no hidden files) with the suffix of a web file (never ``.py``: see
``servable``), no symbolic link leading out, anything else 404.
"""

from __future__ import annotations

import importlib.resources
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

URL_PREFIX: Final = "/games"
_SEGMENT: Final = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_PACKAGE: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
MODULE_SUFFIXES: Final = (".js", ".mjs")
SERVED_SUFFIXES: Final = frozenset(
    {*MODULE_SUFFIXES, ".css", ".json", ".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".woff2"}
)


@dataclass(frozen=True)
class WebView:
    """A game's view module: the folder served, and the module's file name in it."""

    folder: Path
    module: str


def module_url(game_id: str, module: str) -> str:
    """The URL path of a game's view module on this server."""
    return f"{URL_PREFIX}/{game_id}/{module}"


def _split(spec: str) -> tuple[str, list[str]]:
    package, sep, path = spec.partition(":")
    if not sep or not _PACKAGE.match(package):
        raise ValueError(f"{spec!r} is not '<package>:<folder>/<file>.js'")
    parts = path.split("/")
    if len(parts) < 2 or not all(_SEGMENT.match(p) for p in parts):
        raise ValueError(
            f"{spec!r}: the module goes in a folder of its own inside the package "
            "('web/view.js'): everything in that folder is served"
        )
    if not parts[-1].endswith(MODULE_SUFFIXES):
        raise ValueError(f"{spec!r}: the module is a .js or .mjs file")
    return package, parts


def url_of(game_id: str, spec: str | None) -> str | None:
    """The URL of the view module ``spec`` declares (None: the game has none)."""
    if spec is None:
        return None
    return module_url(game_id, _split(spec)[1][-1])


def locate(spec: str) -> WebView:
    """Find a game's view module in its package.

    Raises:
        ValueError: the declaration is malformed, or the file is not there (the message
            says which).
    """
    package, parts = _split(spec)
    try:
        root = importlib.resources.files(package)
    except ModuleNotFoundError:
        raise ValueError(f"{spec!r}: no package {package!r}") from None
    try:
        place = root.joinpath(*parts[:-1])
        folder = Path(os.fspath(place))  # type: ignore[call-overload]  # a zip's: TypeError
    except TypeError:
        raise ValueError(
            f"{spec!r}: the package is not installed as files (a zip?); its view cannot be served"
        ) from None
    if not (folder / parts[-1]).is_file():
        raise ValueError(f"{spec!r}: no file {'/'.join(parts)} in package {package!r}")
    return WebView(folder, parts[-1])


def servable(route_path: str) -> str | None:
    """The file a request for ``route_path`` (under ``/games/<game id>``) may read, relative
    to the game's folder, or None: a plain name in each segment, a web file's suffix."""
    parts = route_path.split("/")[1:]
    if (
        not parts
        or not all(_SEGMENT.match(p) for p in parts)
        or Path(parts[-1]).suffix.lower() not in SERVED_SUFFIXES
    ):
        return None
    return os.path.join(*parts)
