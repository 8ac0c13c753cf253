// A JavaScript client nobody on the team wrote: `graphql-ws` (the reference
// graphql-transport-ws client) over `ws`, and `graphql` to check every document against
// the server's own schema, as any JavaScript frontend would. It creates tables, seats
// players, subscribes, plays a full game of each bundled game with random legal moves,
// resumes a dropped subscription from its cursor and checks the error codes.
//
//   TABLESTATE_URL=http://127.0.0.1:8000 node --test conformance.test.mjs

import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { before, test } from 'node:test';
import { buildClientSchema, getIntrospectionQuery, parse, validate } from 'graphql';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const BASE = (process.env.TABLESTATE_URL || 'http://127.0.0.1:8000').replace(/\/$/, '');
const HTTP_URL = `${BASE}/graphql`;
const WS_URL = HTTP_URL.replace(/^http/, 'ws');

// Short games through the table options. Five by Five is shortened with prefilled squares
// where the server offers that option, and played to a full board from there.
const GAMES = [
  { id: 'five-crowns', options: { rounds: 1 } },
  { id: 'all-fives', options: { targetScore: 15 } },
  { id: 'five-by-five', options: null },
];

let schema = null;
const checked = new Set();

// -- HTTP ----------------------------------------------------------------------------

async function post(query, variables = {}, token = undefined, check = true) {
  if (check && schema && !checked.has(query)) {
    const errors = validate(schema, parse(query));
    assert.deepEqual(errors.map((e) => e.message), [], `invalid document:\n${query}`);
    checked.add(query);
  }
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(HTTP_URL, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return res.json();
}

// The data of a request that must succeed.
async function q(query, variables, token) {
  const body = await post(query, variables, token);
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data;
}

// The error of a request that must fail: its extensions.code (and the error itself).
async function refused(query, variables, token) {
  const body = await post(query, variables, token);
  assert.ok(body.errors?.length, `expected a refusal, got ${JSON.stringify(body.data)}`);
  return body.errors[0].extensions.code;
}

const CREATE = `mutation Create($game: ID!, $options: JSON, $seats: Int, $rules: [ID!]) {
  createTable(gameId: $game, options: $options, seats: $seats, houseRules: $rules) { hostToken table { id status shuffleCommitment } }
}`;
const JOIN = `mutation Join($t: ID!, $name: String!, $seed: String) {
  joinTable(tableId: $t, name: $name, clientSeed: $seed) { seat playerToken table { version } }
}`;
const ADD_BOT = 'mutation AddBot($t: ID!) { addBot(tableId: $t) { version } }';
const LEAVE = 'mutation Leave($t: ID!) { leaveTable(tableId: $t) { version } }';
const START = 'mutation Start($t: ID!) { startGame(tableId: $t) { status version } }';
const NOW = `query Now($t: ID!) {
  table(id: $t) { status version cursor state { gameId toAct } legalMoves }
}`;
const MOVE = `mutation Move($t: ID!, $m: MoveInput!, $v: Int, $k: String) {
  makeMove(tableId: $t, move: $m, expectedVersion: $v, idempotencyKey: $k) {
    table { version }
    events { cursor version type }
  }
}`;
const EVENTS = `query Events($t: ID!, $after: String) {
  table(id: $t) { events(after: $after, first: 1000) { cursor version type seat data } }
}`;
const FINISHED = `query Finished($t: ID!) {
  table(id: $t) {
    status cursor shuffleCommitment shuffleSeed
    result { winners scores }
    seats { index kind score }
  }
}`;
const FOLLOW = `subscription Follow($t: ID!, $after: String) {
  tableEvents(tableId: $t, after: $after) { cursor version type seat data }
}`;

async function allEvents(tableId) {
  const out = [];
  let after = null;
  for (;;) {
    const page = (await q(EVENTS, { t: tableId, after })).table.events;
    out.push(...page);
    if (page.length < 1000) return out;
    after = page.at(-1).cursor;
  }
}

// -- WebSocket -----------------------------------------------------------------------

function wsClient(token, options = {}) {
  return createClient({
    url: WS_URL,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authToken: token } : {},
    retryAttempts: 0,
    ...options,
  });
}

