'use strict';
// Load generator for Tablestate (`tablestate serve` + Redis) playing the phases A, B and C of
// WORKLOAD.md with the game `bench-counter` (bench/bench_game), written like the peers' loadgens.
//
// Client: the official `graphql-ws` client (graphql-transport-ws) over `ws`. Each player has its
// own WebSocket (connection_init {authToken: <seat token>}) carrying its `tableEvents`
// subscription and, with --transport ws (default), its `makeMove` mutations. With
// --transport http the moves are HTTP POSTs to /graphql (Authorization: Bearer, one keep-alive
// connection per player); the ack still comes over the player's own subscription.
//   Lobby ("join a match"): createTable(seats: 2), joinTable x2 (seat tokens), startGame (host).
//   Sync: the subscription starts at the table's first event (after: null); a player is synced
//         when it has received `game.started` (play order).
//   Move k of a match sends n = k mod 10. Ack (move latency) = the mover's own subscription
//         delivers the `number.played` event with data.turn > the turn it moved on.
//   The other player sends as soon as its subscription shows it is to act (playOrder[turn % 2]).
//   Spectators (phase C) connect without a token and subscribe the same way.
// Usage: node loadgen.js A|B|C|M [--port 8000] [--server-pids PID,PID] [--transport ws|http]
//        [--moves N] [--matches N] [--duration S] [--spectators N] [--samples-out FILE]
//        [--hard-s S] [--setup-batch N] [--connections N] [--subs-per-conn K] [--retry-unavailable]
// --server-pids: root pids of the server (tablestate serve, redis-server); their descendants
// (uvicorn workers) are found and summed too. --moves/--matches/--duration/--spectators shrink
// the phases for the smoke test, and grow them for the scaling curves (bench/scaling.py); the
// peer benchmark uses the WORKLOAD.md defaults. --hard-s overrides the hard deadline (for
// 1,000 tables or 5,000 spectators, whose setup alone takes a while); --setup-batch N creates
// and syncs the matches of B N at a time (default 1: one after the other, as before).
// --retry-unavailable: as a client told "retry later" would, resend a move refused with
// UNAVAILABLE after 50 ms (with an idempotency key; counted in moves_retried_unavailable).
// Phase M (memory, not in WORKLOAD.md): one match, then --connections N spectator connections
// with --subs-per-conn K tableEvents subscriptions each (batches of 20 connections); the server
// RSS (summed over its processes, and per process) before and after, after a 2 s settle each, and
// one move that every subscription must receive. Bytes per subscription = the growth / (N*K).
const fs = require('fs');
const http = require('http');
const WebSocket = require('ws');
const { createClient } = require('graphql-ws');
const S = require('../lib/stats');
const { MultiProcSampler, withDescendants, mem, statFields } = require('../lib/procs');

const args = process.argv.slice(2);
const phase = args[0];
const opt = (k, d) => { const i = args.indexOf('--' + k); return i >= 0 ? args[i + 1] : d; };
const PORT = Number(opt('port', 8000));
const SERVER_PIDS = String(opt('server-pids', '')).split(',').map(Number).filter(Boolean);
const TRANSPORT = opt('transport', 'ws');
const SAMPLES_OUT = opt('samples-out', null);
const BASE = `http://127.0.0.1:${PORT}`;
const WS_URL = `ws://127.0.0.1:${PORT}/graphql`;
S.assertLoopback(BASE);
if (!['ws', 'http'].includes(TRANSPORT)) { console.error('--transport is ws or http'); process.exit(2); }
const GAME = 'bench-counter';

const num = (k, d) => Number(opt(k, d));
const CFG = {
  A: { matches: 1, moves: num('moves', 2000), spectators: 0, hard_s: 180 },
  B: { matches: num('matches', 50), duration_s: num('duration', 20), maxMovesTotal: 2_000_000, spectators: 0, hard_s: 120 },
  C: { matches: 1, moves: num('moves', 200), spectators: num('spectators', 200), hard_s: 180 },
  M: { matches: 1, connections: num('connections', 100), subsPerConn: num('subs-per-conn', 1), hard_s: 180 },
}[phase];
if (!CFG) { console.error('phase must be A, B, C or M'); process.exit(2); }
S.hardDeadline(num('hard-s', CFG.hard_s), 'tablestate phase ' + phase);
const SETUP_BATCH = Math.max(1, num('setup-batch', 1));

