// Five Crowns: draw from the stock or the discard pile, discard a card, go out; the solo
// game with one player. Its view, its events in words, the round summary, why a card
// cannot be played, and which of your moves may be taken back.

import { h } from '/js/dom.js';
import { card, cardBack, cardText, parseCard } from '/js/cards.js';

export const fragment = `... on FiveCrownsState {
  mode phase round rounds playoff cardsDealt wildRank dealer turn finalTurns wentOut
  topDiscard discardSize stockSize drewFrom drawnCard hand winners
  players { seat handSize dealtIn roundPoints total wentOut finished }
  melds { index seat kind cards }
  history { round playoff points { seat points } }
  solo { current deadCount lastDead turns score piles { index size wildRank cards closed points } }
}`;

export const moveNames = ['draw', 'discard', 'goOut', 'layDown', 'layOff', 'place'];

export const optionWords = {
  rounds: {
    label: 'Rounds',
    hint: 'Round 1 deals 3 cards with 3s wild, round 2 deals 4 with 4s wild, and so on up to 13 cards with kings wild in round 11.',
    short: (v) => (v === 1 ? '1 round' : `${v} rounds`),
  },
  tieBreak: {
    label: 'A tie for the lowest total',
    hint: 'Whether tied players share the win, or play one more round of 6 cards.',
    values: { shared: 'shares the win', playoffRound: 'plays a 6-card round' },
  },
  firstDealer: {
    label: 'First dealer',
    hint: 'Who deals round 1.',
    values: { seat0: 'the first seat', random: 'a seat drawn at random' },
  },
};

