"""Alembic, driven from code: the migrations ship inside the package (``migrations/``), and
no ``alembic.ini`` is needed."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Final

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

_ONE_AT_A_TIME: Final = threading.Lock()

LOCATION: Final = Path(__file__).resolve().parent / "migrations"


def config(url: str) -> Config:
    """Alembic's configuration for the database at ``url`` (a user's URL or SQLAlchemy's)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(LOCATION))
    # Handed to env.py as it is: set_main_option would read '%' in a password as
    # interpolation.
    cfg.attributes["url"] = url
    return cfg


def upgrade(url: str) -> None:
    """Bring the schema at ``url`` to the newest revision (blocking: env.py runs its own
    event loop, so call this in a thread of its own)."""
    # Alembic's ``context`` is one global proxy per process: one migration at a time here
    # (the database's own lock, taken in env.py, is what orders separate processes).
    with _ONE_AT_A_TIME:
        command.upgrade(config(url), "head")


def head() -> str:
    """The newest revision of the archive's schema."""
    found = ScriptDirectory.from_config(config("")).get_current_head()
    if found is None:  # pragma: no cover - the package ships its migrations
        raise RuntimeError(f"no migrations in {LOCATION}")
    return found
