// Apollo Client, as a frontend uses it: an InMemoryCache with no type policies, over
// GraphQLWsLink (graphql-transport-ws) for one player and HttpLink with multipart
// subscriptions for the other. Each plays a full game of each bundled game through its own
// client and follows it; the caches hold normalized Seat, TableEvent and state objects,
// and Apollo logs no warning.
//
//   TABLESTATE_URL=http://127.0.0.1:8000 node --test apollo.test.mjs

import './clients/dev.mjs';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { loadDevMessages, loadErrorMessages } from '@apollo/client/dev';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import {
  CREATE, FOLLOW, HTTP_URL, JOIN, MOVE, START, WS_URL, nowOf,
  captureWarnings, playOut, post, shortOptions, storedCursors, until,
} from './clients/games.mjs';

loadDevMessages();
loadErrorMessages();
const warnings = captureWarnings();
const closers = [];

// One Apollo client per token, each with its own cache; subscriptions over a WebSocket
// or over HTTP (multipart).
function apollo(token, ws) {
  const http = new HttpLink({ uri: HTTP_URL, headers: token ? { authorization: `Bearer ${token}` } : {} });
  let link = http;
  if (ws) {
    const socket = createClient({
      url: WS_URL,
      webSocketImpl: WebSocket,
      connectionParams: token ? { authToken: token } : {},
      retryAttempts: 0,
    });
    closers.push(() => socket.dispose());
    const isSubscription = ({ query }) => {
      const main = getMainDefinition(query);
      return main.kind === 'OperationDefinition' && main.operation === 'subscription';
    };
    link = ApolloLink.split(isSubscription, new GraphQLWsLink(socket), http);
  }
  const client = new ApolloClient({ link, cache: new InMemoryCache() });
  closers.push(() => client.stop());
  return client;
}

// Follow a table through the client: the events as they arrive.
function follow(client, tableId) {
  const feed = { events: [], error: null };
  const sub = client.subscribe({ query: gql(FOLLOW), variables: { t: tableId, after: null } }).subscribe({
    next: (result) => {
      if (result.error) feed.error = result.error;
      else feed.events.push(result.data.tableEvents);
    },
    error: (err) => { feed.error = err; },
  });
  closers.push(() => sub.unsubscribe());
  return feed;
}

let games = [];
before(async () => { games = await shortOptions(post); });
after(async () => { for (const close of closers.reverse()) await close(); });

for (const name of ['five-crowns', 'all-fives', 'five-by-five']) {
  test(`Apollo Client plays and follows a full game of ${name}`, async (t) => {
    const game = games.find((g) => g.id === name);
    const lobby = apollo(null, false);
    const made = (await lobby.mutate({ mutation: gql(CREATE), variables: { game: game.id, options: game.options, seats: 2 } })).data.createTable;
    const tableId = made.table.id;
    const host = apollo(made.hostToken, false);
    const joined = (await host.mutate({ mutation: gql(JOIN), variables: { t: tableId, name: 'Ada' } })).data.joinTable;
    const ada = { seat: joined.seat, client: apollo(joined.playerToken, true) };
    const bobJoined = (await lobby.mutate({ mutation: gql(JOIN), variables: { t: tableId, name: 'Bob' } })).data.joinTable;
    const bob = { seat: bobJoined.seat, client: apollo(bobJoined.playerToken, false) };
    const adaFeed = follow(ada.client, tableId); // over the WebSocket
    const bobFeed = follow(bob.client, tableId); // over multipart HTTP
    await ada.client.mutate({ mutation: gql(START), variables: { t: tableId } });

    const now = async (p) => (await p.client.query({ query: gql(nowOf(name)), variables: { t: tableId }, fetchPolicy: 'network-only' })).data.table;
    const move = (p, table, m) => p.client.mutate({ mutation: gql(MOVE), variables: { t: tableId, m, v: table.version } });
    const moves = await playOut([ada, bob], now, move);
    t.diagnostic(`${moves} moves`);

    const stored = await storedCursors(tableId);
    for (const [who, feed] of [['Ada (WebSocket)', adaFeed], ['Bob (multipart)', bobFeed]]) {
      await until(() => feed.error || feed.events.at(-1)?.cursor === stored.at(-1), `${who}'s events`);
      assert.equal(feed.error, null, `${who}: ${feed.error}`);
      assert.deepEqual(feed.events.map((e) => e.cursor), stored, `${who} saw every event once, in order`);
    }
    for (const p of [ada, bob]) {
      const cache = p.client.cache.extract();
      const keys = Object.keys(cache);
      const table = cache[`Table:${tableId}`];
      assert.ok(table, 'the table is normalized');
      // Seats are references to normalized Seat objects, updated in place.
      assert.ok(table.seats.every((s) => s.__ref?.startsWith('Seat:')), JSON.stringify(table.seats));
      assert.equal(keys.filter((k) => k.startsWith('Seat:')).length, 2);
      // Every event the subscription and the moves brought is one normalized TableEvent.
      const events = keys.filter((k) => k.startsWith('TableEvent:'));
      assert.ok(events.length >= stored.length, `${events.length} TableEvent objects for ${stored.length} events`);
      // The state is a reference too, one object per version seen; its parts are normalized.
      const [stateRef] = Object.values(table).filter((v) => v?.__ref && /State:/.test(v.__ref));
      assert.ok(stateRef, 'the state is normalized');
      assert.ok(keys.some((k) => /Player:/.test(k)), 'the players inside states are normalized');
    }
    assert.deepEqual(warnings, [], 'Apollo Client logged no warning');
  });
}
