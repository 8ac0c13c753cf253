// graphql-sse, the official client of GraphQL over Server-Sent Events (distinct
// connections mode): a player follows a table while a bot plays it; the connection is cut
// mid-game, the client reconnects by itself and resumes `after:` the last cursor it had,
// with no gap and no duplicate.
//
//   TABLESTATE_URL=http://127.0.0.1:8000 node --test sse.test.mjs

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient } from 'graphql-sse';
import { FOLLOW, HTTP_URL, MOVE, NOW, pick, post, storedCursors, until } from './clients/games.mjs';

const CREATE = `mutation($o: JSON) { createTable(gameId: "all-fives", options: $o, seats: 2) { hostToken table { id } } }`;
const JOIN = 'mutation($t: ID!) { joinTable(tableId: $t, name: "Ada") { seat playerToken } }';
const BOT = 'mutation($t: ID!) { addBot(tableId: $t) { id } }';
const START = 'mutation($t: ID!) { startGame(tableId: $t) { id } }';

async function ok(query, variables, token) {
  const body = await post(query, variables, token);
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data;
}

test('graphql-sse follows a table and resumes after a cut with after:', async () => {
  // A hand scores at most 26 points: to 31, the game cannot end in the first hand, where
  // the cut falls.
  const made = (await ok(CREATE, { o: { targetScore: 31 } })).createTable;
  const tableId = made.table.id;
  const ada = (await ok(JOIN, { t: tableId }, made.hostToken)).joinTable;
  await ok(BOT, { t: tableId }, ada.playerToken);

  // Every connection's fetch, so that the test can cut the current one like a network would.
  let current = null;
  let connections = 0;
  const fetchFn = (url, init) => {
    const cut = new AbortController();
    init.signal?.addEventListener('abort', () => cut.abort());
    current = cut;
    connections += 1;
    return fetch(url, { ...init, signal: cut.signal });
  };
  const client = createClient({
    url: HTTP_URL,
    singleConnection: false,
    headers: { authorization: `Bearer ${ada.playerToken}` },
    fetchFn,
    retryAttempts: 5,
    retry: () => new Promise((resolve) => setTimeout(resolve, 100)),
  });
  // The request is sent again as it is on a reconnection: it carries the newest cursor.
  const request = { query: FOLLOW, variables: { t: tableId, after: null } };
  const seen = [];
  let failed = null;
  const dispose = client.subscribe(request, {
    next: (result) => {
      if (result.errors) failed = result.errors;
      else {
        seen.push(result.data.tableEvents);
        request.variables.after = result.data.tableEvents.cursor;
      }
    },
    error: (err) => { failed = err; },
    complete: () => {},
  });
  try {
    await ok(START, { t: tableId }, ada.playerToken);
    const playSome = async (n) => {
      for (let i = 0; i < n; i += 1) {
        const table = (await ok(NOW, { t: tableId }, ada.playerToken)).table;
        if (table.status === 'FINISHED') return false;
        if (table.state.toAct.includes(ada.seat)) {
          await ok(MOVE, { t: tableId, m: pick(table.legalMoves), v: table.version }, ada.playerToken);
        } else await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return true;
    };
    assert.ok(await playSome(3), 'the game is still going at the cut');
    const before = (await storedCursors(tableId)).at(-1);
    await until(() => failed || seen.some((e) => e.cursor === before), 'the events before the cut');
    current.abort(); // the cut: the stream dies mid-game
    while (await playSome(20));
    const stored = await storedCursors(tableId);
    await until(() => failed || seen.at(-1)?.cursor === stored.at(-1), 'the events after the cut');
    assert.equal(failed, null, JSON.stringify(failed));
    assert.ok(connections >= 2, 'the client reconnected');
    assert.deepEqual(seen.map((e) => e.cursor), stored, 'no gap and no duplicate');
    assert.ok(seen.some((e) => 'private' in e.data), 'the seat sees its own cards');
  } finally {
    dispose();
    client.dispose();
  }
});
