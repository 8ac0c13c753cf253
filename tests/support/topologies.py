"""Redis with replicas on loopback, for the failover tests and the soak: a Cluster of three
primaries and three replicas, and a primary with a replica that one Sentinel watches.
Both fail over within about one to three seconds of a primary's death."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import redis

from support.replicas import RedisProcess, cluster_port
from support.server import free_port

NODE_TIMEOUT_MS = 500  # cluster-node-timeout and Sentinel's down-after-milliseconds
MASTER = "mymaster"
# A replica's full sync starts at once (Redis waits 5 s by default for more replicas).
FAST_SYNC = ("--repl-diskless-sync-delay", "0")


def _until(check: object, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():  # type: ignore[operator]
                return
        except redis.RedisError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"timed out waiting for {what}")


def _client(port: int) -> redis.Redis:
    return redis.Redis(port=port, socket_timeout=0.5, socket_connect_timeout=0.5)


def _synced(port: int) -> bool:
    with contextlib.closing(_client(port)) as c:
        return c.info("replication").get("master_link_status") == "up"


@dataclass
class Topology:
    """A running topology: the URL (and settings) the service is given, and its servers."""

    url: str
    env: dict[str, str]
    servers: list[RedisProcess] = field(default_factory=list)
    extra: list[subprocess.Popen[bytes]] = field(default_factory=list)
    sentinel_port: int | None = None

    def primary_of(self, key: str) -> RedisProcess:
        """The server that is the primary for ``key`` now."""
        for server in self.servers:
            if server.proc is None or server.proc.poll() is not None:
                continue
            with contextlib.closing(_client(server.port)) as c:
                role = c.info("replication").get("role")
                if role != "master":
                    continue
                if c.info("cluster").get("cluster_enabled"):
                    slot = c.cluster("keyslot", key)
                    for start, end, owner, *_ in c.cluster("slots"):
                        if start <= slot <= end and owner[1] == server.port:
                            return server
                    continue
                return server
        raise RuntimeError(f"no live primary for {key!r}")

    def fail_over(self, key: str, lag: float = 0.0) -> RedisProcess:
        """Kill (SIGKILL) the primary of ``key``, wait for a replica to take over, then
        start the killed server again (as its supervisor would): it comes back empty and
        joins as a replica. The killed server.

        ``lag``: seconds the primary's replicas are stopped (SIGSTOP) before it dies, so
        that it dies with writes they never received, as a primary does whose replicas
        lag behind (a slow link, a busy replica)."""
        victim = self.primary_of(key)
        behind = [s for s in self.servers if s is not victim and self._replicates(s, victim)]
        for server in behind:
            if server.proc is not None:
                server.proc.send_signal(signal.SIGSTOP)
        try:
            if lag and behind:
                # A stopped replica's kernel would still take in the stream: cut the link
                # too, so the primary's writes of the next ``lag`` seconds reach no replica.
                with contextlib.closing(_client(victim.port)) as c:
                    c.execute_command("CLIENT", "KILL", "TYPE", "replica")
            time.sleep(lag)
            victim.kill()
        finally:
            for server in behind:
                if server.proc is not None:
                    server.proc.send_signal(signal.SIGCONT)

        def promoted() -> bool:
            try:
                return self.primary_of(key) is not victim
            except RuntimeError:
                return False

        _until(promoted, 20, "a replica to take over")
        if self.sentinel_port is not None:
            # Without persistence a primary must not come back by itself (its replicas
            # would copy its empty data set): back only once the sentinel has made every
            # other server a replica of the new primary, and as a replica of it too.
            now = self.primary_of(key)

            def reconfigured() -> bool:
                # What clients ask (SENTINEL MASTERS), which names the new primary only
                # once the failover has ended.
                with contextlib.closing(_client(self.sentinel_port or 0)) as c:
                    state = c.sentinel_master(MASTER)
                if int(state["port"]) != now.port or "failover" in str(state["flags"]):
                    return False
                for server in self.servers:
                    if server in (victim, now):
                        continue
                    with contextlib.closing(_client(server.port)) as c:
                        info = c.info("replication")
                    if info.get("master_port") != now.port or not _synced(server.port):
                        return False
                return True

            _until(reconfigured, 20, "the sentinel to reconfigure the replicas")
            args = list(victim.args)
            if "--replicaof" in args:
                at = args.index("--replicaof")
                del args[at : at + 3]
            victim.args = (*args, "--replicaof", "127.0.0.1", str(now.port))
        victim.start()
        return victim

    @staticmethod
    def _replicates(server: RedisProcess, primary: RedisProcess) -> bool:
        if server.proc is None or server.proc.poll() is not None:
            return False
        with contextlib.closing(_client(server.port)) as c:
            return c.info("replication").get("master_port") == primary.port

    def stop(self) -> None:
        for proc in self.extra:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
        for server in self.servers:
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.stop()


@contextlib.contextmanager
def cluster_with_replicas(folder: Path) -> Iterator[Topology]:
    """Three primaries, each with a replica that takes over ``NODE_TIMEOUT_MS`` after
    the primary stops answering."""
    topology = Topology("", {"TABLESTATE_REDIS_CLUSTER": "1"})
    try:
        for i in range(6):
            (folder / str(i)).mkdir()
            topology.servers.append(
                RedisProcess(
                    folder / str(i), "--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf", "--appendonly", "no",
                    "--cluster-node-timeout", str(NODE_TIMEOUT_MS),
                    "--cluster-replica-validity-factor", "0",
                    "--replica-serve-stale-data", "yes", *FAST_SYNC, port=cluster_port(),
                ).start()
            )  # fmt: skip
        addresses = [f"127.0.0.1:{n.port}" for n in topology.servers]
        subprocess.run(
            ["redis-cli", "--cluster", "create", *addresses, "--cluster-replicas", "1",
             "--cluster-yes"],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip

        def ready() -> bool:
            replicas = 0
            for server in topology.servers:
                with contextlib.closing(_client(server.port)) as c:
                    if c.cluster("info").get("cluster_state") != "ok":
                        return False
                    if c.info("replication").get("role") == "slave":
                        if not _synced(server.port):
                            return False
                        replicas += 1
            return replicas == 3

        _until(ready, 30, "the cluster and its replicas")
        topology.url = topology.servers[0].url
        yield topology
    finally:
        topology.stop()


@contextlib.contextmanager
def sentinel_with_replicas(folder: Path, replicas: int = 1) -> Iterator[Topology]:
    """A primary, its ``replicas``, and one Sentinel (quorum 1) that promotes a replica
    ``NODE_TIMEOUT_MS`` after the primary stops answering.

    One replica is what ``TABLESTATE_REDIS_ACK=replica`` needs: Sentinel promotes the
    replica with the newest copy it last heard of (up to a second old), which with two
    replicas need not be the one whose WAIT acknowledged the last commits."""
    topology = Topology("", {})
    names = "bcdefgh"[:replicas]
    try:
        for name in ("a", *names):
            (folder / name).mkdir()
        primary = RedisProcess(folder / "a", "--appendonly", "no", *FAST_SYNC).start()
        topology.servers.append(primary)
        for name in names:
            replica = RedisProcess(
                folder / name, "--appendonly", "no", "--replica-serve-stale-data", "yes", *FAST_SYNC,
                "--replicaof", "127.0.0.1", str(primary.port),
            ).start()  # fmt: skip
            topology.servers.append(replica)
        for replica in topology.servers[1:]:
            _until(lambda r=replica: _synced(r.port), 20, "the replicas' first sync")
        port = free_port()
        conf = folder / "sentinel.conf"
        conf.write_text(
            f"port {port}\nbind 127.0.0.1\ndir {folder}\n"
            f"sentinel monitor {MASTER} 127.0.0.1 {primary.port} 1\n"
            f"sentinel down-after-milliseconds {MASTER} {NODE_TIMEOUT_MS}\n"
            f"sentinel failover-timeout {MASTER} 3000\n"
        )
        topology.extra.append(
            subprocess.Popen(
                ["redis-server", str(conf), "--sentinel"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )

        def knows_replica() -> bool:
            with contextlib.closing(_client(port)) as c:
                return len(c.execute_command("SENTINEL", "REPLICAS", MASTER)) == replicas

        _until(knows_replica, 20, "the sentinel to find the replica")
        topology.url = f"redis+sentinel://127.0.0.1:{port}/{MASTER}"
        topology.sentinel_port = port
        yield topology
    finally:
        topology.stop()
