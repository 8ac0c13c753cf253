// The page's router: #/ is the lobby, #/table/<id>[?seat=N] a table.

import { ApiError } from './api.js';
import { h, replaceChildren } from './dom.js';
import { showLobby } from './lobby.js';
import { showTable } from './table.js';

const root = document.getElementById('app');
const notice = document.getElementById('notice');
let current = null;
let noticeTimer = null;

const app = {
  navigate(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
  // Show a refusal (with the server's code) or a message for a few seconds.
  notify(err, message) {
    const code = err instanceof ApiError ? err.code : null;
    const text = message || (err instanceof ApiError ? `${err.reason || err.message}` : String(err?.message || err));
    replaceChildren(notice, h('p', { class: 'notice' }, code ? h('code', {}, code) : null, code ? ' ' : null, text, ' ', h('button', { type: 'button', class: 'link', onclick: () => notice.replaceChildren() }, 'dismiss')));
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => notice.replaceChildren(), 8000);
  },
};

function route() {
  current?.destroy();
  const match = /^#\/table\/([^?/]+)(?:\?seat=(\d+))?/.exec(location.hash);
  window.scrollTo(0, 0);
  if (match) {
    current = showTable(root, decodeURIComponent(match[1]), match[2] === undefined ? null : Number(match[2]), app);
  } else {
    current = showLobby(root, app);
  }
}

window.addEventListener('hashchange', route);
route();
