// A tiny DOM helper: h('button', {class: 'x', onclick: f}, 'text', child, ...).

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), value);
    } else if (name === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (value === true) {
      el.setAttribute(name, '');
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// Replace a container's children, keeping the keyboard focus on the element with the
// same data-key (re-rendering must not throw a keyboard player back to the top).
export function replaceChildren(container, ...children) {
  const active = document.activeElement;
  const key = active && container.contains(active) ? active.dataset.key : undefined;
  const caret = typeof active?.selectionStart === 'number' ? [active.selectionStart, active.selectionEnd] : null;
  container.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  if (key !== undefined) {
    const again = container.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again && !again.disabled) {
      again.focus();
      if (caret && again.setSelectionRange) again.setSelectionRange(...caret);
    }
  }
}

export function humanize(id) {
  const words = String(id).replace(/^.*\//, '').replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[-_]/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1).toLowerCase();
}
