// Play now: a ticket that waits for other players who want the same game, house rules and
// options (quickPlay), its place in the line while it waits (quickPlayEvents, live), then
// the table it was matched to, opened as after joinTable. The ticket's id is what claims
// the seat: it stays in this module, never in the address or a log.

import { ApiError, followQuickPlay, request } from './api.js';
import { h, replaceChildren } from './dom.js';
import * as store from './store.js';
import { clockText, count, durationWords } from './words.js';

const QUICK_PLAY = `mutation QuickPlay($game: ID!, $rules: [ID!], $players: QuickPlayPlayers, $bots: QuickPlayBots, $name: String) {
  quickPlay(gameId: $game, houseRules: $rules, players: $players, bots: $bots, name: $name) {
    id gameId houseRules minPlayers maxPlayers createdAt }
}`;
const CANCEL = `mutation CancelQuickPlay($ticket: ID!) { cancelQuickPlay(ticket: $ticket) }`;

// How long a Cancel answered "already ended" waits for the ticket's last event.
const LAST_EVENT_MS = 3000;

// A ticket for `wish` ({ rules, min, max, bots, after, name }): the ticket, or an ApiError
// (the server's refusal, for the form to show). `token`: a signed-in user's, if any.
export async function askTicket(game, wish, token = undefined) {
  const variables = {
    game: game.id,
    rules: wish.rules,
    players: { min: wish.min, max: wish.max },
    bots: { allowed: wish.bots, afterSeconds: wish.after },
    name: wish.name,
  };
  return (await request(QUICK_PLAY, variables, token)).quickPlay;
}

// The waiting view, in `root`, for `ticket` (listened to at once: a ticket nobody listens
// to expires). MATCHED opens the table; otherwise onEnd(message, err) when the ticket ended
// (cancelled, expired, refused), for the lobby to come back. destroy() leaves the view;
// a ticket still waiting is cancelled then.
export function showWaiting(root, app, { game, ticket, wish, token = undefined, onEnd }) {
  const since = Date.now();
  let place = null; // the last WAITING event
  let connection = 'connecting';
  let ended = false;
  let cancelling = false;

  const status = h('div', { class: 'quick-status', role: 'status' });
  const waited = h('span', { class: 'quick-waited' });
  const live = h('span', { class: 'conn conn-connecting' }, ' ○ connecting…');
  const cancelButton = h('button', { type: 'button', class: 'danger', 'data-key': 'quick-cancel', onclick: cancel }, 'Cancel');
  const rules = game.houseRules.filter((r) => ticket.houseRules.includes(r.id)).map((r) => r.name);
  const players = ticket.minPlayers === ticket.maxPlayers ? count(ticket.minPlayers, 'player') : `${ticket.minPlayers}–${ticket.maxPlayers} players`;
  const bots = wish.bots ? (wish.after ? `bots fill the seats after ${durationWords(wish.after)}` : 'bots fill the seats at once') : 'no bots';

  replaceChildren(
    root,
    h(
      'section',
      { class: 'panel quick-wait', 'aria-labelledby': 'quick-title' },
      h('h2', { id: 'quick-title', tabindex: '-1' }, 'Looking for players…'),
      h('p', { class: 'quick-wish' }, h('strong', {}, game.name), ` · ${[players, ...rules, bots].join(' · ')}`),
      h('p', { class: 'muted' }, `You play as ${wish.name}.`),
      status,
      h('p', {}, waited, live),
      h('p', {}, cancelButton),
    ),
  );
  renderStatus();
  tick();
  const timer = setInterval(tick, 1000);
  cancelButton.focus();
  announce(`Looking for players for ${game.name}.`);

  const sub = followQuickPlay(ticket.id, token, {
    onEvent: (event) => {
      if (ended) return;
      if (event.status === 'WAITING') {
        place = event;
        renderStatus();
      } else if (event.status === 'MATCHED') {
        matched(event);
      } else if (event.status === 'CANCELLED') {
        end('Quick play cancelled.');
      } else if (event.status === 'EXPIRED') {
        end('The search for players ended before a table was found. Try again.');
      }
    },
    onStatus: (next, detail) => {
      if (ended) return;
      if (next === 'failed') {
        end(null, detail instanceof ApiError ? detail : new ApiError([{ message: 'the search for players stopped', extensions: { code: 'UNAVAILABLE' } }]));
        return;
      }
      connection = next;
      renderStatus();
    },
  });

  function tick() {
    waited.textContent = `Waiting for ${clockText((Date.now() - since) / 1000)}`;
  }

  function renderStatus() {
    const lines = [];
    if (place?.ahead !== null && place?.ahead !== undefined) {
      lines.push(h('p', { class: 'quick-ahead' }, place.ahead ? `${count(place.ahead, 'player')} ahead of you.` : 'You are first in line.'));
    }
    if (place?.estimatedWaitSeconds !== null && place?.estimatedWaitSeconds !== undefined) {
      const eta = place.estimatedWaitSeconds;
      lines.push(h('p', { class: 'quick-eta' }, eta > 0 ? `Estimated wait: about ${durationWords(eta)}.` : 'A table should start any moment now.'));
    }
    replaceChildren(status, lines);
    live.className = `conn conn-${connection === 'live' ? 'live' : 'connecting'}`;
    live.textContent = connection === 'live' ? ' ● live' : connection === 'connecting' ? ' ○ connecting…' : ' ○ reconnecting…';
  }

  // The table is there, started, with this window's seat: keep its token as joinTable's
  // is kept (a reload keeps the seat) and open it. A signed-in user's seat is bound to the
  // user (no token): the page acts there with the user's own token.
  function matched(event) {
    finish();
    const seat = event.seat ?? null;
    if (event.playerToken && seat !== null) store.rememberSeat(event.tableId, game.id, seat, event.playerToken, wish.name);
    store.setWindowSeat(event.tableId, event.playerToken ? seat : null);
    announce(`Players found: your ${game.name} table is open.`);
    app.navigate(`#/table/${event.tableId}${event.playerToken && seat !== null ? `?seat=${seat}` : ''}`);
  }

  function finish() {
    ended = true;
    clearInterval(timer);
    sub.close();
  }

  function end(message, err = null) {
    if (ended) return;
    finish();
    onEnd(message, err);
  }

  async function cancel() {
    if (ended || cancelling) return;
    cancelling = true;
    cancelButton.disabled = true;
    cancelButton.textContent = 'Cancelling…';
    try {
      const done = (await request(CANCEL, { ticket: ticket.id }, token)).cancelQuickPlay;
      if (done) {
        end('Quick play cancelled.');
      } else {
        // It had ended already (matched, most likely): its last event says how.
        setTimeout(() => end('The search for players had already ended.'), LAST_EVENT_MS);
      }
    } catch (err) {
      if (ended) return;
      cancelling = false;
      cancelButton.disabled = false;
      cancelButton.textContent = 'Cancel';
      app.notify(err);
    }
  }

  return {
    destroy() {
      if (ended) return;
      finish();
      // Left while waiting (another page, the browser's back): give the place up.
      request(CANCEL, { ticket: ticket.id }, token).catch(() => {});
    },
  };
}

function announce(text) {
  const region = document.getElementById('announce');
  if (region) region.textContent = text;
}