const RANK_WORDS = { J: 'jacks', Q: 'queens', K: 'kings', A: 'aces' };
const SUIT_WORDS = { S: 'spades', H: 'hearts', C: 'clubs', D: 'diamonds', T: 'stars' };
const RANKS = ['3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];

const isWild = (code, wildRank) => code === 'JK' || (wildRank && code.slice(0, -1) === wildRank);
const rankPlural = (rank) => RANK_WORDS[rank] || `${rank}s`;
const cardsText = (cards) => cards.map(cardText).join(' ');

// A meld in words, from its cards and the round's wild rank: "a book of 7s", "a run in hearts".
function meldKind(cards, wild) {
  const naturals = cards.filter((c) => !isWild(c, wild)).map(parseCard);
  const wilds = cards.length - naturals.length;
  if (!naturals.length) return { kind: 'wild', phrase: 'a meld of wild cards' };
  if (naturals.length === 1) {
    // One natural card and wilds: a book and a run at once; say what it holds.
    return { kind: 'mixed', phrase: `the ${cardText(cards.find((c) => !isWild(c, wild)))} with ${wilds === 1 ? 'a wild card' : `${NUMBER[wilds] || wilds} wild cards`}` };
  }
  const ranks = new Set(naturals.map((c) => c.rank));
  if (ranks.size === 1) return { kind: 'book', phrase: `a book of ${rankPlural(naturals[0].rank)}` };
  return { kind: 'run', phrase: `a run in ${SUIT_WORDS[naturals[0].suit]}` };
}

const NUMBER = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

function meldsWords(melds, wild, w) {
  const kinds = melds.map((m) => meldKind(m, wild));
  if (kinds.length > 1 && kinds[0].kind !== 'mixed' && kinds.every((k) => k.kind === kinds[0].kind)) {
    const noun = { book: 'books', run: 'runs', wild: 'melds of wild cards' }[kinds[0].kind];
    return `${w.numberWord(kinds.length)} ${noun}`;
  }
  return w.list(kinds.map((k) => k.phrase));
}

// The wild rank of each event's round: events come in order; before the log's first
// round.dealt, the round is worked out from the state and the deals still to come.
function wildOf(event, w, memo) {
  if (event.type === 'round.dealt') memo.wild = event.data.wildRank;
  if (memo.wild === undefined) {
    const s = w.table.state;
    const later = (memo.all || []).filter((e) => e.type === 'round.dealt').length;
    const round = (s?.round ?? 1) - later;
    memo.wild = round >= 1 ? RANKS[round - 1] : s?.wildRank;
  }
  return memo.wild;
}

export function words(e, w, memo) {
  const d = e.data || {};
  const wild = wildOf(e, w, memo);
  const who = w.subject(e.seat);
  const mine = d.private || {};
  switch (e.type) {
    case 'round.dealt': {
      const dealt = `${d.playoff ? 'The tie-break round' : `Round ${d.round}`}: ${w.count(d.cardsDealt, 'card')} each, ${rankPlural(d.wildRank)} and jokers wild. ${w.subject(d.dealer)} dealt; ${w.object(d.players[0])} ${d.players[0] === w.me ? 'start' : 'starts'}.`;
      return d.topDiscard ? `${dealt} The discard pile shows the ${cardText(d.topDiscard)}.` : dealt;
    }
    case 'card.drawn':
      if (d.source === 'DISCARD') return `${who} took the ${cardText(d.card)} from the discard pile.`;
      return mine.card ? `${who} drew the ${cardText(mine.card)} from the stock.` : `${who} drew from the stock.`;
    case 'card.discarded':
      return `${who} discarded the ${cardText(d.card)}.`;
    case 'player.went_out':
      return `${who} went out with ${meldsWords(d.melds, wild, w)}, discarding the ${cardText(d.discard)}. Everyone else has one last turn.`;
    case 'cards.laid_down': {
      const byEngine = (d.byEngine || []).length;
      const laid = d.melds.length ? meldsWords(d.melds, wild, w) : '';
      const offs = (d.layOffs || []).map((l) => `${cardsText(l.cards)} on meld ${l.meld + 1}`);
      const parts = [laid, offs.length ? `added ${w.list(offs)}` : ''].filter(Boolean);
      if (byEngine && byEngine === d.melds.length) return `The server laid down ${w.possessive(e.seat)} best melds: ${w.list(parts)}.`;
      return `${who} laid down ${w.list(parts)}.`;
    }
    case 'cards.laid_off':
      return `${who} added ${cardsText(d.cards)} to meld ${d.meld + 1}.`;
    case 'hand.scored': {
      if (!d.cardsLeft) return `${who} scored 0: every card melded.`;
      const kept = mine.leftover?.length ? ` (${cardsText(mine.leftover)})` : '';
      return `${who} scored ${d.points} for ${w.count(d.cardsLeft, 'card')} left${kept}.`;
    }
    case 'stock.reshuffled':
      return `The stock ran out: the discard pile was shuffled into a new stock of ${w.count(d.stockSize, 'card')}.`;
    case 'round.scored': {
      const seats = Object.keys(d.points).map(Number);
      const points = seats.map((s) => `${w.object(s)} ${d.points[s]}`);
      const out = d.wentOut === null || d.wentOut === undefined ? '' : ` ${w.subject(d.wentOut)} went out.`;
      return `${d.playoff ? 'The tie-break round' : `Round ${d.round}`} is over.${out} Points: ${w.list(points)}.`;
    }
    case 'game.over': {
      const totals = Object.entries(d.totals).map(([s, t]) => `${w.object(Number(s))} ${t}`);
      const only = Object.entries(d.totals);
      if (only.length === 1) return `Game over: ${w.subject(Number(only[0][0]))} scored ${only[0][1]}${only[0][1] === 0 ? ', a perfect game' : ''}.`;
      if (!d.winners.length) return `Game over: ${w.list(totals)}.`;
      const verb = d.winners.length === 1 && d.winners[0] !== w.me ? 'wins' : 'win';
      return `Game over: ${w.names(d.winners)} ${verb} with the lowest total. Totals: ${w.list(totals)}.`;
    }
    case 'solo.dealt':
      return `Eleven piles were dealt, each with its own wild rank${d.closed.length ? `; ${w.count(d.closed.length, 'pile')} already closed` : ''}. The stock holds ${w.count(d.stockSize, 'card')}.`;
    case 'card.turned':
      return `The ${cardText(d.card)} is turned up.`;
    case 'card.placed':
      return `${w.subject(e.seat ?? w.table.seats.findIndex((x) => x.kind !== 'EMPTY'))} placed the ${cardText(d.card)} on pile ${d.pile + 1} and discarded the ${cardText(d.discard)}.`;
    case 'pile.closed':
      return `Pile ${d.pile + 1} melds completely: it is closed.`;
    default:
      return null;
  }
}

// Steps of a legal move (see moves.js).
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

const meldsText = (melds) => melds.map((m) => m.map(cardText).join(' ')).join(' | ');

// Why a step the page shows cannot be clicked now, on your turn.
export function blocked(key, s, w) {
  const rediscard = w.table.houseRules.some((r) => r.id === 'five-crowns/no-immediate-rediscard');
  if (s.mode === 'SOLO') {
    const pile = s.solo?.piles[Number(key.split(':')[1])];
    if (pile?.closed) return 'That pile is closed: place the turned card on an open pile.';
    if (key.startsWith('place:')) return 'First choose a pile (click its name), then the card to discard from it.';
    return null;
  }
  if (key === 'stock' || key === 'discard-pile') {
    if (s.phase === 'DISCARD') return 'You have drawn this turn: now discard a card, or go out.';
    if (key === 'discard-pile' && !s.topDiscard) return 'The discard pile is empty: draw from the stock.';
    return null;
  }
  if (key.startsWith('hand:')) {
    if (s.phase === 'DRAW') return 'Draw first: click the stock or the discard pile.';
    const code = key.slice(5);
    if (rediscard && s.drewFrom === 'DISCARD' && s.drawnCard === code) return 'You took this card from the discard pile: under the house rule “No immediate re-discard” it cannot go straight back.';
  }
  return null;
}

// Whether your move of the table's last commit (its events) may be taken back: a discard,
// a lay-off or taking the top discard that ended nothing and drew on no chance.
const FINAL = new Set(['hand.scored', 'round.scored', 'round.dealt', 'game.over', 'stock.reshuffled']);
export function undoable(events) {
  if (events.some((e) => FINAL.has(e.type))) return false;
  const first = events[0];
  if (!first) return false;
  if (first.type === 'card.drawn') return first.data.source === 'DISCARD';
  return first.type === 'card.discarded' || first.type === 'cards.laid_off';
}

// What starting with fewer players than seats makes of the game.
export function startNote(players) {
  if (players === 1) return 'With one player, Five Crowns is the solo game: eleven face-up piles, each with its own wild rank; place each turned card on a pile and discard one from it. Close every pile (0 points) before the stock runs out.';
  return null;
}

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
    h('strong', {}, `${rankPlural(s.wildRank)} wild`),
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
      { type: 'button', class: 'pile', 'data-step': 'discard-pile', 'data-label': `Discard pile, top ${s.topDiscard ? cardText(s.topDiscard) : 'empty'}` },
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
  return h('div', { class: 'game five-crowns' }, info, piles, hand, melds, summary(s, view), players, history(s, view));
}

