// The views of the bundled games, by game id; any other game gets the generic view.

import * as allFives from './all-fives.js';
import * as fiveByFive from './five-by-five.js';
import * as fiveCrowns from './five-crowns.js';
import * as generic from './generic.js';

const VIEWS = {
  'all-fives': allFives,
  'five-by-five': fiveByFive,
  'five-crowns': fiveCrowns,
};

export function gameView(gameId) {
  return VIEWS[gameId] || generic;
}

// The state fragments of every game the page knows (the API ignores those of other types).
export const STATE_FRAGMENTS = Object.values(VIEWS)
  .map((v) => v.fragment)
  .join('\n');
