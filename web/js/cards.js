// Cards ("QH", "10T", "JK") and dice ("R3") as elements with readable labels.

import { h } from './dom.js';

const SUITS = {
  S: ['♠', 'spades'],
  H: ['♥', 'hearts'],
  C: ['♣', 'clubs'],
  D: ['♦', 'diamonds'],
  T: ['★', 'stars'],
};
const RANK_NAMES = { A: 'Ace', K: 'King', Q: 'Queen', J: 'Jack' };
const COLORS = { R: 'red', Y: 'yellow', B: 'blue', G: 'green' };

export function parseCard(card) {
  if (card === 'JK') return { rank: 'JK', suit: '' };
  return { rank: card.slice(0, -1), suit: card.slice(-1) };
}

export function cardName(card) {
  const { rank, suit } = parseCard(card);
  if (rank === 'JK') return 'Joker';
  return `${RANK_NAMES[rank] || rank} of ${SUITS[suit]?.[1] || suit}`;
}

export function cardText(card) {
  const { rank, suit } = parseCard(card);
  return rank === 'JK' ? 'Joker' : `${rank}${SUITS[suit]?.[0] || suit}`;
}

export function suitText(suit) {
  return SUITS[suit] ? `${SUITS[suit][0]} ${SUITS[suit][1]}` : suit;
}

// A card; `step` makes it a button that plays a legal move (see moves.js).
export function card(code, { step, wild = false, small = false } = {}) {
  const { rank, suit } = parseCard(code);
  const label = cardName(code) + (wild ? ' (wild)' : '');
  const body = [
    h('span', { class: 'rank' }, rank === 'JK' ? 'Jkr' : rank),
    h('span', { class: 'suit', 'aria-hidden': 'true' }, SUITS[suit]?.[0] || suit),
    wild ? h('span', { class: 'wild-mark', 'aria-hidden': 'true' }, 'wild') : null,
  ];
  const cls = `card suit-${suit || 'joker'}${wild ? ' wild' : ''}${small ? ' small' : ''}`;
  if (step === undefined) return h('span', { class: cls, role: 'img', 'aria-label': label, title: label }, body);
  return h('button', { class: cls, type: 'button', 'data-step': step, 'data-label': label }, body);
}

export function cardBack(label) {
  return h('span', { class: 'card back', role: 'img', 'aria-label': label, title: label });
}

export function colorName(color) {
  return COLORS[color] || color;
}

export function dieName(die) {
  return `${colorName(die[0])} ${die.slice(1)}`;
}

const PIPS = { 1: '⚀', 2: '⚁', 3: '⚂', 4: '⚃', 5: '⚄', 6: '⚅' };

export function die(code, { small = false } = {}) {
  return h(
    'span',
    { class: `die die-${code[0]}${small ? ' small' : ''}`, role: 'img', 'aria-label': `${dieName(code)}`, title: dieName(code) },
    h('span', { class: 'pips', 'aria-hidden': 'true' }, PIPS[code.slice(1)] || ''),
    h('span', { class: 'value' }, code.slice(1)),
  );
}
