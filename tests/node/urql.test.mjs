// urql with Graphcache and no `keys` configuration (only the schema, for the game states'
// fragments): one player's subscription over graphql-ws, the other's over HTTP (urql's
// fetchExchange with fetchSubscriptions). Each plays a full game of each bundled game
// through its own client and follows it; Graphcache normalizes every object (it warns
// for any it cannot key) and logs no warning.
//
//   TABLESTATE_URL=http://127.0.0.1:8000 node --test urql.test.mjs

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, fetchExchange, gql, subscriptionExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { getIntrospectionQuery } from 'graphql';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import {
  CREATE, FOLLOW, HTTP_URL, JOIN, MOVE, START, WS_URL, nowOf,
  captureWarnings, playOut, post, shortOptions, storedCursors, until,
} from './clients/games.mjs';

const warnings = captureWarnings();
const closers = [];
let schema = null;
let games = [];

function urql(token, ws) {
  const exchanges = [cacheExchange({ schema })];
  if (ws) {
    const socket = createClient({
      url: WS_URL,
      webSocketImpl: WebSocket,
      connectionParams: token ? { authToken: token } : {},
      retryAttempts: 0,
    });
    closers.push(() => socket.dispose());
    exchanges.push(subscriptionExchange({
      forwardSubscription(request) {
        const input = { ...request, query: request.query || '' };
        return { subscribe: (sink) => ({ unsubscribe: socket.subscribe(input, sink) }) };
      },
    }));
  }
  exchanges.push(fetchExchange);
  return new Client({
    url: HTTP_URL,
    exchanges,
    fetchSubscriptions: !ws,
    fetchOptions: token ? { headers: { authorization: `Bearer ${token}` } } : {},
  });
}

function follow(client, tableId) {
  const feed = { events: [], error: null };
  const sub = client.subscription(gql(FOLLOW), { t: tableId, after: null }).subscribe((result) => {
    if (result.error) feed.error = result.error;
    else if (result.data) feed.events.push(result.data.tableEvents);
  });
  closers.push(() => sub.unsubscribe());
  return feed;
}

async function ok(promise) {
  const result = await promise.toPromise();
  assert.equal(result.error, undefined, String(result.error));
  return result.data;
}

before(async () => {
  schema = (await post(getIntrospectionQuery())).data;
  games = await shortOptions(post);
});
after(async () => { for (const close of closers.reverse()) await close(); });

for (const name of ['five-crowns', 'all-fives', 'five-by-five']) {
  test(`urql with Graphcache plays and follows a full game of ${name}`, async (t) => {
    const game = games.find((g) => g.id === name);
    const lobby = urql(null, false);
    const made = (await ok(lobby.mutation(gql(CREATE), { game: game.id, options: game.options, seats: 2 }))).createTable;
    const tableId = made.table.id;
    const joined = (await ok(urql(made.hostToken, false).mutation(gql(JOIN), { t: tableId, name: 'Ada' }))).joinTable;
    const ada = { seat: joined.seat, client: urql(joined.playerToken, true) };
    const bobJoined = (await ok(lobby.mutation(gql(JOIN), { t: tableId, name: 'Bob' }))).joinTable;
    const bob = { seat: bobJoined.seat, client: urql(bobJoined.playerToken, false) };
    const adaFeed = follow(ada.client, tableId); // over graphql-ws
    const bobFeed = follow(bob.client, tableId); // over HTTP
    await ok(ada.client.mutation(gql(START), { t: tableId }));

    const now = async (p) => (await ok(p.client.query(gql(nowOf(name)), { t: tableId }, { requestPolicy: 'network-only' }))).table;
    const move = (p, table, m) => ok(p.client.mutation(gql(MOVE), { t: tableId, m, v: table.version }));
    const moves = await playOut([ada, bob], now, move);
    t.diagnostic(`${moves} moves`);

    const stored = await storedCursors(tableId);
    for (const [who, feed] of [['Ada (graphql-ws)', adaFeed], ['Bob (HTTP)', bobFeed]]) {
      await until(() => feed.error || feed.events.at(-1)?.cursor === stored.at(-1), `${who}'s events`);
      assert.equal(feed.error, null, `${who}: ${feed.error}`);
      assert.deepEqual(feed.events.map((e) => e.cursor), stored, `${who} saw every event once, in order`);
    }
    // The finished table, once fetched, reads from the normalized cache alone.
    for (const p of [ada, bob]) {
      await now(p);
      const cached = await p.client.query(gql(nowOf(name)), { t: tableId }, { requestPolicy: 'cache-only' }).toPromise();
      assert.equal(cached.operation.context.meta?.cacheOutcome, 'hit');
      assert.equal(cached.data.table.status, 'FINISHED');
      assert.equal(cached.data.table.seats.length, 2);
    }
    assert.deepEqual(warnings, [], 'urql and Graphcache logged no warning');
  });
}
