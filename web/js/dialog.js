// Asking first: a modal <dialog> with a question and two buttons (no window.confirm, so
// the page keeps its own words and styles). Resolves true when confirmed.

import { h } from './dom.js';

let count = 0;

export function confirmDialog({ title, text, confirm, cancel = 'Cancel', danger = false }) {
  count += 1;
  const titleId = `dialog-title-${count}`;
  const textId = `dialog-text-${count}`;
  return new Promise((resolve) => {
    let answered = false;
    const finish = (value) => {
      if (answered) return;
      answered = true;
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    const paragraphs = (Array.isArray(text) ? text : [text]).filter(Boolean);
    const dialog = h(
      'dialog',
      { class: 'confirm', 'aria-labelledby': titleId, 'aria-describedby': textId },
      h('h2', { id: titleId }, title),
      h('div', { id: textId }, paragraphs.map((p) => h('p', {}, p))),
      h(
        'p',
        { class: 'dialog-actions' },
        h('button', { type: 'button', class: danger ? 'danger' : 'primary', 'data-dialog': 'confirm', onclick: () => finish(true) }, confirm),
        ' ',
        h('button', { type: 'button', 'data-dialog': 'cancel', onclick: () => finish(false) }, cancel),
      ),
    );
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      finish(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    dialog.querySelector('[data-dialog="cancel"]').focus();
  });
}