const CREATE = 'mutation($g: ID!) { createTable(gameId: $g, seats: 2) { hostToken table { id } } }';
const JOIN = 'mutation($t: ID!, $n: String!) { joinTable(tableId: $t, name: $n) { seat playerToken } }';
const START = 'mutation($t: ID!) { startGame(tableId: $t) { status } }';
const MOVE = 'mutation($t: ID!, $n: Int!) { makeMove(tableId: $t, move: {benchCounter: {play: {n: $n}}}) { table { version } } }';
// With --retry-unavailable: each move carries an idempotency key, so that a resend after
// UNAVAILABLE ("retry later") cannot make the move twice.
const MOVE_IDEM = 'mutation($t: ID!, $n: Int!, $k: String) { makeMove(tableId: $t, move: {benchCounter: {play: {n: $n}}}, idempotencyKey: $k) { table { version } } }';
const RETRY_UNAVAILABLE = args.includes('--retry-unavailable');
const SUB = 'subscription($t: ID!) { tableEvents(tableId: $t, after: null) { cursor version type seat data } }';
const LIST = 'query($t: ID!) { table(id: $t) { version state { ... on BenchCounterState { list } } } }';

// ---- HTTP (lobby, final check, and moves with --transport http) ----
const setupAgent = new http.Agent({ keepAlive: true, maxSockets: 8 });
function gql(query, variables, token, agent = setupAgent) {
  const body = JSON.stringify({ query, variables });
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
  if (token) headers.authorization = 'Bearer ' + token;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: PORT, path: '/graphql', method: 'POST', agent, headers, timeout: 15000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        try { resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))); } catch (e) { reject(new Error(`HTTP ${res.statusCode}: bad JSON`)); }
      });
    });
    req.on('timeout', () => req.destroy(new Error('HTTP timeout')));
    req.on('error', reject);
    req.end(body);
  });
}
async function gqlData(query, variables, token) {
  const r = await gql(query, variables, token);
  if (r.errors) throw new Error(`${query.slice(0, 40)}... -> ${JSON.stringify(r.errors)}`);
  return r.data;
}
async function createMatch() {
  const made = (await gqlData(CREATE, { g: GAME })).createTable;
  const tableId = made.table.id;
  const tokens = {};
  for (const name of ['p0', 'p1']) {
    const j = (await gqlData(JOIN, { t: tableId, n: name })).joinTable;
    tokens[j.seat] = j.playerToken;
  }
  await gqlData(START, { t: tableId }, made.hostToken);
  return { tableId, tokens };
}

// ---- WebSocket (graphql-transport-ws via the official client) ----
const errors = { move: 0, subscription: 0, first: null, retried: 0 };
function noteError(kind, e) {
  errors[kind]++;
  if (!errors.first) errors.first = `${kind}: ${e && e.message ? e.message : JSON.stringify(e)}`.slice(0, 300);
}
function connect(token) {
  return createClient({
    url: WS_URL,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authToken: token } : {},
    lazy: true,
    retryAttempts: 0,
    keepAlive: 0,
  });
}
// Subscribe to the table's events; resolves once `game.started` arrived (synced) with its play order.
function subscribeTable(client, tableId, onEvent) {
  return new Promise((resolve, reject) => {
    let synced = false;
    const to = setTimeout(() => reject(new Error('sync timeout')), 15000);
    client.subscribe({ query: SUB, variables: { t: tableId } }, {
      next: (msg) => {
        if (msg.errors) { noteError('subscription', msg.errors[0]); return; }
        const ev = msg.data.tableEvents;
        if (!synced && ev.type === 'game.started') { synced = true; clearTimeout(to); resolve(ev.data.playOrder); }
        onEvent(ev);
      },
      error: (e) => { noteError('subscription', e); clearTimeout(to); reject(e instanceof Error ? e : new Error('subscription error')); },
      complete: () => {},
    });
  });
}

