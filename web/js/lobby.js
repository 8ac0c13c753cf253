// The lobby: the installed games, a form to open a table (seats, options, house rules,
// private or not) or to play now (matched with other players, quickplay.js), joining a
// private table by its code, the open tables (live), those being played, and the tables
// this browser holds tokens for.

import { TABLE_ROW, followLobby, request } from './api.js';
import { h, humanize, replaceChildren } from './dom.js';
import { gameView, loadModule } from './games/index.js';
import { optionsFields, optionsLine, readOptions, ruleText } from './options.js';
import { askTicket, showWaiting } from './quickplay.js';
import * as store from './store.js';
import { list } from './words.js';

const GAMES = `query Games {
  games { id name summary minPlayers maxPlayers options viewModule
    houseRules { id name description conflictsWith minPlayers maxPlayers } }
}`;
const PLAYING_TABLES = `query PlayingTables {
  playing: tables(status: PLAYING, first: 10) { nodes { ${TABLE_ROW} } }
}`;
const CREATE = `mutation Create($game: ID!, $rules: [ID!], $options: JSON, $seats: Int, $private: Boolean!) {
  createTable(gameId: $game, houseRules: $rules, options: $options, seats: $seats, private: $private) { hostToken table { id } }
}`;
const JOIN = `mutation Join($t: ID!, $name: String!, $seed: String) {
  joinTable(tableId: $t, name: $name, clientSeed: $seed) { seat playerToken }
}`;

