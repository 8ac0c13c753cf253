// Five by Five: play an action card (roll and place a die, reroll, remove, swap, +1/-1,
// paint), score objectives the board satisfies, take a new action card.

import { h } from '/js/dom.js';
import { colorName, die, dieName } from '/js/cards.js';

export const fragment = `... on FiveByFiveState {
  board phase current turn order pendingDie drawsLeft scoredThisTurn finalQueue
  boardSatisfies objectivesOpen winners actionDiscardSize objectiveDeckSize
  supply { color count }
  decks { deck size faceUp }
  specials { objective name points claimedBy satisfied }
  players { seat score actionCount objectiveCount objectives scored { objective name points } }
  hand { actions objectives satisfied }
  rolloffs { round rolls { seat dice total } }
}`;

// The objective cards' names as the cards print them (the plugin's rules.py), by id.
const OBJECTIVES = {
  'square-distinct-numbers': '2x2 of Different Numbers',
  'square-distinct-colors': '2x2 of Different Colors',
  'three-touching-same-number': 'Three Touching with the Same Number',
  'corners-distinct-numbers': 'Four Corners of Different Numbers',
  'corners-distinct-colors': 'Four Corners of Different Colors',
  'small-straight-line': 'Small Straight Connected in a Line',
  'line-sum-11-15': 'Sum of Full Line Totals 11-15',
  'line-sum-20-24': 'Sum of Full Line Totals 20-24',
  'square-same-color': '2x2 of the Same Color',
  'line-all-even': 'All Even in a Full Line',
  'line-all-odd': 'All Odd in a Full Line',
  'three-of-each-number': 'At Least 3 of Each Number',
  'square-same-number': '2x2 of the Same Number',
  'five-of-each-color': 'At Least 5 of Each Color',
  'seven-of-a-number': 'At Least 7 of the Same Number',
  'line-full-house': 'Full House in a Line',
  'line-sum-10-or-less': 'Sum of Full Line Totals 10 or Fewer',
  'line-sum-25-or-more': 'Sum of Full Line Totals 25 or Greater',
  'special-large-straight': 'Large Straight in a Line',
  'special-line-same-color': 'Full Line of the Same Color',
  'special-line-same-number': 'Full Line of the Same Number',
};

export function objectiveName(id) {
  const middle = /^(odd|six)-middle-(\w+)$/.exec(id);
  if (middle) return `${middle[1] === 'odd' ? 'Odd' : '6'} in the Middle (${middle[2].charAt(0).toUpperCase()}${middle[2].slice(1)})`;
  return OBJECTIVES[id] || id;
}

// An objective's points at this table (the option objectivePoints, defaults filled in).
function pointsOf(table, id) {
  return table?.options?.objectivePoints?.[id];
}

function objectiveLabel(table, id) {
  const points = pointsOf(table, id);
  return points === undefined ? objectiveName(id) : `${objectiveName(id)} · ${points} ${points === 1 ? 'pt' : 'pts'}`;
}

export const moveNames = ['playColor', 'place', 'reroll', 'remove', 'swap', 'plusMinus', 'paint', 'playObjective', 'claimSpecial', 'drawAction', 'forfeitActions', 'forfeitObjectives', 'done'];

export const optionWords = {
  eachColorMin: {
    label: '“At Least 5 of Each Color” needs',
    hint: 'Dice of each colour the objective needs: 5, as its title says, or 4, as its text says.',
    values: { 5: '5 of each colour', 4: '4 of each colour' },
  },
  objectivePoints: { label: 'Points of each objective', hint: 'As printed on the cards, specials included.', inner: objectiveName },
  objectiveCounts: { label: 'Copies of each objective card', hint: 'How many of each card the objective deck holds.', inner: objectiveName },
  actionHandSize: { label: 'Action cards in hand', hint: 'Dealt to each player, and refilled to.' },
  objectiveHandSize: { label: 'Objective cards in hand', hint: 'Dealt to each player, and refilled to.' },
  prefilledSquares: {
    label: 'Squares filled at the start',
    hint: 'Random dice on that many squares before the first turn, for a shorter game (0: the real game).',
    short: (v) => `${v} squares filled at the start`,
  },
};

