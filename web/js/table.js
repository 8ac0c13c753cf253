// A table: seats, house rules, options and start while it is open; then the game, your
// moves (and Undo), the clocks, who is online, chat, the events in words, the round
// summaries, the result, the revealed seed and the rematch. The host also kicks, hands
// seats to new players and cancels.

import { ApiError, follow, request } from './api.js';
import { graceClock, seatClock, whenLow } from './clock.js';
import { confirmDialog } from './dialog.js';
import { h, humanize, replaceChildren } from './dom.js';
import { viewOf } from './games/index.js';
import { Chooser, wire } from './moves.js';
import { optionsFields, optionsLine, readOptions, ruleText } from './options.js';
import * as store from './store.js';
import { CHAT_TYPES, PRESENCE_TYPES, describeAll, durationWords, list, timeOf } from './words.js';

const EVENT_FIELDS = 'cursor version type seat at data';
const SEAT_FIELDS = 'index name kind botLevel score isHost connected timeLeft reserveLeft deadline timeouts rejoinBy';

const GAME_OF = `query GameOf($id: ID!) {
  table(id: $id) {
    id
    game {
      id name minPlayers maxPlayers options viewModule usesChance eventTexts { type text }
      houseRules { id name description conflictsWith minPlayers maxPlayers }
    }
  }
}`;

function tableQuery(fragment) {
  return `query Table($id: ID!, $log: Int) {
  table(id: $id) {
    id status version cursor options private joinCode rematch rematchOf
    shuffleCommitment shuffleSeed createdAt
    houseRules { id name }
    seats { ${SEAT_FIELDS} }
    state { gameId toAct ${fragment} }
    legalMoves
    result { winners scores }
    events(last: $log) { ${EVENT_FIELDS} }
  }
}`;
}

const JOIN = `mutation Join($t: ID!, $name: String!, $seat: Int, $seed: String, $code: String) {
  joinTable(tableId: $t, name: $name, seat: $seat, clientSeed: $seed, code: $code) { seat playerToken }
}`;
const ADD_BOT = `mutation AddBot($t: ID!, $seat: Int, $level: BotLevel!) { addBot(tableId: $t, seat: $seat, level: $level) { version } }`;
const BOT_LEVELS = [
  ['EASY', 'Easy bot'],
  ['NORMAL', 'Normal bot'],
  ['STRONG', 'Strong bot'],
];
const LEAVE = `mutation Leave($t: ID!) { leaveTable(tableId: $t) { version } }`;
const REJOIN = `mutation Rejoin($t: ID!) { rejoinTable(tableId: $t) { version } }`;
const SET_RULE = `mutation SetRule($t: ID!, $r: ID!, $on: Boolean!) { setHouseRule(tableId: $t, ruleId: $r, enabled: $on) { version } }`;
const SET_OPTIONS = `mutation SetOptions($t: ID!, $o: JSON!) { setOptions(tableId: $t, options: $o) { version } }`;
const START = `mutation Start($t: ID!) { startGame(tableId: $t) { version } }`;
const KICK = `mutation Kick($t: ID!, $seat: Int!) { kickSeat(tableId: $t, seat: $seat) { version } }`;
const REPLACE = `mutation Replace($t: ID!, $seat: Int!, $name: String!) { replaceSeat(tableId: $t, seat: $seat, name: $name) { seat playerToken } }`;
const CANCEL = `mutation Cancel($t: ID!) { cancelTable(tableId: $t) { version } }`;
const REMATCH = `mutation Rematch($t: ID!) { rematch(tableId: $t) { seat playerToken hostToken table { id } } }`;
const CHAT = `mutation Chat($t: ID!, $text: String!, $name: String) { sendChat(tableId: $t, text: $text, name: $name) { cursor } }`;
const UNDO = `mutation Undo($t: ID!) { undoMove(tableId: $t) { table { version } } }`;
const MOVE = `mutation Move($t: ID!, $m: MoveInput!, $v: Int, $k: String) {
  makeMove(tableId: $t, move: $m, expectedVersion: $v, idempotencyKey: $k) { table { version } }
}`;

const LOG_SIZE = 200;
const CHAT_SIZE = 100;
// A move answered within this time shows nothing more than the page going still; a slower
// one says "Sending…" and marks what was clicked.
const SLOW_MS = 300;
// Events that are not part of a move (for "your last move": Undo, the timeout notice).
const NOT_MOVES = new Set([...CHAT_TYPES, ...PRESENCE_TYPES, 'clock.started']);

function randomKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// params: { seat, code, claim } from the address (#/table/<id>?seat=N&code=…&claim=…).
export function showTable(root, tableId, params, app) {
  const record = () => store.tableRecord(tableId);
  const seatHint = params.seat;
  if (params.claim && seatHint !== null) {
    // A seat handed over by the host: its token came in the link. Keep it, and drop it
    // from the address at once.
    store.rememberSeat(tableId, null, seatHint, params.claim, '');
    store.setWindowSeat(tableId, seatHint);
    history.replaceState(null, '', `#/table/${tableId}?seat=${seatHint}`);
  }
  if (seatHint !== null && record().seats[seatHint]) store.setWindowSeat(tableId, seatHint);

  let game = null; // the game's description (asked once)
  let table = null;
  let readAt = 0; // local time the table was read (the clocks count from it)
  let view = null;
  let query = null;
  let log = [];
  let chat = [];
  const logged = new Set();
  let feed = null;
  let connection = 'connecting';
  let connects = 0;
  let busy = false;
  let sending = null; // the move sent and not answered yet: { keys, label, slow }
  let gone = null; // why the table cannot be shown: 'lost' (the server forgot it) or 'unknown'
  let leavingOnPurpose = false;
  let refreshing = null; // the running fetch of the table, if any
  let refreshAgain = false;
  let renderQueued = false;
  let alive = true; // false once the page moved elsewhere
  let blockedNote = null; // { key, text }: why the last clicked card cannot be played
  let replacing = null; // the seat whose hand-over form is open
  const handed = {}; // seat -> name: seats this browser handed over (their links can be copied)
  const drafts = { chat: '', name: store.playerName(), code: params.code || '', replace: '', botLevel: 'NORMAL' };
  let optionsForm = null; // { key, el, fields }: the host's options form, kept across renders
  const chooser = new Chooser();

  const mySeat = () => {
    const seat = store.windowSeat(tableId);
    return seat !== undefined && seat !== null && record().seats[seat] ? seat : null;
  };
  const hostToken = () => record().host;
  const token = () => (mySeat() !== null ? record().seats[mySeat()].token : hostToken());
  const isHost = () => Boolean(hostToken()) || (mySeat() !== null && Boolean(table?.seats[mySeat()]?.isHost));
  const hostOrSeatToken = () => hostToken() || token();
  const seatName = (i) => {
    const seat = table?.seats[i];
    const name = seat?.name || `Seat ${i + 1}`;
    return i === mySeat() ? `${name} (you)` : name;
  };

  whenLow((seconds) => announce(`${seconds} seconds left for your move.`, true));

  // -- loading and live updates -------------------------------------------------------

  async function load() {
    try {
      let first;
      try {
        first = await request(GAME_OF, { id: tableId }, token(), tableId);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'UNAUTHENTICATED' && token()) {
          await tokenRefused();
          return;
        }
        throw err;
      }
      if (!alive) return;
      if (!first.table) {
        showGone(store.allTables().some((t) => t.id === tableId) ? 'lost' : 'unknown');
        return;
      }
      game = first.table.game;
      view = await viewOf(game);
      if (!alive) return;
      query = tableQuery(view.fragment);
      const data = await request(query, { id: tableId, log: 100 }, token(), tableId);
      if (!alive) return;
      if (!data.table) {
        showGone('lost');
        return;
      }
      for (const event of data.table.events) addEvent(event, { live: false });
      applyTable(data.table);
      startFeed(data.table.cursor);
    } catch (err) {
      if (!alive) return;
      if (err instanceof ApiError && err.code === 'UNAUTHENTICATED' && token()) {
        await tokenRefused();
        return;
      }
      app.notify(err);
      replaceChildren(root, h('section', { class: 'panel' }, h('p', {}, `Could not load table ${tableId}: ${err.message}`), h('a', { href: '#/' }, 'Back to the lobby')));
    }
  }

  // The server refused this window's token. Either the table is gone (a server that keeps
  // its tables in memory forgets them when it restarts), or the seat changed hands.
  let checkingToken = null;
  function tokenRefused() {
    // The feed, a read and a mutation may all be refused at once: one check answers them.
    checkingToken = checkingToken || checkToken().finally(() => (checkingToken = null));
    return checkingToken;
  }

  async function checkToken() {
    if (!alive) return;
    let exists = false;
    try {
      exists = Boolean((await request(GAME_OF, { id: tableId }, undefined, tableId)).table);
    } catch {
      exists = true; // the server did not answer: say nothing rash
    }
    if (!alive) return;
    if (!exists) {
      showGone('lost');
      return;
    }
    const seat = mySeat();
    if (seat !== null) {
      store.forgetSeat(tableId, seat);
      store.setWindowSeat(tableId, null);
      if (!leavingOnPurpose) app.notify(null, 'Your seat at this table is no longer yours: the host took it back or handed it on, or a bot took it over. You are watching now.');
    } else if (hostToken()) {
      store.forgetHost(tableId);
    }
    leavingOnPurpose = false;
    if (game) switchIdentity();
    else load();
  }

  function showGone(why) {
    gone = why;
    feed?.close();
    store.forgetTable(tableId);
    render();
  }

  // Every event the window gets, from the first read or live: chat to the chat, the rest
  // to the log; presence patches the seats; a rematch stores its tokens.
  function addEvent(event, { live }) {
    if (logged.has(event.cursor)) return;
    logged.add(event.cursor);
    if (CHAT_TYPES.has(event.type)) {
      chat.push(event);
      if (chat.length > CHAT_SIZE) chat = chat.slice(-CHAT_SIZE);
      // The chat box is re-rendered with the page: a new message is read out from here.
      const region = document.getElementById('announce-chat');
      if (live && region && event.seat !== mySeat()) region.textContent = `${event.data.name}${event.type === 'chat.spectator' ? ' (watching)' : ''} says: ${event.data.text}`;
      return;
    }
    log.push(event);
    if (log.length > LOG_SIZE) log = log.slice(-LOG_SIZE);
    if (PRESENCE_TYPES.has(event.type) && table?.seats[event.seat]) table.seats[event.seat].connected = event.type === 'seat.connected';
    if (event.type === 'table.rematch') rematchArrived(event, { live });
  }

  function startFeed(after) {
    feed?.close();
    feed = follow(tableId, token(), after, {
      onEvent: (event) => {
        addEvent(event, { live: true });
        if (!alive) return;
        if (!table || event.version > table.version) refresh();
        scheduleRender();
      },
      onStatus: (status, detail) => {
        connection = status;
        if (status === 'live') connects += 1;
        if (status === 'live' && detail?.retrying) refresh();
        if (status === 'failed') {
          if (detail instanceof ApiError && detail.code === 'UNAUTHENTICATED') tokenRefused();
          else if (detail instanceof ApiError && detail.code === 'NOT_FOUND') showGone('lost');
          else app.notify(detail, 'The live connection was refused.');
        }
        scheduleRender();
      },
    });
    // For tests and the curious: drop the socket as a network failure would.
    window.tablestate = { drop: () => feed.drop(), connects: () => connects, cursor: () => feed.cursor };
  }

  // Fetch the table as this viewer sees it. Calls while a fetch runs share it, and it fetches
  // once more after, so every caller gets a table at least as new as its call.
  function refresh() {
    if (!alive || gone) return Promise.resolve();
    if (refreshing) {
      refreshAgain = true;
      return refreshing;
    }
    refreshing = (async () => {
      try {
        do {
          refreshAgain = false;
          const data = await request(query, { id: tableId, log: 0 }, token(), tableId);
          if (!alive) return;
          if (data.table) applyTable(data.table);
          else showGone('lost');
        } while (refreshAgain);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'UNAUTHENTICATED') await tokenRefused();
        else if (alive) app.notify(err);
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  }

  function applyTable(next) {
    if (table && next.version < table.version) return;
    // Presence changes without a new version: keep what the live events said since.
    table = { ...next, game };
    readAt = Date.now();
    // A seat handed over by link arrives without its name: keep the name once known.
    const me = mySeat();
    if (me !== null && !record().seats[me].name && table.seats[me]?.name) store.rememberSeat(tableId, game.id, me, record().seats[me].token, table.seats[me].name);
    chooser.setMoves(table.legalMoves, view.steps);
    scheduleRender();
  }

  // -- actions ----------------------------------------------------------------------

  // A mutation; the page stays busy (nothing clickable) until it shows the table after it,
  // so no click lands on moves of the position before. `refused(err)` may word a refusal
  // itself (it returns the sentence, or null for the server's words).
  async function act(mutation, variables, tok = token(), { refused = () => null } = {}) {
    busy = true;
    blockedNote = null;
    scheduleRender();
    try {
      return await request(mutation, { t: tableId, ...variables }, tok, tableId);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'UNAUTHENTICATED' && tok) await tokenRefused();
      else app.notify(err, (err instanceof ApiError && refused(err)) || undefined);
      return null;
    } finally {
      await refresh();
      busy = false;
      scheduleRender();
    }
  }

  async function pick(key) {
    if (busy) return;
    blockedNote = null;
    if (key === null) {
      chooser.cancel();
      render();
      return;
    }
    const steps = [...chooser.picked, chooser.next().get(key)].filter(Boolean);
    const move = chooser.pick(key);
    if (move) {
      sending = { keys: steps.map((s) => s.key), label: steps.map((s) => s.label).join(' › '), slow: false };
      const slow = setTimeout(() => {
        if (!sending) return;
        sending.slow = true;
        announce(`Sending your move: ${sending.label}.`, true);
        scheduleRender();
      }, SLOW_MS);
      try {
        await act(MOVE, { m: move, v: table.version, k: randomKey() });
      } finally {
        clearTimeout(slow);
        sending = null;
      }
    }
    render();
  }

  // A click on a card, square or pile that is not a legal move now: say why.
  function blocked(key) {
    if (busy) return;
    const me = mySeat();
    let text;
    if (table.status !== 'PLAYING') text = 'The game is over.';
    else if (me === null) text = 'You are watching: take a seat at the next table to play.';
    else if (!table.state?.toAct.includes(me)) text = `Not yet: it is ${list((table.state?.toAct || []).map(seatName)) || 'someone else'}’s turn.`;
    else if (chooser.picked.length) text = `That does not go with ${chooser.picked.map((s) => s.label).join(' › ')}: pick one of the highlighted, or Cancel.`;
    else text = view.blocked?.(key, table.state, wordsHelpers()) || 'That is not one of your moves now: the highlighted ones are.';
    blockedNote = { key, text };
    announce(text, true);
    render();
  }

  const wordsHelpers = () => ({ table, me: mySeat() });

  async function join(seat) {
    const name = drafts.name.trim();
    if (!name) {
      app.notify(null, 'Type your name first.');
      root.querySelector('#seat-name')?.focus();
      return;
    }
    store.setPlayerName(name);
    const code = drafts.code.trim() || null;
    const needsCode = table.private && !hostToken();
    if (needsCode && !code) {
      app.notify(null, 'This table is private: type the join code its host gave you.');
      root.querySelector('#join-code')?.focus();
      return;
    }
    // The host joins with the host token, so the seat token keeps host rights.
    const wrongCode = (err) => (needsCode && err.code === 'FORBIDDEN' && /join code/.test(`${err.reason || ''} ${err.message}`) ? 'That join code is wrong: check it with the host (capitals count) and type it again.' : null);
    const done = await act(JOIN, { name, seat, seed: randomKey(), code: needsCode ? code : null }, hostToken(), { refused: wrongCode });
    if (done) {
      const { seat: got, playerToken } = done.joinTable;
      store.rememberSeat(tableId, game.id, got, playerToken, name);
      store.setWindowSeat(tableId, got);
      switchIdentity();
    }
  }

  async function leave() {
    const seat = mySeat();
    if (table.status === 'PLAYING') {
      const grace = Number(table.options.leaveGraceSeconds || 0);
      const ok = await confirmDialog({
        title: 'Leave the game?',
        text: grace
          ? `You can come back within ${durationWords(grace)} with “Rejoin” (your clock, if any, keeps running). After that a bot plays your seat to the end.`
          : 'A bot takes your seat at once and plays it to the end; you cannot come back to this game.',
        confirm: 'Leave',
        cancel: 'Stay',
        danger: true,
      });
      if (!ok) return;
      leavingOnPurpose = !grace;
      const done = await act(LEAVE, {});
      if (done && !grace) {
        store.forgetSeat(tableId, seat);
        store.setWindowSeat(tableId, null);
        switchIdentity();
      }
      return;
    }
    const done = await act(LEAVE, {});
    if (done) {
      store.forgetSeat(tableId, seat);
      store.setWindowSeat(tableId, null);
      switchIdentity();
    }
  }

  async function start() {
    const seated = table.seats.filter((s) => s.kind !== 'EMPTY');
    if (seated.length < table.seats.length) {
      const n = seated.length;
      const ok = await confirmDialog({
        title: `Start with ${n} of ${table.seats.length} seats taken?`,
        text: [
          `The game starts with the ${n === 1 ? 'one player' : `${n} players`} seated (${list(seated.map((s) => s.name))}); the empty seats drop out, and nobody can join once it has started.`,
          view.startNote?.(n, table) || null,
        ],
        confirm: `Start with ${n} ${n === 1 ? 'player' : 'players'}`,
        cancel: 'Wait for players',
      });
      if (!ok) return;
    }
    await act(START, {}, hostOrSeatToken());
  }

  async function cancelTable() {
    const ok = await confirmDialog({
      title: 'Cancel this table?',
      text: (table.status === 'PLAYING' ? 'The game stops here with no result, for everyone' : 'Nobody can play at it any more') + (game.usesChance ? '; the shuffle seed is revealed.' : '.'),
      confirm: 'Cancel the table',
      cancel: 'Keep it',
      danger: true,
    });
    if (ok) await act(CANCEL, {}, hostOrSeatToken());
  }

  async function kick(seat) {
    await act(KICK, { seat }, hostOrSeatToken());
  }

  async function handOver(seat) {
    const name = drafts.replace.trim();
    if (!name) {
      root.querySelector('#replace-name')?.focus();
      return;
    }
    const done = await act(REPLACE, { seat, name }, hostOrSeatToken());
    if (done) {
      const { seat: got, playerToken } = done.replaceSeat;
      store.rememberSeat(tableId, game.id, got, playerToken, name);
      handed[got] = name;
      replacing = null;
      drafts.replace = '';
      render();
    }
  }

  // The link that hands a seat to its new player: it carries the seat's token, so it is
  // copied, never shown.
  function copySeatLink(seat) {
    const rec = record().seats[seat];
    if (!rec) return;
    const url = new URL(`#/table/${tableId}?seat=${seat}&claim=${encodeURIComponent(rec.token)}`, location.href).href;
    copy(url, `The link for ${handed[seat] || rec.name || `seat ${seat + 1}`} is copied: send it to them (it is their seat’s key).`);
  }

  // Your own seat's link, to play it from another browser or device (it holds the key).
  function copyMySeatLink() {
    const me = mySeat();
    const rec = me === null ? null : record().seats[me];
    if (!rec) return;
    const url = new URL(`#/table/${tableId}?seat=${me}&claim=${encodeURIComponent(rec.token)}`, location.href).href;
    copy(url, 'Your seat’s link is copied: open it in another browser or device to play this seat there. It holds your seat’s key: keep it to yourself.');
  }

  function copy(text, done) {
    const ok = navigator.clipboard?.writeText(text);
    if (ok) ok.then(() => app.notify(null, done), () => app.notify(null, 'The browser did not allow copying.'));
    else app.notify(null, 'The browser did not allow copying.');
  }

  async function rematch() {
    const done = await act(REMATCH, {}, token());
    if (!done || !alive) return;
    const r = done.rematch;
    const me = mySeat();
    const name = me === null ? '' : table.seats[me]?.name || '';
    if (r.hostToken) store.rememberHost(r.table.id, game.id, r.hostToken);
    if (r.playerToken && r.seat !== null) store.rememberSeat(r.table.id, game.id, r.seat, r.playerToken, name);
    goToTable(r.table.id, r.playerToken ? r.seat : null);
  }

  // `table.rematch`: every human seat's window gets its own new token in its private part.
  // Keep it (never show it) and, when it comes live, take this window to the new table.
  function rematchArrived(event, { live }) {
    const next = event.data.tableId;
    const mine = event.data.private || {};
    const me = mySeat();
    if (mine.playerToken && mine.seat !== undefined) {
      store.rememberSeat(next, game?.id || null, mine.seat, mine.playerToken, me === null ? '' : table?.seats[me]?.name || '');
    }
    if (mine.hostToken) store.rememberHost(next, game?.id || null, mine.hostToken);
    if (live && mine.playerToken && me !== null) {
      app.notify(null, 'The rematch is open: this is the new table.');
      goToTable(next, mine.seat);
    }
  }

  function goToTable(id, seat) {
    if (!alive) return;
    store.setWindowSeat(id, seat ?? null);
    app.navigate(`#/table/${id}${seat === null || seat === undefined ? '' : `?seat=${seat}`}`);
  }

  async function sendChat(e) {
    e.preventDefault();
    const text = drafts.chat.trim();
    if (!text) return;
    const me = mySeat();
    const name = me === null ? drafts.name.trim() || store.playerName() : null;
    if (me === null && !name) {
      app.notify(null, 'Type your name first: people watching chat under a name.');
      root.querySelector('#chat-name')?.focus();
      return;
    }
    if (name) store.setPlayerName(name);
    try {
      await request(CHAT, { t: tableId, text, name }, token(), tableId);
      drafts.chat = '';
      render();
    } catch (err) {
      app.notify(err);
    }
  }

  // The window's token changed: the feed and the view are per viewer. The new feed
  // starts where the old one stopped.
  function switchIdentity() {
    chooser.cancel();
    const cursor = feed ? feed.cursor : table?.cursor;
    startFeed(cursor ?? null);
    refresh();
    scheduleRender();
  }

  function playAs(seat) {
    store.setWindowSeat(tableId, seat);
    history.replaceState(null, '', `#/table/${tableId}${seat === null ? '' : `?seat=${seat}`}`);
    switchIdentity();
  }

  // -- what the page knows from the log -------------------------------------------------

  // The events of your latest move (of the newest version you moved at), if it is the
  // table's last commit: what Undo would take back.
  function myLastCommit() {
    const me = mySeat();
    if (me === null || !table) return null;
    const events = log.filter((e) => e.version === table.version && !NOT_MOVES.has(e.type));
    if (!events.length || events[0].seat !== me) return null;
    return events;
  }

  function canUndo() {
    if (!table || table.status !== 'PLAYING' || !table.options.undo) return false;
    const events = myLastCommit();
    if (!events || ['clock.timeout', 'move.undone'].includes(events[0].type)) return false;
    return view.undoable ? view.undoable(events, table.state) : true;
  }

  // The timeout that played your latest move, if it did.
  function myTimeout() {
    const me = mySeat();
    if (me === null) return null;
    for (let i = log.length - 1; i >= 0; i -= 1) {
      const e = log[i];
      if (e.seat !== me || NOT_MOVES.has(e.type)) continue;
      const commit = log.filter((x) => x.version === e.version);
      return commit.find((x) => x.type === 'clock.timeout' && x.seat === me) || null;
    }
    return null;
  }

  // -- rendering ----------------------------------------------------------------------

  function scheduleRender() {
    if (renderQueued) return;
    renderQueued = true;
    requestAnimationFrame(() => {
      renderQueued = false;
      render();
    });
  }

  function render() {
    if (!alive) return;
    if (gone) {
      replaceChildren(root, gonePanel());
      document.title = 'Table gone · Tablestate';
      return;
    }
    if (!table) return;
    const me = mySeat();
    const offline = connection !== 'live' && connects > 0;
    const myTurn = me !== null && table.status === 'PLAYING' && table.state?.toAct.includes(me);
    document.title = `${myTurn ? '● Your turn · ' : ''}${game.name} · Tablestate`;
    const ended = table.status === 'FINISHED' || table.status === 'CANCELLED';
    replaceChildren(
      root,
      h(
        'div',
        {
          class: `table-page status-${table.status.toLowerCase()}${busy ? ' busy' : ''}${myTurn ? ' my-turn' : ''}${offline ? ' offline' : ''}`,
          'aria-busy': busy ? 'true' : 'false',
          'data-version': table.version,
          'data-picked': chooser.picked.length,
        },
        head(me),
        offline ? h('p', { class: 'offline-note', role: 'status' }, 'The connection to the server is lost: reconnecting… Your moves wait until it is back.') : null,
        h(
          'div',
          { class: 'table-layout' },
          h('div', { class: 'main-col' }, ended ? resultPanel(me) : null, table.status === 'OPEN' ? openPanel(me) : playPanel(me, myTurn, offline)),
          h('aside', { class: 'side-col' }, seatsPanel(me), chatPanel(me)),
          h('div', { class: 'log-col' }, logPanel(me)),
        ),
      ),
    );
    const focused = document.activeElement;
    if (myTurn && !offline && (!focused || focused === document.body)) root.querySelector('.moves-area .playable, .choices .choice')?.focus({ preventScroll: true });
  }

  function gonePanel() {
    const lost = gone === 'lost';
    return h(
      'section',
      { class: 'panel gone', 'aria-label': 'Table gone' },
      h('h2', {}, lost ? 'This table is gone' : 'No such table'),
      lost
        ? h('p', {}, 'The server no longer has this table, so this game cannot go on. Most likely the server was restarted: unless it keeps its tables in a database, a restart forgets every table.')
        : h('p', {}, 'There is no table at this address: the link may be mistyped, or the table ended long ago.'),
      h('p', {}, h('a', { href: '#/', class: 'button primary' }, 'Back to the lobby'), ' to open a new table or join another.'),
    );
  }

  function head(me) {
    const held = Object.keys(record().seats).map(Number);
    const seat = me === null ? null : table.seats[me];
    const ended = table.status === 'FINISHED' || table.status === 'CANCELLED';
    const ident =
      me !== null
        ? [
            `You play ${seat?.name || `seat ${me + 1}`} (seat ${me + 1})${isHost() ? ', host' : ''}. `,
            h('button', { type: 'button', class: 'link', onclick: () => playAs(null) }, 'Watch instead'),
            ended ? null : [' · ', h('button', { type: 'button', class: 'link', 'data-key': 'copy-my-seat', title: 'To play this seat from another browser or device: the link holds your seat’s key.', onclick: copyMySeatLink }, 'Copy my seat link')],
          ]
        : [
            hostToken() ? 'You are the host, watching. ' : 'You are watching. ',
            held.map((s) => h('button', { type: 'button', class: 'link', onclick: () => playAs(s) }, `Play as ${table.seats[s]?.name || record().seats[s].name || `seat ${s + 1}`} (seat ${s + 1})`)),
          ];
    const opts = optionsLine(table.options, game.options, view);
    return h(
      'section',
      { class: 'table-head' },
      h(
        'h2',
        {},
        game.name,
        ' ',
        h('span', { class: `status-badge ${table.status.toLowerCase()}` }, statusWord(table.status)),
        table.private ? [' ', h('span', { class: 'status-badge private' }, 'private')] : '',
        ' ',
        h('span', { class: `conn conn-${connection}`, title: 'Live connection' }, connection === 'live' ? '● live' : connection === 'failed' ? '✕ refused' : '○ reconnecting…'),
      ),
      h(
        'p',
        { class: 'meta' },
        'Table ',
        h('code', {}, table.id),
        opts.length ? ` · ${opts.join(' · ')}` : '',
        table.houseRules.length ? ` · house rules: ${table.houseRules.map((r) => r.name).join(', ')}` : '',
        table.rematchOf ? [' · ', h('a', { href: `#/table/${table.rematchOf}` }, 'the game before')] : '',
      ),
      h(
        'p',
        { class: 'ident' },
        ident,
        isHost() && (table.status === 'OPEN' || table.status === 'PLAYING') ? [' ', h('button', { type: 'button', class: 'danger small', 'data-key': 'cancel-table', onclick: cancelTable }, 'Cancel the table')] : null,
      ),
      me === null ? heldElsewhere() : null,
      // The code is for joining: shown while a seat is free to join.
      isHost() && table.private && table.joinCode && table.status === 'OPEN' && table.seats.some((s) => s.kind === 'EMPTY') ? joinCodeLine() : null,
    );
  }

  // The address named a seat (…?seat=N) that this browser holds no key to: say whose it is
  // and how it comes here, rather than quietly showing the table as a spectator's.
  function heldElsewhere() {
    const seat = seatHint === null ? null : table.seats[seatHint];
    if (!seat || seat.kind !== 'HUMAN' || record().seats[seatHint] || table.status === 'FINISHED' || table.status === 'CANCELLED') return null;
    const who = `${seat.name || 'This seat'} (seat ${seatHint + 1})`;
    return h(
      'p',
      { class: 'held-elsewhere', role: 'status' },
      `${who} is held in another browser: this one has no key to it, so you are watching. `,
      'To play it here, open its link from that browser (“Copy my seat link” there)',
      // The host's own seat: nobody else can hand it over.
      seat.isHost
        ? '.'
        : [
            ', or ask the host to hand it over: “Hand over” in the host’s seat list gives the seat a new key, in a link the host sends you, and the key in the other browser stops working',
            table.status === 'OPEN' ? ' (at an open table the host may instead “Remove” the seat, for you to take it again).' : '.',
          ],
    );
  }

  function joinCodeLine() {
    const invite = new URL(`#/table/${tableId}?code=${encodeURIComponent(table.joinCode)}`, location.href).href;
    return h(
      'p',
      { class: 'join-code-line' },
      'Private table: players join with the code ',
      h('code', { class: 'join-code' }, table.joinCode),
      ' ',
      h('button', { type: 'button', class: 'small', 'data-key': 'copy-code', onclick: () => copy(table.joinCode, 'The join code is copied.') }, 'Copy the code'),
      h('button', { type: 'button', class: 'small', 'data-key': 'copy-invite', onclick: () => copy(invite, 'The invitation link (with the code) is copied.') }, 'Copy an invitation link'),
    );
  }

  function seatsPanel(me) {
    const open = table.status === 'OPEN';
    const playing = table.status === 'PLAYING';
    const toAct = playing ? table.state?.toAct || [] : [];
    const host = isHost();
    const turnSeconds = Number(table.options.turnSeconds || 0);
    // A player who left is "left" (with the time to come back), not online, even with the
    // page still open.
    const online = table.seats.filter((s) => s.kind === 'HUMAN' && s.connected && !s.rejoinBy).map((s) => seatName(s.index));
    return h(
      'section',
      { class: 'panel seats', 'aria-label': 'Seats' },
      h('h3', {}, 'Seats'),
      h('p', { class: 'online muted' }, online.length ? `Online: ${list(online)}.` : 'Nobody is online at this table.'),
      h(
        'ol',
        {},
        // Seats still empty when the game started dropped out of it: not listed from then on.
        table.seats.filter((s) => open || s.kind !== 'EMPTY').map((s) => {
          const mine = s.index === me;
          const taken = s.kind !== 'EMPTY';
          const clock = playing && taken ? seatClock(s, readAt, { turnSeconds, mine, label: `${seatName(s.index)}: time left` }) : null;
          const presence =
            s.kind === 'HUMAN' && !s.rejoinBy
              ? h('span', { class: `presence ${s.connected ? 'on' : 'off'}`, title: s.connected ? 'Online: a page is open on this seat' : 'Away: no page is open on this seat' }, s.connected ? '● online' : '○ away')
              : null;
          const status = [
            presence,
            toAct.includes(s.index) ? h('span', { class: 'badge' }, 'to act') : null,
            clock,
            s.timeouts ? h('span', { class: 'muted' }, `${s.timeouts} ${s.timeouts === 1 ? 'timeout' : 'timeouts'}`) : null,
            s.rejoinBy ? h('span', { class: 'left-note' }, 'left, ', graceClock(s.rejoinBy)) : null,
            s.score !== null && s.score !== undefined ? h('span', { class: 'seat-score' }, `${s.score} pts`) : null,
          ].filter(Boolean);
          return h(
            'li',
            { class: `seat kind-${s.kind.toLowerCase()}${toAct.includes(s.index) ? ' to-act' : ''}${mine ? ' mine' : ''}`, 'data-seat': s.index, value: s.index + 1 },
            h(
              'span',
              { class: 'seat-name' },
              taken ? s.name : 'empty',
              s.kind === 'BOT' ? h('span', { class: 'muted' }, s.botLevel && s.botLevel !== 'NORMAL' ? ` (${s.botLevel.toLowerCase()} bot)` : ' (bot)') : '',
              mine ? ' (you)' : '',
              s.isHost ? h('span', { class: 'muted' }, ' · host') : '',
            ),
            status.length ? h('span', { class: 'seat-status' }, status) : null,
            seatButtons(s, { me, open, playing, host }),
            replacing === s.index ? replaceForm(s) : null,
            handed[s.index] && record().seats[s.index]
              ? h(
                  'div',
                  { class: 'handed' },
                  `${handed[s.index]} has this seat now. `,
                  h('button', { type: 'button', class: 'small', 'data-key': `copy-seat:${s.index}`, onclick: () => copySeatLink(s.index) }, `Copy ${handed[s.index]}’s link`),
                  h('button', { type: 'button', class: 'small', onclick: () => playAs(s.index) }, `Play as ${handed[s.index]} here`),
                )
              : null,
          );
        }),
      ),
    );
  }

  function seatButtons(s, { me, open, playing, host }) {
    const buttons = [];
    const free = s.kind === 'EMPTY';
    if (open && free && me === null) buttons.push(h('button', { type: 'button', class: 'small', 'data-key': `sit:${s.index}`, onclick: () => join(s.index) }, 'Sit here'));
    if (open && free && host) buttons.push(h('button', { type: 'button', class: 'small', 'data-key': `bot:${s.index}`, onclick: () => act(ADD_BOT, { seat: s.index, level: drafts.botLevel }, hostOrSeatToken()) }, 'Add a bot'));
    if (open && !free && host && s.index !== me) {
      buttons.push(h('button', { type: 'button', class: 'small', 'data-key': `kick:${s.index}`, 'aria-label': `Remove ${s.name} from seat ${s.index + 1}`, onclick: () => kick(s.index) }, 'Remove'));
    }
    if ((open || playing) && !free && host && s.index !== me && replacing !== s.index) {
      buttons.push(
        h(
          'button',
          { type: 'button', class: 'small', 'data-key': `replace:${s.index}`, 'aria-label': `Hand seat ${s.index + 1} (${s.name}) to someone else`, onclick: () => { replacing = s.index; render(); root.querySelector('#replace-name')?.focus(); } },
          'Hand over',
        ),
      );
    }
    if (open && s.index === me) buttons.push(h('button', { type: 'button', class: 'small', 'data-key': 'leave-open', onclick: leave }, 'Leave'));
    return buttons.length ? h('span', { class: 'seat-buttons' }, buttons) : null;
  }

  function replaceForm(s) {
    return h(
      'form',
      { class: 'replace', onsubmit: (e) => { e.preventDefault(); handOver(s.index); } },
      h('label', { for: 'replace-name' }, `New player for seat ${s.index + 1} `),
      h('input', { id: 'replace-name', 'data-key': 'replace-name', maxlength: 40, autocomplete: 'off', value: drafts.replace, oninput: (e) => (drafts.replace = e.target.value) }),
      ' ',
      h('button', { type: 'submit', class: 'small' }, 'Give the seat'),
      h('button', { type: 'button', class: 'small link', onclick: () => { replacing = null; render(); } }, 'cancel'),
      h('p', { class: 'hint' }, 'They get a new key to the seat (you copy their link next); the old one stops working. Score and reserve stay with the seat.'),
    );
  }

  function openPanel(me) {
    const seated = table.seats.filter((s) => s.kind !== 'EMPTY').length;
    const full = seated >= table.seats.length;
    const canStart = seated >= game.minPlayers;
    const enabled = new Set(table.houseRules.map((r) => r.id));
    const host = isHost();
    const rules = game.houseRules.map((rule) => {
      const conflict = rule.conflictsWith.find((id) => enabled.has(id));
      return h(
        'li',
        {},
        h(
          'label',
          {},
          h('input', {
            type: 'checkbox',
            checked: enabled.has(rule.id),
            disabled: !host || (Boolean(conflict) && !enabled.has(rule.id)),
            'data-key': `rule:${rule.id}`,
            onchange: (e) => act(SET_RULE, { r: rule.id, on: e.target.checked }, hostOrSeatToken()),
          }),
          ' ',
          h('strong', {}, rule.name),
        ),
        h('span', { class: 'rule-desc' }, ` ${ruleText(rule, view)}`),
        ruleNotes(rule, conflict, game),
      );
    });
    const needsCode = table.private && !hostToken();
    return h(
      'section',
      { class: 'panel open-table' },
      h('h3', {}, 'Waiting for players'),
      h('p', { class: 'seats-taken' }, `${seated} of ${table.seats.length} seats taken; ${game.name} needs at least ${game.minPlayers}.`, full ? '' : ` ${table.private ? 'Invite players with the join code.' : 'Invite someone with this page’s address.'}`),
      me === null && !full ? joinForm(needsCode) : null,
      me === null && full ? h('p', { class: 'muted' }, 'Every seat is taken: you are watching.') : null,
      host
        ? h(
            'p',
            { class: 'actions' },
            h('button', { type: 'button', 'data-key': 'add-bot', onclick: () => act(ADD_BOT, { level: drafts.botLevel }, hostOrSeatToken()), disabled: full }, 'Add a bot'),
            ' ',
            h(
              'select',
              { id: 'bot-level', 'data-key': 'bot-level', 'aria-label': 'Level of the bots added', onchange: (e) => (drafts.botLevel = e.target.value) },
              BOT_LEVELS.map(([v, label]) => h('option', { value: v, selected: v === drafts.botLevel }, label)),
            ),
            ' ',
            h('button', { type: 'button', class: 'primary', 'data-key': 'start', onclick: start, disabled: !canStart }, 'Start the game'),
          )
        : h('p', { class: 'muted' }, 'The host starts the game.'),
      host ? optionsEditor() : null,
      h('h3', {}, 'House rules'),
      rules.length ? h('ul', { class: 'rules' }, rules) : h('p', { class: 'muted' }, 'This game has no house rules.'),
    );
  }

  function joinForm(needsCode) {
    return h(
      'form',
      { class: 'join', onsubmit: (e) => { e.preventDefault(); join(null); } },
      h(
        'p',
        {},
        h('label', { for: 'seat-name' }, 'Your name '),
        h('input', { id: 'seat-name', 'data-key': 'seat-name', autocomplete: 'nickname', value: drafts.name, maxlength: 40, oninput: (e) => (drafts.name = e.target.value) }),
      ),
      needsCode
        ? h(
            'p',
            {},
            h('label', { for: 'join-code' }, 'Join code '),
            h('input', { id: 'join-code', 'data-key': 'join-code', autocomplete: 'off', spellcheck: 'false', value: drafts.code, maxlength: 40, oninput: (e) => (drafts.code = e.target.value) }),
            h('span', { class: 'hint' }, ' This table is private: ask its host for the code.'),
          )
        : null,
      h('p', {}, h('button', { type: 'submit', class: 'primary', 'data-key': 'take-seat' }, 'Take a seat')),
    );
  }

  // The host changes the options while the table is open (kept across re-renders, so
  // what is typed stays until saved).
  function optionsEditor() {
    const key = JSON.stringify(table.options);
    if (!optionsForm || optionsForm.key !== key) {
      const fields = optionsFields(game.options, view, { values: table.options });
      const el = h(
        'details',
        { class: 'options-editor' },
        h('summary', {}, 'Change the options'),
        h(
          'form',
          {
            onsubmit: (e) => {
              e.preventDefault();
              act(SET_OPTIONS, { o: readOptions(fields) }, hostOrSeatToken());
            },
          },
          fields.map((f) => f.row),
          h('p', {}, h('button', { type: 'submit', 'data-key': 'save-options' }, 'Save the options')),
        ),
      );
      if (optionsForm?.el.open) el.open = true;
      optionsForm = { key, el, fields };
    }
    return optionsForm.el;
  }

  function playPanel(me, myTurn, offline) {
    const state = table.state;
    const viewCtx = { seatName, mySeat: me, table, log };
    const gameEl = state ? view.render(state, viewCtx) : h('p', {}, 'No state.');
    const area = h('div', { class: 'moves-area' }, gameEl);
    const frozen = busy || offline || table.status !== 'PLAYING';
    const { choices, forfeits } = frozen ? { choices: [], forfeits: [] } : wire(area, chooser, pick, blocked);
    if (frozen) for (const el of area.querySelectorAll('[data-step]')) el.disabled = true;
    // A slow move: what was clicked stays marked until the server answers.
    const slow = sending?.slow ? sending : null;
    const sentShown = slow ? slow.keys.filter((key) => area.querySelector(`[data-step="${CSS.escape(key)}"]`)) : [];
    for (const key of sentShown) area.querySelector(`[data-step="${CSS.escape(key)}"]`).classList.add('sending');
    if (blockedNote) area.querySelector(`[data-step="${CSS.escape(blockedNote.key)}"]`)?.classList.add('explained');
    const toAct = state?.toAct || [];
    const mine = me === null ? null : table.seats[me];
    const myClock = myTurn ? seatClock(mine, readAt, { turnSeconds: Number(table.options.turnSeconds || 0), mine: true, label: 'Your time left' }) : null;
    const status = slow
      ? `Sending… ${slow.label}`
      : table.status === 'FINISHED'
        ? 'The game is over.'
        : table.status === 'CANCELLED'
          ? 'The host cancelled this table.'
          : myTurn
            ? chooser.picked.length
              ? `Your move: ${chooser.picked.map((s) => s.label).join(' › ')} › …`
              : 'Your turn.'
            : `Waiting for ${toAct.map(seatName).join(', ') || '…'}.`;
    if (!slow) announce(status);
    const timeout = myTimeout();
    const undo = me !== null && canUndo() && !frozen;
    const left = mine?.rejoinBy;
    // Forfeiting a turn is the way out, not a move like the others: it comes after the
    // game, unless it is all there is to do.
    const onlyForfeits = forfeits.length > 0 && !choices.length && !area.querySelector('.playable');
    return h(
      'section',
      { class: 'panel play' },
      h('p', { class: `turn-status${myTurn ? ' mine' : ''}${slow ? ' sending' : ''}` }, status, myClock ? [h('span', { class: 'clock-label' }, ' Time left: '), myClock] : null),
      timeout && table.status !== 'OPEN'
        ? h('p', { class: 'timeout-note', role: 'status' }, `Your time ran out: the server played ${table.status === 'FINISHED' ? 'your last move' : 'a move'} for you.`, timeoutTally(timeout))
        : null,
      left ? h('p', { class: 'left-banner' }, 'You left the table. ', h('button', { type: 'button', class: 'primary', 'data-key': 'rejoin', onclick: () => act(REJOIN, {}) }, 'Rejoin'), ' ', graceClock(left)) : null,
      blockedNote ? h('p', { class: 'blocked-note', role: 'status' }, blockedNote.text) : null,
      h(
        'div',
        { class: 'choices', role: 'toolbar', 'aria-label': 'Your moves' },
        choices,
        // A button clicked (not a card or square of the view) is gone while the page waits:
        // it stays, marked and disabled, until the answer.
        slow && !slow.keys.every((key) => sentShown.includes(key)) ? h('button', { type: 'button', class: 'choice sending', disabled: true, 'data-sent': slow.keys[slow.keys.length - 1] }, slow.label) : null,
        chooser.picked.length ? h('button', { type: 'button', class: 'choice cancel', onclick: () => pick(null) }, 'Cancel (Esc)') : null,
      ),
      undo || (forfeits.length && onlyForfeits)
        ? h('div', { class: 'turn-actions' }, undo ? h('button', { type: 'button', class: 'undo', 'data-key': 'undo', title: 'Take back your last move', onclick: () => act(UNDO, {}) }, 'Undo') : null, onlyForfeits ? forfeitGroup(forfeits, true) : null)
        : null,
      area,
      forfeits.length && !onlyForfeits ? forfeitGroup(forfeits, false) : null,
      me !== null && table.status === 'PLAYING'
        ? h(
            'p',
            { class: 'hint muted' },
            'Keyboard: Tab to a highlighted card, square or button, Enter to play it, Esc to cancel a choice. ',
            left ? null : h('button', { type: 'button', class: 'link', 'data-key': 'leave', onclick: leave }, 'Leave the table'),
          )
        : null,
    );
  }

  function forfeitGroup(forfeits, only) {
    return h(
      'div',
      { class: `forfeits${only ? ' only' : ''}`, role: 'group', 'aria-label': 'Forfeit the turn' },
      h('span', { class: 'forfeit-label' }, only ? 'No card of yours can be played: forfeit the turn.' : 'Or forfeit the turn:'),
      forfeits,
    );
  }

  function timeoutTally(timeout) {
    const limit = Number(table.options.timeoutsBeforeBot || 0);
    if (!limit) return '';
    const left = limit - timeout.data.timeouts;
    return left > 0 ? ` After ${left} more ${left === 1 ? 'timeout' : 'timeouts'} a bot takes your seat.` : ' A bot plays your seat now.';
  }

  function resultPanel(me) {
    if (table.status === 'CANCELLED') {
      return h(
        'section',
        { class: 'panel result', 'aria-label': 'Result' },
        h('h3', {}, 'This table was cancelled'),
        h('p', {}, 'The host ended it before the end: there is no result.'),
        game.usesChance ? seedPart() : null,
        h('p', {}, h('a', { href: '#/' }, 'Back to the lobby')),
      );
    }
    const result = table.result;
    const canRematch = me !== null || Boolean(hostToken());
    return h(
      'section',
      { class: 'panel result', 'aria-label': 'Result' },
      h('h3', {}, winnersLine(result?.winners || [], me)),
      result
        ? h(
            'table',
            { class: 'scores' },
            h('caption', {}, 'Final scores'),
            h('tbody', {}, result.scores.map((score, i) => (table.seats[i]?.kind === 'EMPTY' ? null : h('tr', { class: result.winners.includes(i) ? 'winner' : '' }, h('th', { scope: 'row' }, seatName(i)), h('td', {}, score))))),
          )
        : null,
      h(
        'p',
        { class: 'rematch-line' },
        canRematch
          ? h('button', { type: 'button', class: 'primary', 'data-key': 'rematch', onclick: rematch }, table.rematch ? 'Go to the rematch' : 'Rematch')
          : table.rematch
            ? h('a', { href: `#/table/${table.rematch}` }, 'Watch the rematch')
            : null,
        canRematch ? h('span', { class: 'hint' }, table.rematch ? ' The new table is open.' : ' A new table with the same players, options and rules; everyone seated here gets their seat there.') : null,
      ),
      game.usesChance ? seedPart() : null,
      h('p', {}, h('a', { href: '#/' }, 'Back to the lobby')),
    );
  }

  // "You win", "You and Bea win", "Bea wins", "Ann and Bea win".
  function winnersLine(winners, me) {
    if (!winners.length) return 'Nobody wins';
    const mine = winners.includes(me);
    const others = winners.filter((i) => i !== me).map((i) => table.seats[i]?.name || `Seat ${i + 1}`);
    const names = mine ? ['You', ...others] : others;
    return `${list(names)} ${names.length > 1 || mine ? 'win' : 'wins'}`;
  }

  // Shown for games that use chance only: a game without shuffles has nothing to prove.
  function seedPart() {
    // Ids may start with '-': then '--' keeps the command line from reading one as an option.
    const command = `tablestate replay ${table.id.startsWith('-') ? '-- ' : ''}${table.id}`;
    const check = h('span', { class: 'seed-check' }, '');
    if (table.shuffleSeed) verifySeed(table.shuffleSeed, table.shuffleCommitment).then((ok) => (check.textContent = ok === null ? '' : ok ? ' ✓ matches the commitment' : ' ✕ does NOT match the commitment'));
    return h(
      'div',
      { class: 'fair' },
      h('h4', {}, 'Fair shuffle'),
      h('p', {}, 'Commitment published when the table opened: ', h('code', { class: 'hash' }, table.shuffleCommitment)),
      h('p', {}, 'Revealed seed: ', h('code', { class: 'hash seed' }, table.shuffleSeed || '(not yet)'), check),
      h(
        'p',
        {},
        'Whoever runs the server can re-play every shuffle and roll of this game from the seed and the moves: ',
        h('code', { class: 'verify' }, command),
        ' ',
        h('button', { type: 'button', class: 'small', onclick: () => copy(command, 'The command is copied.') }, 'Copy'),
        ' prints MATCH or MISMATCH.',
      ),
    );
  }

  function logPanel(me) {
    const lines = describeAll(log, table, me, view.words, game.eventTexts);
    return h(
      'section',
      { class: 'panel log', 'aria-label': 'What happened' },
      h('h3', {}, 'What happened'),
      h(
        'ol',
        { class: 'events', reversed: true, 'aria-label': 'Newest first' },
        lines
          .slice()
          .reverse()
          .map(({ event, text, quiet }) =>
            h(
              'li',
              { 'data-cursor': event.cursor, 'data-type': event.type, class: `ev ${event.type.replace(/[._]/g, '-')}`, hidden: quiet, title: timeOf(event.at) },
              text,
              event.type === 'table.rematch' ? [' ', h('a', { href: `#/table/${event.data.tableId}`, onclick: (e) => { e.preventDefault(); followRematch(event); } }, 'Go to the new table')] : null,
            ),
          ),
      ),
    );
  }

  function followRematch(event) {
    const next = event.data.tableId;
    const seats = store.tableRecord(next).seats;
    const mine = event.data.private?.seat;
    goToTable(next, mine !== undefined && seats[mine] ? mine : null);
  }

  function chatPanel(me) {
    const watching = me === null;
    return h(
      'section',
      { class: 'panel chat', role: 'region', 'aria-label': 'Chat' },
      h('h3', {}, 'Chat'),
      watching ? h('p', { class: 'hint' }, 'You are watching: your messages reach the others watching, not the players.') : null,
      h(
        'ol',
        { class: 'messages', 'aria-label': 'Messages' },
        chat.length
          ? chat.map((e) =>
              h(
                'li',
                { class: `message${e.type === 'chat.spectator' ? ' spectator' : ''}${e.seat !== null && e.seat === me ? ' own' : ''}`, 'data-cursor': e.cursor, title: timeOf(e.at) },
                h('span', { class: 'from' }, e.data.name, e.type === 'chat.spectator' ? h('span', { class: 'muted' }, e.data.host ? ' (host, watching)' : ' (watching)') : ''),
                ': ',
                h('span', { class: 'text' }, e.data.text),
              ),
            )
          : h('li', { class: 'muted empty' }, 'No messages yet.'),
      ),
      h(
        'form',
        { class: 'chat-form', onsubmit: sendChat },
        watching
          ? h('p', {}, h('label', { for: 'chat-name' }, 'Your name '), h('input', { id: 'chat-name', 'data-key': 'chat-name', maxlength: 40, autocomplete: 'nickname', value: drafts.name, oninput: (e) => (drafts.name = e.target.value) }))
          : null,
        h(
          'p',
          { class: 'chat-row' },
          h('label', { for: 'chat-input', class: 'visually-hidden' }, 'Chat message'),
          h('input', { id: 'chat-input', 'data-key': 'chat-input', maxlength: 500, autocomplete: 'off', placeholder: 'Say something…', value: drafts.chat, oninput: (e) => (drafts.chat = e.target.value) }),
          h('button', { type: 'submit', 'data-key': 'chat-send' }, 'Send'),
        ),
      ),
    );
  }

  function onKey(e) {
    if (e.key === 'Escape' && chooser.picked.length && !document.querySelector('dialog[open]')) {
      chooser.cancel();
      render();
    }
  }

  document.addEventListener('keydown', onKey);
  replaceChildren(root, h('p', {}, 'Loading the table…'));
  load();

  return {
    destroy() {
      alive = false;
      feed?.close();
      document.removeEventListener('keydown', onKey);
      document.title = 'Tablestate';
    },
  };
}

