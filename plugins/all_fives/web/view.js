// All Fives: stand or beg, give one or run, then play tricks. Its view, its events in
// words, the deal summary, why a card cannot be played, and which moves may be taken back.

import { h } from '/js/dom.js';
import { card, cardBack, cardText, parseCard, suitText } from '/js/cards.js';

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

export const moveNames = ['stand', 'beg', 'giveOne', 'run', 'play', 'discard', 'bunch', 'declineBunch'];

export const optionWords = {
  targetScore: { label: 'Points to win', hint: 'The first to reach this at the end of a deal wins (traditional: 61).', short: (v) => `first to ${v}` },
  lowGoesTo: {
    label: 'Low goes to',
    hint: 'With the house rule “High, Low, Jack and Game”: who scores the point for Low.',
    values: { dealt: 'the player dealt the lowest trump', won: 'the winner of the trick holding it' },
  },
  gameTie: {
    label: 'A tie for Game',
    hint: 'With the house rule “High, Low, Jack and Game”: who scores the point for Game when the counts tie.',
    values: { none: 'scores for nobody', eldest: 'scores for eldest’s side, if tied', dealerOpponents: 'scores for every tied side but the dealer’s' },
  },
};

const SUIT_WORDS = { S: '♠ spades', H: '♥ hearts', C: '♣ clubs', D: '♦ diamonds' };
// The same, short, for the deal summary.
const HOW = { trick: 'trump honours', gift: 'gift', turnUpJack: 'turned-up jack', high: 'High', low: 'Low', jack: 'Jack', game: 'Game', voidDeal: 'void deal' };
const REASONS = {
  trick: 'trump honours in a trick',
  gift: 'the dealer’s gift',
  turnUpJack: 'the turned-up jack',
  high: 'High',
  low: 'Low',
  jack: 'Jack',
  game: 'Game',
  voidDeal: 'the void deal',
};

export function words(e, w) {
  const d = e.data || {};
  const who = w.subject(e.seat);
  const mine = d.private || {};
  switch (e.type) {
    case 'deal.started':
      return `Deal ${d.deal}${d.reason === 'redeal' ? ' (dealt again)' : ''}: ${w.subject(d.dealer)} ${d.dealer === w.me ? 'deal' : 'deals'}; ${w.object(d.eldest)} ${d.eldest === w.me ? 'are' : 'is'} eldest.`;
    case 'cards.dealt':
      return mine.cards ? `Three cards each; you got ${mine.cards.map(cardText).join(' ')}.` : 'Three cards to each player.';
    case 'card.turned':
      return `The turn-up is the ${cardText(d.card)}.`;
    case 'eldest.stood':
      return `${who} stood: the turn-up’s suit stays trump.`;
    case 'eldest.begged':
      return `${who} begged.`;
    case 'dealer.gave':
      return `${who} gave one point to ${w.names(d.seats)}.`;
    case 'dealer.ran':
      return `${who} ran the cards: three more each and a new turn-up.`;
    case 'card.set-aside':
      return `The ${cardText(d.card)} is set aside: its suit was the first turn-up’s.`;
    case 'trump.fixed':
      return `Trump is ${SUIT_WORDS[d.suit] || d.suit}.`;
    case 'deal.void':
      return d.reason === 'bunch' ? 'Both agreed to a redeal: this deal’s points do not stand.' : 'The stock ran out: the deal is void and dealt again.';
    case 'bunch.proposed':
      return `${who} proposed a redeal.`;
    case 'bunch.agreed':
      return `${who} agreed to a redeal.`;
    case 'bunch.declined':
      return d.proposed ? `${who} refused the redeal.` : `${who} did not propose a redeal.`;
    case 'card.discarded':
      return mine.card ? `${who} discarded the ${cardText(mine.card)} face down.` : `${who} discarded a card face down.`;
    case 'card.played':
      return `${who} played the ${cardText(d.card)}.`;
    case 'trick.won':
      return `${who} won the trick (${d.cards.map(cardText).join(' ')})${d.points ? ` for ${w.count(d.points, 'point')}` : ''}.`;
    case 'points.scored': {
      const gets = d.points < 0 ? `${d.seats.length > 1 || d.seats[0] === w.me ? 'lose' : 'loses'} ${-d.points}` : `${d.seats.length > 1 || d.seats[0] === w.me ? 'score' : 'scores'} ${d.points}`;
      return `${w.capitalize(w.names(d.seats))} ${gets} for ${REASONS[d.reason] || d.reason}: ${d.total} in all.`;
    }
    case 'deal.scored':
      return `The deal is over: ${w.list(d.scores.map((x) => `${w.object(x.seat)} +${x.dealPoints} (${x.score} in all)`))}.`;
    case 'game.over': {
      const verb = d.winners.length === 1 && d.winners[0] !== w.me ? 'wins' : 'win';
      return `Game over: ${w.names(d.winners)} ${verb}. ${w.list(d.scores.map((x) => `${w.object(x.seat)} ${x.score}`))}.`;
    }
    default:
      return null;
  }
}

