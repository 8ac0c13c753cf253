// Any game without a view module of its own: its view built from its state type, read by
// GraphQL introspection. A list of cards shows as cards, a list of lists as a board (an
// ARIA grid: arrow keys move between its cells), numbers and strings as labelled values,
// lists of objects as tables; the viewer's own part is marked (an object whose `seat` is
// the viewer's, fields named my…/own…). A legal move that names a cell (row and column) or
// a card on show is made by clicking it (or Enter on it); the other moves are buttons.

import { request } from '../api.js';
import { card, cardText, die, dieName } from '../cards.js';
import { h, humanize } from '../dom.js';
import { describeMove } from '../moves.js';
import { list } from '../words.js';

const MAX_DEPTH = 3; // objects inside objects, below the state
const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } }';
const TYPES_PER_QUERY = 20;
const CARD = /^(?:[1-9]|10|[AKQJ])[A-Z]$|^JK$/;
const DIE = /^[RYBGW][1-6]$/;
const SEAT_FIELD = /^(?:seat|turn|dealer|current|leader|winner|player|mover)$|Seat$/;
const SEATS_FIELD = /^(?:seats|winners|players|order|playOrder|toAct)$|Seats$/;
const MINE_FIELD = /^(?:my|own)[A-Z]/;
const SKIPPED = new Set(['id', 'gameId', 'toAct']); // ids change every version; toAct has its own line

const isCard = (x) => typeof x === 'string' && CARD.test(x);
const isDie = (x) => typeof x === 'string' && DIE.test(x);

// "myHand" -> "Your hand", "stockSize" -> "Stock size".
function label(name) {
  const own = MINE_FIELD.exec(name);
  return own ? `Your ${humanize(name.slice(own[0].length - 1)).toLowerCase()}` : humanize(name);
}

// A type reference without its NON_NULLs: { list: inner } or { kind, name }.
function shapeOf(ref) {
  if (!ref) return null;
  if (ref.kind === 'NON_NULL') return shapeOf(ref.ofType);
  if (ref.kind === 'LIST') {
    const inner = shapeOf(ref.ofType);
    return inner && { list: inner };
  }
  return { kind: ref.kind, name: ref.name };
}

const leaf = (shape) => (shape.list ? leaf(shape.list) : shape);

// The fields of the state type and of the object types below it, depth-limited:
// Map(type name -> [{ name, shape }]).
async function readTypes(root) {
  const types = new Map();
  let wanted = [root];
  for (let depth = 0; depth <= MAX_DEPTH && wanted.length; depth += 1) {
    const next = [];
    for (let i = 0; i < wanted.length; i += TYPES_PER_QUERY) {
      const names = wanted.slice(i, i + TYPES_PER_QUERY);
      const vars = names.map((_, j) => `$n${j}: String!`).join(', ');
      const picks = names.map((_, j) => `t${j}: __type(name: $n${j}) { name fields { name args { name } type { ${TYPE_REF} } } }`).join('\n');
      const data = await request(`query StateType(${vars}) { ${picks} }`, Object.fromEntries(names.map((n, j) => [`n${j}`, n])));
      for (const t of Object.values(data)) {
        if (!t?.fields) continue;
        const fields = [];
        for (const f of t.fields) {
          const shape = shapeOf(f.type);
          if (!shape || f.args.length || f.name.startsWith('__')) continue;
          const base = leaf(shape);
          if (base.kind === 'OBJECT') {
            if (depth === MAX_DEPTH) continue;
            if (!types.has(base.name) && !wanted.includes(base.name) && !next.includes(base.name)) next.push(base.name);
          } else if (base.kind !== 'SCALAR' && base.kind !== 'ENUM') continue;
          fields.push({ name: f.name, shape });
        }
        types.set(t.name, fields);
      }
    }
    wanted = next;
  }
  return types;
}

function selection(types, typeName, top) {
  const parts = [];
  for (const f of fieldsOf(types, typeName, top)) {
    const base = leaf(f.shape);
    parts.push(base.kind === 'OBJECT' ? `${f.name} { ${selection(types, base.name, false)} }` : f.name);
  }
  return parts.join(' ');
}

// The fields shown: object fields only where their type has fields to show.
function fieldsOf(types, typeName, top) {
  return (types.get(typeName) || []).filter((f) => {
    if (SKIPPED.has(f.name) && (top || f.name === 'id')) return false;
    const base = leaf(f.shape);
    return base.kind !== 'OBJECT' || fieldsOf(types, base.name, false).length > 0;
  });
}

// -- moves ------------------------------------------------------------------------------

// What a move's arguments point at on the page, in order: cells ({row, col}) and cards.
function targets(args, out = []) {
  if (Array.isArray(args)) {
    for (const x of args) targets(x, out);
  } else if (args && typeof args === 'object') {
    if (Number.isInteger(args.row) && Number.isInteger(args.col)) out.push({ key: `cell:${args.row}:${args.col}`, text: `row ${args.row + 1}, column ${args.col + 1}` });
    for (const [k, v] of Object.entries(args)) if (k !== 'row' && k !== 'col') targets(v, out);
  } else if (isCard(args)) {
    out.push({ key: `card:${args}`, text: cardText(args) });
  }
  return out;
}

