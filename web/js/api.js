// Talking to Tablestate: queries and mutations over HTTP, live events over WebSocket with
// the official graphql-ws client (protocol graphql-transport-ws).

import { createClient } from '../vendor/graphql-ws/client.js';

export class ApiError extends Error {
  constructor(errors) {
    super(errors.map((e) => e.message).join('; '));
    const ext = errors[0]?.extensions || {};
    this.code = ext.code || 'INTERNAL';
    this.reason = ext.reason;
    this.errors = errors;
  }
}

const ENDPOINT = new URL('graphql', document.baseURI).href;

// The address of what concerns one table: with its routing key (docs/clients.md), so that a
// proxy or `serve --workers N` brings it to the replica or worker that holds the table.
const routed = (url, tableId) => (tableId ? `${url}?table=${encodeURIComponent(tableId)}` : url);

// One query or mutation over HTTP; the data, or an ApiError with the server's code.
// `tableId`: the table it concerns, if any (the routing key).
export async function request(query, variables = {}, token = undefined, tableId = undefined) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  let body;
  try {
    const res = await fetch(routed(ENDPOINT, tableId), { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    body = await res.json();
  } catch (err) {
    throw new ApiError([{ message: `the server did not answer (${err.message})`, extensions: { code: 'UNAVAILABLE' } }]);
  }
  if (body.errors?.length) throw new ApiError(body.errors);
  return body.data;
}

const EVENTS = `subscription Follow($tableId: ID!, $after: String) {
  tableEvents(tableId: $tableId, after: $after) { cursor version type seat at data }
}`;

// What the lobby shows of a table (also asked of tables(...)).
export const TABLE_ROW = `id status private createdAt options game { id name }
  houseRules { id name } seats { index name kind isHost connected }`;

const LOBBY = `subscription Lobby {
  lobbyEvents { type tableId gameId status table { ${TABLE_ROW} } }
}`;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// One subscription, for ever: a dropped connection is retried with backoff, and a dead one
// is caught by ping/pong. graphql-ws sends the subscribe payload again on every retry, so
// a caller that keeps `variables` up to date (a cursor) resumes where it stopped.
//
// onData(data) for each result; onStatus(status, detail) with 'connecting', 'live',
// 'offline' or 'failed' (a refusal that retrying will not fix, e.g. a bad token).
function subscription(query, variables, token, { onData, onStatus }, tableId = undefined) {
  let pongTimer;
  let stopped = false;
  let dispose = () => {};

  const url = routed(ENDPOINT.replace(/^http/, 'ws'), tableId);
  const client = createClient({
    url,
    connectionParams: token ? { authToken: token } : {},
    retryAttempts: Infinity,
    // 4403: the token was refused; trying again would not change that.
    shouldRetry: (event) => !(event && event.code === 4403),
    retryWait: (retries) => sleep(Math.min(250 * 2 ** retries, 8000) + Math.random() * 250),
    keepAlive: 10_000,
    on: {
      connecting: () => onStatus('connecting'),
      connected: (_socket, _payload, retrying) => onStatus('live', { retrying }),
      closed: (event) => {
        clearTimeout(pongTimer);
        if (!stopped) onStatus('offline', event);
      },
      // A socket that stops answering pings is dead: drop it, and the retry resumes.
      ping: (received) => {
        if (!received) pongTimer = setTimeout(() => client.terminate(), 5_000);
      },
      pong: (received) => {
        if (received) clearTimeout(pongTimer);
      },
    },
  });

  const subscribe = () => {
    dispose = client.subscribe(
      { query, variables },
      {
        next: ({ data, errors }) => {
          if (errors?.length) {
            onStatus('failed', new ApiError(errors));
            return;
          }
          onData(data);
        },
        error: (err) => {
          if (stopped) return;
          if (err && err.code === 4403) {
            onStatus('failed', new ApiError([{ message: 'the server no longer knows this token', extensions: { code: 'UNAUTHENTICATED' } }]));
            return;
          }
          const errors = Array.isArray(err) ? err : null;
          const code = errors?.[0]?.extensions?.code;
          if (errors && code === 'SLOW_CONSUMER') {
            // The server completed us for falling behind: pick up from the cursor.
            setTimeout(() => !stopped && subscribe(), 500);
            return;
          }
          onStatus('failed', errors ? new ApiError(errors) : err);
        },
        complete: () => {},
      },
    );
  };
  subscribe();

  return {
    // Drop the socket as a network failure would (used by the tests); it comes back.
    drop: () => client.terminate(),
    close: () => {
      stopped = true;
      dispose();
      client.dispose();
    },
  };
}

// Follow a table's events from `after` (null: from its first event), resuming from the
// last cursor seen after any drop: no gap, no duplicate.
export function follow(tableId, token, after, { onEvent, onStatus }) {
  const variables = { tableId, after: after ?? null };
  const seen = new Set();
  const sub = subscription(EVENTS, variables, token, {
    onStatus,
    onData: (data) => {
      const event = data.tableEvents;
      variables.after = event.cursor;
      if (seen.has(event.cursor)) return;
      seen.add(event.cursor);
      onEvent(event);
    },
  }, tableId);
  return {
    get cursor() {
      return variables.after;
    },
    drop: sub.drop,
    close: sub.close,
  };
}

// A quick play ticket's place while it waits, then how it ended (MATCHED with the table
// and the seat, CANCELLED or EXPIRED): onEvent(event) for each. A dropped connection is
// retried and subscribes again: the server answers with the ticket's place now. The
// caller closes it once the ticket ended. `token`: a signed-in user's, if any.
const QUICK_PLAY_EVENTS = `subscription QuickPlayEvents($ticket: ID!) {
  quickPlayEvents(ticket: $ticket) { status ahead estimatedWaitSeconds tableId seat playerToken
    ticket { gameId houseRules minPlayers maxPlayers } }
}`;

export function followQuickPlay(ticket, token, { onEvent, onStatus }) {
  return subscription(QUICK_PLAY_EVENTS, { ticket }, token, {
    onStatus,
    onData: (data) => onEvent(data.quickPlayEvents),
  });
}

// The open public tables, live: onTables(map of id -> table) after each snapshot and change.
// Every reconnection starts from a new snapshot (the server keeps no lobby history).
export function followLobby({ onTables, onStatus }) {
  let tables = new Map();
  let fresh = null; // the snapshot being read, until lobby.live
  return subscription(LOBBY, {}, undefined, {
    onStatus,
    onData: (data) => {
      const event = data.lobbyEvents;
      if (event.type === 'table.listed') {
        fresh = fresh || new Map();
        fresh.set(event.tableId, event.table);
        return;
      }
      if (event.type === 'lobby.live') {
        tables = fresh || new Map();
        fresh = null;
      } else if (event.type === 'table.closed' || !event.table) {
        tables.delete(event.tableId);
        fresh?.delete(event.tableId);
      } else {
        tables.set(event.tableId, event.table);
        fresh?.set(event.tableId, event.table);
      }
      if (!fresh) onTables(tables);
    },
  });
}