// One match: two players, each on its own connection, alternating moves.
class Match {
  constructor(tableId, tokens, opts) {
    this.tableId = tableId; this.tokens = tokens; this.opts = opts;
    this.moveCount = 0;   // moves sent
    this.acked = 0;       // moves acked to their mover
    this.lat = opts.lat;  // shared latency array (ms)
    this.players = {};
    this.order = null;
    this.lastListLen = 0;
  }
  async setup() {
    for (const seat of Object.keys(this.tokens).map(Number)) {
      const p = { seat, client: connect(this.tokens[seat]), turn: -1, current: null, pending: null };
      if (TRANSPORT === 'http') p.agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      this.players[seat] = p;
      this.order = await subscribeTable(p.client, this.tableId, (ev) => this.onEvent(p, ev));
    }
  }
  send(p) {
    const k = this.moveCount++;
    const n = k % 10;
    const t0 = S.nowMs();
    p.pending = { turn: p.turn, t0 };
    this.opts.onSend && this.opts.onSend(this, p.turn, t0);
    const variables = { t: this.tableId, n };
    if (RETRY_UNAVAILABLE) variables.k = `${this.tableId}:${k}`;
    this.post(p, variables, 0);
  }
  // One attempt of a move; with --retry-unavailable an UNAVAILABLE answer is sent again after
  // 50 ms (10 attempts at most); the latency still counts from the first send.
  post(p, variables, attempt) {
    const query = RETRY_UNAVAILABLE ? MOVE_IDEM : MOVE;
    const onErrors = (errs) => {
      const code = errs[0] && errs[0].extensions && errs[0].extensions.code;
      if (RETRY_UNAVAILABLE && code === 'UNAVAILABLE' && attempt < 9) {
        errors.retried++;
        setTimeout(() => this.post(p, variables, attempt + 1), 50);
      } else noteError('move', errs[0]);
    };
    if (TRANSPORT === 'ws') {
      p.client.subscribe({ query, variables }, {
        next: (r) => { if (r.errors) onErrors(r.errors); },
        error: (e) => noteError('move', e),
        complete: () => {},
      });
    } else {
      gql(query, variables, this.tokens[p.seat], p.agent).then(
        (r) => { if (r.errors) onErrors(r.errors); },
        (e) => noteError('move', e));
    }
  }
  onEvent(p, ev) {
    if (ev.type === 'game.started') { // the sync: nothing is sent on it
      p.turn = 0; p.current = ev.data.playOrder[0];
      return;
    }
    if (ev.type !== 'number.played') return;
    p.turn = ev.data.turn; p.current = this.order[p.turn % this.order.length];
    if (p.turn > this.lastListLen) this.lastListLen = p.turn;
    if (p.pending && p.turn > p.pending.turn) {
      this.lat.push(S.nowMs() - p.pending.t0);
      p.pending = null; this.acked++;
      this.opts.onAck && this.opts.onAck(this);
    }
    if (p.current === p.seat && !p.pending && this.started && this.opts.canSend(this)) {
      if (this.opts.gate) this.opts.gate(this, () => this.send(p)); else this.send(p);
    }
  }
  start() { this.started = true; this.send(this.players[this.order[0]]); }
  anyPending() { return Object.values(this.players).some((p) => p.pending); }
  close() {
    for (const p of Object.values(this.players)) {
      try { p.client.dispose(); } catch (e) { /* closing anyway */ }
      if (p.agent) p.agent.destroy();
    }
  }
}

// The table's list as the server has it (outside the measurement window).
async function serverList(tableId, token) {
  const t = (await gqlData(LIST, { t: tableId }, token)).table;
  return t.state.list;
}
const listIsSequence = (list) => list.every((n, k) => n === k % 10);
function dumpSamples(samples) {
  if (!SAMPLES_OUT) return;
  const round = (xs) => xs.map((x) => Math.round(x * 1000) / 1000);
  const out = {}; for (const [k, v] of Object.entries(samples)) out[k] = round(v);
  fs.writeFileSync(SAMPLES_OUT, JSON.stringify({ server: serverName(), phase, ...out }));
}
const serverName = () => `tablestate (${TRANSPORT} moves)`;
const errorFields = () => ({ move_errors: errors.move, subscription_errors: errors.subscription, ...(RETRY_UNAVAILABLE ? { moves_retried_unavailable: errors.retried } : {}), ...(errors.first ? { first_error: errors.first } : {}) });

