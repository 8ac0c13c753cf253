#!/usr/bin/env bash
# One-command Tablestate benchmark (WORKLOAD.md phases). Prints one JSON line per phase run.
# Usage: bash bench/peers/run_tablestate.sh [PHASES] [REPEATS]     e.g. ... "A B C" 2
# Environment:
#   TRANSPORTS  "ws http" (default): moves over the player's graphql-transport-ws connection, and
#               (the second figure) over HTTP POST with keep-alive. The ack is always the
#               mover's own subscription.
#   WORKERS     uvicorn worker processes of `tablestate serve` (default 1)
#   LOG_LEVEL   TABLESTATE_LOG_LEVEL of the server (default warning: no per-request log lines,
#               like the peers' production mode)
#   OUT         JSON lines are appended there (default bench/peers/results/tablestate.jsonl)
#   SAMPLES_DIR when set, every run's raw latency samples go there (for charts)
#   PORT, REDIS_PORT  default: free ports
#   LOADGEN_ARGS  extra loadgen flags for a quick try only (e.g. "--moves 50 --spectators 10")
#   QUIET_WAIT  "90 20" (max seconds, busy % threshold of lib/wait_quiet.sh)
#   LOADGEN_CPUS, SERVER_CPUS  CPU lists for `taskset -c` (e.g. 1 and 0): the loadgen, and
#               the server with its redis-server(s), each pinned there (default: unpinned)
#   REDIS_ACK   TABLESTATE_REDIS_ACK of the server (default primary). With `replica`, a second
#               redis-server (the same persistence) replicates the first, and every commit waits
#               for it (WAIT 1); its CPU is summed with the server's too.
# Per (repetition, transport, phase): wait for a quiet machine (lib/wait_quiet.sh 90 20), a
# fresh redis-server (appendonly yes, appendfsync everysec, no RDB snapshots, in a temp dir)
# and a fresh `tablestate serve` (REDIS_URL, TABLESTATE_SECRET, a key prefix), the loadgen under
# `timeout 240`, then both are stopped. Loopback only. Server CPU/RSS are summed over the
# serve process, its uvicorn workers and redis-server. The server runs the service and plugins
# of this checkout (PYTHONPATH), whichever checkout the `tablestate` package was installed from.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PHASES="${1:-A B C}"
REPEATS="${2:-2}"
TRANSPORTS="${TRANSPORTS:-ws http}"
WORKERS="${WORKERS:-1}"
LOG_LEVEL="${LOG_LEVEL:-warning}"
OUT="${OUT:-$HERE/results/tablestate.jsonl}"
mkdir -p "$(dirname "$OUT")"
[ -n "${SAMPLES_DIR:-}" ] && mkdir -p "$SAMPLES_DIR"

if [ -z "${VIRTUAL_ENV:-}" ] && [ -f "$ROOT/.venv/bin/activate" ]; then
  # shellcheck disable=SC1091
  . "$ROOT/.venv/bin/activate"
fi
command -v tablestate >/dev/null || { echo "tablestate is not installed (run scripts/test once)" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "redis-server is missing (apt-get install redis-server)" >&2; exit 1; }
if [ ! -d "$HERE/node_modules/graphql-ws" ]; then npm ci --prefix "$HERE" --no-audit --no-fund >&2; fi