// Follow a table: the events in order; `after` tracks the newest cursor, so a client
// that retries its socket resumes where it stopped.
function follow(client, tableId, after = null) {
  const variables = { t: tableId, after };
  const feed = { events: [], error: null, variables };
  let wake = () => {};
  feed.dispose = client.subscribe(
    { query: FOLLOW, variables },
    {
      next: (result) => {
        if (result.errors) feed.error = result.errors;
        else {
          feed.events.push(result.data.tableEvents);
          variables.after = result.data.tableEvents.cursor;
        }
        wake();
      },
      error: (err) => {
        feed.error = err;
        wake();
      },
      complete: () => wake(),
    },
  );
  // Wait until `done(feed)` holds (or the subscription fails).
  feed.until = async (done, ms = 20_000) => {
    const deadline = Date.now() + ms;
    while (!done(feed)) {
      if (feed.error) assert.fail(`subscription failed: ${JSON.stringify(feed.error)}`);
      const left = deadline - Date.now();
      assert.ok(left > 0, `timed out with ${feed.events.length} events`);
      await new Promise((resolve) => {
        wake = resolve;
        setTimeout(resolve, Math.min(left, 200));
      });
    }
  };
  return feed;
}

// -- helpers -------------------------------------------------------------------------

const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];

function assertSameEvents(seen, stored) {
  assert.deepEqual(
    seen.map((e) => e.cursor),
    stored.map((e) => e.cursor),
  );
  assert.equal(new Set(seen.map((e) => e.cursor)).size, seen.length, 'no duplicate');
  for (let i = 1; i < seen.length; i += 1) assert.ok(seen[i].version >= seen[i - 1].version, 'versions never go back');
}

async function openTable(gameId, options, seats = 2) {
  const made = (await q(CREATE, { game: gameId, options, seats })).createTable;
  assert.equal(made.table.status, 'OPEN');
  assert.match(made.table.shuffleCommitment, /^[0-9a-f]{64}$/);
  return { tableId: made.table.id, host: made.hostToken, commitment: made.table.shuffleCommitment };
}

async function join(tableId, name, token) {
  const joined = (await q(JOIN, { t: tableId, name, seed: randomUUID() }, token)).joinTable;
  return { seat: joined.seat, token: joined.playerToken };
}

// One random legal move of whoever is to act; false once the table is finished.
async function playOne(tableId, players) {
  for (const p of players) {
    const now = (await q(NOW, { t: tableId }, p.token)).table;
    if (now.status === 'FINISHED') return false;
    assert.equal(now.status, 'PLAYING');
    if (!now.state.toAct.includes(p.seat)) continue;
    assert.ok(now.legalMoves.length > 0, `seat ${p.seat} is to act with no legal move`);
    const move = pick(now.legalMoves);
    const made = (await q(MOVE, { t: tableId, m: move, v: now.version, k: randomUUID() }, p.token)).makeMove;
    assert.equal(made.table.version, now.version + 1);
    assert.ok(made.events.every((e) => e.version === now.version + 1));
    return true;
  }
  // Nobody we play is to act: a bot is, and moves by itself.
  await new Promise((resolve) => setTimeout(resolve, 5));
  return true;
}

async function checkFinished(tableId, commitment, seats) {
  const done = (await q(FINISHED, { t: tableId })).table;
  assert.equal(done.status, 'FINISHED');
  assert.equal(done.result.scores.length, seats);
  assert.ok(done.result.winners.length >= 1);
  assert.equal(done.shuffleCommitment, commitment);
  // The revealed seed is the one committed to at creation: SHA-256(seed) == commitment.
  const digest = createHash('sha256').update(Buffer.from(done.shuffleSeed, 'hex')).digest('hex');
  assert.equal(digest, commitment);
  return done;
}

// -- tests ---------------------------------------------------------------------------

before(async () => {
  const body = await post(getIntrospectionQuery());
  schema = buildClientSchema(body.data);
  const games = (await q('{ games { id options } }')).games;
  for (const game of GAMES) {
    const found = games.find((g) => g.id === game.id);
    assert.ok(found, `${game.id} is installed`);
    if (game.id === 'five-by-five' && found.options.properties?.prefilledSquares) game.options = { prefilledSquares: 12 };
  }
});

