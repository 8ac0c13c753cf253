"""The image recipe, run here for real without Docker: the build stage of deploy/Dockerfile
is replayed under a temporary root (its COPY lines, then its RUN of deploy/install.sh,
which makes a fresh virtual environment with pip, through pip's cache, at the versions of
requirements/lock.txt), the run stage's COPY of the web client and its ENV are applied,
and its ENTRYPOINT is started (on 127.0.0.1 rather than 0.0.0.0) and smoke-tested:
/healthz, /readyz, a GraphQL query of the games, the web client, the image's HEALTHCHECK
command, and SIGTERM. With a Redis, two such replicas share it."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from support.lock import LOCK, own_project_names, read_lock, unlocked
from support.server import free_port

REPO = Path(__file__).resolve().parents[2]
BUNDLED_GAMES = {"all-fives", "five-crowns", "five-by-five"}
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "node_modules", ".pytest_cache")


@dataclass
class Image:
    """The image's file system, laid out under root."""

    root: Path
    env: dict[str, str]
    entrypoint: list[str]
    workdir: Path
    install_seconds: float

    def at(self, path: str) -> Path:
        return at(self.root, path)

    @property
    def venv(self) -> Path:
        return self.at("/opt/tablestate/venv")


def at(root: Path, path: str) -> Path:
    return root / path.lstrip("/")


def copy(root: Path, workdir: str, words: list[str]) -> None:
    """A Dockerfile COPY, from the checkout into root."""
    *sources, dest = words
    target = dest if dest.startswith("/") else f"{workdir.rstrip('/')}/{dest}"
    for source in sources:
        src = REPO / source
        if src.is_dir():
            shutil.copytree(src, at(root, target), ignore=IGNORED, dirs_exist_ok=True)
        else:
            into = at(root, target)
            if target.endswith("/"):
                into = into / src.name
            into.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, into)