const COLOR_WORDS = { R: 'red', Y: 'yellow', B: 'blue', G: 'green' };
const cardWords = (a) => COLOR_WORDS[a] || ACTIONS[a] || a;
const squareWords = (sq) => (sq.row === 2 && sq.col === 2 ? 'the middle square' : `row ${sq.row + 1}, column ${sq.col + 1}`);
const dieWords = (d) => `${COLOR_WORDS[d[0]] || d[0]} ${d.slice(1)}`;

export function words(e, w) {
  const d = e.data || {};
  const who = w.subject(e.seat);
  const mine = d.private || {};
  const objs = (ids) => w.list(ids.map((id) => `“${objectiveName(id)}”`));
  switch (e.type) {
    case 'hand.dealt':
      if (mine.actions) return `You got the cards ${w.list(mine.actions.map(cardWords))}, and the objectives ${objs(mine.objectives)}.`;
      return `${who} got ${w.count(d.actionCount, 'action card')} and ${w.count(d.objectiveCount, 'objective')}.`;
    case 'board.prefilled':
      return `${w.count(d.dice.length, 'square')} start with a random die.`;
    case 'first.rolled':
      return `Rolls for who starts: ${w.list(d.rolls.map((r) => `${w.object(r.seat)} ${r.value}`))}.`;
    case 'decks.ready':
      return `Deck A shows ${cardWords(d.faceUp[0])}, deck B ${cardWords(d.faceUp[1])}.`;
    case 'first.player':
      return `${who} ${e.seat === w.me ? 'play' : 'plays'} first.`;
    case 'turn.started':
      return `Turn ${d.turn}: ${w.object(e.seat)}.`;
    case 'action.played': {
      const card = d.card;
      if (COLOR_WORDS[card]) return d.color && d.color !== card ? `${who} played the ${COLOR_WORDS[card]} card as a wild, for a ${COLOR_WORDS[d.color]} die.` : `${who} played the ${COLOR_WORDS[card]} card.`;
      if (card === 'REROLL') return `${who} rerolled the ${dieWords(d.before)} on ${squareWords(d.square)}: now a ${d.after.slice(1)}.`;
      if (card === 'REMOVE') return `${who} removed the ${dieWords(d.before)} from ${squareWords(d.square)}; a ${dieWords(d.after)} was rolled in its place.`;
      if (card === 'SWAP') return `${who} swapped the dice on ${squareWords(d.first)} and ${squareWords(d.second)}.`;
      if (card === 'PLUS_MINUS') return `${who} turned the ${dieWords(d.before)} on ${squareWords(d.square)} into a ${d.after.slice(1)}.`;
      if (card === 'PAINT') return `${who} painted the ${dieWords(d.before)} on ${squareWords(d.square)} ${COLOR_WORDS[d.after[0]]}.`;
      return `${who} played ${actionName(card)}.`;
    }
    case 'die.rolled':
      return `${who} rolled a ${dieWords(d.die)}.`;
    case 'die.placed':
      return `${who} placed the ${dieWords(d.die)} on ${squareWords(d.square)}.`;
    case 'board.filled':
      return 'The board is full.';
    case 'objective.scored':
      return `${who} scored “${objectiveName(d.objective)}” for ${w.count(d.points, 'point')} (${d.score} in all).`;
    case 'special.claimed':
      return `${who} claimed the special “${objectiveName(d.objective)}” for ${w.count(d.points, 'point')} (${d.score} in all).`;
    case 'action.drawn':
      return mine.card ? `${who} took the ${cardWords(mine.card)} card from deck ${d.deck}.` : `${who} took the card of deck ${d.deck}.`;
    case 'actions.reshuffled':
      return 'The action discard pile was shuffled into two new decks.';
    case 'objective.drawn':
      if (mine.objectives) return `${who} drew ${objs(mine.objectives)}.`;
      return `${who} drew ${w.count(d.count, 'objective')}${d.objectives ? `: ${objs(d.objectives)}` : ''}.`;
    case 'objectives.reshuffled':
      return 'The forfeited objectives were shuffled into a new objective deck.';
    case 'actions.forfeited':
      return `${who} forfeited the turn, discarding ${w.list(d.cards.map(cardWords))}.`;
    case 'objectives.forfeited': {
      const ids = mine.objectives || d.objectives;
      return `${who} forfeited the turn, discarding ${ids ? objs(ids) : w.count(d.count, 'objective')}.`;
    }
    case 'turn.ended':
      return { quiet: true };
    case 'final.started':
      return `Last objective plays, in this order: ${w.names(d.order)}.`;
    case 'player.finished':
      return `${who} ${e.seat === w.me ? 'have' : 'has'} no more objective plays.`;
    case 'rolloff.rolled':
      return `Roll-off ${d.round} for the tie: ${w.list(d.rolls.map((r) => `${w.object(r.seat)} ${r.total}`))}.`;
    case 'game.scored': {
      const verb = d.winners.length === 1 && d.winners[0] !== w.me ? 'wins' : 'win';
      return `Final scores: ${w.list(d.scores.map((x) => `${w.object(x.seat)} ${x.score}`))}. ${w.capitalize(w.names(d.winners))} ${verb}.`;
    }
    default:
      return null;
  }
}

