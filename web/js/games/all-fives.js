// All Fives: stand or beg, give one or run, then play tricks.

import { h } from '../dom.js';
import { card, cardBack, cardText, suitText } from '../cards.js';

export const fragment = `... on AllFivesState {
  phase seats dealer eldest dealNumber targetScore proposedSuit turnUp trump begged runs
  setAside stockSize discardedCount handLimit leader hand bunchProposedBy winners
  trick { seat card }
  lastTrick { plays { seat card } winner points }
  players { seat side handSize tricksWon dealPoints score }
}`;

const CALLS = {
  stand: 'Stand (keep trump)',
  beg: 'Beg',
  giveOne: 'Give one point',
  run: 'Run the cards',
  bunch: 'Redeal (bunch)',
  declineBunch: 'No redeal',
};

export function steps(move) {
  const m = move.allFives;
  const [kind, args] = Object.entries(m)[0];
  if (kind === 'play') return [{ key: `hand:${args.card}`, label: `Play ${cardText(args.card)}` }];
  if (kind === 'discard') return [{ key: `hand:${args.card}`, label: `Discard ${cardText(args.card)} face down` }];
  return [{ key: kind, label: CALLS[kind] || kind, className: 'strong' }];
}

const PHASES = {
  STAND_OR_BEG: (s, v) => `${v.seatName(s.eldest)} stands or begs`,
  GIVE_OR_RUN: (s, v) => `${v.seatName(s.dealer)} gives one or runs the cards`,
  BUNCH: () => 'a redeal may be agreed',
  DISCARD: (s) => `discard down to ${s.handLimit}`,
  PLAY: (s, v) => `${s.toAct.map(v.seatName).join(', ')} to play`,
  GAME_OVER: () => 'game over',
};

export function render(s, view) {
  const info = h(
    'p',
    { class: 'info' },
    `Deal ${s.dealNumber} · dealer ${view.seatName(s.dealer)} · first to ${s.targetScore} · `,
    s.trump ? h('strong', {}, `trump ${suitText(s.trump)}`) : `proposed ${suitText(s.proposedSuit || '?')}`,
    ` · ${(PHASES[s.phase] || (() => s.phase))(s, view)}`,
  );
  const table = h(
    'div',
    { class: 'piles' },
    h('div', { class: 'pile' }, cardBack('stock'), h('span', { class: 'pile-label' }, `Stock (${s.stockSize})`)),
    h('div', { class: 'pile' }, s.turnUp ? card(s.turnUp) : h('span', { class: 'card empty' }), h('span', { class: 'pile-label' }, 'Turn-up')),
    h(
      'div',
      { class: 'trick', 'aria-label': 'The trick' },
      h('span', { class: 'pile-label' }, 'Trick'),
      h(
        'div',
        { class: 'cards' },
        s.trick.length
          ? s.trick.map((p) => h('figure', {}, card(p.card), h('figcaption', {}, view.seatName(p.seat))))
          : h('span', { class: 'muted' }, s.phase === 'PLAY' ? `${view.seatName(s.leader)} leads` : '—'),
      ),
    ),
  );
  const last = s.lastTrick
    ? h(
        'p',
        { class: 'last-trick' },
        'Last trick: ',
        s.lastTrick.plays.map((p) => `${view.seatName(p.seat)} ${cardText(p.card)}`).join(', '),
        ` → ${view.seatName(s.lastTrick.winner)}${s.lastTrick.points ? ` (+${s.lastTrick.points})` : ''}`,
      )
    : null;
  const hand = s.hand
    ? h(
        'section',
        { class: 'hand', 'aria-label': 'Your hand' },
        h('h3', {}, `Your hand (${s.hand.length})`),
        h('div', { class: 'cards' }, s.hand.map((c) => card(c, { step: `hand:${c}` }))),
      )
    : null;
  const players = h(
    'table',
    { class: 'scores' },
    h('caption', {}, 'Players'),
    h(
      'thead',
      {},
      h('tr', {}, ['Player', 'Cards', 'Tricks', 'This deal', 'Score'].map((t) => h('th', { scope: 'col' }, t))),
    ),
    h(
      'tbody',
      {},
      s.players.map((p) =>
        h(
          'tr',
          { class: s.toAct.includes(p.seat) ? 'to-act' : '' },
          h('th', { scope: 'row' }, view.seatName(p.seat), p.seat === s.dealer ? ' (dealer)' : ''),
          h('td', {}, p.handSize),
          h('td', {}, p.tricksWon),
          h('td', {}, p.dealPoints),
          h('td', {}, p.score),
        ),
      ),
    ),
  );
  return h('div', { class: 'game all-fives' }, info, table, last, hand, players);
}