export function showLobby(root, app) {
  let games = [];
  let chosen = null;
  let mode = 'create'; // what the form below the games does for `chosen`: 'create' or 'quick'
  let waiting = null; // the waiting view of a quick play ticket, while it waits
  let timer = null;
  let open = null; // the open public tables, live (null: not yet known)
  let playing = null;
  let lobbyStatus = 'connecting';
  let alive = true; // false once the page moved elsewhere (a request may still answer)
  const openBox = h('div', { class: 'open-box' }, h('section', { class: 'panel' }, h('h3', {}, 'Open tables'), h('p', { class: 'muted' }, 'Loading tables…')));
  const playingBox = h('div', { class: 'playing-box' });
  const tablesBox = h('div', { class: 'tables-box' }, openBox, playingBox);
  const formBox = h('div', { class: 'form-box' });
  // One input for the lobby's life: a name typed while the games load is not lost to a
  // re-render.
  // Play now's form has a name field of its own: it follows this one.
  const nameInput = h('input', {
    id: 'player-name',
    autocomplete: 'nickname',
    maxlength: 40,
    value: store.playerName(),
    oninput: (e) => {
      store.setPlayerName(e.target.value.trim());
      const quickName = formBox.querySelector('#qp-name');
      if (quickName) quickName.value = e.target.value;
    },
  });

  const lobby = followLobby({
    onTables: (tables) => {
      open = [...tables.values()].sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)));
      renderTables();
    },
    onStatus: (status) => {
      lobbyStatus = status;
      renderTables();
    },
  });

  async function loadPlaying() {
    try {
      playing = (await request(PLAYING_TABLES)).playing.nodes;
    } catch {
      playing = null;
    }
    renderTables();
  }

  function renderTables() {
    if (!alive) return;
    const live = h('span', { class: `conn conn-${lobbyStatus === 'live' ? 'live' : 'connecting'}` }, lobbyStatus === 'live' ? ' ● live' : ' ○ reconnecting…');
    replaceChildren(openBox, tableList(['Open tables', live], open, 'No open table: create one.', { joinable: true }));
    replaceChildren(playingBox, tableList(['Being played'], playing, 'None right now.', { joinable: false }));
  }

  function gameOf(t) {
    return games.find((g) => g.id === t.game.id);
  }

  // One table, told apart from the others: the game, what it changed from the defaults,
  // its host, who sits there, when it opened and a piece of its id.
  function tableRow(t, { joinable }) {
    const taken = t.seats.filter((s) => s.kind !== 'EMPTY');
    const host = t.seats.find((s) => s.isHost);
    const full = taken.length >= t.seats.length;
    const g = gameOf(t);
    const opts = g ? optionsLine(t.options, g.options, gameView(g.id)) : [];
    const rules = t.houseRules.map((r) => r.name);
    const who = taken.map((s) => `${s.name}${s.kind === 'BOT' ? ' (bot)' : ''}`);
    return h(
      'li',
      { class: 'table-row' },
      h('a', { href: `#/table/${t.id}`, 'data-table': t.id }, t.game.name),
      opts.length || rules.length ? h('span', { class: 'row-options' }, ` · ${[...opts, ...rules].join(' · ')}`) : '',
      h('br'),
      h('span', { class: 'row-seats' }, `${taken.length} of ${t.seats.length} seats`, who.length ? `: ${list(who)}` : ''),
      host ? h('span', { class: 'muted' }, ` · host ${host.name}`) : '',
      h('span', { class: 'muted' }, ` · opened ${ago(t.createdAt)} · table ${t.id.slice(0, 6)}`),
      ' ',
      joinable && !full ? h('a', { class: 'button small', href: `#/table/${t.id}`, 'aria-label': `Join ${t.game.name}, table ${t.id.slice(0, 6)}` }, 'Join') : h('a', { class: 'button small', href: `#/table/${t.id}`, 'aria-label': `Watch ${t.game.name}, table ${t.id.slice(0, 6)}` }, full && joinable ? 'Full: watch' : 'Watch'),
    );
  }

  function tableList(title, nodes, empty, options) {
    return h(
      'section',
      { class: 'panel' },
      h('h3', {}, title),
      nodes === null
        ? h('p', { class: 'muted' }, 'Loading tables…')
        : nodes.length
          ? h('ul', { class: 'table-list' }, nodes.map((t) => tableRow(t, options)))
          : h('p', { class: 'muted' }, empty),
    );
  }

  // A private table is unlisted: its players come with its link, or its id and code.
  function joinByCode() {
    const where = h('input', { id: 'code-table', autocomplete: 'off', spellcheck: 'false', placeholder: 'the link, or the table id' });
    const code = h('input', { id: 'code-code', autocomplete: 'off', spellcheck: 'false', maxlength: 40 });
    const submit = (e) => {
      e.preventDefault();
      const text = where.value.trim();
      const id = /#\/table\/([^?/]+)/.exec(text)?.[1] || text;
      if (!id) {
        where.focus();
        return;
      }
      const fromLink = /[?&]code=([^&]+)/.exec(text)?.[1];
      const joinCode = code.value.trim() || (fromLink ? decodeURIComponent(fromLink) : '');
      app.navigate(`#/table/${encodeURIComponent(id)}${joinCode ? `?code=${encodeURIComponent(joinCode)}` : ''}`);
    };
    return h(
      'section',
      { class: 'panel join-private' },
      h('h3', {}, 'Join a private table'),
      h(
        'form',
        { onsubmit: submit, 'aria-label': 'Join a private table' },
        h('p', {}, h('label', { for: 'code-table' }, 'Table '), where),
        h('p', {}, h('label', { for: 'code-code' }, 'Join code '), code, ' ', h('button', { type: 'submit' }, 'Go to the table')),
      ),
    );
  }

  function myTables() {
    const mine = store.allTables().slice(0, 10);
    if (!mine.length) return null;
    return h(
      'section',
      { class: 'panel' },
      h('h3', {}, 'Your tables'),
      h(
        'ul',
        { class: 'table-list' },
        mine.map((t) => {
          const seat = Object.keys(t.seats)[0];
          const href = `#/table/${t.id}${seat === undefined ? '' : `?seat=${seat}`}`;
          return h(
            'li',
            {},
            h('a', { href }, games.find((g) => g.id === t.gameId)?.name || humanize(t.gameId || 'table')),
            ` · table ${t.id.slice(0, 6)}`,
            Object.entries(t.seats).length ? ` · you: ${Object.entries(t.seats).map(([i, x]) => `${x.name || 'a player'} (seat ${Number(i) + 1})`).join(', ')}` : '',
            t.host ? ' · host' : '',
            ' ',
            h(
              'button',
              {
                type: 'button',
                class: 'link',
                onclick: () => {
                  store.forgetTable(t.id);
                  render();
                },
              },
              'forget',
            ),
          );
        }),
      ),
    );
  }

  function render() {
    if (!alive || waiting) return;
    // The name input moves into the new tree before it replaces the old: keep its focus
    // and caret, or what is typed next is lost.
    const typing = document.activeElement === nameInput ? [nameInput.selectionStart, nameInput.selectionEnd] : null;
    replaceChildren(
      root,
      h(
        'div',
        { class: 'lobby' },
        h(
          'section',
          { class: 'panel intro' },
          h('h2', {}, 'Lobby'),
          h('p', {}, 'Open a table, invite friends or add bots, and play; or press Play now to be matched with other players. Every move is checked by the server; the shuffle is committed to before the deal and revealed at the end.'),
          h(
            'p',
            {},
            h('label', { for: 'player-name' }, 'Your name '),
            nameInput,
          ),
        ),
        h(
          'section',
          { class: 'panel games' },
          h('h2', {}, 'New table'),
          h(
            'div',
            { class: 'game-list', role: 'list' },
            games.map((g) =>
              h(
                'div',
                { class: 'game-item', role: 'listitem' },
                h(
                  'button',
                  {
                    type: 'button',
                    class: `game-card${chosen?.id === g.id && mode === 'create' ? ' chosen' : ''}`,
                    'data-game': g.id,
                    'data-key': `game:${g.id}`,
                    'aria-pressed': chosen?.id === g.id && mode === 'create' ? 'true' : 'false',
                    onclick: () => choose(g, 'create'),
                  },
                  h('strong', {}, g.name),
                  h('span', { class: 'players' }, g.minPlayers === g.maxPlayers ? `${g.minPlayers} players` : `${g.minPlayers}–${g.maxPlayers} players`),
                  h('span', { class: 'summary' }, g.summary),
                ),
                h(
                  'button',
                  {
                    type: 'button',
                    class: `play-now${chosen?.id === g.id && mode === 'quick' ? ' chosen' : ''}`,
                    'data-play-now': g.id,
                    'data-key': `play:${g.id}`,
                    'aria-label': `Play now: ${g.name}`,
                    'aria-pressed': chosen?.id === g.id && mode === 'quick' ? 'true' : 'false',
                    onclick: () => choose(g, 'quick'),
                  },
                  'Play now',
                ),
              ),
            ),
          ),
          formBox,
        ),
        tablesBox,
        joinByCode(),
        myTables(),
      ),
    );
    replaceChildren(formBox, chosen ? (mode === 'quick' ? quickForm(chosen) : createForm(chosen)) : null);
    if (typing && document.activeElement !== nameInput) {
      nameInput.focus();
      nameInput.setSelectionRange(...typing);
    }
  }

  function choose(game, how) {
    chosen = game;
    mode = how;
    render();
    formBox.querySelector('select, input')?.focus();
  }

  // The house rules as checkboxes: a rule is offered only where it may be on, no conflict
  // with a ticked rule and every number of players in `players()` ([least, most]) within
  // its range.
  function ruleChoices(game, view, players, prefix = 'rule') {
    const boxes = game.houseRules.map((rule) => ({
      rule,
      input: h('input', { type: 'checkbox', name: 'rule', value: rule.id, id: `${prefix}-${rule.id}` }),
      note: h('span', { class: 'rule-notes' }),
    }));
    const update = () => {
      const [least, most] = players();
      const on = new Set(boxes.filter((b) => b.input.checked).map((b) => b.rule.id));
      for (const { rule, input, note } of boxes) {
        const conflict = rule.conflictsWith.find((id) => on.has(id));
        const outside = (rule.minPlayers && least < rule.minPlayers) || (rule.maxPlayers && most > rule.maxPlayers);
        input.disabled = Boolean(conflict) || Boolean(outside);
        if (input.disabled) input.checked = false;
        const notes = [];
        if (rule.minPlayers || rule.maxPlayers) notes.push(`players: ${rule.minPlayers === rule.maxPlayers ? rule.minPlayers : `${rule.minPlayers || 1}–${rule.maxPlayers || game.maxPlayers}`}`);
        const ruleName = (id) => game.houseRules.find((r) => r.id === id)?.name || humanize(id);
        if (rule.conflictsWith.length) notes.push(`conflicts with ${rule.conflictsWith.map(ruleName).join(', ')}`);
        if (conflict) notes.push(`unavailable while ${ruleName(conflict)} is on`);
        note.textContent = notes.length ? ` (${notes.join('; ')})` : '';
      }
    };
    for (const b of boxes) b.input.addEventListener('change', update);
    update();
    return {
      update,
      chosen: () => boxes.filter((b) => b.input.checked).map((b) => b.rule.id),
      fieldset: boxes.length
        ? h(
            'fieldset',
            { class: 'rules' },
            h('legend', {}, 'House rules'),
            boxes.map(({ rule, input, note }) =>
              h('div', { class: 'rule' }, input, ' ', h('label', { for: input.id }, h('strong', {}, rule.name), ' ', h('span', { class: 'rule-desc' }, ruleText(rule, view))), note),
            ),
          )
        : null,
    };
  }

  // Play now: the wish (house rules, how many players, bots or not, the name), then a
  // ticket and the waiting view in place of the lobby.
  function quickForm(game) {
    const view = gameView(game.id);
    const counts = range(game.minPlayers, game.maxPlayers);
    const least = h('select', { id: 'qp-min', name: 'min' }, counts.map((n) => h('option', { value: n, selected: n === game.minPlayers }, String(n))));
    const most = h('select', { id: 'qp-max', name: 'max' }, counts.map((n) => h('option', { value: n, selected: n === game.maxPlayers }, String(n))));
    const players = () => [Number(least.value), Number(most.value)];
    const rules = ruleChoices(game, view, players, 'qp-rule');
    // From never above to: moving one moves the other along.
    least.addEventListener('change', () => {
      if (Number(most.value) < Number(least.value)) most.value = least.value;
      rules.update();
    });
    most.addEventListener('change', () => {
      if (Number(least.value) > Number(most.value)) least.value = most.value;
      rules.update();
    });
    const bots = h('input', { type: 'checkbox', id: 'qp-bots', checked: true });
    const after = h('input', { type: 'number', id: 'qp-after', min: 0, max: 300, step: 1, value: 30, required: true, inputmode: 'numeric', 'aria-label': 'Seconds before bots fill the seats' });
    bots.addEventListener('change', () => {
      after.disabled = !bots.checked;
    });
    const name = h('input', { id: 'qp-name', autocomplete: 'nickname', maxlength: 40, value: store.playerName(), required: true });

    const submit = async (e) => {
      e.preventDefault();
      const who = name.value.trim();
      if (!who) {
        app.notify(null, 'Type your name first.');
        name.focus();
        return;
      }
      store.setPlayerName(who);
      nameInput.value = who;
      const button = e.target.querySelector('button[type=submit]');
      button.disabled = true;
      const wish = { rules: rules.chosen(), min: Number(least.value), max: Number(most.value), bots: bots.checked, after: bots.checked ? Number(after.value) : 30, name: who };
      let ticket;
      try {
        ticket = await askTicket(game, wish);
      } catch (err) {
        app.notify(err);
        button.disabled = false;
        return;
      }
      if (!alive) return;
      waiting = showWaiting(root, app, {
        game,
        ticket,
        wish,
        onEnd: (message, err) => {
          waiting = null;
          if (!alive) return;
          render();
          renderTables();
          if (err || message) app.notify(err, err ? undefined : message);
          root.querySelector(`[data-play-now="${CSS.escape(game.id)}"]`)?.focus();
        },
      });
    };

    return h(
      'form',
      { class: 'quick-play', onsubmit: submit, 'aria-label': `Play ${game.name} now` },
      h('h3', {}, `Play ${game.name} now`),
      h('p', { class: 'muted' }, 'You are matched with players who want the same game and house rules; the table starts as soon as it is full.'),
      h(
        'fieldset',
        { class: 'players' },
        h('legend', {}, 'Players'),
        h('label', { for: 'qp-min' }, 'From '),
        least,
        ' ',
        h('label', { for: 'qp-max' }, 'to '),
        most,
      ),
      rules.fieldset,
      h('p', {}, bots, ' ', h('label', { for: 'qp-bots' }, 'Fill with bots after'), ' ', after, ' s'),
      h('p', {}, h('label', { for: 'qp-name' }, 'Your name '), name),
      h('p', {}, h('button', { type: 'submit', class: 'primary' }, 'Look for players')),
    );
  }

  function createForm(game) {
    const defaultSeats = Math.min(game.maxPlayers, Math.max(2, game.minPlayers));
    const seats = h(
      'select',
      { id: 'seats', name: 'seats' },
      range(game.minPlayers, game.maxPlayers).map((n) => h('option', { value: n, selected: n === defaultSeats }, String(n))),
    );
    const view = gameView(game.id);
    const optionFields = optionsFields(game.options, view);
    const ruleBoxes = ruleChoices(game, view, () => [Number(seats.value), Number(seats.value)]);
    const play = h('input', { type: 'checkbox', id: 'play-too', checked: true });
    const privately = h('input', { type: 'checkbox', id: 'private' });

    seats.addEventListener('change', ruleBoxes.update);

    const submit = async (e) => {
      e.preventDefault();
      const name = (store.playerName() || '').trim();
      if (play.checked && !name) {
        app.notify(null, 'Type your name at the top first.');
        root.querySelector('#player-name').focus();
        return;
      }
      const button = e.target.querySelector('button[type=submit]');
      button.disabled = true;
      try {
        const read = readOptions(optionFields);
        const options = Object.keys(read).length ? read : null;
        const rules = ruleBoxes.chosen();
        const made = (await request(CREATE, { game: game.id, rules, options, seats: Number(seats.value), private: privately.checked })).createTable;
        const tableId = made.table.id;
        store.rememberHost(tableId, game.id, made.hostToken);
        let seat = null;
        if (play.checked) {
          const joined = (await request(JOIN, { t: tableId, name, seed: crypto.getRandomValues(new Uint32Array(2)).join('') }, made.hostToken)).joinTable;
          store.rememberSeat(tableId, game.id, joined.seat, joined.playerToken, name);
          seat = joined.seat;
        }
        store.setWindowSeat(tableId, seat);
        app.navigate(`#/table/${tableId}${seat === null ? '' : `?seat=${seat}`}`);
      } catch (err) {
        app.notify(err);
        button.disabled = false;
      }
    };

    return h(
      'form',
      { class: 'create', onsubmit: submit, 'aria-label': `New ${game.name} table` },
      h('h3', {}, `New ${game.name} table`),
      h('p', {}, h('label', { for: 'seats' }, 'Seats '), seats),
      optionFields.length ? h('fieldset', {}, h('legend', {}, 'Options'), optionFields.map((f) => f.row)) : null,
      ruleBoxes.fieldset,
      h('p', {}, privately, ' ', h('label', { for: 'private' }, h('strong', {}, 'Private'), ' — not listed in the lobby; players join with a code you get')),
      h('p', {}, play, ' ', h('label', { for: 'play-too' }, 'I take a seat (as host)')),
      h('p', {}, h('button', { type: 'submit', class: 'primary' }, 'Create the table')),
    );
  }

  async function start() {
    render();
    try {
      games = (await request(GAMES)).games;
      // The games' own modules word their options and house rules.
      await Promise.all(games.map(loadModule));
    } catch (err) {
      app.notify(err);
    }
    if (!alive) return;
    render();
    renderTables();
    loadPlaying();
    // The open tables come live; the ones being played (and the "opened … ago") every 10 s.
    timer = setInterval(loadPlaying, 10_000);
  }
  start();

  return {
    destroy() {
      alive = false;
      clearInterval(timer);
      lobby.close();
      waiting?.destroy();
    },
  };
}

function ago(iso) {
  const seconds = (Date.now() - Date.parse(iso)) / 1000;
  if (!Number.isFinite(seconds) || seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86400)} days ago`;
}

function range(a, b) {
  const out = [];
  for (let i = a; i <= b; i += 1) out.push(i);
  return out;
}