def base_env() -> dict[str, str]:
    """This environment without the service's settings."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TABLESTATE_") and k not in ("REDIS_URL", "VIRTUAL_ENV")
    }


@pytest.fixture(scope="module")
def image(tmp_path_factory, dockerfile) -> Image:
    root = tmp_path_factory.mktemp("image")
    _, (build, run) = dockerfile
    workdir = "/"
    started = time.monotonic()
    ran_install = False
    for ins in build.instructions:
        if ins.cmd == "WORKDIR":
            workdir = ins.args
            at(root, workdir).mkdir(parents=True, exist_ok=True)
        elif ins.cmd == "COPY":
            copy(root, workdir, ins.words())
        elif ins.cmd == "RUN":
            words = [w for w in shlex.split(ins.args) if not w.startswith("--mount=")]
            command = [str(at(root, w)) if w.startswith("/") else w for w in words]
            done = subprocess.run(
                command,
                cwd=at(root, workdir),
                env={**base_env(), "PYTHON": sys.executable},
                capture_output=True,
                text=True,
                timeout=900,
            )
            assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
            ran_install = ran_install or "deploy/install.sh" in ins.args
    assert ran_install, "the build stage never ran deploy/install.sh"
    install_seconds = time.monotonic() - started

    run_workdir = "/"
    for ins in run.instructions:
        if ins.cmd == "WORKDIR":
            run_workdir = ins.args
            at(root, run_workdir).mkdir(parents=True, exist_ok=True)
        elif ins.cmd == "COPY" and not ins.args.startswith("--from="):
            copy(root, run_workdir, ins.words())
    env = base_env()
    for key, value in run.env().items():
        parts = [str(at(root, p)) if p.startswith("/") else p for p in value.split(":")]
        env[key] = ":".join(parts).replace("$PATH", os.environ.get("PATH", ""))
    (entry,) = run.all("ENTRYPOINT")
    return Image(root, env, entry.words(), at(root, run_workdir), install_seconds)


class Serve:
    """The image's entry point, started in the laid-out image."""

    def __init__(self, image: Image, **env: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**image.env, "TABLESTATE_PORT": str(self.port), **env}
        command = list(image.entrypoint)
        command[command.index("--host") + 1] = "127.0.0.1"  # not every interface of this host
        assert command[0] == "tablestate"
        command[0] = str(image.venv / "bin" / "tablestate")
        self._log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            command, cwd=image.workdir, env=self.env, stdout=self._log, stderr=self._log
        )

    def wait_up(self, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            assert self.proc.poll() is None, f"serve exited: {self.log()}"
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"serve did not come up: {self.log()}")

    def graphql(self, query: str) -> dict:
        response = httpx.post(self.url + "/graphql", json={"query": query}, timeout=10)
        assert response.status_code == 200, response.text
        body = response.json()
        assert not body.get("errors"), body
        return body["data"]

    def log(self) -> str:
        self._log.seek(0)
        return self._log.read().decode(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._log.close()


@pytest.fixture
def serving(image) -> Iterator[list[Serve]]:
    started: list[Serve] = []
    yield started
    for s in started:
        s.stop()


def run_healthcheck(image: Image, healthcheck_code: str, port: int) -> int:
    """The image's HEALTHCHECK command, as Docker runs it inside the container."""
    env = {**image.env, "TABLESTATE_PORT": str(port)}
    return subprocess.run(
        ["python", "-c", healthcheck_code],
        env=env,
        cwd=image.workdir,
        capture_output=True,
        timeout=30,
    ).returncode


def test_install_sh_makes_a_standalone_environment(image):
    python = str(image.venv / "bin" / "python")
    probe = (
        "import json, importlib.util as u, importlib.resources as r, tablestate,"
        " tablestate_five_crowns;"
        "print(json.dumps([tablestate.__file__, tablestate_five_crowns.__file__,"
        " r.files('tablestate.store').joinpath('commit.lua').is_file(),"
        " [u.find_spec(n) is not None for n in ('service', 'plugins')]]))"
    )
    done = subprocess.run(
        [python, "-c", probe], cwd=image.workdir, env=image.env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    package_file, game_file, has_lua, generic = json.loads(done.stdout)
    site = str(image.venv / "lib")
    assert package_file.startswith(site) and game_file.startswith(site), "not editable"
    assert has_lua, "the Redis store's Lua scripts are installed"
    assert generic == [False, False], "no top-level `service` or `plugins` module is installed"
    listed = subprocess.run(
        [str(image.venv / "bin" / "tablestate"), "plugins"],
        cwd=image.workdir,
        env=image.env,
        capture_output=True,
        text=True,
    )
    assert listed.returncode == 0, listed.stderr
    names = {line.split("\t")[0] for line in listed.stdout.splitlines()}
    assert BUNDLED_GAMES <= names
    assert not any("lucky" in n for n in names), "only what the image installs"
    checked = subprocess.run(
        [python, "-m", "pip", "check"], env=image.env, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout


def test_install_sh_installs_the_locked_versions(image):
    """The image's packages are requirements/lock.txt's, each at its exact version."""
    listed = subprocess.run(
        [str(image.venv / "bin" / "python"), "-m", "pip", "list", "--format", "json"],
        env=image.env,
        capture_output=True,
        text=True,
    )
    assert listed.returncode == 0, listed.stderr
    versions = {p["name"]: p["version"] for p in json.loads(listed.stdout)}
    assert {"strawberry-graphql", "uvicorn", "websockets"} <= set(versions)
    assert unlocked(versions, read_lock(LOCK.read_text("utf-8")), own_project_names()) == []


def test_serve_smoke(image, serving, healthcheck_code):
    server = Serve(image, TABLESTATE_LOG_LEVEL="info")
    serving.append(server)
    server.wait_up()
    assert httpx.get(server.url + "/readyz", timeout=5).status_code == 200
    games = server.graphql("{ games { id name minPlayers } }")["games"]
    assert BUNDLED_GAMES <= {g["id"] for g in games}
    web = image.at(image.env["TABLESTATE_WEB_DIR"].removeprefix(str(image.root)))
    if (web / "index.html").is_file():
        page = httpx.get(server.url + "/", timeout=5)
        assert page.status_code == 200 and "<html" in page.text.lower()
    assert run_healthcheck(image, healthcheck_code, server.port) == 0

    server.proc.send_signal(signal.SIGTERM)
    # uvicorn shuts down gracefully, then re-raises the signal it caught.
    assert server.proc.wait(30) in (0, -signal.SIGTERM), server.log()
    lines = [json.loads(line) for line in server.log().splitlines() if line.strip()]
    messages = [line["message"] for line in lines]  # JSON lines, every one
    assert "Application shutdown complete." in messages, messages
    assert run_healthcheck(image, healthcheck_code, server.port) != 0


@pytest.mark.redis
def test_two_replicas_share_redis(image, serving, redis_url, redis_prefix):
    env = {
        "REDIS_URL": redis_url,
        "TABLESTATE_SECRET": "deploy-test-secret",
        "TABLESTATE_REDIS_PREFIX": redis_prefix,
        "TABLESTATE_LOG_LEVEL": "warning",
    }
    a, b = Serve(image, **env), Serve(image, **env)
    serving.extend([a, b])
    a.wait_up()
    b.wait_up()
    for s in (a, b):
        assert httpx.get(s.url + "/readyz", timeout=5).status_code == 200
    made = a.graphql('mutation { createTable(gameId: "all-fives") { table { id status } } }')
    table = made["createTable"]["table"]
    seen = b.graphql(f'{{ table(id: "{table["id"]}") {{ id status game {{ id }} }} }}')["table"]
    assert seen == {**table, "game": {"id": "all-fives"}}
    for s in (a, b):
        s.proc.send_signal(signal.SIGTERM)
    for s in (a, b):
        assert s.proc.wait(30) in (0, -signal.SIGTERM), s.log()