async function phaseA() {
  const lat = [];
  const { tableId, tokens } = await createMatch();
  let done;
  const finished = new Promise((r) => (done = r));
  const m = new Match(tableId, tokens, {
    lat,
    canSend: (mm) => mm.moveCount < CFG.moves,
    onAck: (mm) => { if (mm.acked >= CFG.moves) done(); },
  });
  await m.setup();
  const sampler = new MultiProcSampler(SERVER_PIDS);
  sampler.start();
  const t0 = S.nowMs();
  m.start();
  await finished;
  const wall = (S.nowMs() - t0) / 1000;
  const proc = sampler.stop();
  const list = await serverList(tableId, tokens[0]);
  m.close();
  dumpSamples({ latency: lat });
  return {
    moves: m.acked, wall_s: +wall.toFixed(3), moves_per_s: +(m.acked / wall).toFixed(1), latency: S.summarize(lat),
    final_list_len: list.length, final_list_ok: list.length === m.acked && listIsSequence(list), events_list_len: m.lastListLen,
    ...errorFields(), ...proc,
  };
}

async function phaseB() {
  const lat = [];
  const matches = [];
  let running = false; let totalSent = 0;
  const opts = { lat, canSend: () => running && totalSent < CFG.maxMovesTotal, onSend: () => totalSent++ };
  for (let i = 0; i < CFG.matches; i += SETUP_BATCH) {
    const made = await Promise.all(Array.from({ length: Math.min(SETUP_BATCH, CFG.matches - i) }, createMatch));
    for (const { tableId, tokens } of made) matches.push(new Match(tableId, tokens, opts));
  }
  for (let i = 0; i < matches.length; i += SETUP_BATCH) await Promise.all(matches.slice(i, i + SETUP_BATCH).map((m) => m.setup()));
  const sampler = new MultiProcSampler(SERVER_PIDS);
  sampler.start();
  running = true;
  const t0 = S.nowMs();
  for (const m of matches) m.start();
  await S.sleep(CFG.duration_s * 1000);
  running = false;
  const wall = (S.nowMs() - t0) / 1000;
  const proc = sampler.stop();
  const ackedInWindow = matches.reduce((a, m) => a + m.acked, 0);
  const latInWindow = lat.slice();
  const perMatch = matches.map((m) => m.acked);
  // drain in-flight moves (bounded)
  const tEnd = S.nowMs() + 5000;
  while (S.nowMs() < tEnd && matches.some((m) => m.anyPending())) await S.sleep(20);
  const undrained = matches.filter((m) => m.anyPending()).length;
  for (const m of matches) m.close();
  dumpSamples({ latency: latInWindow });
  return {
    matches: CFG.matches, duration_s: +wall.toFixed(3), moves_acked: ackedInWindow, moves_sent: totalSent,
    moves_per_s: +(ackedInWindow / wall).toFixed(1), latency: S.summarize(latInWindow),
    per_match_moves_min: Math.min(...perMatch), per_match_moves_max: Math.max(...perMatch),
    matches_undrained: undrained, ...errorFields(), ...proc,
  };
}

