// The view of each game on the page. A game whose plugin ships a view module of its own
// (`Game.viewModule`, served by the server from the plugin's package) is shown by that
// module; any other by the generic view, built from its state type (generic.js).
//
// A view module exports what the bundled games' modules do (plugins/<game>/web/view.js):
// `fragment` (the state fields it asks for), `steps(move, moves)` and `render(state, view)`,
// and optionally `words`, `blocked`, `undoable`, `summary`, `startNote`, `optionWords` and
// `moveNames`.

import { genericView } from './generic.js';

const modules = new Map(); // URL -> Promise of the module (null: it did not load)
const loaded = new Map(); // game id -> the module, once loaded

// The game's own module, or null when it has none or it does not load (then the page
// falls back on the generic view, and says why in the console).
export function loadModule(game) {
  if (!game?.viewModule) return Promise.resolve(null);
  const url = new URL(game.viewModule, document.baseURI).href;
  if (!modules.has(url)) {
    modules.set(
      url,
      import(url).then(
        (module) => {
          loaded.set(game.id, module);
          return module;
        },
        (err) => {
          console.error(`The view of ${game.name} (${url}) did not load: ${err.message}`);
          return null;
        },
      ),
    );
  }
  return modules.get(url);
}

// A game's view at a table: its module, else the generic view of its state type.
export async function viewOf(game) {
  return (await loadModule(game)) || genericView(game);
}

// The module of a game already loaded (the lobby's words for options), or null.
export function gameView(gameId) {
  return loaded.get(gameId) || null;
}