WORK=$(mktemp -d /tmp/tsbench.XXXXXX)
ON_LOADGEN=(); ON_SERVER=()
[ -n "${LOADGEN_CPUS:-}" ] && ON_LOADGEN=(taskset -c "$LOADGEN_CPUS")
[ -n "${SERVER_CPUS:-}" ] && ON_SERVER=(taskset -c "$SERVER_CPUS")
REDIS_ACK="${REDIS_ACK:-primary}"
SPID=""; RPID=""; XPID=""
stop_pid() {  # TERM, up to 15 s, then KILL
  local pid="$1"
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
cleanup() { stop_pid "$SPID"; stop_pid "$XPID"; stop_pid "$RPID"; rm -rf "$WORK"; }
trap cleanup EXIT

# The benchmark game, installed with pip into a folder only the benchmarked server sees.
cp -r "$ROOT/bench/bench_game" "$WORK/bench_game_src"
rm -rf "$WORK/bench_game_src/build" "$WORK/bench_game_src"/*.egg-info
python -m pip install --quiet --no-deps --target "$WORK/site" "$WORK/bench_game_src" >&2

free_port() { python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# Which code was measured (read-only git): the commit, and a digest of the uncommitted changes
# under service/ and plugins/ at the start of each run ("none": the commit as it is).
VERSION=$(cd "$ROOT" && git --no-optional-locks rev-parse --short HEAD 2>/dev/null || echo unknown)
changes() {
  local d
  d=$(cd "$ROOT" && git --no-optional-locks diff HEAD -- service plugins 2>/dev/null | sha1sum | cut -c1-10)
  [ "$d" = "da39a3ee5e" ] && echo none || echo "$d"
}
THIS_RUN="$WORK/run.jsonl"
for rep in $(seq 1 "$REPEATS"); do
  for tr in $TRANSPORTS; do
    for ph in $PHASES; do
      # shellcheck disable=SC2086
      Q=$(bash "$HERE/lib/wait_quiet.sh" ${QUIET_WAIT:-90 20})   # bounded wait for other tenants' load to drop
      CHANGES=$(changes)
      RUN="$WORK/${tr}_${ph}_${rep}"; mkdir -p "$RUN/redis"
      RP="${REDIS_PORT:-$(free_port)}"; P="${PORT:-$(free_port)}"
      "${ON_SERVER[@]}" redis-server --port "$RP" --bind 127.0.0.1 --dir "$RUN/redis" --appendonly yes \
        --appendfsync everysec --save '' >"$RUN/redis.log" 2>&1 &
      RPID=$!
      for _ in $(seq 1 100); do redis-cli -p "$RP" ping >/dev/null 2>&1 && break; sleep 0.1; done
      redis-cli -p "$RP" ping >/dev/null 2>&1 || { echo "redis-server failed to start" >&2; cat "$RUN/redis.log" >&2; exit 1; }
      PIDS="$RPID"
      if [ "$REDIS_ACK" = replica ]; then
        XP=$(free_port); mkdir -p "$RUN/replica"
        "${ON_SERVER[@]}" redis-server --port "$XP" --bind 127.0.0.1 --dir "$RUN/replica" --appendonly yes \
          --appendfsync everysec --save '' --replicaof 127.0.0.1 "$RP" >"$RUN/replica.log" 2>&1 &
        XPID=$!; PIDS="$RPID,$XPID"
        for _ in $(seq 1 100); do
          redis-cli -p "$XP" info replication 2>/dev/null | grep -q 'master_link_status:up' && break; sleep 0.1
        done
        redis-cli -p "$XP" info replication 2>/dev/null | grep -q 'master_link_status:up' \
          || { echo "the replica did not follow" >&2; cat "$RUN/replica.log" >&2; exit 1; }
      fi
      # The checkout this script lives in is the code measured (before any installed copy).
      PYTHONPATH="$WORK/site:$ROOT" REDIS_URL="redis://127.0.0.1:$RP/0" TABLESTATE_SECRET="bench-secret-$RANDOM$RANDOM" \
        TABLESTATE_REDIS_PREFIX="bench:" TABLESTATE_LOG_LEVEL="$LOG_LEVEL" \
        TABLESTATE_REDIS_ACK="$REDIS_ACK" "${ON_SERVER[@]}" tablestate serve --host 127.0.0.1 --port "$P" --workers "$WORKERS" >"$RUN/serve.log" 2>&1 &
      SPID=$!
      for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$P/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
      curl -sf "http://127.0.0.1:$P/readyz" >/dev/null 2>&1 || { echo "tablestate serve failed to start" >&2; cat "$RUN/serve.log" >&2; exit 1; }
      SAMPLES=()
      [ -n "${SAMPLES_DIR:-}" ] && SAMPLES=(--samples-out "$SAMPLES_DIR/tablestate_${tr}_${ph}_$(date +%s)_${rep}.json")
      set +e
      RES=$(REDIS_ACK="$REDIS_ACK" timeout 240 "${ON_LOADGEN[@]}" node "$HERE/tablestate/loadgen.js" "$ph" --port "$P" --transport "$tr" \
        --server-pids "$SPID,$PIDS" "${SAMPLES[@]}" ${LOADGEN_ARGS:-})
      RC=$?
      set -e
      stop_pid "$SPID"; SPID=""
      stop_pid "$XPID"; XPID=""
      stop_pid "$RPID"; RPID=""
      NAME="tablestate ($tr moves)"
      [ "$REDIS_ACK" = primary ] || NAME="tablestate ($tr moves, ack $REDIS_ACK)"
      if [ $RC -ne 0 ]; then
        echo "{\"server\":\"$NAME\",\"phase\":\"$ph\",\"rep\":$rep,\"error\":\"loadgen rc=$RC\"}" | tee -a "$OUT" "$THIS_RUN"
        tail -5 "$RUN/serve.log" >&2
        continue
      fi
      echo "${RES%\}},\"rep\":$rep,\"workers\":$WORKERS,\"commit\":\"$VERSION\",\"uncommitted\":\"$CHANGES\",\"pre_run_busy_pct\":$Q}" | tee -a "$OUT" "$THIS_RUN"
      rm -rf "$RUN/redis" "$RUN/replica"
      sleep 1
    done
  done
done
# final line: medians over this invocation's runs
node "$HERE/compare.js" --json "$THIS_RUN"
