// Five Crowns: draw from the stock or the discard pile, discard a card, go out.

import { h } from '../dom.js';
import { card, cardBack, cardText } from '../cards.js';

export const fragment = `... on FiveCrownsState {
  mode phase round rounds playoff cardsDealt wildRank dealer turn finalTurns wentOut
  topDiscard discardSize stockSize drewFrom drawnCard hand winners
  players { seat handSize dealtIn roundPoints total wentOut finished }
  melds { index seat kind cards }
  history { round playoff points { seat points } }
  solo { current deadCount lastDead turns score piles { index size wildRank cards closed points } }
}`;

const meldsText = (melds) => melds.map((m) => m.map(cardText).join(' ')).join(' | ');

export function steps(move) {
  const m = move.fiveCrowns;
  if (m.draw) {
    return m.draw.source === 'STOCK'
      ? [{ key: 'stock', label: 'Draw from the stock' }]
      : [{ key: 'discard-pile', label: 'Take the top discard' }];
  }
  if (m.discard) return [{ key: `hand:${m.discard.card}`, label: `Discard ${cardText(m.discard.card)}` }];
  if (m.goOut) {
    return [{ key: 'goOut', label: `Go out: ${meldsText(m.goOut.melds)}, discard ${cardText(m.goOut.discard)}`, className: 'strong' }];
  }
  if (m.layDown) {
    return [{ key: 'layDown', label: `Lay down ${meldsText(m.layDown.melds)}, discard ${cardText(m.layDown.discard)}` }];
  }
  if (m.layOff) {
    const cards = m.layOff.cards.map(cardText).join(' ');
    return [{ key: `layOff:${m.layOff.meld}:${m.layOff.cards.join(',')}`, label: `Lay off ${cards} on meld ${m.layOff.meld + 1}` }];
  }
  if (m.place) {
    return [
      { key: `pile:${m.place.pile}`, label: `Place on pile ${m.place.pile + 1}` },
      { key: `place:${m.place.pile}:${m.place.discard}`, label: `Discard ${cardText(m.place.discard)}` },
    ];
  }
  return [{ key: JSON.stringify(move), label: JSON.stringify(m) }];
}

const isWild = (code, wildRank) => code === 'JK' || (wildRank && code.slice(0, -1) === wildRank);

const PHASES = {
  DRAW: 'draws a card',
  DISCARD: 'discards (or goes out)',
  PLACE: 'places the turned card',
  GAME_OVER: 'Game over',
};

