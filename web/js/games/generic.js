// Any other game (a third-party plugin): its legal moves as buttons, described in words.

import { h } from '../dom.js';
import { describeMove } from '../moves.js';

export const fragment = '';

export function steps(move) {
  return [{ key: JSON.stringify(move), label: describeMove(move) }];
}

export function render(s, view) {
  return h(
    'div',
    { class: 'game generic' },
    h('p', { class: 'info' }, `To act: ${s.toAct.map(view.seatName).join(', ') || 'nobody'}`),
    h('p', { class: 'muted' }, 'This page has no special view of this game; its moves are offered as buttons.'),
  );
}
