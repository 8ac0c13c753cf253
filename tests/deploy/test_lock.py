"""requirements/lock.txt, the exact versions the service installs (scripts/serve,
scripts/test, deploy/install.sh and so the image, CI), against pyproject.toml's ranges,
which plugin authors install by: this environment is the lock's, every range admits the
locked version, and a package whose internals we use is bounded above, no further than the
release after the one locked. ``scripts/test --newest`` (TABLESTATE_UNLOCKED=1) installs
the newest releases instead, and the first check then says how they differ."""

from __future__ import annotations

import os
import tomllib
from importlib.metadata import distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version
from support.lock import (
    LOCK,
    own_project_names,
    pinned_here,
    ranges_missed,
    read_lock,
    unlocked,
    upper_bound,
)

REPO = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
# The packages whose internals the service uses: a new release may change them.
INTERNALS = {
    "strawberry-graphql": "service/api/upstream.py copies parts of its code",
    "starlette": "service/api builds its routes and WebSockets on it (bounded at its major)",
    "uvicorn": "service/server.py and connections.py subclass its protocols",
    "websockets": "service/edge.py drives its Sans-I/O parser and its writes",
    "graphql-core": "service/api/fanout.py reads its Executor's state",
    "cross-web": "service/api raises and catches Strawberry's HTTP exception from it",
}
INSTALLERS = {
    "scripts/test": "pins=(-c requirements/lock.txt)",
    "scripts/serve": "LOCK=requirements/lock.txt",
    "deploy/install.sh": '"$SRC/requirements/lock.txt"',
    "deploy/Dockerfile": "COPY requirements/lock.txt requirements/lock.txt",
}


@pytest.fixture(scope="module")
def pins():
    return read_lock(LOCK.read_text("utf-8"))


def installed() -> dict[str, str]:
    return {d.metadata["Name"]: d.version for d in distributions()}


def next_series(version: str) -> Version:
    """The first release past a version's series: 0.341.2 -> 0.342, 17.4 -> 18."""
    v = Version(version)
    return Version(f"0.{v.minor + 1}") if v.major == 0 else Version(f"{v.major + 1}")


def test_the_lock_is_a_constraints_file_scripts_lock_writes(pins):
    text = LOCK.read_text("utf-8")
    assert "scripts/lock" in text.split("\n\n", 1)[0], "the header says how to regenerate it"
    assert len(pins) > 50
    here = pinned_here(pins)  # one version per package in any one environment
    assert not own_project_names() & set(here), "pip builds the project itself"
    assert {"strawberry-graphql", "uvicorn", "websockets", "starlette", "pytest"} <= set(here)


def test_this_environment_is_the_locks(pins):
    differences = unlocked(installed(), pins, skip=own_project_names())
    if os.environ.get("TABLESTATE_UNLOCKED") == "1":
        pytest.skip(
            "scripts/test --newest: the newest releases, not the lock's; "
            + ("; ".join(differences) or "they are the lock's versions")
        )
    assert differences == [], "reinstall with scripts/test, or run scripts/lock"


def test_every_range_admits_the_locked_version(pins):
    extras = [r for group in PROJECT["optional-dependencies"].values() for r in group]
    assert ranges_missed(PROJECT["dependencies"] + extras, pins) == []


@pytest.mark.parametrize("name", sorted(INTERNALS))
def test_a_package_whose_internals_we_use_is_bounded_by_the_lock(name, pins):
    (requirement,) = [
        r for r in PROJECT["dependencies"] if canonicalize_name(Requirement(r).name) == name
    ]
    bound = upper_bound(requirement)
    assert bound is not None, f"{requirement}: {INTERNALS[name]}, so it needs an upper bound"
    locked = pinned_here(pins)[canonicalize_name(name)]
    assert Version(locked) < Version(bound) <= next_series(locked), (
        f"{requirement}: the bound goes past what the lock ({locked}) tested"
    )


@pytest.mark.parametrize("path", sorted(INSTALLERS))
def test_every_installer_follows_the_lock(path):
    assert INSTALLERS[path] in (REPO / path).read_text("utf-8")


def test_ci_and_the_image_context_see_the_lock():
    assert (REPO / ".ci/run").read_text("utf-8").strip().endswith("exec scripts/test -q")
    ignore = (REPO / "deploy/Dockerfile.dockerignore").read_text("utf-8").splitlines()
    assert "!requirements/lock.txt" in ignore
    gitignore = (REPO / ".gitignore").read_text("utf-8").splitlines()
    assert {".venv-lock/", ".venv-newest/"} <= set(gitignore)


# -- the checks themselves, on made-up locks ------------------------------------------------

MADE_UP = """\
# a header
anyio==4.16.0
    # via starlette
numpy==2.4.6 ; python_full_version < '3.12'
numpy==2.5.5 ; python_full_version >= '3.12'
pywin32==312 ; sys_platform == 'win32'
uvicorn==0.55.0
"""


def test_a_wrong_or_missing_version_is_found():
    pins = read_lock(MADE_UP)
    py311 = {"python_full_version": "3.11.7", "sys_platform": "linux"}
    assert pinned_here(pins, py311)["numpy"] == "2.4.6"
    assert "pywin32" not in pinned_here(pins, py311)
    env = {"AnyIO": "4.16.0", "uvicorn": "0.54.0", "orjson": "3.13.0", "pip": "26.3", "own": "1"}
    found = unlocked(env, pins, skip=["own"])
    assert found == [
        "orjson 3.13.0 is installed but not in the lock",
        "uvicorn 0.54.0 is installed, the lock says 0.55.0",
    ]
    assert unlocked({"anyio": "4.16.0", "uvicorn": "0.55.0"}, pins) == []


def test_a_range_that_leaves_out_the_lock_is_found():
    pins = read_lock(MADE_UP)
    assert ranges_missed(["uvicorn[standard]>=0.52.1,<0.56", "numpy>=2.4"], pins) == []
    assert ranges_missed(["uvicorn[standard]>=0.52.1,<0.55", "numpy<2.5", "redis>=5"], pins) == [
        "uvicorn[standard]>=0.52.1,<0.55: the lock pins uvicorn 0.55.0",
        "numpy<2.5: the lock pins numpy 2.5.5",
        "redis>=5: the lock does not pin redis",
    ]
    assert ranges_missed(["pywin32>=300; sys_platform == 'win32'"], pins) == []
    assert upper_bound("strawberry-graphql>=0.320,<0.342") == "0.342"
    assert upper_bound("uvicorn>=0.52") is None
    assert next_series("0.341.2") == Version("0.342") and next_series("17.4") == Version("18")


@pytest.mark.parametrize(
    "line",
    ["uvicorn[standard]==0.55.0", "uvicorn>=0.55", "-e .", "uvicorn==0.55.*", "x @ file:///x"],
)
def test_a_line_pip_refuses_as_a_constraint_is_refused(line):
    with pytest.raises(ValueError):
        read_lock(line + "\n")