function statusWord(status) {
  return { OPEN: 'open', PLAYING: 'playing', FINISHED: 'finished', CANCELLED: 'cancelled' }[status] || status.toLowerCase();
}

// Screen readers hear the turn status when it changes (the view itself is re-rendered, so
// the live region lives outside it); `force` says it again even when unchanged.
let announced = '';
function announce(text, force = false) {
  const region = document.getElementById('announce');
  if (region && (force || text !== announced)) {
    announced = text;
    region.textContent = text;
  }
}

function ruleNotes(rule, conflict, game) {
  const notes = [];
  if (rule.minPlayers || rule.maxPlayers) {
    const range = rule.minPlayers === rule.maxPlayers ? `${rule.minPlayers}` : `${rule.minPlayers || game.minPlayers}–${rule.maxPlayers || game.maxPlayers}`;
    notes.push(`players: ${range}`);
  }
  if (rule.conflictsWith.length) notes.push(`conflicts with ${rule.conflictsWith.map((id) => game.houseRules.find((r) => r.id === id)?.name || humanize(id)).join(', ')}`);
  if (conflict) notes.push(`off while ${game.houseRules.find((r) => r.id === conflict)?.name || humanize(conflict)} is on`);
  return notes.length ? h('span', { class: 'rule-notes' }, ` (${notes.join('; ')})`) : null;
}

// SHA-256(seed bytes) == commitment, in the browser where it can (secure contexts).
async function verifySeed(seedHex, commitment) {
  if (!crypto.subtle) return null;
  const bytes = new Uint8Array(seedHex.match(/../g).map((x) => parseInt(x, 16)));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
  return hex === commitment;
}
