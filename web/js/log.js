// One readable line per table event.

const SKIP = new Set(['gameId']);

function value(v) {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) {
    if (v.every((x) => x === null || typeof x !== 'object')) return v.join(' ');
    return v.length > 3 ? `${v.length} items` : v.map(value).join('; ');
  }
  if (typeof v === 'object') {
    return Object.entries(v)
      .map(([k, x]) => `${k} ${value(x)}`)
      .join(', ');
  }
  return String(v);
}

export function describeEvent(event, seatName) {
  const data = event.data || {};
  const parts = Object.entries(data)
    .filter(([k]) => k !== 'private' && !SKIP.has(k))
    .map(([k, v]) => `${k} ${value(v)}`);
  if (data.private) parts.push(`you: ${value(data.private)}`);
  let text = parts.join(' · ');
  if (text.length > 160) text = `${text.slice(0, 157)}…`;
  const who = event.seat === null || event.seat === undefined ? '' : `${seatName(event.seat)} `;
  return { who, type: event.type, text };
}
