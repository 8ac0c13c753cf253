// A table: seats, house rules and start while it is open; the game, your moves, the
// event log, scores, the result and the revealed seed once it plays.

import { ApiError, follow, request } from './api.js';
import { h, humanize, replaceChildren } from './dom.js';
import { gameView } from './games/index.js';
import { describeEvent } from './log.js';
import { Chooser, wire } from './moves.js';
import * as store from './store.js';

const EVENT_FIELDS = 'cursor version type seat at data';

function tableQuery(fragment) {
  return `query Table($id: ID!, $log: Int) {
  table(id: $id) {
    id status version cursor options shuffleCommitment shuffleSeed createdAt
    game { id name minPlayers maxPlayers houseRules { id name description conflictsWith minPlayers maxPlayers } }
    houseRules { id name }
    seats { index name kind score isHost }
    state { gameId toAct ${fragment} }
    legalMoves
    result { winners scores }
    events(last: $log) { ${EVENT_FIELDS} }
  }
}`;
}

const GAME_OF = `query GameOf($id: ID!) { table(id: $id) { game { id } } }`;
const JOIN = `mutation Join($t: ID!, $name: String!, $seat: Int, $seed: String) {
  joinTable(tableId: $t, name: $name, seat: $seat, clientSeed: $seed) { seat playerToken }
}`;
const ADD_BOT = `mutation AddBot($t: ID!, $seat: Int) { addBot(tableId: $t, seat: $seat) { version } }`;
const LEAVE = `mutation Leave($t: ID!) { leaveTable(tableId: $t) { version } }`;
const SET_RULE = `mutation SetRule($t: ID!, $r: ID!, $on: Boolean!) { setHouseRule(tableId: $t, ruleId: $r, enabled: $on) { version } }`;
const START = `mutation Start($t: ID!) { startGame(tableId: $t) { version } }`;
const MOVE = `mutation Move($t: ID!, $m: MoveInput!, $v: Int, $k: String) {
  makeMove(tableId: $t, move: $m, expectedVersion: $v, idempotencyKey: $k) { table { version } }
}`;

const LOG_SIZE = 200;

function randomKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function showTable(root, tableId, seatHint, app) {
  const record = () => store.tableRecord(tableId);
  if (seatHint !== null && record().seats[seatHint]) store.setWindowSeat(tableId, seatHint);

  let table = null;
  let view = null;
  let query = null;
  let log = [];
  const logged = new Set();
  let feed = null;
  let connection = 'connecting';
  let connects = 0;
  let busy = false;
  let refreshing = null; // the running fetch of the table, if any
  let refreshAgain = false;
  let renderQueued = false;
  let alive = true; // false once the page moved elsewhere
  const chooser = new Chooser();

  const mySeat = () => {
    const seat = store.windowSeat(tableId);
    return seat !== undefined && seat !== null && record().seats[seat] ? seat : null;
  };
  const hostToken = () => record().host;
  const token = () => (mySeat() !== null ? record().seats[mySeat()].token : hostToken());
  const isHost = () => Boolean(hostToken()) || (mySeat() !== null && table?.seats[mySeat()]?.isHost);
  const seatName = (i) => {
    const seat = table?.seats[i];
    const name = seat?.name || `Seat ${i + 1}`;
    return i === mySeat() ? `${name} (you)` : name;
  };

  // -- loading and live updates -------------------------------------------------------

  async function load() {
    try {
      const first = await request(GAME_OF, { id: tableId }, token());
      if (!alive) return;
      if (!first.table) {
        replaceChildren(root, h('section', { class: 'panel' }, h('h2', {}, 'No such table'), h('p', {}, `Table ${tableId} does not exist (or has expired).`), h('a', { href: '#/' }, 'Back to the lobby')));
        return;
      }
      view = gameView(first.table.game.id);
      query = tableQuery(view.fragment);
      const data = await request(query, { id: tableId, log: 60 }, token());
      if (!alive) return;
      log = data.table.events;
      for (const event of log) logged.add(event.cursor);
      applyTable(data.table);
      startFeed(data.table.cursor);
    } catch (err) {
      if (!alive) return;
      if (err instanceof ApiError && err.code === 'UNAUTHENTICATED' && token()) {
        // The server no longer knows our token (a restarted in-memory server): watch instead.
        app.notify(err, 'Your saved token for this table is no longer valid; you are watching.');
        store.forgetTable(tableId);
        return load();
      }
      app.notify(err);
      replaceChildren(root, h('section', { class: 'panel' }, h('p', {}, `Could not load table ${tableId}: ${err.message}`), h('a', { href: '#/' }, 'Back to the lobby')));
    }
  }

  function startFeed(after) {
    feed?.close();
    feed = follow(tableId, token(), after, {
      onEvent: (event) => {
        if (logged.has(event.cursor)) return;
        logged.add(event.cursor);
        log.push(event);
        if (log.length > LOG_SIZE) log = log.slice(-LOG_SIZE);
        if (!table || event.version > table.version) refresh();
        scheduleRender();
      },
      onStatus: (status, detail) => {
        connection = status;
        if (status === 'live') connects += 1;
        if (status === 'live' && detail?.retrying) refresh();
        if (status === 'failed') app.notify(detail, 'The live connection was refused.');
        scheduleRender();
      },
    });
    // For tests and the curious: drop the socket as a network failure would.
    window.tablestate = { drop: () => feed.drop(), connects: () => connects, cursor: () => feed.cursor };
  }

  // Fetch the table as this viewer sees it. Calls while a fetch runs share it, and it fetches
  // once more after, so every caller gets a table at least as new as its call.
  function refresh() {
    if (refreshing) {
      refreshAgain = true;
      return refreshing;
    }
    refreshing = (async () => {
      try {
        do {
          refreshAgain = false;
          const data = await request(query, { id: tableId, log: 0 }, token());
          if (data.table) applyTable(data.table);
        } while (refreshAgain);
      } catch (err) {
        app.notify(err);
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  }

  function applyTable(next) {
    if (table && next.version < table.version) return;
    table = next;
    chooser.setMoves(table.legalMoves, view.steps);
    scheduleRender();
  }

  // -- actions ----------------------------------------------------------------------

  // A mutation; the page stays busy (nothing clickable) until it shows the table after it,
  // so no click lands on moves of the position before.
  async function act(mutation, variables, tok = token()) {
    busy = true;
    scheduleRender();
    try {
      return await request(mutation, { t: tableId, ...variables }, tok);
    } catch (err) {
      app.notify(err);
      return null;
    } finally {
      await refresh();
      busy = false;
      scheduleRender();
    }
  }

  async function pick(key) {
    if (busy) return;
    if (key === null) {
      chooser.cancel();
      render();
      return;
    }
    const move = chooser.pick(key);
    if (move) await act(MOVE, { m: move, v: table.version, k: randomKey() });
    render();
  }

  async function join(seat) {
    const name = (root.querySelector('#seat-name')?.value || store.playerName() || '').trim();
    if (!name) {
      app.notify(null, 'Type your name first.');
      root.querySelector('#seat-name')?.focus();
      return;
    }
    store.setPlayerName(name);
    // The host joins with the host token, so the seat token keeps host rights.
    const done = await act(JOIN, { name, seat, seed: randomKey() }, hostToken());
    if (done) {
      const { seat: got, playerToken } = done.joinTable;
      store.rememberSeat(tableId, table.game.id, got, playerToken, name);
      store.setWindowSeat(tableId, got);
      switchIdentity();
    }
  }

  async function leave() {
    const seat = mySeat();
    const done = await act(LEAVE, {});
    if (done) {
      store.forgetSeat(tableId, seat);
      store.setWindowSeat(tableId, null);
      switchIdentity();
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
    if (!alive || !table) return;
    const me = mySeat();
    const myTurn = me !== null && table.state?.toAct.includes(me);
    document.title = `${myTurn ? '● Your turn · ' : ''}${table.game.name} · Tablestate`;
    replaceChildren(
      root,
      h(
        'div',
        {
          class: `table-page status-${table.status.toLowerCase()}${busy ? ' busy' : ''}${myTurn ? ' my-turn' : ''}`,
          'aria-busy': busy ? 'true' : 'false',
          'data-version': table.version,
          'data-picked': chooser.picked.length,
        },
        head(me),
        h(
          'div',
          { class: 'table-layout' },
          h('div', { class: 'main-col' }, table.status === 'FINISHED' ? resultPanel() : null, table.status === 'OPEN' ? openPanel(me) : playPanel(me, myTurn)),
          h('aside', { class: 'side-col' }, seatsPanel(me), logPanel()),
        ),
      ),
    );
    const focused = document.activeElement;
    if (myTurn && (!focused || focused === document.body)) root.querySelector('.moves-area .playable, .choices .choice')?.focus({ preventScroll: true });
  }

  function head(me) {
    const held = Object.keys(record().seats).map(Number);
    const ident =
      me !== null
        ? [`You play ${table.seats[me]?.name || `seat ${me + 1}`} (seat ${me + 1})${isHost() ? ', host' : ''}. `, h('button', { type: 'button', class: 'link', onclick: () => playAs(null) }, 'Watch instead')]
        : [
            hostToken() ? 'You are the host, watching. ' : 'You are watching. ',
            held.map((s) => h('button', { type: 'button', class: 'link', onclick: () => playAs(s) }, `Play as ${record().seats[s].name} (seat ${s + 1})`)),
          ];
    return h(
      'section',
      { class: 'table-head' },
      h(
        'h2',
        {},
        table.game.name,
        ' ',
        h('span', { class: `status-badge ${table.status.toLowerCase()}` }, table.status.toLowerCase()),
        ' ',
        h('span', { class: `conn conn-${connection}`, title: 'Live connection' }, connection === 'live' ? '● live' : connection === 'failed' ? '✕ refused' : '○ reconnecting…'),
      ),
      h('p', { class: 'meta' }, 'Table ', h('code', {}, table.id), ` · version ${table.version}`, table.houseRules.length ? ` · house rules: ${table.houseRules.map((r) => r.name).join(', ')}` : ''),
      h('p', { class: 'ident' }, ident),
    );
  }

  function seatsPanel(me) {
    const open = table.status === 'OPEN';
    const toAct = table.state?.toAct || [];
    return h(
      'section',
      { class: 'panel seats', 'aria-label': 'Seats' },
      h('h3', {}, 'Seats'),
      h(
        'ol',
        {},
        table.seats.map((s) =>
          h(
            'li',
            { class: `seat kind-${s.kind.toLowerCase()}${toAct.includes(s.index) ? ' to-act' : ''}${s.index === me ? ' mine' : ''}` },
            h('span', { class: 'seat-name' }, s.kind === 'EMPTY' ? 'empty' : s.name, s.kind === 'BOT' ? h('span', { class: 'muted' }, ' (bot)') : '', s.isHost ? ' ★' : '', s.index === me ? ' (you)' : ''),
            toAct.includes(s.index) ? h('span', { class: 'badge' }, table.status === 'PLAYING' ? ' to act' : '') : null,
            s.score !== null && s.score !== undefined ? h('span', { class: 'seat-score' }, ` ${s.score} pts`) : null,
            open && s.kind === 'EMPTY' && me === null ? h('button', { type: 'button', class: 'small', 'data-key': `sit:${s.index}`, onclick: () => join(s.index) }, 'Sit here') : null,
            open && s.kind === 'EMPTY' && isHost() ? h('button', { type: 'button', class: 'small', 'data-key': `bot:${s.index}`, onclick: () => act(ADD_BOT, { seat: s.index }, hostToken() || token()) }, 'Add a bot') : null,
            open && s.index === me ? h('button', { type: 'button', class: 'small', onclick: leave }, 'Leave') : null,
          ),
        ),
      ),
    );
  }

  function openPanel(me) {
    const seated = table.seats.filter((s) => s.kind !== 'EMPTY').length;
    const canStart = seated >= table.game.minPlayers;
    const enabled = new Set(table.houseRules.map((r) => r.id));
    const rules = table.game.houseRules.map((rule) => {
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
            disabled: !isHost() || (Boolean(conflict) && !enabled.has(rule.id)),
            'data-key': `rule:${rule.id}`,
            onchange: (e) => act(SET_RULE, { r: rule.id, on: e.target.checked }, hostToken() || token()),
          }),
          ' ',
          h('strong', {}, rule.name),
        ),
        h('span', { class: 'rule-desc' }, ` ${rule.description}`),
        ruleNotes(rule, conflict),
      );
    });
    const opts = Object.entries(table.options || {})
      .filter(([, v]) => typeof v !== 'object')
      .map(([k, v]) => `${humanize(k)}: ${v}`)
      .join(' · ');
    return h(
      'section',
      { class: 'panel open-table' },
      h('h3', {}, 'Waiting for players'),
      h('p', {}, `${seated} of ${table.seats.length} seats taken; ${table.game.name} needs at least ${table.game.minPlayers}. Invite someone with this page's address.`),
      opts ? h('p', { class: 'muted' }, `Options: ${opts}`) : null,
      me === null
        ? h(
            'p',
            {},
            h('label', { for: 'seat-name' }, 'Your name '),
            // Kept as it is typed: the view is re-rendered whenever the table changes.
            h('input', { id: 'seat-name', 'data-key': 'seat-name', autocomplete: 'nickname', value: store.playerName(), maxlength: 40, oninput: (e) => store.setPlayerName(e.target.value) }),
            ' ',
            h('button', { type: 'button', onclick: () => join(null), 'data-key': 'take-seat' }, 'Take a seat'),
          )
        : null,
      isHost()
        ? h(
            'p',
            { class: 'actions' },
            h('button', { type: 'button', 'data-key': 'add-bot', onclick: () => act(ADD_BOT, {}, hostToken() || token()), disabled: seated >= table.seats.length }, 'Add a bot'),
            ' ',
            h('button', { type: 'button', class: 'primary', 'data-key': 'start', onclick: () => act(START, {}, hostToken() || token()), disabled: !canStart }, 'Start the game'),
          )
        : h('p', { class: 'muted' }, 'The host starts the game.'),
      h('h3', {}, 'House rules'),
      rules.length ? h('ul', { class: 'rules' }, rules) : h('p', { class: 'muted' }, 'This game has no house rules.'),
    );
  }

  function playPanel(me, myTurn) {
    const game = table.state ? view.render(table.state, { seatName, mySeat: me, table }) : h('p', {}, 'No state.');
    const area = h('div', { class: 'moves-area' }, game);
    const choices = busy ? [] : wire(area, chooser, pick);
    if (busy) for (const el of area.querySelectorAll('[data-step]')) el.disabled = true;
    const toAct = table.state?.toAct || [];
    const status =
      table.status === 'FINISHED'
        ? 'The game is over.'
        : myTurn
          ? chooser.picked.length
            ? `Your move: ${chooser.picked.map((s) => s.label).join(' › ')} › …`
            : 'Your turn.'
          : `Waiting for ${toAct.map(seatName).join(', ') || '…'}.`;
    announce(status);
    return h(
      'section',
      { class: 'panel play' },
      h('p', { class: `turn-status${myTurn ? ' mine' : ''}` }, status),
      h(
        'div',
        { class: 'choices', role: 'toolbar', 'aria-label': 'Your moves' },
        choices,
        chooser.picked.length ? h('button', { type: 'button', class: 'choice cancel', onclick: () => pick(null) }, 'Cancel (Esc)') : null,
      ),
      area,
      me !== null && table.status === 'PLAYING' ? h('p', { class: 'hint muted' }, 'Keyboard: Tab to a highlighted card, square or button, Enter to play it, Esc to cancel a choice.') : null,
    );
  }

  function resultPanel() {
    const result = table.result;
    const winners = result ? result.winners.map(seatName).join(' and ') : '?';
    // Ids may start with '-': then '--' keeps the command line from reading one as an option.
    const command = `tablestate replay ${table.id.startsWith('-') ? '-- ' : ''}${table.id}`;
    const check = h('span', { class: 'seed-check' }, '');
    if (table.shuffleSeed) verifySeed(table.shuffleSeed, table.shuffleCommitment).then((ok) => (check.textContent = ok === null ? '' : ok ? ' ✓ matches the commitment' : ' ✕ does NOT match the commitment'));
    return h(
      'section',
      { class: 'panel result', 'aria-label': 'Result' },
      h('h3', {}, `${winners} ${result && result.winners.length > 1 ? 'win' : 'wins'}`),
      result
        ? h(
            'table',
            { class: 'scores' },
            h('caption', {}, 'Final scores'),
            h('tbody', {}, result.scores.map((score, i) => h('tr', { class: result.winners.includes(i) ? 'winner' : '' }, h('th', { scope: 'row' }, seatName(i)), h('td', {}, score)))),
          )
        : null,
      h('h4', {}, 'Fair shuffle'),
      h('p', {}, 'Commitment published at creation: ', h('code', { class: 'hash' }, table.shuffleCommitment)),
      h('p', {}, 'Revealed seed: ', h('code', { class: 'hash seed' }, table.shuffleSeed || '(not yet)'), check),
      h(
        'p',
        {},
        'Verify every shuffle and roll from the seed and the moves: ',
        h('code', { class: 'verify' }, command),
        ' ',
        h('button', { type: 'button', class: 'small', onclick: () => navigator.clipboard?.writeText(command) }, 'Copy'),
      ),
      h('p', { class: 'muted' }, 'Run it where the service keeps its tables (REDIS_URL); it prints MATCH or MISMATCH.'),
      h('p', {}, h('a', { href: '#/' }, 'Back to the lobby')),
    );
  }

  function logPanel() {
    return h(
      'section',
      { class: 'panel log', 'aria-label': 'Event log' },
      h('h3', {}, 'Events'),
      h(
        'ol',
        { class: 'events', reversed: true },
        log
          .slice()
          .reverse()
          .map((event) => {
            const { who, type, text } = describeEvent(event, seatName);
            return h('li', { 'data-cursor': event.cursor }, h('span', { class: 'who' }, who), h('span', { class: 'type' }, type), text ? h('span', { class: 'text' }, ` ${text}`) : null);
          }),
      ),
    );
  }

  function onKey(e) {
    if (e.key === 'Escape' && chooser.picked.length) {
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

// Screen readers hear the turn status when it changes (the view itself is re-rendered, so
// the live region lives outside it).
let announced = '';
function announce(text) {
  const region = document.getElementById('announce');
  if (region && text !== announced) {
    announced = text;
    region.textContent = text;
  }
}

function ruleNotes(rule, conflict) {
  const notes = [];
  if (rule.minPlayers || rule.maxPlayers) {
    const range = rule.minPlayers === rule.maxPlayers ? `${rule.minPlayers}` : `${rule.minPlayers || 1}–${rule.maxPlayers || 'any'}`;
    notes.push(`players: ${range}`);
  }
  if (rule.conflictsWith.length) notes.push(`conflicts with ${rule.conflictsWith.map(humanize).join(', ')}`);
  if (conflict) notes.push(`off while ${humanize(conflict)} is on`);
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