// The round just scored: who went out and each player's points and total, lowest first.
export function summary(s, view) {
  if (s.mode === 'SOLO' || !s.history.length) return null;
  const last = s.history[s.history.length - 1];
  const scored = [...(view.log || [])].reverse().find((e) => e.type === 'round.scored' && e.data.round === last.round);
  const outSeat = scored?.data.wentOut;
  const totals = Object.fromEntries(s.players.map((p) => [p.seat, p.total]));
  const rows = last.points.filter((x) => x.points !== null).sort((a, b) => totals[a.seat] - totals[b.seat] || a.points - b.points);
  return h(
    'section',
    { class: 'round-summary', 'aria-label': 'Round summary' },
    h('h3', {}, `${last.playoff ? 'Tie-break round' : `Round ${last.round}`} is over`, outSeat !== null && outSeat !== undefined ? `: ${view.seatName(outSeat)} went out` : ''),
    h(
      'table',
      { class: 'scores' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col' }, 'Points this round'), h('th', { scope: 'col' }, 'Total'))),
      h(
        'tbody',
        {},
        rows.map((x) => h('tr', {}, h('th', { scope: 'row' }, view.seatName(x.seat), x.seat === outSeat ? ' · went out' : ''), h('td', {}, x.points), h('td', {}, totals[x.seat]))),
      ),
    ),
  );
}

function history(s, view) {
  if (s.history.length < 2) return null;
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
    h('p', { class: 'info' }, `The solo game · turn ${solo.turns} · open piles score ${solo.score} (0 is perfect) · stock ${s.stockSize} · dead ${solo.deadCount}`),
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
            `Pile ${p.index + 1} · ${rankPlural(p.wildRank)} wild${p.closed ? ' · closed' : ` · ${p.points} pts`}`,
          ),
          h('div', { class: 'cards' }, p.cards.map((c) => card(c, { step: `place:${p.index}:${c}`, small: true, wild: isWild(c, p.wildRank) }))),
        ),
      ),
    ),
  );
}