function kindOf(move) {
  const [, inner] = Object.entries(move)[0] || [];
  const [kind, args] = inner && typeof inner === 'object' ? Object.entries(inner)[0] || [] : [];
  return { kind, args };
}

const clicksOf = (move) => targets(kindOf(move).args).map((t) => t.key).join(' ');

// How many moves of a list are made by each sequence of clicks (once per list).
const clickCounts = new WeakMap();
function countClicks(all) {
  let counts = clickCounts.get(all);
  if (!counts) {
    counts = new Map();
    for (const m of all) counts.set(clicksOf(m), (counts.get(clicksOf(m)) || 0) + 1);
    clickCounts.set(all, counts);
  }
  return counts;
}

function makeSteps(move, all = [move]) {
  const { kind, args } = kindOf(move);
  const found = kind ? targets(args) : [];
  const button = { key: JSON.stringify(move), label: describeMove(move) };
  if (!found.length) return [button];
  const verb = humanize(kind);
  const steps = found.map((t, i) => ({ key: t.key, label: i === 0 ? `${verb} ${t.text}` : `then ${t.text}` }));
  // Two moves made by the same clicks differ in something else: a button says which.
  return countClicks(all).get(clicksOf(move)) > 1 ? [...steps, button] : steps;
}

// -- values -------------------------------------------------------------------------------

function scalarText(name, value, ctx, shape = null) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (shape && leaf(shape).kind === 'ENUM') return Array.isArray(value) ? value.map(humanize).join(', ') : humanize(value);
  if (Number.isInteger(value) && SEAT_FIELD.test(name)) return ctx.seatName(value);
  if (Array.isArray(value)) return value.map((v) => scalarText(name, v, ctx)).join(', ');
  if (typeof value === 'object') return Object.entries(value).map(([k, v]) => `${humanize(k).toLowerCase()} ${scalarText(k, v, ctx)}`).join(', ');
  return String(value);
}

function item(value, ctx, { mine = false, small = false } = {}) {
  if (isCard(value)) {
    const key = `card:${value}`;
    return mine || ctx.legal.has(key) ? card(value, { step: key, small }) : card(value, { small });
  }
  if (isDie(value)) return die(value, { small });
  return h('span', { class: 'value' }, String(value));
}

function listValue(name, shape, value, ctx, mine) {
  if (!value.length) return h('span', { class: 'muted' }, 'none');
  if (shape.list.list) return board(name, value, ctx);
  if (leaf(shape).kind === 'OBJECT') return objectTable(name, shape.list, value, ctx);
  if (value.every((x) => isCard(x) || isDie(x))) return h('div', { class: 'cards' }, value.map((x) => item(x, ctx, { mine })));
  if (value.every(Number.isInteger) && SEATS_FIELD.test(name)) return h('span', { class: 'value' }, list(value.map(ctx.seatName)));
  return h('span', { class: 'value' }, value.map((x) => scalarText(name, x, ctx, shape)).join(', '));
}

// Where keyboard focus sits in each board (by field), kept across re-renders.
const focusAt = new Map();

// A list of lists: an ARIA grid of buttons, one tab stop (the current cell), arrow keys,
// Home and End to move; Enter or a click plays the cell when a legal move names it.
function board(name, rows, ctx) {
  const keys = rows.flatMap((row, r) => row.map((_, c) => `cell:${r}:${c}`));
  let at = focusAt.get(name);
  if (!at || !rows[at[0]] || at[1] >= rows[at[0]].length) {
    const first = keys.find((k) => ctx.legal.has(k)) || keys[0] || 'cell:0:0';
    at = first.split(':').slice(1).map(Number);
    focusAt.set(name, at);
  }
  const move = (e) => {
    const [r, c] = focusAt.get(name);
    const to = { ArrowUp: [r - 1, c], ArrowDown: [r + 1, c], ArrowLeft: [r, c - 1], ArrowRight: [r, c + 1], Home: [r, 0], End: [r, (rows[r]?.length || 1) - 1] }[e.key];
    if (!to) return;
    e.preventDefault();
    const target = e.currentTarget.querySelector(`[data-cell="${to[0]}:${to[1]}"]`);
    if (target) target.focus();
  };
  const onFocus = (e) => {
    const cell = e.target.closest('[data-cell]');
    if (!cell) return;
    focusAt.set(name, cell.dataset.cell.split(':').map(Number));
    for (const el of e.currentTarget.querySelectorAll('[data-cell]')) el.tabIndex = el === cell ? 0 : -1;
  };
  const grid = h(
    'div',
    { class: 'generic-board', role: 'grid', 'aria-label': label(name), onkeydown: move, onfocusin: onFocus },
    rows.map((row, r) =>
      h(
        'div',
        { role: 'row', class: 'grid-row' },
        row.map((value, c) => {
          const empty = value === null || value === undefined || value === '';
          const plain = typeof value === 'object' && !empty ? scalarText(name, value, ctx) : String(value);
          const text = empty ? 'empty' : isDie(value) ? dieName(value) : isCard(value) ? cardText(value) : plain;
          return h(
            'div',
            { role: 'gridcell', class: 'grid-cell' },
            h(
              'button',
              {
                type: 'button',
                class: `cell${empty ? ' empty' : ''}`,
                'data-step': `cell:${r}:${c}`,
                'data-cell': `${r}:${c}`,
                'data-label': `Row ${r + 1}, column ${c + 1}: ${text}`,
                tabindex: at[0] === r && at[1] === c ? 0 : -1,
              },
              empty ? '' : isDie(value) ? die(value) : isCard(value) ? card(value, { small: true }) : plain,
            ),
          );
        }),
      ),
    ),
  );
  // Through the CSSOM: the page's policy allows no inline style attribute.
  grid.style.setProperty('--cols', String(Math.max(1, ...rows.map((row) => row.length))));
  return grid;
}

