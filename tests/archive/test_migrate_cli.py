"""``tablestate migrate``, run as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys

from redis_server import free_port

EXE = [sys.executable, "-m", "tablestate.cli", "migrate"]


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TABLESTATE_") and k not in ("REDIS_URL", "DATABASE_URL")
    }
    env.update(extra)
    return env


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EXE, *args], capture_output=True, text=True, env=_env(**env))


def test_migrate_brings_the_database_up_to_date_and_again_does_nothing(archive_url):
    dialect = archive_url.partition(":")[0]
    for _ in range(2):
        done = _run(DATABASE_URL=archive_url)
        assert done.returncode == 0, done.stderr
        assert done.stdout == f"archive schema at revision 0001 ({dialect})\n"


def test_the_default_is_a_sqlite_file_in_the_data_folder(tmp_path):
    done = _run(TABLESTATE_DATA_DIR=str(tmp_path / "data"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "archive schema at revision 0001 (sqlite)\n"
    assert (tmp_path / "data" / "tablestate.db").is_file()


def test_database_wins_over_database_url(tmp_path):
    chosen = tmp_path / "chosen.db"
    done = _run("--database", f"sqlite:///{chosen}", DATABASE_URL="mysql://nowhere/db")
    assert done.returncode == 0, done.stderr
    assert chosen.is_file()


def test_help_says_what_it_is_for():
    top = subprocess.run([*EXE[:-1], "--help"], capture_output=True, text=True, env=_env())
    assert "bring the archive's database up to date" in top.stdout
    assert "--database" in _run("--help").stdout


def test_no_database_or_an_unknown_kind_exits_2():
    none = _run(TABLESTATE_ARCHIVE="0")
    assert none.returncode == 2 and "DATABASE_URL" in none.stderr and not none.stdout
    mysql = _run(DATABASE_URL="mysql://nowhere/db")
    assert mysql.returncode == 2 and "mysql" in mysql.stderr


def test_a_database_that_does_not_answer_exits_3():
    done = _run(DATABASE_URL=f"postgresql://nobody@127.0.0.1:{free_port()}/nothing")
    assert done.returncode == 3 and "cannot be reached" in done.stderr