async function phaseC() {
  const lat = [];       // mover ack latency
  const fan = [];       // per-spectator delivery latency
  const { tableId, tokens } = await createMatch();
  const sendTimes = new Map(); // resulting turn -> t0
  let moveDone = null;         // resolves when all spectators + mover have the event
  let specRecv = 0; let moverAcked = false;
  const m = new Match(tableId, tokens, {
    lat,
    canSend: () => false, // moves are driven explicitly below, one at a time
    onSend: (_mm, turn, t0) => { sendTimes.set(turn + 1, t0); },
    onAck: () => { moverAcked = true; if (specRecv >= CFG.spectators && moveDone) moveDone(); },
  });
  await m.setup();
  const specs = [];
  const connectSpec = async () => {
    const client = connect(null);
    specs.push(client);
    await subscribeTable(client, tableId, (ev) => {
      if (ev.type !== 'number.played') return;
      const t0 = sendTimes.get(ev.data.turn);
      if (t0 !== undefined) { fan.push(S.nowMs() - t0); specRecv++; if (specRecv >= CFG.spectators && moverAcked && moveDone) moveDone(); }
    });
  };
  for (let i = 0; i < CFG.spectators; i += 20) await Promise.all(Array.from({ length: Math.min(20, CFG.spectators - i) }, connectSpec));
  const sampler = new MultiProcSampler(SERVER_PIDS);
  sampler.start();
  const t0 = S.nowMs();
  let incomplete = 0;
  let expectedTurn = 0;
  for (let k = 0; k < CFG.moves; k++) {
    specRecv = 0; moverAcked = false;
    const p = m.players[m.order[k % 2]]; // play order: order[0], order[1], order[0], ...
    // the mover must have seen the previous move before it moves (bounded wait)
    const tw = S.nowMs() + 5000;
    while (p.turn !== expectedTurn && S.nowMs() < tw) await new Promise((r) => setImmediate(r));
    const waitP = new Promise((r) => (moveDone = r));
    m.send(p);
    const to = S.sleep(5000).then(() => 'timeout');
    if ((await Promise.race([waitP, to])) === 'timeout') incomplete++;
    moveDone = null;
    expectedTurn++;
  }
  const wall = (S.nowMs() - t0) / 1000;
  const proc = sampler.stop();
  const list = await serverList(tableId, tokens[0]);
  m.close(); for (const c of specs) { try { c.dispose(); } catch (e) { /* closing anyway */ } }
  dumpSamples({ fanout: fan, mover_latency: lat });
  return {
    moves: CFG.moves, spectators: CFG.spectators, deliveries: fan.length, expected_deliveries: CFG.moves * CFG.spectators,
    incomplete_moves: incomplete, wall_s: +wall.toFixed(3), fanout: S.summarize(fan), mover_latency: S.summarize(lat),
    final_list_len: list.length, ...errorFields(), ...proc,
  };
}

// Server RSS now: the sum over the server's processes (kB) and each process's (by command name).
function rssNow() {
  const pids = withDescendants(SERVER_PIDS);
  const per = {}; let sum = 0;
  for (const pid of pids) {
    try {
      const kb = mem(pid).rss_kb; const name = `${statFields(pid).comm}[${pid}]`;
      per[name] = kb; sum += kb;
    } catch (e) { /* gone meanwhile */ }
  }
  return { sum, per };
}

async function phaseM() {
  const lat = [];
  const { tableId, tokens } = await createMatch();
  const m = new Match(tableId, tokens, { lat, canSend: () => false });
  await m.setup();
  const total = CFG.connections * CFG.subsPerConn;
  await S.sleep(2000);
  const before = rssNow();
  const t0 = S.nowMs();
  let received = 0;
  const clients = [];
  const openOne = async () => {
    const client = connect(null);
    clients.push(client);
    const subs = [];
    for (let k = 0; k < CFG.subsPerConn; k++) {
      subs.push(subscribeTable(client, tableId, (ev) => { if (ev.type === 'number.played') received++; }));
    }
    await Promise.all(subs);
  };
  for (let i = 0; i < CFG.connections; i += 20) await Promise.all(Array.from({ length: Math.min(20, CFG.connections - i) }, openOne));
  const openS = (S.nowMs() - t0) / 1000;
  await S.sleep(2000);
  const after = rssNow();
  // one move: every subscription must deliver it (bounded wait)
  m.send(m.players[m.order[0]]);
  const tw = S.nowMs() + 15000;
  while (received < total && S.nowMs() < tw) await S.sleep(20);
  const perProcess = {};
  for (const [name, kb] of Object.entries(after.per)) perProcess[name] = { before_mb: Math.round((before.per[name] || 0) / 102.4) / 10, after_mb: Math.round(kb / 102.4) / 10 };
  m.close(); for (const c of clients) { try { c.dispose(); } catch (e) { /* closing anyway */ } }
  return {
    connections: CFG.connections, subs_per_conn: CFG.subsPerConn, subscriptions: total, open_s: +openS.toFixed(2),
    deliveries: received, expected_deliveries: total,
    server_rss_before_mb: Math.round(before.sum / 102.4) / 10, server_rss_after_mb: Math.round(after.sum / 102.4) / 10,
    bytes_per_subscription: Math.round(((after.sum - before.sum) * 1024) / total),
    per_process: perProcess, ...errorFields(),
  };
}

(async () => {
  const fn = { A: phaseA, B: phaseB, C: phaseC, M: phaseM }[phase];
  const res = await fn();
  console.log(JSON.stringify({ server: serverName(), phase, transport: TRANSPORT, ts: new Date().toISOString(), ...res }));
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