// Why a step the page shows cannot be clicked now, on your turn.
export function blocked(key, s, w) {
  const name = key.startsWith('obj:') || key.startsWith('special:') ? objectiveName(key.slice(key.indexOf(':') + 1)) : '';
  if (s.phase === 'PLACE' && !key.startsWith('sq:')) return 'Place the rolled die first: click an empty square.';
  if (key.startsWith('sq:')) {
    if (s.phase === 'PLACE') return 'That square is taken: place the die on an empty one.';
    if (s.phase === 'TURN') return 'Play an action card first: it says what to do with a square.';
    return 'You have played your action this turn.';
  }
  if (key.startsWith('action:')) {
    if (s.phase === 'ACTED' || s.phase === 'REFILL') return 'You have played your action this turn: score objectives, then take a card from deck A or B.';
    if (s.phase === 'FINAL') return 'The board is full: only objectives can be scored now.';
    return 'This card has no legal use on the board now.';
  }
  if (key.startsWith('deck:')) {
    if (s.phase === 'TURN') return 'Play an action card (or forfeit) first; then take a card.';
    return 'No card can be taken now.';
  }
  if (key.startsWith('special:')) {
    const sp = s.specials.find((x) => `special:${x.objective}` === key);
    if (sp?.claimedBy.length && !w.table.houseRules.some((r) => r.id === 'five-by-five/shared-specials')) return `“${name}” is already claimed.`;
    if (!sp?.satisfied) return `The board does not show “${name}” yet.`;
    return 'It cannot be claimed now.';
  }
  if (key.startsWith('obj:')) {
    if (!s.hand?.satisfied.includes(key.slice(4))) return `The board does not show “${name}” yet.`;
    return 'Objectives cannot be scored in a forfeited turn.';
  }
  return null;
}

// Placing a rolled die, a swap, +1/-1 and paint may be taken back, unless they filled the
// board (or anything else followed).
const QUIET = new Set(['action.played', 'die.placed']);
export function undoable(events) {
  const first = events[0];
  if (!first || !events.every((e) => QUIET.has(e.type))) return false;
  if (first.type === 'die.placed') return true;
  return ['SWAP', 'PLUS_MINUS', 'PAINT'].includes(first.data.card);
}

export function startNote(players) {
  if (players === 1) return 'With one player, Five by Five is played solo: the same game, and your score is your final total.';
  return null;
}

const ACTIONS = { REROLL: 'Reroll', REMOVE: 'Remove', SWAP: 'Swap', PLUS_MINUS: '+1/−1', PAINT: 'Paint' };
const actionName = (a) => ACTIONS[a] || `${colorName(a)} die`;
const sq = (s) => `sq:${s.row}:${s.col}`;
const sqName = (s) => `row ${s.row + 1}, column ${s.col + 1}`;

