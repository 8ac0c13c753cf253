// Words for people: each table event as a sentence a player understands, from the event
// types and data the server sends. The core's events (seats, clocks, chat, the table's
// life) are worded here; each game module words its own (games/<game>.js `words`).
//
// A game's words(event, w, memo) returns a sentence, or { text, quiet } (quiet: kept in
// the log but not shown, e.g. a clock starting), or null when it has no words for it (then
// a plain fallback names the event). `w` holds the helpers below bound to the table and
// viewer; `memo` is shared by the events of one log, read in order (a game keeps there what
// later events need, such as this round's wild rank).

const NUMBERS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

export function numberWord(n) {
  return NUMBERS[n] ?? String(n);
}

// "3 cards", "1 card"; with words: "three cards".
export function count(n, singular, plural = `${singular}s`, { words = false } = {}) {
  return `${words ? numberWord(n) : n} ${n === 1 ? singular : plural}`;
}

// "Ann", "Ann and Bea", "Ann, Bea and Cy".
export function list(items) {
  const xs = items.filter((x) => x !== null && x !== undefined && x !== '');
  if (xs.length <= 1) return xs.join('');
  return `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}

export function capitalize(text) {
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}

// "in 45 s", "in 2 min", "at 14:05" for a moment ahead.
export function timeOf(iso) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  return at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

// "0:07", "1:30", "1:02:03".
export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

// "30 seconds", "2 minutes", "1 minute 30 seconds".
export function durationWords(seconds) {
  const s = Math.round(seconds);
  if (s < 60) return count(s, 'second');
  const m = Math.floor(s / 60);
  const rest = s % 60;
  return rest ? `${count(m, 'minute')} ${count(rest, 'second')}` : count(m, 'minute');
}

// The helpers a game's words get, bound to a table and the viewer's seat.
export function wordsContext(table, me) {
  const name = (i) => {
    if (i === null || i === undefined) return 'someone';
    return table.seats[i]?.name || `seat ${i + 1}`;
  };
  const subject = (i) => (i === me ? 'You' : name(i));
  const object = (i) => (i === me ? 'you' : name(i));
  const possessive = (i) => (i === me ? 'your' : `${name(i)}’s`);
  const names = (seats) => list(seats.map(object));
  // A seat's points, e.g. in a summary: "Ann 12" / "you 12".
  const ruleName = (id) => table.game.houseRules.find((r) => r.id === id)?.name || id.replace(/^.*\//, '');
  return { table, me, name, subject, object, possessive, names, list, count, numberWord, capitalize, ruleName };
}

const QUIET = { quiet: true };
// An absence from a table shorter than this (a reload, a dropped connection) is not told.
const LONG_ABSENCE_S = 60;

// The core's events (service/engine): every game has them.
const CORE = {
  'table.created': (e) => `The table was opened with ${count(e.data.seats, 'seat')}.`,
  'seat.joined': (e, w) => `${e.seat === w.me ? 'You' : e.data.name} sat down at seat ${e.seat + 1}${e.data.host ? ' (the host)' : ''}.`,
  'seat.bot_added': (e) => `A bot, ${e.data.name}, took seat ${e.seat + 1}.`,
  'seat.left': (e, w) => (e.data.rejoinBy ? `${w.subject(e.seat)} left the table; the seat waits until ${timeOf(e.data.rejoinBy)} for a return.` : `${w.subject(e.seat)} left the table.`),
  'seat.rejoined': (e, w) => `${w.subject(e.seat)} came back to the table.`,
  'seat.kicked': (e, w) => `The host took ${e.seat === w.me ? 'you' : e.data.name || `seat ${e.seat + 1}`} off the table.`,
  'seat.replaced': (e, w) => {
    const was = e.data.wasKind === 'BOT' ? `the bot’s seat (${e.data.was})` : `${e.data.was}’s seat`;
    return `The host gave ${was} to ${e.seat === w.me ? 'you' : e.data.name}.`;
  },
  'seat.bot_took_over': (e, w) => {
    const who = e.seat === w.me ? 'you' : e.data.name || w.name(e.seat);
    if (e.data.reason === 'timeouts') return `A bot plays for ${who} from now on: the time ran out too often.`;
    if (e.data.reason === 'left') return `A bot plays for ${who} from now on, who left the table.`;
    return `A bot plays for ${who} from now on.`;
  },
  'rules.changed': (e, w) => `House rule “${w.ruleName(e.data.ruleId)}” is now ${e.data.enabled ? 'on' : 'off'}.`,
  'options.changed': () => 'The host changed the table’s options.',
  'game.started': (e, w) => `The game started: ${w.names(e.data.playOrder)}.`,
  'game.finished': (e, w) => {
    const winners = e.data.winners || [];
    if (!winners.length) return 'The game is over, with no winner.';
    const verb = winners.length === 1 && winners[0] !== w.me ? 'wins' : 'win';
    return `The game is over: ${w.names(winners)} ${verb}.${seedWords(w)}`;
  },
  'table.cancelled': (_e, w) => `The host cancelled the table: no result.${seedWords(w)}`,
  // A typed game's move that names no event of its own: "Ann — mark row 0, col 2."
  'move.made': (e, w) => {
    const [kind, args] = Object.entries(e.data?.move || {})[0] || [];
    if (!kind) return null;
    const how = args && typeof args === 'object' ? ` ${valueWords('', args, w)}` : '';
    return `${w.subject(e.seat)} — ${keyWords(kind)}${how}.`;
  },
  'table.rematch': () => 'A rematch is open: a new table with the same players and rules.',
  'clock.started': () => QUIET,
  'clock.timeout': (e, w) => {
    const limit = Number(w.table.options?.timeoutsBeforeBot ?? 0);
    const tally = limit ? ` (timeout ${e.data.timeouts} of ${limit} before a bot takes the seat)` : '';
    if (e.seat === w.me) return `Your time ran out: the server played a move for you${tally}.`;
    return `${w.name(e.seat)}’s time ran out: the server played a move for them${tally}.`;
  },
  'move.undone': (e, w) => `${w.subject(e.seat)} took back ${e.seat === w.me ? 'your' : 'their'} last move.`,
  // Presence is shown by the seats; a reload or a short drop is no news. One line tells
  // of an absence longer than a minute, when it ends; your own never.
  'seat.away': (e, w, memo) => {
    (memo.away ||= {})[e.seat] = memo.away[e.seat] ?? e.at;
    return QUIET;
  },
  'seat.connected': (e, w, memo) => {
    const since = memo.away?.[e.seat];
    if (memo.away) delete memo.away[e.seat];
    const gone = since ? (Date.parse(e.at) - Date.parse(since)) / 1000 : 0;
    if (e.seat === w.me || !(gone >= LONG_ABSENCE_S)) return QUIET;
    return `${w.name(e.seat)} is back, after ${durationWords(60 * Math.floor(gone / 60))} away.`;
  },
  'chat.message': (e) => `${e.data.name}: ${e.data.text}`,
  'chat.spectator': (e) => `${e.data.name} (watching): ${e.data.text}`,
};

// Only a game that shuffles or rolls has a seed worth telling of.
const seedWords = (w) => (w.table.game?.usesChance === false ? '' : ' The shuffle seed is revealed.');

export const CHAT_TYPES = new Set(['chat.message', 'chat.spectator']);
export const PRESENCE_TYPES = new Set(['seat.connected', 'seat.away']);

// Sentences for a log, in order: [{ event, text, quiet }]. A game's words come first, then
// its plugin's sentence for the event type (`texts`: Game.eventTexts), then the core's.
export function describeAll(events, table, me, gameWords, texts = []) {
  const w = wordsContext(table, me);
  const templates = new Map(texts.map((t) => [t.type, t.text]));
  const memo = {};
  return events.map((event) => {
    let said = null;
    try {
      said = gameWords ? gameWords(event, w, memo) : null;
      if ((said === null || said === undefined) && templates.has(event.type)) said = fillIn(templates.get(event.type), event, w);
      if (said === null || said === undefined) said = CORE[event.type]?.(event, w, memo) ?? null;
    } catch {
      said = null; // words never break the page; the fallback below names the event
    }
    if (said === null || said === undefined) said = fallback(event, w);
    return typeof said === 'string' ? { event, text: said, quiet: false } : { event, text: said.text || '', quiet: Boolean(said.quiet) };
  });
}

const CARD = /^(?:[2-9]|10|[AKQJ])[SHCDT]$/;
const SUIT_SIGNS = { S: '♠', H: '♥', C: '♣', D: '♦', T: '★' };
const SEAT_KEY = /^(?:seat|dealer|leader|winner|player|turn)$|Seat$/;
const SEATS_KEY = /^(?:seats|winners|players|order|playOrder)$|Seats$/;

// A value of an event's data in words: seats by name, cards with their suit's sign, lists
// as lists.
function valueWords(key, value, w) {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Number.isInteger(value) && SEAT_KEY.test(key)) return w.object(value);
  if (Array.isArray(value)) {
    if (SEATS_KEY.test(key) && value.every(Number.isInteger)) return w.names(value);
    return list(value.map((v) => valueWords('', v, w))) || 'none';
  }
  if (typeof value === 'object') return Object.entries(value).map(([k, v]) => `${keyWords(k)} ${valueWords(k, v, w)}`).join(', ');
  const text = String(value);
  return CARD.test(text) ? `${text.slice(0, -1)}${SUIT_SIGNS[text.slice(-1)]}` : text;
}

const keyWords = (key) => key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[._-]/g, ' ').toLowerCase();

// A plugin's sentence: "{player} played {card}" with the seat that acted ("You" for the
// viewer) and the event's fields (public, or the viewer's own private part). A field the
// event lacks: null, and the page words the event itself.
function fillIn(template, event, w) {
  const data = event.data || {};
  let missing = false;
  const text = template.replace(/\{(\w+)\}/g, (_m, key, at) => {
    if (key === 'player') return at === 0 ? w.subject(event.seat) : w.object(event.seat);
    const value = key in data ? data[key] : data.private?.[key];
    if (value === undefined) missing = true;
    return valueWords(key, value, w);
  });
  return missing ? null : capitalize(text);
}

// An event nobody wrote words for: who, what happened and its fields, in plain words
// ("Ann — card played: card 7A, points 7."); the viewer's own private part too.
function fallback(event, w) {
  const what = keyWords(event.type);
  const data = { ...(event.data || {}), ...(event.data?.private || {}) };
  delete data.private;
  const fields = Object.entries(data)
    .map(([k, v]) => `${keyWords(k)} ${valueWords(k, v, w)}`)
    .join(', ');
  const who = event.seat === null || event.seat === undefined ? null : w.subject(event.seat);
  if (!fields) return who ? `${who}: ${what}.` : `${capitalize(what)}.`;
  return who ? `${who} — ${what}: ${fields}.` : `${capitalize(what)}: ${fields}.`;
}

// Option and house-rule texts come from the games' plugins, written for developers as much
// as for players. Drop what only a developer reads: rule labels (FC-16), move and option
// names in code (layDown, undoMove), keeping the sentence.
export function plainHint(text, { optionLabel = (key) => key, valueLabel = (_key, value) => value, moves = [] } = {}) {
  if (!text) return text;
  let out = String(text);
  // Rule labels of the rule decisions: "(FC-16)", "(FC-12 inverted)", "FC-5".
  out = out.replace(/\s*\((?:[A-Z]{1,3}\d?-\d+[a-z]?)(?:[^()]*)\)/g, '');
  out = out.replace(/\s*\b[A-Z]{2,3}-\d+[a-z]?\b/g, '');
  // "option lowGoesTo=won" / "per option gameTie": the option's label (and value) in words.
  out = out.replace(/\b(?:the )?option ([a-z]+[A-Z]\w*)(?:=(\w+))?/g, (_m, key, value) =>
    value ? `the option “${optionLabel(key)}” set to “${valueLabel(key, value)}”` : `the option “${optionLabel(key)}”`,
  );
  // Move names in code: "(move bunch)", "(layOff move)", "(layDown, goOut)", "(undoMove)".
  const ident = '[a-z]+(?:[A-Z][a-z]+)+';
  out = out.replace(new RegExp(`\\s*\\((?:moves? )?${ident}(?:, ${ident})*(?: moves?)?\\)`, 'g'), '');
  out = out.replace(/\s*\(moves? \w+\)/g, '');
  out = out.replace(/\s*\(\w+ moves?\)/g, '');
  for (const move of moves) out = out.replace(new RegExp(`\\s*\\(${move}\\)`, 'g'), '');
  // What the server does, not the code: "the engine" is the server to a player.
  out = out.replace(/\bThe engine(['’]s)?\b/g, 'The server$1').replace(/\bthe engine(['’]s)?\b/g, 'the server$1');
  return out.replace(/\s+([,.;:])/g, '$1').replace(/\s{2,}/g, ' ').trim();
}