function objectTable(name, shape, rows, ctx) {
  const fields = fieldsOf(ctx.types, leaf(shape).name, false);
  return h(
    'table',
    { class: 'scores', 'aria-label': label(name) },
    h('thead', {}, h('tr', {}, fields.map((f) => h('th', { scope: 'col' }, f.name === 'seat' ? 'Player' : label(f.name))))),
    h(
      'tbody',
      {},
      rows.map((row) => {
        const mine = row && ctx.me !== null && row.seat === ctx.me;
        const toAct = row && ctx.toAct.includes(row.seat);
        return h(
          'tr',
          { class: [mine ? 'mine' : '', toAct ? 'to-act' : ''].join(' ').trim() || null },
          fields.map((f) => h(f.name === 'seat' ? 'th' : 'td', f.name === 'seat' ? { scope: 'row' } : {}, cellValue(f, row?.[f.name], ctx, mine))),
        );
      }),
    ),
  );
}

function cellValue(field, value, ctx, mine) {
  if (value === null || value === undefined) return '—';
  if (field.shape.list && Array.isArray(value) && value.length && value.every((x) => isCard(x) || isDie(x))) return h('span', { class: 'cards' }, value.map((x) => item(x, ctx, { mine, small: true })));
  return scalarText(field.name, value, ctx, field.shape);
}

// An object's fields: its plain values as a list of terms, then its lists and objects.
function fieldsBlock(typeName, obj, ctx, { top = false, mine = false } = {}) {
  const values = [];
  const parts = [];
  for (const f of fieldsOf(ctx.types, typeName, top)) {
    const value = obj?.[f.name];
    const own = mine || MINE_FIELD.test(f.name);
    const attrs = { 'data-field': f.name, class: `field${own ? ' mine' : ''}` };
    if (f.shape.list) {
      if (value === null || value === undefined) continue; // not this viewer's to see
      parts.push(h('section', { ...attrs, 'aria-label': label(f.name) }, h('h3', {}, label(f.name)), listValue(f.name, f.shape, value, ctx, own)));
    } else if (leaf(f.shape).kind === 'OBJECT') {
      if (value === null || value === undefined) continue;
      const theirs = own || (ctx.me !== null && value.seat === ctx.me);
      parts.push(h('section', { ...attrs, class: `field object${theirs ? ' mine' : ''}`, 'aria-label': label(f.name) }, h('h3', {}, label(f.name)), fieldsBlock(leaf(f.shape).name, value, ctx, { mine: theirs })));
    } else {
      values.push(h('div', attrs, h('dt', {}, label(f.name)), h('dd', {}, scalarText(f.name, value, ctx, f.shape))));
    }
  }
  return [values.length ? h('dl', { class: 'values' }, values) : null, parts];
}

// -- the view -----------------------------------------------------------------------------

const pascal = (id) => id.split('-').map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');

// The view of a game from its state type (`<Game>State`), as the page's game modules are.
export async function genericView(game) {
  const typeName = `${pascal(game.id)}State`;
  let types = new Map();
  try {
    types = await readTypes(typeName);
  } catch {
    types = new Map(); // no state type to read: the moves are still offered as buttons
  }
  const fields = selection(types, typeName, true);
  return {
    generic: true,
    fragment: fields ? `... on ${typeName} { ${fields} }` : '',
    steps: makeSteps,
    render(s, view) {
      const moves = view.table?.legalMoves || [];
      const legal = new Set(moves.flatMap((m) => makeSteps(m, moves).map((x) => x.key)));
      const ctx = { types, legal, me: view.mySeat ?? null, seatName: view.seatName, toAct: s.toAct || [] };
      return h(
        'div',
        { class: 'game generic' },
        h('p', { class: 'info' }, `To act: ${list(ctx.toAct.map(view.seatName)) || 'nobody'}`),
        types.has(typeName) ? fieldsBlock(typeName, s, ctx, { top: true }) : h('p', { class: 'muted' }, 'This game’s state cannot be read; its moves are offered as buttons.'),
      );
    },
  };
}