export function steps(move, all) {
  const m = move.fiveByFive;
  const [kind, a] = Object.entries(m)[0];
  const count = (k, same) => all.filter((x) => x.fiveByFive[k] && same(x.fiveByFive[k])).length;
  switch (kind) {
    case 'playColor': {
      const first = { key: `action:${a.card}`, label: `Play the ${colorName(a.card)} card` };
      if (count('playColor', (x) => x.card === a.card) === 1) return [first];
      return [first, { key: `color:${a.color}`, label: `Roll a ${colorName(a.color)} die`, className: `color-${a.color}` }];
    }
    case 'place':
      return [{ key: sq(a.square), label: `Place the die on ${sqName(a.square)}` }];
    case 'reroll':
      return [{ key: 'action:REROLL', label: 'Play Reroll' }, { key: sq(a.square), label: `Reroll the die on ${sqName(a.square)}` }];
    case 'remove':
    case 'paint':
      return [
        { key: `action:${kind.toUpperCase()}`, label: `Play ${ACTIONS[kind.toUpperCase()]}` },
        { key: sq(a.square), label: `${ACTIONS[kind.toUpperCase()]} the die on ${sqName(a.square)}` },
        { key: `color:${a.color}`, label: `${kind === 'paint' ? 'Paint it' : 'Roll'} ${colorName(a.color)}`, className: `color-${a.color}` },
      ];
    case 'swap':
      return [
        { key: 'action:SWAP', label: 'Play Swap' },
        { key: sq(a.first), label: `Swap the die on ${sqName(a.first)}` },
        { key: sq(a.second), label: `with ${sqName(a.second)}` },
      ];
    case 'plusMinus':
      return [
        { key: 'action:PLUS_MINUS', label: 'Play +1/−1' },
        { key: sq(a.square), label: `Change the die on ${sqName(a.square)}` },
        { key: `delta:${a.delta}`, label: a.delta > 0 ? '+1' : '−1' },
      ];
    case 'playObjective':
      return [{ key: `obj:${a.objective}`, label: `Score “${objectiveName(a.objective)}”` }];
    case 'claimSpecial':
      return [{ key: `special:${a.objective}`, label: `Claim the special “${objectiveName(a.objective)}”` }];
    case 'drawAction':
      return [{ key: `deck:${a.deck}`, label: `Take the card of deck ${a.deck}` }];
    case 'forfeitActions': {
      const label = `Forfeit: discard ${a.cards.map(actionName).join(', ')}`;
      if (count('forfeitActions', () => true) === 1) return [{ key: 'forfeit-actions', label, className: 'forfeit' }];
      return [{ key: 'forfeit-actions', label: 'Forfeit: discard action cards…', className: 'forfeit' }, { key: `forfeit-actions:${a.cards.join(',')}`, label, className: 'forfeit' }];
    }
    case 'forfeitObjectives': {
      const label = `Forfeit: discard ${a.objectives.map(objectiveName).join(', ')}`;
      if (count('forfeitObjectives', () => true) === 1) return [{ key: 'forfeit-objectives', label, className: 'forfeit' }];
      return [{ key: 'forfeit-objectives', label: 'Forfeit: discard objectives…', className: 'forfeit' }, { key: `forfeit-objectives:${a.objectives.join(',')}`, label, className: 'forfeit' }];
    }
    case 'done':
      return [{ key: 'done', label: 'Done: no more objectives' }];
    default:
      return [{ key: JSON.stringify(move), label: JSON.stringify(m) }];
  }
}

const PHASES = {
  TURN: 'plays an action card, or forfeits',
  PLACE: 'places the rolled die',
  ACTED: 'may score objectives, then takes an action card',
  REFILL: 'takes new action cards',
  FINAL: 'last objective plays',
  OVER: 'game over',
};

