// Turn clocks as live countdowns (role="timer"): a seat's time for this move, then its
// reserve, with a warning in the last seconds. One ticker updates every timer on the page
// without re-rendering it.
//
// The server says how many seconds a seat has left (Seat.timeLeft, reserve included) when
// the table was read; the page counts down from its own clock from then, so a skew
// between the two clocks does not matter.

import { h } from './dom.js';
import { clockText } from './words.js';

let ticker = null;
let onLow = () => {};
const warned = new Set(); // the deadlines already warned of (a re-render makes new elements)

// The seconds left for a seat's move at local time `now` (ms): { total, move, reserve }.
function remaining(el, now) {
  const total = Math.max(0, (Number(el.dataset.until) - now) / 1000);
  const reserve = Math.min(Number(el.dataset.reserve || 0), total);
  return { total, move: Math.max(0, total - reserve), reserve };
}

function tick() {
  const now = Date.now();
  const timers = document.querySelectorAll('[data-until]');
  if (!timers.length) {
    clearInterval(ticker);
    ticker = null;
    return;
  }
  for (const el of timers) paint(el, now);
}

function paint(el, now) {
  const { total, move, reserve } = remaining(el, now);
  const low = total <= Number(el.dataset.low || 10);
  let text;
  if (el.dataset.kind === 'grace') text = total > 0 ? `back within ${clockText(total)}` : 'a bot takes the seat now';
  else if (total <= 0) text = 'time is up';
  else if (move > 0) text = reserve >= 1 ? `${clockText(move)} + ${clockText(reserve)} reserve` : clockText(move);
  else text = `${clockText(total)} reserve`;
  if (el.textContent !== text) el.textContent = text;
  el.classList.toggle('low', low && total > 0);
  el.classList.toggle('out', total <= 0);
  const deadline = el.dataset.deadline || el.dataset.until;
  if (low && total > 0 && el.dataset.mine === 'true' && !warned.has(deadline)) {
    warned.add(deadline);
    onLow(Math.ceil(total));
  }
}

function start() {
  if (!ticker) ticker = setInterval(tick, 250);
}

// Called once when your own clock enters its last seconds (to tell a screen reader).
export function whenLow(callback) {
  onLow = callback;
}

// A countdown for a seat whose clock runs (null when it does not). `readAt` is the local
// time (ms) the table was read at; `turnSeconds` sets how early the warning comes.
export function seatClock(seat, readAt, { turnSeconds = 0, mine = false, label = 'Time left' } = {}) {
  if (seat.timeLeft === null || seat.timeLeft === undefined) return null;
  const low = Math.min(10, Math.max(3, turnSeconds / 3));
  const el = h('span', {
    class: `clock${mine ? ' mine' : ''}`,
    role: 'timer',
    'aria-label': label,
    'data-until': String(readAt + seat.timeLeft * 1000),
    'data-deadline': seat.deadline || '',
    'data-reserve': String(seat.reserveLeft ?? 0),
    'data-low': String(low),
    'data-mine': mine ? 'true' : 'false',
  });
  paint(el, Date.now());
  start();
  return el;
}

// How long a player who left may still come back (Seat.rejoinBy).
export function graceClock(rejoinBy) {
  const until = Date.parse(rejoinBy);
  if (Number.isNaN(until)) return null;
  const el = h('span', { class: 'clock grace', role: 'timer', 'aria-label': 'Time left to come back', 'data-until': String(until), 'data-kind': 'grace', 'data-low': '10' });
  paint(el, Date.now());
  start();
  return el;
}
