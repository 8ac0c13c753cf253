"""The one public import path: ``tablestate`` (and ``tablestate_<game>`` for the bundled games).

The folders ``service/`` and ``plugins/<game>/`` are mapped onto those packages in
pyproject.toml; a folder of code left out of its list would be missing from a wheel, and a
generic top-level name (``service``, ``plugins``) would collide with other packages.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _setuptools() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_code_folder_is_a_listed_package():
    config = _setuptools()
    dirs = config["package-dir"]
    expected = set()
    for name, folder in dirs.items():
        for init in (REPO / folder).rglob("__init__.py"):
            if "__pycache__" in init.parts:
                continue
            rel = init.parent.relative_to(REPO / folder)
            expected.add(".".join([name, *rel.parts]))
    assert set(config["packages"]) == expected
    assert set(dirs) == {
        "tablestate",
        "tablestate_all_fives",
        "tablestate_five_by_five",
        "tablestate_five_crowns",
    }


def test_no_generic_top_level_module(tmp_path):
    probe = (
        "import importlib.util as u, json, tablestate, tablestate_five_crowns;"
        "print(json.dumps([tablestate.__file__,"
        " [u.find_spec(n) is not None for n in ('service', 'plugins')]]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    package_file, generic = json.loads(done.stdout)
    assert Path(package_file).parent == REPO / "service"
    assert generic == [False, False]


def test_a_game_author_needs_one_import():
    import tablestate

    for name in ("GameDef", "Event", "Move", "Rejected", "Result", "hookimpl", "hookspec"):
        assert hasattr(tablestate, name), name
