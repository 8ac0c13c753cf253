// The lobby: the installed games, a form to open a table (seats, options, house rules),
// the open tables, and the tables this browser holds tokens for.

import { request } from './api.js';
import { h, humanize, replaceChildren } from './dom.js';
import * as store from './store.js';

const GAMES = `query Games {
  games { id name summary minPlayers maxPlayers options
    houseRules { id name description conflictsWith minPlayers maxPlayers } }
}`;
const OPEN_TABLES = `query OpenTables {
  open: tables(status: OPEN, first: 20) { nodes { id status createdAt game { id name } seats { index name kind } } }
  playing: tables(status: PLAYING, first: 10) { nodes { id status createdAt game { id name } seats { index name kind } } }
}`;
const CREATE = `mutation Create($game: ID!, $rules: [ID!], $options: JSON, $seats: Int) {
  createTable(gameId: $game, houseRules: $rules, options: $options, seats: $seats) { hostToken table { id } }
}`;
const JOIN = `mutation Join($t: ID!, $name: String!, $seed: String) {
  joinTable(tableId: $t, name: $name, clientSeed: $seed) { seat playerToken }
}`;

export function showLobby(root, app) {
  let games = [];
  let chosen = null;
  let timer = null;
  const tablesBox = h('div', { class: 'tables-box' }, h('p', { class: 'muted' }, 'Loading tables…'));
  const formBox = h('div', { class: 'form-box' });

  async function loadTables() {
    try {
      const data = await request(OPEN_TABLES);
      replaceChildren(tablesBox, tableList('Open tables', data.open.nodes, 'No open table: create one.'), tableList('Being played', data.playing.nodes, 'None right now.'));
    } catch (err) {
      replaceChildren(tablesBox, h('p', { class: 'error' }, `Could not list the tables: ${err.message}`));
    }
  }

  function tableList(title, nodes, empty) {
    return h(
      'section',
      { class: 'panel' },
      h('h3', {}, title),
      nodes.length
        ? h(
            'ul',
            { class: 'table-list' },
            nodes.map((t) => {
              const taken = t.seats.filter((s) => s.kind !== 'EMPTY');
              return h(
                'li',
                {},
                h('a', { href: `#/table/${t.id}`, 'data-table': t.id }, `${t.game.name}`),
                ` · ${taken.length}/${t.seats.length} seated`,
                taken.length ? h('span', { class: 'muted' }, ` (${taken.map((s) => s.name).join(', ')})`) : '',
              );
            }),
          )
        : h('p', { class: 'muted' }, empty),
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
            h('a', { href }, `${humanize(t.gameId || 'table')} ${t.id.slice(0, 8)}`),
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
    replaceChildren(
      root,
      h(
        'div',
        { class: 'lobby' },
        h(
          'section',
          { class: 'panel intro' },
          h('h2', {}, 'Lobby'),
          h('p', {}, 'Open a table, invite friends or add bots, and play. Every move is checked by the server; the shuffle is committed to before the deal and revealed at the end.'),
          h(
            'p',
            {},
            h('label', { for: 'player-name' }, 'Your name '),
            h('input', { id: 'player-name', autocomplete: 'nickname', maxlength: 40, value: store.playerName(), oninput: (e) => store.setPlayerName(e.target.value.trim()) }),
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
                'button',
                {
                  type: 'button',
                  role: 'listitem',
                  class: `game-card${chosen?.id === g.id ? ' chosen' : ''}`,
                  'data-game': g.id,
                  'data-key': `game:${g.id}`,
                  'aria-pressed': chosen?.id === g.id ? 'true' : 'false',
                  onclick: () => {
                    chosen = g;
                    render();
                    formBox.querySelector('select, input')?.focus();
                  },
                },
                h('strong', {}, g.name),
                h('span', { class: 'players' }, g.minPlayers === g.maxPlayers ? `${g.minPlayers} players` : `${g.minPlayers}–${g.maxPlayers} players`),
                h('span', { class: 'summary' }, g.summary),
              ),
            ),
          ),
          formBox,
        ),
        tablesBox,
        myTables(),
      ),
    );
    replaceChildren(formBox, chosen ? createForm(chosen) : null);
  }

  function createForm(game) {
    const defaultSeats = Math.min(game.maxPlayers, Math.max(2, game.minPlayers));
    const seats = h(
      'select',
      { id: 'seats', name: 'seats' },
      range(game.minPlayers, game.maxPlayers).map((n) => h('option', { value: n, selected: n === defaultSeats }, String(n))),
    );
    const optionFields = optionsFields(game.options);
    const ruleBoxes = game.houseRules.map((rule) => ({
      rule,
      input: h('input', { type: 'checkbox', name: 'rule', value: rule.id, id: `rule-${rule.id}` }),
      note: h('span', { class: 'rule-notes' }),
    }));
    const play = h('input', { type: 'checkbox', id: 'play-too', checked: true });

    // A rule is offered only where it may be on: no conflict with a ticked rule, and the
    // chosen number of seats within its player range.
    const updateRules = () => {
      const n = Number(seats.value);
      const on = new Set(ruleBoxes.filter((b) => b.input.checked).map((b) => b.rule.id));
      for (const { rule, input, note } of ruleBoxes) {
        const conflict = rule.conflictsWith.find((id) => on.has(id));
        const players = (rule.minPlayers && n < rule.minPlayers) || (rule.maxPlayers && n > rule.maxPlayers);
        input.disabled = Boolean(conflict) || Boolean(players);
        if (input.disabled) input.checked = false;
        const notes = [];
        if (rule.minPlayers || rule.maxPlayers) notes.push(`players: ${rule.minPlayers === rule.maxPlayers ? rule.minPlayers : `${rule.minPlayers || 1}–${rule.maxPlayers || game.maxPlayers}`}`);
        if (rule.conflictsWith.length) notes.push(`conflicts with ${rule.conflictsWith.map(humanize).join(', ')}`);
        if (conflict) notes.push(`unavailable while ${humanize(conflict)} is on`);
        note.textContent = notes.length ? ` (${notes.join('; ')})` : '';
      }
    };
    seats.addEventListener('change', updateRules);
    for (const b of ruleBoxes) b.input.addEventListener('change', updateRules);
    updateRules();

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
        const rules = ruleBoxes.filter((b) => b.input.checked).map((b) => b.rule.id);
        const made = (await request(CREATE, { game: game.id, rules, options, seats: Number(seats.value) })).createTable;
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
      ruleBoxes.length
        ? h(
            'fieldset',
            { class: 'rules' },
            h('legend', {}, 'House rules'),
            ruleBoxes.map(({ rule, input, note }) =>
              h('div', { class: 'rule' }, input, ' ', h('label', { for: input.id }, h('strong', {}, rule.name), ' ', h('span', { class: 'rule-desc' }, rule.description)), note),
            ),
          )
        : null,
      h('p', {}, play, ' ', h('label', { for: 'play-too' }, 'I take a seat (as host)')),
      h('p', {}, h('button', { type: 'submit', class: 'primary' }, 'Create the table')),
    );
  }

  async function start() {
    render();
    try {
      games = (await request(GAMES)).games;
    } catch (err) {
      app.notify(err);
    }
    render();
    loadTables();
    timer = setInterval(loadTables, 5000);
  }
  start();

  return {
    destroy() {
      clearInterval(timer);
    },
  };
}

