"""deploy/Dockerfile, read as a recipe (no Docker engine runs here): two stages, the
install steps of deploy/install.sh, a final stage without build tools that runs one
uvicorn process as a non-root user, with a Python health check. hadolint lints it where
installed. tests/deploy/test_install.py runs the same steps for real."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "deploy" / "Dockerfile"
BUILD_TOOLS = re.compile(
    r"\b(gcc|g\+\+|cc|make|build-essential|python3?-dev|libc6?-dev|curl|wget|git)\b"
)


def test_python_311_slim_base(dockerfile):
    args, stages = dockerfile
    assert args["PYTHON_IMAGE"].startswith("python:3.11-slim"), args
    assert [s.base for s in stages] == ["${PYTHON_IMAGE}"] * len(stages)


def test_multi_stage_build_runs_install_sh(dockerfile):
    _, stages = dockerfile
    assert [s.name for s in stages] == ["build", "run"]
    build = stages[0]
    runs = [r.args for r in build.all("RUN")]
    (install,) = [r for r in runs if "deploy/install.sh" in r]
    assert "--mount=type=cache,target=/root/.cache/pip" in install
    words = install.split()
    script_args = words[words.index("deploy/install.sh") + 1 :]
    assert script_args == ["/src", "/opt/tablestate/venv"]
    for copy in build.all("COPY"):
        *sources, _ = copy.words()
        for source in sources:
            assert (REPO / source).exists(), f"the build copies {source}, which is missing"
    copied = {w for c in build.all("COPY") for w in c.words()[:-1]}
    assert {"pyproject.toml", "README.md", "service/", "plugins/", "deploy/install.sh"} <= copied


def test_final_stage_has_no_build_tools_and_runs_as_non_root(dockerfile):
    _, stages = dockerfile
    final = stages[-1]
    for run in final.all("RUN"):
        assert "apt-get install" not in run.args and "pip install" not in run.args, run.args
        assert not BUILD_TOOLS.search(run.args), run.args
    assert not BUILD_TOOLS.search(" ".join(i.args for i in final.instructions if i.cmd != "LABEL"))
    (from_build,) = [c for c in final.all("COPY") if c.args.startswith("--from=build")]
    assert from_build.words() == ["--from=build", "/opt/tablestate/venv", "/opt/tablestate/venv"]
    (user,) = final.all("USER")
    uid, _, gid = user.args.partition(":")
    assert uid.isdigit() and int(uid) >= 1000 and gid.isdigit(), "a numeric non-root user"
    values = yaml.safe_load((REPO / "helm/tablestate/values.yaml").read_text())
    assert values["podSecurityContext"]["runAsUser"] == int(uid), "chart and image agree"
    assert values["podSecurityContext"]["runAsGroup"] == int(gid)
    assert f"--uid {uid}" in final.all("RUN")[0].args


def test_one_uvicorn_process_serving_on_all_interfaces(dockerfile):
    _, stages = dockerfile
    final = stages[-1]
    (entry,) = final.all("ENTRYPOINT")
    assert entry.words() == ["tablestate", "serve", "--host", "0.0.0.0", "--workers", "1"]
    assert not final.all("CMD")
    (stop,) = final.all("STOPSIGNAL")
    assert stop.args == "SIGTERM"
    env = final.env()
    (expose,) = final.all("EXPOSE")
    assert env["TABLESTATE_PORT"] == expose.args == "8000"
    values = yaml.safe_load((REPO / "helm/tablestate/values.yaml").read_text())
    assert values["containerPort"] == 8000
    assert env["PATH"].startswith("/opt/tablestate/venv/bin:")
    assert env["PYTHONDONTWRITEBYTECODE"] == "1", "the root filesystem is read-only"


def test_web_client_is_copied_and_named(dockerfile, dockerignore):
    _, stages = dockerfile
    final = stages[-1]
    web = [c.words() for c in final.all("COPY") if c.words()[0] == "web/"]
    assert web == [["web/", "/opt/tablestate/web/"]]
    assert final.env()["TABLESTATE_WEB_DIR"] == "/opt/tablestate/web"
    assert "web/node_modules" in dockerignore


def test_healthcheck_uses_python_on_healthz(dockerfile, healthcheck_code):
    _, stages = dockerfile
    (check,) = stages[-1].all("HEALTHCHECK")
    for option in ("--interval=", "--timeout=", "--start-period=", "--retries="):
        assert option in check.args
    assert "/healthz" in healthcheck_code and "readyz" not in healthcheck_code
    assert "curl" not in check.args and "wget" not in check.args
    compile(healthcheck_code, "HEALTHCHECK", "exec")


def test_dockerignore_lets_in_only_what_is_copied(dockerfile, dockerignore):
    _, stages = dockerfile
    assert dockerignore[0] == "**", "an allow-list"
    allowed = {p[1:].rstrip("/") for p in dockerignore if p.startswith("!")}
    copied = {
        w.rstrip("/")
        for s in stages
        for c in s.all("COPY")
        if not c.args.startswith("--from")
        for w in c.words()[:-1]
    }
    assert copied == allowed
    assert "**/__pycache__" in dockerignore


def test_hadolint_passes(tool):
    hadolint = tool("hadolint", "deploy/Dockerfile's lint (hadolint)")
    done = subprocess.run(
        [hadolint, "--failure-threshold", "info", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
