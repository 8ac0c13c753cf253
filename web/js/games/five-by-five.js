// Five by Five: play an action card (roll and place a die, reroll, remove, swap, +1/-1,
// paint), score objectives the board satisfies, take a new action card.

import { h } from '../dom.js';
import { colorName, die, dieName } from '../cards.js';

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

// What each objective card asks of the board (README of the plugin).
const OBJECTIVES = {
  'odd-middle': 'Odd in the middle',
  'six-middle': '6 in the middle',
  'square-distinct-numbers': '2×2 of 4 different numbers',
  'square-distinct-colors': '2×2 of 4 colours',
  'square-same-color': '2×2 of one colour',
  'square-same-number': '2×2 of one number',
  'three-touching-same-number': '3 touching of one number',
  'corners-distinct-numbers': 'Corners: 4 numbers',
  'corners-distinct-colors': 'Corners: 4 colours',
  'small-straight-line': 'Small straight in a line',
  'line-sum-11-15': 'Line summing 11–15',
  'line-sum-20-24': 'Line summing 20–24',
  'line-sum-10-or-less': 'Line summing ≤ 10',
  'line-sum-25-or-more': 'Line summing ≥ 25',
  'line-all-even': 'Line all even',
  'line-all-odd': 'Line all odd',
  'line-full-house': 'Full house in a line',
  'three-of-each-number': '3 of each number',
  'five-of-each-color': 'Of each colour',
  'seven-of-a-number': '7 of one number',
};

export function objectiveName(id) {
  const middle = /^(odd|six)-middle-(\w+)$/.exec(id);
  if (middle) return `${OBJECTIVES[`${middle[1]}-middle`]} (${middle[2]})`;
  return OBJECTIVES[id] || id;
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
      return [{ key: `special:${a.objective}`, label: `Claim the special ${a.objective}` }];
    case 'drawAction':
      return [{ key: `deck:${a.deck}`, label: `Take the card of deck ${a.deck}` }];
    case 'forfeitActions': {
      const label = `Forfeit: discard ${a.cards.map(actionName).join(', ')}`;
      if (count('forfeitActions', () => true) === 1) return [{ key: 'forfeit-actions', label }];
      return [{ key: 'forfeit-actions', label: 'Forfeit: discard action cards…' }, { key: `forfeit-actions:${a.cards.join(',')}`, label }];
    }
    case 'forfeitObjectives': {
      const label = `Forfeit: discard ${a.objectives.map(objectiveName).join(', ')}`;
      if (count('forfeitObjectives', () => true) === 1) return [{ key: 'forfeit-objectives', label }];
      return [{ key: 'forfeit-objectives', label: 'Forfeit: discard objectives…' }, { key: `forfeit-objectives:${a.objectives.join(',')}`, label }];
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
  const hand = s.hand
    ? h(
        'section',
        { class: 'hand', 'aria-label': 'Your cards' },
        h('h3', {}, 'Your action cards'),
        h(
          'div',
          { class: 'cards' },
          s.hand.actions.map((a) =>
            h('button', { type: 'button', class: 'action-button', 'data-step': `action:${a}`, 'data-label': actionName(a) }, actionCard(a)),
          ),
        ),
        h('h3', {}, 'Your objectives'),
        h(
          'div',
          { class: 'objectives' },
          s.hand.objectives.map((o) =>
            h(
              'button',
              { type: 'button', class: `objective${s.hand.satisfied.includes(o) ? ' satisfied' : ''}`, 'data-step': `obj:${o}`, 'data-label': objectiveName(o) },
              objectiveName(o),
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
          `${sp.name} (${sp.points})`,
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
          h('td', {}, p.objectives ? p.objectives.map(objectiveName).join(', ') : p.objectiveCount),
          h('td', { class: 'scored' }, p.scored.map((x) => `${x.name} (${x.points})`).join(', ') || '—'),
          h('td', {}, p.score),
        ),
      ),
    ),
  );
  const rolloffs = s.rolloffs.length
    ? h('p', {}, 'Roll-off: ', s.rolloffs.map((r) => r.rolls.map((x) => `${view.seatName(x.seat)} ${x.total}`).join(' vs ')).join('; '))
    : null;
  return h('div', { class: 'game five-by-five' }, info, h('div', { class: 'fbf-layout' }, board, h('div', {}, decks, hand)), specials, players, rolloffs);
}

function actionCard(a) {
  const colour = ACTIONS[a] ? 'special' : a;
  return h('span', { class: `action color-${colour}` }, ACTIONS[a] || colorName(a));
}
