// What the client tests of the other stacks share: the bundled games with short options,
// the documents they send (every object selected with its `id`, as a normalizing cache
// wants), and a referee-free random player that any client drives.

import assert from 'node:assert/strict';

export const BASE = (process.env.TABLESTATE_URL || 'http://127.0.0.1:8000').replace(/\/$/, '');
export const HTTP_URL = `${BASE}/graphql`;
export const WS_URL = HTTP_URL.replace(/^http/, 'ws');

// Short games through the table options (Five by Five from prefilled squares when offered).
export const GAMES = [
  { id: 'five-crowns', options: { rounds: 1 } },
  { id: 'all-fives', options: { targetScore: 7 } },
  { id: 'five-by-five', options: null },
];

// Five by Five is shortened where the server offers prefilled squares.
export async function shortOptions(post) {
  const { data } = await post('{ games { id options } }');
  for (const game of GAMES) {
    const found = data.games.find((g) => g.id === game.id);
    assert.ok(found, `${game.id} is installed`);
    if (game.id === 'five-by-five' && found.options.properties?.prefilledSquares) game.options = { prefilledSquares: 16 };
  }
  return GAMES;
}

// A plain POST, for what the test itself checks against (the stored events).
export async function post(query, variables = {}, token = undefined) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(HTTP_URL, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return res.json();
}

// Each game's part of a table's state, as that game's frontend would ask for it.
export const STATES = {
  'five-crowns': '... on FiveCrownsState { round phase hand players { id seat handSize total } melds { id seat cards } }',
  'all-fives': '... on AllFivesState { phase trump hand trick { id seat card } lastTrick { id winner plays { id seat card } } players { id seat score } }',
  'five-by-five': '... on FiveByFiveState { phase turn board hand { id actions } players { id seat score } }',
};

export const CREATE = `mutation Create($game: ID!, $options: JSON, $seats: Int) {
  createTable(gameId: $game, options: $options, seats: $seats) { hostToken table { id status } }
}`;
export const JOIN = `mutation Join($t: ID!, $name: String!) {
  joinTable(tableId: $t, name: $name) { seat playerToken table { id version seats { id index name kind } } }
}`;
export const START = 'mutation Start($t: ID!) { startGame(tableId: $t) { id status version } }';
// The table now, with the state of its game (any game: the state's own fields).
export const NOW = nowOf(null);
export function nowOf(gameId) {
  return `query Now($t: ID!) {
  table(id: $t) { id status version cursor legalMoves seats { id index name kind score } state { id gameId toAct ${STATES[gameId] ?? ''} } }
}`;
}
export const MOVE = `mutation Move($t: ID!, $m: MoveInput!, $v: Int) {
  makeMove(tableId: $t, move: $m, expectedVersion: $v) { table { id version } events { id cursor version type } }
}`;
export const FOLLOW = `subscription Follow($t: ID!, $after: String) {
  tableEvents(tableId: $t, after: $after) { id cursor version type seat data }
}`;
export const EVENTS = `query Events($t: ID!) { table(id: $t) { events(first: 1000) { cursor } } }`;

export const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];

// Play random legal moves until the table is finished: `now(player)` reads the table as
// that player sees it, `move(player, table, move)` sends one; both through the client
// under test. The number of moves.
export async function playOut(players, now, move, limit = 3000) {
  for (let moves = 0; moves < limit; ) {
    let acted = false;
    for (const p of players) {
      const table = await now(p);
      if (table.status === 'FINISHED') return moves;
      if (!table.state.toAct.includes(p.seat)) continue;
      assert.ok(table.legalMoves.length > 0, `seat ${p.seat} is to act with no legal move`);
      await move(p, table, pick(table.legalMoves));
      moves += 1;
      acted = true;
      break;
    }
    if (!acted) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.fail('random legal play ends every game');
}

// The stored events' cursors, oldest first.
export async function storedCursors(tableId) {
  const body = await post(EVENTS, { t: tableId });
  return body.data.table.events.map((e) => e.cursor);
}

// Wait until `done()` holds (events arriving on a subscription), or fail after `ms`.
export async function until(done, what, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!done()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Every console.warn and console.error (a client's warnings), kept for the test to check.
export function captureWarnings() {
  const seen = [];
  for (const level of ['warn', 'error']) {
    const original = console[level];
    console[level] = (...args) => {
      seen.push(`${level}: ${args.map(String).join(' ')}`);
      original.apply(console, args);
    };
  }
  return seen;
}