export function render(s, view) {
  const info = h(
    'p',
    { class: 'info' },
    `Turn ${s.turn} · `,
    s.current !== null && s.current !== undefined ? h('strong', {}, view.seatName(s.current)) : '',
    ` ${PHASES[s.phase] || s.phase}`,
    s.pendingDie ? [' · rolled ', die(s.pendingDie, { small: true })] : '',
    s.drawsLeft > 1 ? ` · ${s.drawsLeft} cards to take` : '',
  );
  const board = h(
    'div',
    { class: 'board', role: 'group', 'aria-label': 'The board' },
    s.board.map((row, r) =>
      h(
        'div',
        { class: 'row' },
        row.map((cell, c) =>
          h(
            'button',
            {
              type: 'button',
              class: `square${cell ? '' : ' empty'}`,
              'data-step': `sq:${r}:${c}`,
              'data-label': `Row ${r + 1}, column ${c + 1}: ${cell ? dieName(cell) : 'empty'}`,
            },
            cell ? die(cell) : '',
          ),
        ),
      ),
    ),
  );
  const decks = h(
    'div',
    { class: 'decks' },
    s.decks.map((d) =>
      h(
        'button',
        { type: 'button', class: 'deck', 'data-step': `deck:${d.deck}`, 'data-label': `Deck ${d.deck}: ${d.faceUp ? actionName(d.faceUp) : 'empty'}, ${d.size} cards` },
        h('span', { class: 'pile-label' }, `Deck ${d.deck} (${d.size})`),
        d.faceUp ? actionCard(d.faceUp) : h('span', { class: 'action empty' }, 'empty'),
      ),
    ),
    h(
      'div',
      { class: 'supply', 'aria-label': 'Dice in the supply' },
      s.supply.map((x) => h('span', { class: `supply-count color-${x.color}`, title: `${colorName(x.color)} dice left` }, `${x.count}`)),
    ),
  );
  const actions = s.hand
    ? h(
        'section',
        { class: 'hand actions-hand', 'aria-label': 'Your action cards' },
        h('h3', {}, 'Your action cards'),
        h(
          'div',
          { class: 'cards' },
          s.hand.actions.map((a) =>
            h('button', { type: 'button', class: 'action-button', 'data-step': `action:${a}`, 'data-label': actionName(a) }, actionCard(a)),
          ),
        ),
      )
    : null;
  const objectives = s.hand
    ? h(
        'section',
        { class: 'hand objectives-hand', 'aria-label': 'Your objectives' },
        h('h3', {}, 'Your objectives'),
        h(
          'div',
          { class: 'objectives' },
          s.hand.objectives.map((o) =>
            h(
              'button',
              { type: 'button', class: `objective${s.hand.satisfied.includes(o) ? ' satisfied' : ''}`, 'data-step': `obj:${o}`, 'data-label': objectiveLabel(view.table, o) },
              objectiveLabel(view.table, o),
              s.hand.satisfied.includes(o) ? h('span', { class: 'badge' }, ' ✓ on the board') : '',
            ),
          ),
        ),
      )
    : null;
  const specials = h(
    'section',
    { class: 'specials', 'aria-label': 'Special objectives' },
    h('h3', {}, 'Specials'),
    h(
      'div',
      { class: 'objectives' },
      s.specials.map((sp) =>
        h(
          'button',
          { type: 'button', class: `objective special${sp.satisfied ? ' satisfied' : ''}`, 'data-step': `special:${sp.objective}`, 'data-label': `${sp.name}, ${sp.points} points` },
          `${sp.name} · ${sp.points} pts`,
          sp.claimedBy.length ? h('span', { class: 'muted' }, ` — ${sp.claimedBy.map(view.seatName).join(', ')}`) : '',
        ),
      ),
    ),
  );
  const players = h(
    'table',
    { class: 'scores' },
    h('caption', {}, 'Players'),
    h('thead', {}, h('tr', {}, ['Player', 'Actions', 'Objectives', 'Scored', 'Points'].map((t) => h('th', { scope: 'col' }, t)))),
    h(
      'tbody',
      {},
      s.players.map((p) =>
        h(
          'tr',
          { class: s.toAct.includes(p.seat) ? 'to-act' : '' },
          h('th', { scope: 'row' }, view.seatName(p.seat)),
          h('td', {}, p.actionCount),
          h('td', {}, p.objectives ? p.objectives.map((o) => objectiveLabel(view.table, o)).join(', ') : p.objectiveCount),
          h('td', { class: 'scored' }, p.scored.map((x) => `${x.name} (${x.points} ${x.points === 1 ? 'pt' : 'pts'})`).join(', ') || '—'),
          h('td', {}, p.score),
        ),
      ),
    ),
  );
  const rolloffs = s.rolloffs.length
    ? h('p', {}, 'Roll-off: ', s.rolloffs.map((r) => r.rolls.map((x) => `${view.seatName(x.seat)} ${x.total}`).join(' vs ')).join('; '))
    : null;
  // Your action cards come first in the page: on a phone they stay in view above the board.
  return h('div', { class: 'game five-by-five' }, info, h('div', { class: `fbf-layout${s.hand ? '' : ' no-hand'}` }, actions, h('div', { class: 'fbf-board' }, board), h('div', { class: 'fbf-side' }, decks, objectives)), specials, players, rolloffs);
}

function actionCard(a) {
  const colour = ACTIONS[a] ? 'special' : a;
  return h('span', { class: `action color-${colour}` }, ACTIONS[a] || colorName(a));
}
