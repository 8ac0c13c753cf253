// Turning `legalMoves` into clicks.
//
// A game module maps each legal move to its steps, [{key, label}, ...]: what a player
// clicks, in order (an action card, then a square, then a colour). Elements of the game's
// view carry data-step="<key>"; a step with no such element is offered as a button in the
// choice bar (a colour, +1/-1, "Go out"). When the clicks so far name exactly one move,
// it is sent as it came from the server: the page never builds moves of its own.

import { h } from './dom.js';

export class Chooser {
  constructor() {
    this.options = [];
    this.picked = []; // the steps clicked so far: [{key, label}]
  }

  setMoves(moves, stepsOf) {
    this.options = moves.map((move) => ({ move, steps: stepsOf(move, moves) }));
    if (!this.matching().length) this.picked = [];
  }

  matching() {
    const depth = this.picked.length;
    return this.options.filter(
      (o) => o.steps.length > depth && this.picked.every((step, i) => o.steps[i].key === step.key),
    );
  }

  // The steps that may be clicked next, by key.
  next() {
    const depth = this.picked.length;
    const steps = new Map();
    for (const o of this.matching()) {
      const step = o.steps[depth];
      if (!steps.has(step.key)) steps.set(step.key, step);
    }
    return steps;
  }

  // Click a step: the move it completes, or null when more clicks are needed.
  pick(key) {
    const depth = this.picked.length;
    const options = this.matching().filter((o) => o.steps[depth].key === key);
    if (!options.length) return null;
    const done = options.find((o) => o.steps.length === depth + 1);
    if (done) {
      this.picked = [];
      return done.move;
    }
    this.picked.push(options[0].steps[depth]);
    return null;
  }

  cancel() {
    this.picked = [];
  }
}

// Mark the view's elements that are legal next steps (class "playable"), and return
// buttons for the steps the view has no element for: { choices, forfeits } (forfeiting a
// turn is kept apart, after the moves). onPick(key) is called on a click of a step;
// onBlocked(key) on a click of an element that is not a legal step now, so that the page
// can say why (such elements stay focusable, with aria-disabled).
export function wire(root, chooser, onPick, onBlocked = () => {}) {
  const next = chooser.next();
  const pickedKeys = new Set(chooser.picked.map((s) => s.key));
  const shown = new Set();
  for (const el of root.querySelectorAll('[data-step]')) {
    const key = el.dataset.step;
    const step = next.get(key);
    const picked = pickedKeys.has(key);
    el.disabled = false;
    el.classList.toggle('playable', Boolean(step));
    el.classList.toggle('picked', picked);
    el.classList.toggle('blocked', !step && !picked);
    if (!step && !picked) el.setAttribute('aria-disabled', 'true');
    if (picked) el.setAttribute('aria-pressed', 'true');
    el.dataset.key = `step:${key}`;
    const label = el.dataset.label || el.textContent.trim();
    el.setAttribute('aria-label', step ? `${label}: ${step.label}` : picked ? `${label} (chosen)` : label);
    if (step) {
      el.title = step.label;
      shown.add(key);
      el.addEventListener('click', () => onPick(key));
    } else if (picked) {
      el.addEventListener('click', () => onPick(null));
    } else {
      el.addEventListener('click', () => onBlocked(key, el));
    }
  }
  const button = (step) =>
    h(
      'button',
      {
        type: 'button',
        class: `choice ${step.className || ''}`,
        'data-step-choice': step.key,
        'data-key': `choice:${step.key}`,
        onclick: () => onPick(step.key),
      },
      step.label,
    );
  const rest = [...next.values()].filter((step) => !shown.has(step.key));
  const isForfeit = (step) => (step.className || '').split(' ').includes('forfeit');
  return { choices: rest.filter((s) => !isForfeit(s)).map(button), forfeits: rest.filter(isForfeit).map(button) };
}

// A readable line for any move (used by the generic view and the event log).
export function describeMove(move) {
  const [, inner] = Object.entries(move)[0] || [];
  if (!inner || typeof inner !== 'object') return JSON.stringify(move);
  const [kind, args] = Object.entries(inner)[0];
  const words = kind.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  if (args === true) return words.charAt(0).toUpperCase() + words.slice(1);
  return `${words.charAt(0).toUpperCase() + words.slice(1)}: ${flat(args)}`;
}

function flat(value) {
  if (Array.isArray(value)) return value.map(flat).join(' ');
  if (value && typeof value === 'object') {
    return Object.entries(value)
      .map(([k, v]) => `${k} ${flat(v)}`)
      .join(', ');
  }
  return String(value);
}
