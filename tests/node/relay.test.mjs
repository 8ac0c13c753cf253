// Relay, as a React app's usePaginationFragment and useRefetchableFragment use it, without
// React: relay-compiler compiles the test client's documents (relay/Tablestate.js) against
// schema/schema.graphql, and relay-runtime pages the tables and a table's events with its
// connection handler (loadNext: the compiler's pagination query, its edges appended to the
// connection in the store) and refetches a table through node(id:).
//
//   TABLESTATE_URL=http://127.0.0.1:8000 node --test relay.test.mjs

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import relay from 'relay-runtime';
import { HTTP_URL, MOVE, NOW, pick, post } from './clients/games.mjs';

const { Environment, Network, RecordSource, Store, fetchQuery, getSelector } = relay;
const HERE = dirname(fileURLToPath(import.meta.url));
const GENERATED = join(HERE, 'relay', '__generated__');
const require = createRequire(import.meta.url);
let artifacts = {};

async function ok(query, variables, token) {
  const body = await post(query, variables, token);
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data;
}

function environment(token) {
  const network = Network.create(async (params, variables) => {
    const headers = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(HTTP_URL, { method: 'POST', headers, body: JSON.stringify({ query: params.text, variables }) });
    return res.json();
  });
  return new Environment({ network, store: new Store(new RecordSource()) });
}

// What a component holding `ref` reads of `fragment` now.
const read = (env, fragment, ref) => env.lookup(getSelector(fragment, ref)).data;

// usePaginationFragment's loadNext until the end: the connection as the store holds it.
async function loadAll(env, fragment, ref, connectionOf, pagination, variables) {
  let loads = 0;
  for (;;) {
    const connection = connectionOf(read(env, fragment, ref));
    if (!connection.pageInfo.hasNextPage) return { connection, loads };
    await fetchQuery(env, pagination, { ...variables, cursor: connection.pageInfo.endCursor }).toPromise();
    loads += 1;
  }
}

before(() => {
  // Compile the client's documents, as its build would.
  rmSync(GENERATED, { recursive: true, force: true });
  mkdirSync(GENERATED, { recursive: true });
  writeFileSync(join(GENERATED, 'package.json'), '{"type": "commonjs"}\n');
  execFileSync(join(HERE, 'node_modules', '.bin', 'relay-compiler'), [], { cwd: HERE, stdio: 'pipe' });
  for (const name of ['TablestateTablesQuery', 'TablestateTablesPaginationQuery', 'Tablestate_tables', 'TablestateTableQuery',
    'TablestateEventsPaginationQuery', 'Tablestate_events', 'Tablestate_table', 'TablestateTableRefetchQuery']) {
    artifacts[name] = require(join(GENERATED, `${name}.graphql.js`));
  }
});

test('relay-runtime pages the tables with its connection handler', async () => {
  const made = [];
  for (let i = 0; i < 5; i += 1) {
    made.push((await ok('mutation { createTable(gameId: "all-fives", seats: 2) { table { id } } }')).createTable.table.id);
  }
  const env = environment(null);
  const root = await fetchQuery(env, artifacts.TablestateTablesQuery, { count: 2 }).toPromise();
  const first = read(env, artifacts.Tablestate_tables, root).tables;
  assert.equal(first.edges.length, 2);
  assert.ok(first.pageInfo.hasNextPage);
  const { connection, loads } = await loadAll(env, artifacts.Tablestate_tables, root, (d) => d.tables,
    artifacts.TablestateTablesPaginationQuery, { count: 2 });
  const ids = connection.edges.map((e) => e.node.id);
  assert.ok(loads >= 2, `${loads} pages loaded`);
  assert.equal(new Set(ids).size, ids.length, 'no table twice');
  for (const id of made) assert.ok(ids.includes(id), `${id} listed`);
  assert.deepEqual(ids.slice(0, 2), first.edges.map((e) => e.node.id), 'the first page stays first');
});

test("relay-runtime pages a table's events and refetches the table by node(id:)", async () => {
  const made = (await ok('mutation { createTable(gameId: "all-fives", options: {targetScore: 61}, seats: 2) { hostToken table { id } } }')).createTable;
  const tableId = made.table.id;
  const ada = (await ok('mutation($t: ID!) { joinTable(tableId: $t, name: "Ada") { seat playerToken } }', { t: tableId }, made.hostToken)).joinTable;
  await ok('mutation($t: ID!) { addBot(tableId: $t) { id } }', { t: tableId }, ada.playerToken);
  await ok('mutation($t: ID!) { startGame(tableId: $t) { id } }', { t: tableId }, ada.playerToken);
  for (let i = 0; i < 12; i += 1) { // a dozen moves: a few pages of events, still PLAYING
    const table = (await ok(NOW, { t: tableId }, ada.playerToken)).table;
    if (table.state.toAct.includes(ada.seat)) await ok(MOVE, { t: tableId, m: pick(table.legalMoves), v: table.version }, ada.playerToken);
    else await new Promise((resolve) => setTimeout(resolve, 5));
  }
  for (let i = 0; i < 400; i += 1) { // the bot's turn over: no event comes until Ada moves
    if ((await ok(NOW, { t: tableId }, ada.playerToken)).table.state.toAct.includes(ada.seat)) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const stored = (await ok('query($t: ID!) { table(id: $t) { version events(first: 1000) { cursor } } }', { t: tableId }, ada.playerToken)).table;

  const env = environment(ada.playerToken);
  const root = await fetchQuery(env, artifacts.TablestateTableQuery, { id: tableId, count: 5 }).toPromise();
  const { connection, loads } = await loadAll(env, artifacts.Tablestate_events, root.table, (d) => d.eventsConnection,
    artifacts.TablestateEventsPaginationQuery, { id: tableId, count: 5 });
  assert.ok(loads >= 2, `${loads} pages loaded`);
  assert.deepEqual(connection.edges.map((e) => e.node.cursor), stored.events.map((e) => e.cursor), 'every event once, in order');

  // The table as a component shows it, then refetched by its id after a change.
  const shown = read(env, artifacts.Tablestate_table, root.table);
  assert.equal(shown.id, tableId);
  assert.equal(shown.seats.length, 2);
  assert.ok(shown.seats.every((s) => typeof s.id === 'string'));
  await ok('mutation($t: ID!) { cancelTable(tableId: $t) { id } }', { t: tableId }, made.hostToken);
  const refetched = await fetchQuery(env, artifacts.TablestateTableRefetchQuery, { id: tableId }).toPromise();
  assert.equal(read(env, artifacts.Tablestate_table, refetched.node).id, tableId);
  const now = read(env, artifacts.Tablestate_table, root.table);
  assert.equal(now.status, 'CANCELLED', 'the store holds the refetched table');
  assert.ok(now.version > shown.version);
});