for (const game of GAMES) {
  test(`a full game of ${game.id} with random legal moves, followed live`, async (t) => {
    const { tableId, host, commitment } = await openTable(game.id, game.options);
    // The host plays too: joining with the host token gives a seat token with host rights.
    const ada = await join(tableId, 'Ada', host);
    const bob = await join(tableId, 'Bob');
    const watcher = wsClient();
    const adaSocket = wsClient(ada.token);
    try {
      const spectator = follow(watcher, tableId);
      const adaFeed = follow(adaSocket, tableId);
      const started = (await q(START, { t: tableId }, ada.token)).startGame;
      assert.equal(started.status, 'PLAYING');
      let moves = 0;
      while (await playOne(tableId, [ada, bob])) {
        moves += 1;
        assert.ok(moves < 5000, 'random legal play ends every game');
      }
      t.diagnostic(`${moves} moves`);
      const done = await checkFinished(tableId, commitment, 2);
      const stored = await allEvents(tableId);
      assert.equal(stored.at(-1).cursor, done.cursor);
      await spectator.until((f) => f.events.at(-1)?.cursor === done.cursor);
      await adaFeed.until((f) => f.events.at(-1)?.cursor === done.cursor);
      assertSameEvents(spectator.events, stored);
      assertSameEvents(adaFeed.events, stored);
      assert.equal(stored[0].type, 'table.created');
      // Secrecy: the spectator sees no private part; Ada sees her own.
      assert.ok(spectator.events.every((e) => !('private' in e.data)));
      assert.ok(adaFeed.events.some((e) => 'private' in e.data));
    } finally {
      await watcher.dispose();
      await adaSocket.dispose();
    }
  });
}

test('a dropped subscription resumes from its cursor, with no gap and no duplicate', async () => {
  const { tableId, host } = await openTable('all-fives', { targetScore: 15 });
  const ada = await join(tableId, 'Ada', host);
  await q(ADD_BOT, { t: tableId }, ada.token);
  let socket = null;
  let connections = 0;
  const client = wsClient(ada.token, {
    retryAttempts: 5,
    retryWait: () => new Promise((resolve) => setTimeout(resolve, 100)),
    on: {
      connected: (s) => {
        socket = s;
        connections += 1;
      },
    },
  });
  try {
    const feed = follow(client, tableId);
    await q(START, { t: tableId }, ada.token);
    for (let i = 0; i < 3; i += 1) await playOne(tableId, [ada]);
    // A bot may move after `now` is read: wait for `now` to arrive, not to be the last.
    const has = (cursor) => (f) => f.events.some((e) => e.cursor === cursor);
    let now = (await q(NOW, { t: tableId })).table;
    await feed.until(has(now.cursor));
    const before = feed.events.length;
    // A network failure: the socket dies without a close frame (1006). Moves made while
    // it is down must arrive once it is back.
    socket.terminate();
    for (let i = 0; i < 8 && (await playOne(tableId, [ada])); i += 1);
    now = (await q(NOW, { t: tableId })).table;
    await feed.until(has(now.cursor));
    assert.equal(connections, 2, 'the client reconnected once');
    assert.ok(feed.events.length > before);
    const stored = await allEvents(tableId);
    assertSameEvents(feed.events, stored.slice(0, feed.events.length));

    // A new subscription from any cursor starts right after it.
    const k = Math.floor(stored.length / 2);
    const again = follow(client, tableId, stored[k].cursor);
    await again.until(has(now.cursor));
    assertSameEvents(again.events, stored.slice(k + 1, k + 1 + again.events.length));
    again.dispose();
    feed.dispose();
  } finally {
    await client.dispose();
  }
});

