"""The test command type-checks the code: scripts/test runs scripts/typecheck (mypy, strict,
as pyproject.toml configures it) before the tests, and scripts/typecheck fails on a type
error, naming the file by its path in the repository, not by the link it was checked
through."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TYPECHECK = REPO / "scripts" / "typecheck"


def commands(script: Path) -> list[str]:
    """The script's lines that run something, comments and blank lines left out."""
    lines = (line.split("#", 1)[0].strip() for line in script.read_text("utf-8").splitlines())
    return [line for line in lines if line]


def test_the_test_command_type_checks_before_the_tests():
    lines = commands(REPO / "scripts" / "test")
    # Run as it is, under `set -e`: a failure stops the test command.
    assert "set -euo pipefail" in lines
    assert "scripts/typecheck" in lines
    assert lines.index("ruff format --check .") < lines.index("scripts/typecheck")
    assert lines.index("scripts/typecheck") < lines.index('python -m pytest "$@"')


def test_mypy_is_strict_and_overridden_for_untyped_libraries_only():
    config = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
    assert config["tool"]["mypy"]["strict"] is True
    for override in config["tool"]["mypy"].get("overrides", []):
        # Overrides only say which third-party modules come without types.
        assert set(override) == {"module", "ignore_missing_imports"}
        modules = override["module"]
        for name in [modules] if isinstance(modules, str) else modules:
            assert not name.startswith("tablestate"), name


def tiny_project(root: Path, body: str) -> Path:
    """A project whose package ``tiny`` is the folder ``src_tiny`` (as ``tablestate`` is
    ``service``), configured for strict mypy, its module's text ``body``."""
    (root / "pyproject.toml").write_text(
        textwrap.dedent(
            """\
            [tool.setuptools.package-dir]
            tiny = "src_tiny"

            [tool.mypy]
            python_version = "3.11"
            strict = true
            """
        ),
        "utf-8",
    )
    (root / "src_tiny").mkdir()
    (root / "src_tiny" / "__init__.py").write_text("", "utf-8")
    (root / "src_tiny" / "numbers.py").write_text(textwrap.dedent(body), "utf-8")
    return root


def typecheck(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TYPECHECK), "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_typecheck_fails_on_a_type_error_and_names_the_real_file(tmp_path):
    tiny_project(
        tmp_path,
        """\
        def double(n: int) -> int:
            return n * 2


        half: str = double(2)
        """,
    )
    done = typecheck(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "src_tiny/numbers.py:5: error: Incompatible types in assignment" in done.stdout
    assert ".mypy_cache" not in done.stdout  # the link's path is not what a reader opens


def test_typecheck_passes_typed_code_and_checks_it_strictly(tmp_path):
    tiny_project(
        tmp_path,
        """\
        def double(n: int) -> int:
            return n * 2
        """,
    )
    done = typecheck(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found in 2 source files" in done.stdout
    # Strict: a function without annotations is an error.
    (tmp_path / "src_tiny" / "numbers.py").write_text("def double(n):\n    return n * 2\n")
    done = typecheck(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "src_tiny/numbers.py:1: error: Function is missing a type annotation" in done.stdout