// The last deal scored: each player's points of it, by reason, and the totals.
export function summary(s, view) {
  const log = view.log || [];
  let end = -1;
  for (let i = log.length - 1; i >= 0; i -= 1) {
    if (log[i].type === 'deal.scored') {
      end = i;
      break;
    }
  }
  if (end < 0) return null;
  let start = end;
  while (start > 0 && log[start - 1].type !== 'deal.started' && log[start - 1].type !== 'deal.scored') start -= 1;
  const started = log[start - 1]?.type === 'deal.started' ? log[start - 1] : null;
  const reasons = {};
  for (const e of log.slice(start, end)) {
    if (e.type !== 'points.scored') continue;
    for (const seat of e.data.seats) {
      reasons[seat] = reasons[seat] || {};
      const name = HOW[e.data.reason] || e.data.reason;
      reasons[seat][name] = (reasons[seat][name] || 0) + e.data.points;
    }
  }
  const scores = log[end].data.scores;
  return h(
    'section',
    { class: 'round-summary', 'aria-label': 'Deal summary' },
    h('h3', {}, started ? `Deal ${started.data.deal} is over` : 'The last deal'),
    h(
      'table',
      { class: 'scores' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col' }, 'This deal'), h('th', { scope: 'col' }, 'How'), h('th', { scope: 'col' }, 'Total'))),
      h(
        'tbody',
        {},
        [...scores]
          .sort((a, b) => b.score - a.score)
          .map((x) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, view.seatName(x.seat)),
              h('td', {}, x.dealPoints),
              h('td', { class: 'how' }, Object.entries(reasons[x.seat] || {}).map(([r, n]) => `${r} ${n}`).join(', ') || '—'),
              h('td', {}, x.score),
            ),
          ),
      ),
    ),
  );
}

// Why a card of your hand cannot be played now, on your turn.
export function blocked(key, s) {
  if (!key.startsWith('hand:')) return null;
  if (s.phase === 'STAND_OR_BEG') return 'First the trump: stand or beg (the buttons above).';
  if (s.phase === 'GIVE_OR_RUN') return 'First the dealer gives one or runs the cards.';
  if (s.phase === 'BUNCH') return 'First agree on a redeal, or not.';
  if (s.phase === 'PLAY' && s.trick.length) {
    const led = parseCard(s.trick[0].card).suit;
    const card = parseCard(key.slice(5));
    if (card.suit !== led) return `You must follow the suit led (${SUIT_WORDS[led]}) while you hold one.`;
  }
  return null;
}

// Your last move may be taken back when it was a card that did not complete a trick, or a
// discard that did not start the play.
export function undoable(events, s) {
  const first = events[0];
  if (!first) return false;
  if (events.some((e) => e.type !== first.type)) return false;
  if (first.type === 'card.played') return s?.phase === 'PLAY';
  if (first.type === 'card.discarded') return s?.phase === 'DISCARD';
  return false;
}

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
  return h('div', { class: 'game all-fives' }, info, table, last, hand, summary(s, view), players);
}