export function render(s, view) {
  if (s.mode === 'SOLO') return renderSolo(s, view);
  const who = s.turn === null || s.turn === undefined ? '' : view.seatName(s.turn);
  const info = h(
    'p',
    { class: 'info' },
    `Round ${s.round} of ${s.rounds}${s.playoff ? ' (tie-break)' : ''} · ${s.cardsDealt} cards · `,
    h('strong', {}, `${s.wildRank}s wild`),
    ' and jokers',
    s.dealer !== null ? ` · dealer ${view.seatName(s.dealer)}` : '',
    s.phase === 'GAME_OVER' ? ' · game over' : ` · ${who} ${PHASES[s.phase] || s.phase}`,
    s.finalTurns && s.phase !== 'GAME_OVER' ? h('span', { class: 'badge' }, ` ${view.seatName(s.wentOut)} went out: last turns!`) : '',
  );
  const piles = h(
    'div',
    { class: 'piles' },
    h(
      'button',
      { type: 'button', class: 'pile', 'data-step': 'stock', 'data-label': `Stock, ${s.stockSize} cards` },
      cardBack('stock'),
      h('span', { class: 'pile-label' }, `Stock (${s.stockSize})`),
    ),
    h(
      'button',
      { type: 'button', class: 'pile', 'data-step': 'discard-pile', 'data-label': `Discard pile, top ${s.topDiscard || 'empty'}` },
      s.topDiscard ? card(s.topDiscard, { wild: isWild(s.topDiscard, s.wildRank) }) : h('span', { class: 'card empty' }),
      h('span', { class: 'pile-label' }, `Discard (${s.discardSize})`),
    ),
    s.drawnCard
      ? h('div', { class: 'drawn' }, h('span', { class: 'pile-label' }, `Drawn (${s.drewFrom === 'STOCK' ? 'stock' : 'discard'})`), card(s.drawnCard, { wild: isWild(s.drawnCard, s.wildRank) }))
      : null,
  );
  const hand = s.hand
    ? h(
        'section',
        { class: 'hand', 'aria-label': 'Your hand' },
        h('h3', {}, `Your hand (${s.hand.length})`),
        h('div', { class: 'cards' }, s.hand.map((c) => card(c, { step: `hand:${c}`, wild: isWild(c, s.wildRank) }))),
      )
    : null;
  const melds = s.melds.length
    ? h(
        'section',
        { class: 'melds', 'aria-label': 'Melds on the table' },
        h('h3', {}, 'On the table'),
        s.melds.map((m) =>
          h(
            'div',
            { class: 'meld' },
            h('span', { class: 'meld-label' }, `${m.index + 1}. ${view.seatName(m.seat)} · ${m.kind.toLowerCase()}`),
            h('span', { class: 'cards' }, m.cards.map((c) => card(c, { small: true, wild: isWild(c, s.wildRank) }))),
          ),
        ),
      )
    : null;
  const players = h(
    'table',
    { class: 'scores' },
    h('caption', {}, 'Players'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col' }, 'Cards'), h('th', { scope: 'col' }, 'This round'), h('th', { scope: 'col' }, 'Total'))),
    h(
      'tbody',
      {},
      s.players.map((p) =>
        h(
          'tr',
          { class: s.toAct.includes(p.seat) ? 'to-act' : '' },
          h('th', { scope: 'row' }, view.seatName(p.seat), p.wentOut ? ' (out)' : ''),
          h('td', {}, p.dealtIn ? p.handSize : '–'),
          h('td', {}, p.roundPoints ?? ''),
          h('td', {}, p.total),
        ),
      ),
    ),
  );
  return h('div', { class: 'game five-crowns' }, info, piles, hand, melds, players, history(s, view));
}

function history(s, view) {
  if (!s.history.length) return null;
  return h(
    'table',
    { class: 'scores history' },
    h('caption', {}, 'Rounds'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Round'), s.players.map((p) => h('th', { scope: 'col' }, view.seatName(p.seat))))),
    h(
      'tbody',
      {},
      s.history.map((r) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, r.playoff ? 'Tie-break' : r.round),
          s.players.map((p) => h('td', {}, r.points.find((x) => x.seat === p.seat)?.points ?? '–')),
        ),
      ),
    ),
  );
}

function renderSolo(s) {
  const solo = s.solo;
  return h(
    'div',
    { class: 'game five-crowns solo' },
    h('p', { class: 'info' }, `Solo · turn ${solo.turns} · score ${solo.score} · stock ${s.stockSize} · dead ${solo.deadCount}`),
    h('div', { class: 'piles' }, h('span', { class: 'pile-label' }, 'Turned card'), solo.current ? card(solo.current) : h('span', { class: 'card empty' })),
    h(
      'div',
      { class: 'solo-piles' },
      solo.piles.map((p) =>
        h(
          'div',
          { class: `solo-pile${p.closed ? ' closed' : ''}` },
          h(
            'button',
            { type: 'button', class: 'pile-name', 'data-step': `pile:${p.index}`, 'data-label': `Pile ${p.index + 1}` },
            `Pile ${p.index + 1} · ${p.wildRank}s wild${p.closed ? ' · closed' : ` · ${p.points} pts`}`,
          ),
          h('div', { class: 'cards' }, p.cards.map((c) => card(c, { step: `place:${p.index}:${c}`, small: true, wild: isWild(c, p.wildRank) }))),
        ),
      ),
    ),
  );
}