test('refusals carry their extensions.code', async () => {
  const { tableId, host } = await openTable('five-crowns', { rounds: 1 }, 3);
  const other = await openTable('five-crowns', { rounds: 1 }, 2);
  const move = { fiveCrowns: { draw: { source: 'STOCK' } } };

  assert.equal(await refused(CREATE, { game: 'no-such-game' }), 'NOT_FOUND');
  assert.equal(await refused(CREATE, { game: 'five-crowns', options: { rounds: 99 } }), 'BAD_INPUT');
  assert.equal(await refused(CREATE, { game: 'five-crowns', rules: ['all-fives/peg-out'] }), 'RULE_CONFLICT');
  assert.equal(await refused(CREATE, { game: 'five-crowns', seats: 12 }), 'BAD_INPUT');
  assert.equal(await refused(JOIN, { t: 'no-such-table', name: 'Ada' }), 'NOT_FOUND');
  assert.equal(await refused(MOVE, { t: tableId, m: move }), 'UNAUTHENTICATED');
  assert.equal(await refused(MOVE, { t: tableId, m: move }, 'not-a-token'), 'UNAUTHENTICATED');
  assert.equal(await refused('{ viewer { seat } }', {}, `${tableId}.forged`), 'UNAUTHENTICATED');
  const aliases = Array.from({ length: 40 }, (_, i) => `g${i}: games { id }`).join(' ');
  assert.equal(await refused(`{ ${aliases} }`), 'QUERY_TOO_COMPLEX');
  // A document that fails validation (sent unchecked, on purpose) is BAD_INPUT too.
  const invalid = await post('{ games { id noSuchField } }', {}, undefined, false);
  assert.equal(invalid.errors[0].extensions.code, 'BAD_INPUT');
  assert.equal((await q('query($t: ID!) { table(id: $t) { id } }', { t: 'no-such-table' })).table, null);

  const ada = await join(tableId, 'Ada', host);
  const bob = await join(tableId, 'Bob');
  const carl = await join(tableId, 'Carl');
  assert.equal(await refused(JOIN, { t: tableId, name: 'Dee' }), 'TABLE_FULL');
  assert.equal(await refused(ADD_BOT, { t: tableId }, bob.token), 'FORBIDDEN');
  assert.equal(await refused(START, { t: tableId }, bob.token), 'FORBIDDEN');
  assert.equal(await refused(ADD_BOT, { t: tableId }, other.host), 'FORBIDDEN', "another table's token");
  assert.equal(await refused(MOVE, { t: tableId, m: move }, ada.token), 'TABLE_NOT_PLAYING');
  await q(LEAVE, { t: tableId }, carl.token);
  await q(START, { t: tableId }, ada.token);
  assert.equal(await refused(JOIN, { t: tableId, name: 'Dee' }), 'TABLE_NOT_OPEN');
  // A playing table may be left (a bot takes the seat); the host token has no seat to leave.
  assert.equal(await refused(LEAVE, { t: tableId }, host), 'FORBIDDEN');

  const now = (await q(NOW, { t: tableId }, ada.token)).table;
  const [toAct] = now.state.toAct;
  const mover = toAct === ada.seat ? ada : bob;
  const waiting = toAct === ada.seat ? bob : ada;
  const legal = (await q(NOW, { t: tableId }, mover.token)).table.legalMoves;
  assert.equal(await refused(MOVE, { t: tableId, m: legal[0] }, waiting.token), 'NOT_YOUR_TURN');
  assert.equal(await refused(MOVE, { t: tableId, m: { allFives: { stand: true } } }, mover.token), 'BAD_INPUT');
  // Discarding before drawing: well-formed, but the rules refuse it, and say why.
  const body = await post(MOVE, { t: tableId, m: { fiveCrowns: { discard: { card: '3S' } } } }, mover.token);
  assert.equal(body.errors[0].extensions.code, 'ILLEGAL_MOVE');
  assert.equal(typeof body.errors[0].extensions.reason, 'string');
  assert.equal(await refused(MOVE, { t: tableId, m: legal[0], v: now.version - 1 }, mover.token), 'VERSION_CONFLICT');
  // A refused request changed nothing.
  assert.equal((await q(NOW, { t: tableId })).table.version, now.version);

  // Idempotency: the same key and move apply once; the same key with another move is BAD_INPUT.
  const key = randomUUID();
  const first = (await q(MOVE, { t: tableId, m: legal[0], k: key }, mover.token)).makeMove;
  const second = (await q(MOVE, { t: tableId, m: legal[0], k: key }, mover.token)).makeMove;
  assert.deepEqual(second.events, first.events);
  assert.equal((await q(NOW, { t: tableId })).table.version, now.version + 1);
  const different = legal.find((m) => JSON.stringify(m) !== JSON.stringify(legal[0]));
  if (different) assert.equal(await refused(MOVE, { t: tableId, m: different, k: key }, mover.token), 'BAD_INPUT');

  // WebSocket: a bad token closes the connection with 4403; a bad cursor is BAD_INPUT.
  const bad = wsClient('not-a-token');
  const rejected = follow(bad, tableId);
  await rejected.until((f) => f.error !== null).catch(() => {});
  assert.equal(rejected.error?.code, 4403);
  await bad.dispose();
  const good = wsClient();
  try {
    const wrong = follow(good, tableId, 'not-a-cursor');
    await wrong.until((f) => f.error !== null).catch(() => {});
    assert.equal(wrong.error?.[0]?.extensions?.code, 'BAD_INPUT');
    const missing = follow(good, 'no-such-table');
    await missing.until((f) => f.error !== null).catch(() => {});
    assert.equal(missing.error?.[0]?.extensions?.code, 'NOT_FOUND');
  } finally {
    await good.dispose();
  }
});
