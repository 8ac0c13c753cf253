// The page's router: #/ is the lobby, #/table/<id>[?seat=N&code=…&claim=…] a table
// (seat: the seat this window plays; code: a private table's join code, filled in;
// claim: a seat's key handed over by the host, stored and dropped from the address).

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
  // Show a refusal (in the server's words; its code only as a tooltip) or a message for a
  // few seconds.
  notify(err, message) {
    const code = err instanceof ApiError ? err.code : null;
    const text = message || (err instanceof ApiError ? sentence(err.reason || err.message) : String(err?.message || err));
    // A refusal is a "notice"; a message of the page's own an "info-note".
    const kind = err ? 'notice' : 'info-note';
    replaceChildren(notice, h('p', { class: kind, title: code || '' }, text, ' ', h('button', { type: 'button', class: 'link', onclick: () => notice.replaceChildren() }, 'dismiss')));
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => notice.replaceChildren(), 8000);
  },
};

// The server's refusals are phrases ("the stock is empty"): make them a sentence.
function sentence(text) {
  const t = String(text || '').trim();
  if (!t) return 'That did not work.';
  return `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
}

function route() {
  current?.destroy();
  const match = /^#\/table\/([^?/]+)(?:\?(.*))?$/.exec(location.hash);
  window.scrollTo(0, 0);
  if (match) {
    const query = new URLSearchParams(match[2] || '');
    const seat = /^\d+$/.test(query.get('seat') || '') ? Number(query.get('seat')) : null;
    current = showTable(root, decodeURIComponent(match[1]), { seat, code: query.get('code'), claim: query.get('claim') }, app);
  } else {
    current = showLobby(root, app);
  }
}

window.addEventListener('hashchange', route);
route();
