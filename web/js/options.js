// Table options: form fields from a game's JSON Schema (with defaults), their labels and
// hints in words, and a short line of the options a table changed from the defaults.
//
// Labels and hints: the game module's `optionWords` and the core's below win over the
// schema's descriptions (which are cleaned of developer labels, see words.plainHint).

import { h, humanize } from './dom.js';
import { plainHint } from './words.js';

// The options every table has (docs/table-life.md).
export const CORE_OPTIONS = {
  turnSeconds: {
    label: 'Seconds per move',
    hint: '0: no clock. When a player’s time (and reserve) runs out, the server plays a move for them.',
    short: (v) => `${v} s per move`,
  },
  reserveSeconds: {
    label: 'Reserve seconds',
    hint: 'Extra time for each player, for the whole game, spent once a move takes longer than the seconds per move.',
    short: (v) => `${v} s reserve`,
  },
  timeoutsBeforeBot: {
    label: 'Timeouts before a bot takes over',
    hint: 'After this many timeouts a bot plays the seat for the rest of the game (0: never).',
    short: (v) => (v ? `a bot after ${v} timeouts` : 'never a bot on timeouts'),
  },
  undo: {
    label: 'Allow undo',
    hint: 'Players may take back their own last move when it showed them nothing new and nobody has moved since.',
    short: (v) => (v ? 'undo allowed' : 'no undo'),
  },
  leaveGraceSeconds: {
    label: 'Seconds to come back',
    hint: 'A player who leaves during the game may come back within this time; then a bot takes the seat (0: a bot at once).',
    short: (v) => `${v} s to come back`,
  },
};

export function optionWords(view) {
  return { ...CORE_OPTIONS, ...(view?.optionWords || {}) };
}

export function optionLabel(words, key) {
  return words[key]?.label || humanize(key);
}

export function valueLabel(words, key, value) {
  const named = words[key]?.values?.[String(value)];
  if (named) return named;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return typeof value === 'string' ? humanize(value).toLowerCase() : String(value);
}

function hintOf(words, key, prop, view) {
  if (words[key]?.hint) return words[key].hint;
  return plainHint(prop.description, {
    optionLabel: (k) => optionLabel(words, k),
    valueLabel: (k, v) => valueLabel(words, k, v),
    moves: view?.moveNames || [],
  });
}

// A house rule's description in a player's words (options named by their labels).
export function ruleText(rule, view) {
  const words = optionWords(view);
  return plainHint(rule.description, {
    optionLabel: (k) => optionLabel(words, k),
    valueLabel: (k, v) => valueLabel(words, k, v),
    moves: view?.moveNames || [],
  });
}

// Form fields from the game's options schema. `values` (optional) are the current ones
// (else the defaults). Objects (such as per-objective points) get a folded group.
export function optionsFields(schema, view, { values = {}, prefix = '', words = optionWords(view), inner = null } = {}) {
  const fields = [];
  for (const [key, prop] of Object.entries(schema?.properties || {})) {
    const id = `opt-${prefix}${key}`;
    const label = inner ? inner(key) : optionLabel(words, key);
    const hintText = inner ? null : hintOf(words, key, prop, view);
    const hint = hintText ? h('span', { class: 'hint' }, hintText) : null;
    const current = values[key] ?? prop.default;
    if (prop.type === 'object') {
      const nested = optionsFields(prop, view, { values: current || {}, prefix: `${key}.`, words, inner: words[key]?.inner || humanize });
      fields.push({
        key,
        nested,
        row: h('details', { class: 'option-group' }, h('summary', {}, label, hint ? [' — ', hint] : ''), h('div', { class: 'option-grid' }, nested.map((f) => f.row))),
      });
      continue;
    }
    let input;
    if (prop.enum) {
      input = h('select', { id }, prop.enum.map((v) => h('option', { value: JSON.stringify(v), selected: v === current }, valueLabel(words, key, v))));
    } else if (prop.type === 'boolean') {
      input = h('input', { id, type: 'checkbox', checked: Boolean(current) });
    } else if (prop.type === 'integer' || prop.type === 'number') {
      input = h('input', { id, type: 'number', min: prop.minimum, max: prop.maximum, step: prop.type === 'integer' ? 1 : 'any', value: current ?? '', inputmode: 'numeric' });
    } else {
      input = h('input', { id, value: current ?? '' });
    }
    fields.push({ key, prop, input, row: h('div', { class: 'option' }, h('label', { for: id }, label), ' ', input, hint ? [' ', hint] : '') });
  }
  return fields;
}

// Only what differs from the defaults is sent.
export function readOptions(fields) {
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

// "1 round · 30 s per move · undo allowed": a table's options that differ from the
// game's defaults, in words (objects such as per-objective points: "custom points").
export function optionsLine(options, schema, view) {
  const words = optionWords(view);
  const parts = [];
  for (const [key, prop] of Object.entries(schema?.properties || {})) {
    const value = options?.[key];
    if (value === undefined) continue;
    if (prop.type === 'object') {
      const changed = Object.entries(prop.properties || {}).some(([k, p]) => value[k] !== undefined && value[k] !== (prop.default?.[k] ?? p.default));
      if (changed) parts.push(`custom ${optionLabel(words, key).toLowerCase()}`);
      continue;
    }
    if (value === prop.default) continue;
    const short = words[key]?.short;
    parts.push(short ? short(value) : `${optionLabel(words, key).toLowerCase()}: ${valueLabel(words, key, value)}`);
  }
  return parts;
}
