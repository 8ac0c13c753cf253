// What the page remembers in localStorage: the player's name and, per table, the tokens
// createTable and joinTable showed once. The seat a window plays is kept per tab
// (sessionStorage), so two windows of one browser can play two seats of one table.

const KEY = 'tablestate.tables';

function load() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || {};
  } catch {
    return {};
  }
}

function save(all) {
  localStorage.setItem(KEY, JSON.stringify(all));
}

export function tableRecord(tableId) {
  return load()[tableId] || { seats: {} };
}

export function allTables() {
  return Object.entries(load())
    .map(([id, rec]) => ({ id, ...rec }))
    .sort((a, b) => (b.at || 0) - (a.at || 0));
}

function update(tableId, change) {
  const all = load();
  const rec = all[tableId] || { seats: {} };
  change(rec);
  rec.at = Date.now();
  all[tableId] = rec;
  save(all);
}

export function rememberHost(tableId, gameId, hostToken) {
  update(tableId, (rec) => {
    rec.host = hostToken;
    rec.gameId = gameId;
  });
}

export function rememberSeat(tableId, gameId, seat, token, name) {
  update(tableId, (rec) => {
    rec.gameId = rec.gameId || gameId;
    rec.seats[seat] = { token, name };
  });
}

export function forgetHost(tableId) {
  update(tableId, (rec) => {
    delete rec.host;
  });
}

export function forgetSeat(tableId, seat) {
  update(tableId, (rec) => {
    delete rec.seats[seat];
  });
}

export function forgetTable(tableId) {
  const all = load();
  delete all[tableId];
  save(all);
}

// The seat this tab plays at a table: a number, null (watching), or undefined (not chosen).
export function windowSeat(tableId) {
  const value = sessionStorage.getItem(`tablestate.seat.${tableId}`);
  if (value === null) return undefined;
  return value === '' ? null : Number(value);
}

export function setWindowSeat(tableId, seat) {
  if (seat === null) sessionStorage.setItem(`tablestate.seat.${tableId}`, '');
  else sessionStorage.setItem(`tablestate.seat.${tableId}`, String(seat));
}

export function playerName() {
  return localStorage.getItem('tablestate.name') || '';
}

export function setPlayerName(name) {
  localStorage.setItem('tablestate.name', name);
}