function range(a, b) {
  const out = [];
  for (let i = a; i <= b; i += 1) out.push(i);
  return out;
}

// Form fields from the game's options (a JSON Schema with defaults). Objects (such as
// per-objective points) get a folded group of their own fields.
function optionsFields(schema, prefix = '') {
  const fields = [];
  for (const [key, prop] of Object.entries(schema?.properties || {})) {
    const id = `opt-${prefix}${key}`;
    const label = h('label', { for: id }, humanize(key));
    const hint = prop.description ? h('span', { class: 'hint' }, prop.description) : null;
    if (prop.type === 'object') {
      const inner = optionsFields(prop, `${key}.`);
      fields.push({
        key,
        nested: inner,
        row: h('details', { class: 'option-group' }, h('summary', {}, humanize(key), hint ? [' — ', hint] : ''), h('div', { class: 'option-grid' }, inner.map((f) => f.row))),
      });
      continue;
    }
    let input;
    if (prop.enum) {
      input = h('select', { id }, prop.enum.map((v) => h('option', { value: JSON.stringify(v), selected: v === prop.default }, String(v))));
    } else if (prop.type === 'boolean') {
      input = h('input', { id, type: 'checkbox', checked: Boolean(prop.default) });
    } else if (prop.type === 'integer' || prop.type === 'number') {
      input = h('input', { id, type: 'number', min: prop.minimum, max: prop.maximum, step: prop.type === 'integer' ? 1 : 'any', value: prop.default ?? '', inputmode: 'numeric' });
    } else {
      input = h('input', { id, value: prop.default ?? '' });
    }
    fields.push({ key, prop, input, row: h('div', { class: 'option' }, label, ' ', input, hint ? [' ', hint] : '') });
  }
  return fields;
}

// Only what differs from the defaults is sent.
function readOptions(fields) {
  const out = {};
  for (const f of fields) {
    if (f.nested) {
      const inner = readOptions(f.nested);
      if (Object.keys(inner).length) out[f.key] = inner;
      continue;
    }
    let value;
    if (f.prop.enum) value = JSON.parse(f.input.value);
    else if (f.prop.type === 'boolean') value = f.input.checked;
    else if (f.prop.type === 'integer' || f.prop.type === 'number') value = f.input.value === '' ? undefined : Number(f.input.value);
    else value = f.input.value;
    if (value !== undefined && value !== f.prop.default) out[f.key] = value;
  }
  return out;
}
