// The reference web client in a real browser: Debian's chromium, driven by Playwright
// (playwright-core: no browser download). It opens the page, creates tables, adds bots,
// plays a short game of each bundled game to the end by clicking what legalMoves offers,
// and plays through what a new player meets around the game: the turn clock and a
// timeout, chat between two players and a spectator, undo, a private table joined by its
// code, presence, leaving and rejoining, the rematch, the host's controls, the phone
// layout and a table the server lost. Screenshots go to TABLESTATE_ARTIFACTS (and, with
// TABLESTATE_DOCS_SCREENSHOTS set, the README's ones).
//
//   TABLESTATE_URL=http://127.0.0.1:8000 node --test browser.test.mjs

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';

const BASE = (process.env.TABLESTATE_URL || 'http://127.0.0.1:8000').replace(/\/$/, '');
const ARTIFACTS = process.env.TABLESTATE_ARTIFACTS || join(import.meta.dirname, '..', 'web', 'artifacts');
const DOCS = process.env.TABLESTATE_DOCS_SCREENSHOTS || '';
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const DESKTOP = { width: 1200, height: 900 };
const PHONE = { width: 390, height: 844 };
const CHAT_TYPES = new Set(['chat.message', 'chat.spectator']);

let browser;
let contexts = [];

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  if (DOCS) mkdirSync(DOCS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
});

after(async () => {
  await browser?.close();
});

// A browser test: on failure, a screenshot of every page it opened; then close them.
function browserTest(name, fn) {
  test(name, async () => {
    try {
      await fn();
    } catch (err) {
      const slug = name.replace(/\W+/g, '-').toLowerCase().slice(0, 60);
      let i = 0;
      for (const context of contexts) {
        for (const page of context.pages()) {
          i += 1;
          await page.screenshot({ path: join(ARTIFACTS, `failed-${slug}-${i}.png`), fullPage: true }).catch(() => {});
        }
      }
      throw err;
    } finally {
      await Promise.all(contexts.map((c) => c.close()));
      contexts = [];
    }
  });
}

// A player: a browser context of their own (their own localStorage), one page.
async function player(viewport = DESKTOP) {
  const context = await browser.newContext({ viewport });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
  contexts.push(context);
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (err) => page.errors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') page.errors.push(msg.text());
  });
  return page;
}

async function shot(page, name, { docs = false } = {}) {
  if (await page.$('.table-page')) await page.waitForSelector('.conn-live', { timeout: 10_000 }).catch(() => {});
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  if (docs && DOCS) await page.screenshot({ path: join(DOCS, `${name}.png`), fullPage: true });
}

async function noHorizontalScroll(page) {
  const [scroll, width] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(scroll <= width, `the page is ${scroll}px wide in a ${width}px window`);
}

async function openForm(page, gameId, name) {
  await page.goto(`${BASE}/`);
  await page.fill('#player-name', name);
  await page.click(`[data-game="${gameId}"]`);
  await page.waitForSelector('form.create');
}

// Create a table from the lobby form; the creator takes seat 0 as host.
async function createTable(page, gameId, name, options = {}, { seats = null, privately = false } = {}) {
  await openForm(page, gameId, name);
  if (seats !== null) await page.selectOption('#seats', String(seats));
  for (const [key, value] of Object.entries(options)) {
    if (typeof value === 'boolean') await page.setChecked(`#opt-${key}`, value);
    else await page.fill(`#opt-${key}`, String(value));
  }
  if (privately) await page.check('#private');
  await page.click('form.create button[type=submit]');
  await page.waitForSelector('.table-page.status-open .seat.mine');
  return tableIdOf(page);
}

function tableIdOf(page) {
  return /#\/table\/([^?]+)/.exec(page.url())[1];
}

async function addBotAndStart(page) {
  await page.click('[data-key="add-bot"]');
  await page.waitForSelector('.seat.kind-bot');
  await page.click('[data-key="start"]');
  await page.waitForSelector('.table-page.status-playing, .table-page.status-finished');
}

// Take a seat at a table this page has open (typing a join code where one is asked).
async function takeSeat(page, name, code = null) {
  await page.fill('#seat-name', name);
  if (code !== null) await page.fill('#join-code', code);
  await page.click('[data-key="take-seat"]');
  await page.waitForSelector('.seat.mine');
}

async function graphql(query, variables = {}, token = null) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${BASE}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  const body = await res.json();
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data;
}

const pickRandom = (xs) => xs[Math.floor(Math.random() * xs.length)];

// Pick a key: the first class of `prefer` (prefixes) that has any, at random within it.
function choose(keys, prefer = []) {
  for (const prefix of prefer) {
    const some = keys.filter((k) => k === prefix || k.startsWith(prefix));
    if (some.length) return pickRandom(some);
  }
  return pickRandom(keys);
}

const READY = '.table-page.my-turn:not(.busy):not(.offline)';
const MOVABLE = `${READY} .moves-area .playable, ${READY} .choices .choice`;
const STEPS = '.moves-area .playable, .choices .choice:not(.cancel), .forfeits .choice';

// Wait until the page shows its table after what was just done (a new version or a new
// step picked), or a refusal.
async function settled(page, before) {
  await page.waitForFunction(
    (was) => {
      const el = document.querySelector('.table-page');
      if (document.querySelector('.notice')) return true;
      return el && !el.classList.contains('busy') && `${el.dataset.version}/${el.dataset.picked}` !== was;
    },
    before,
    { timeout: 10_000 },
  );
}

const stateOf = (page) => page.$eval('.table-page', (el) => `${el.dataset.version}/${el.dataset.picked}`);

// Play this page's seat to the end of the game: wait for a turn, click one of the legal
// steps the page highlights, repeat. `keyboard` plays with Tab-focus and Enter instead.
// onTurn(page, clicks) runs at each turn before the click (it may click itself: then it
// returns true); afterClick(page, key, info) after each click.
async function playToEnd(page, { prefer = [], keyboard = false, shotAt = null, shotName = '', docs = true, dropAt = null, maxClicks = 600, onTurn = null, afterClick = null } = {}) {
  let clicks = 0;
  let misses = 0;
  let dropped = false;
  for (;;) {
    assert.ok(misses < 20, 'clicks keep missing: the page changes under them');
    const handle = await page.waitForSelector(`.table-page.status-finished, ${MOVABLE}, .notice`, { timeout: 30_000 });
    const cls = await handle.evaluate((el) => el.className);
    if (cls.includes('notice')) assert.fail(`the page reported: ${await handle.textContent()}`);
    if (await page.$('.table-page.status-finished')) {
      if (shotAt !== null && clicks <= shotAt) await shot(page, shotName, { docs });
      return clicks;
    }
    if (clicks === shotAt) await shot(page, shotName, { docs });
    if (clicks === dropAt && !dropped) {
      dropped = true;
      await page.evaluate(() => window.tablestate.drop());
    }
    if (onTurn && (await onTurn(page, clicks))) continue;
    const keys = await page.$$eval(STEPS, (els) => els.map((el) => el.dataset.step ?? el.dataset.stepChoice));
    if (!keys.length) continue;
    const key = choose(keys, prefer);
    const target = page.locator(`.moves-area .playable[data-step="${key}"], [data-step-choice="${key}"]`).first();
    const before = await stateOf(page);
    const info = await page.evaluate(() => document.querySelector('.game .info')?.textContent || '');
    try {
      // The page re-renders on every event: a step read a moment ago may be gone; then
      // look again rather than wait for it.
      if (keyboard) {
        await target.focus({ timeout: 5_000 });
        await page.keyboard.press('Enter');
      } else {
        await target.click({ timeout: 5_000 });
      }
      await settled(page, before);
    } catch (err) {
      if (err.name !== 'TimeoutError') throw err;
      misses += 1;
      console.log(`a click on ${key} missed (${misses} in a row): ${err.message.split('\n')[0]}`);
      continue;
    }
    misses = 0;
    clicks += 1;
    if (afterClick) await afterClick(page, key, info);
    assert.ok(clicks < maxClicks, `no end after ${clicks} clicks`);
  }
}

// The event log on the page is the tail of the table's events (chat has a box of its
// own): in order, no gap, no duplicate, whatever the connection went through.
async function checkLog(page, tableId) {
  const shown = (await page.$$eval('.events li', (els) => els.map((el) => el.dataset.cursor))).reverse();
  assert.ok(shown.length > 0);
  const data = await graphql('query($id: ID!, $n: Int) { table(id: $id) { events(last: $n) { cursor type } } }', { id: tableId, n: shown.length + 200 });
  const game = data.table.events.filter((e) => !CHAT_TYPES.has(e.type)).map((e) => e.cursor);
  assert.deepEqual(shown, game.slice(-shown.length));
}

async function checkResult(page, tableId) {
  await page.waitForSelector('.result .seed');
  const seed = await page.textContent('.result .seed');
  const data = await graphql('query($id: ID!) { table(id: $id) { status shuffleSeed result { winners } } }', { id: tableId });
  assert.equal(data.table.status, 'FINISHED');
  assert.equal(seed, data.table.shuffleSeed);
  const verify = await page.textContent('.result .verify');
  assert.ok([`tablestate replay ${tableId}`, `tablestate replay -- ${tableId}`].includes(verify), verify);
  await page.waitForFunction(() => document.querySelector('.seed-check')?.textContent.includes('matches'));
}

// What a player reads must not be developer text: no rule labels, move or setting names in
// code, raw event types or ISO times.
async function plainWords(page, selector = 'main') {
  const text = await page.textContent(selector);
  for (const bad of [/\bFC-\d+/, /\b(?:layDown|goOut|layOff|undoMove|declineBunch|drawAction)\b/, /REDIS_URL/, /\b(?:clock|seat|card|cards|round|table|game|chat|move|deal|trick|player)\.[a-z_]+\b/, /\d{4}-\d\d-\d\dT\d\d:/]) {
    assert.doesNotMatch(text, bad, `developer text in the page: ${bad}`);
  }
}

// Every token this browser holds (the page keeps them in localStorage).
async function tokensOf(page) {
  return page.evaluate(() => {
    const all = JSON.parse(localStorage.getItem('tablestate.tables') || '{}');
    const out = [];
    for (const rec of Object.values(all)) {
      if (rec.host) out.push(rec.host);
      for (const seat of Object.values(rec.seats || {})) out.push(seat.token);
    }
    return out;
  });
}

async function noTokenText(page, tokens) {
  const html = await page.evaluate(() => document.documentElement.outerHTML);
  for (const token of tokens) {
    const secret = token.slice(token.indexOf('.') + 1);
    assert.ok(!html.includes(secret), 'a token is in the page');
  }
}

async function say(page, text, name = null) {
  if (name !== null) await page.fill('#chat-name', name);
  await page.fill('#chat-input', text);
  await page.click('[data-key="chat-send"]');
  await page.waitForFunction((t) => [...document.querySelectorAll('.chat .message .text')].some((el) => el.textContent === t), text);
}

// The WCAG 2 contrast ratio of two computed colours ("rgb(r, g, b)").
function contrast(fg, bg) {
  const lum = (css) => {
    const [r, g, b] = css.match(/\d+(?:\.\d+)?/g).slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
  return (hi + 0.05) / (lo + 0.05);
}

// Cards of every suit, a wild one and a small wild one, drawn by the page's own module and
// styled by its CSS (plain and picked): their colours, backgrounds and the wild tag's size.
async function sampleCards(page) {
  return page.evaluate(async () => {
    const { card } = await import('./js/cards.js');
    const box = document.createElement('div');
    box.className = 'cards';
    const cards = [card('QH'), card('QD'), card('QS'), card('QC'), card('QT'), card('JK'), card('3T', { wild: true }), card('3D', { wild: true, small: true })];
    const picked = cards.map((c) => {
      const copy = c.cloneNode(true);
      copy.classList.add('picked');
      return copy;
    });
    box.append(...cards, ...picked);
    document.body.append(box);
    const seen = [...cards, ...picked].map((el) => {
      const mark = el.querySelector('.wild-mark');
      const style = getComputedStyle(el);
      return {
        label: `${el.getAttribute('aria-label')}${el.classList.contains('picked') ? ', picked' : ''}`,
        suit: el.className.match(/suit-(\w+)/)[1],
        colour: getComputedStyle(el.querySelector('.rank')).color,
        background: style.backgroundColor,
        mark: mark && { colour: getComputedStyle(mark).color, size: parseFloat(getComputedStyle(mark).fontSize), fits: mark.getBoundingClientRect().width <= el.clientWidth - 4 },
      };
    });
    box.remove();
    return seen;
  });
}

const chatTexts = (page) => page.$$eval('.chat .message .text', (els) => els.map((el) => el.textContent));

function assertNoErrors(...pages) {
  for (const page of pages) assert.deepEqual(page.errors, []);
}

browserTest('the lobby lists the games, their options and house rules in plain words, live, at desktop and phone width', async () => {
  const page = await player();
  await openForm(page, 'all-fives', 'Ann');
  // House rules show their descriptions; a ticked rule disables those it conflicts with.
  await page.selectOption('#seats', '4');
  const partnerships = page.locator('input[value="all-fives/partnerships"]');
  await partnerships.check();
  assert.ok(await page.locator('input[value="all-fives/bunch-on-agreement"]').isDisabled());
  assert.match(await page.textContent('form.create .rules'), /conflicts with/);
  await plainWords(page, 'form.create');
  await shot(page, 'lobby', { docs: true });
  // Five Crowns' option hints name no rule labels and no move names.
  await page.click('[data-game="five-crowns"]');
  await page.waitForSelector('#opt-tieBreak');
  await plainWords(page, 'form.create');
  // Five by Five's house rules say where lines run in words, not in coordinates.
  await page.click('[data-game="five-by-five"]');
  const diagonal = page.locator('.rule:has(input[value="five-by-five/diagonal-lines"]) label');
  await diagonal.waitFor();
  assert.match(await diagonal.textContent(), /^Diagonal lines The two main diagonals, corner to corner,/);
  assert.doesNotMatch(await page.textContent('form.create .rules'), /\(\d, ?\d\)/);
  assert.ok(await page.getByRole('checkbox', { name: /^Private/ }).isVisible(), 'a Private option');
  // The open tables are live: a table opened elsewhere appears without a reload, told
  // apart from the others by its options and players.
  const phone = await player(PHONE);
  await createTable(phone, 'five-crowns', 'Kim', { rounds: 3 });
  const row = page.locator(`.table-row:has(a[data-table="${tableIdOf(phone)}"])`);
  await row.waitFor({ timeout: 5_000 });
  assert.match(await row.textContent(), /3 rounds.*1 of 2 seats: Kim.*host Kim/s);
  await openForm(phone, 'five-crowns', 'Kim');
  await noHorizontalScroll(phone);
  await shot(phone, 'lobby-phone');
  assertNoErrors(page, phone);
});

// A move whose answer the network holds back until the page says "Sending…" and marks
// what was clicked (`selector`); then it goes through.
async function slowMove(page, selector) {
  let release;
  const held = new Promise((resolve) => (release = resolve));
  let sent;
  const asked = new Promise((resolve) => (sent = resolve));
  const hold = async (route) => {
    if (!(route.request().postData() || '').includes('makeMove')) return route.fallback();
    sent();
    await held;
    return route.continue();
  };
  const isApi = (url) => url.pathname === '/graphql';
  await page.route(isApi, hold);
  try {
    const before = await stateOf(page);
    await page.click(selector);
    await asked;
    await page.waitForFunction(() => /^Sending… /.test(document.querySelector('.turn-status')?.textContent || ''));
    assert.ok(await page.$(`.moves-area ${selector}.sending`), 'what was clicked is marked');
    release();
    await settled(page, before);
    assert.equal(await page.$('.sending'), null, 'the mark goes with the answer');
  } finally {
    release();
    await page.unroute(isApi, hold);
  }
}

browserTest('Five Crowns against a bot: the round summary, chat, the clock, suit colours and why a card is blocked', async () => {
  const page = await player();
  const tableId = await createTable(page, 'five-crowns', 'Ann', { rounds: 2, turnSeconds: 300 });
  // Every suit's colour reads at 4.5:1 at least on its card, plain or picked; hearts and
  // diamonds differ; the wild tag is 11 px at least and fits its card, small or not.
  const sample = await sampleCards(page);
  for (const c of sample) {
    const ratio = contrast(c.colour, c.background);
    assert.ok(ratio >= 4.5, `${c.label}: ${c.colour} on ${c.background} is ${ratio.toFixed(2)}:1`);
    if (c.mark) {
      assert.ok(c.mark.size >= 11, `${c.label}: the wild tag is ${c.mark.size}px`);
      assert.ok(contrast(c.mark.colour, c.background) >= 4.5, `${c.label}: the wild tag's colour`);
      assert.ok(c.mark.fits, `${c.label}: the wild tag is wider than the inside of its card’s ring`);
    }
  }
  const colourOf = (suit) => sample.find((c) => c.suit === suit).colour;
  assert.notEqual(colourOf('H'), colourOf('D'), 'hearts and diamonds are told apart');
  assert.equal(new Set(['H', 'D', 'S', 'C', 'T', 'joker'].map(colourOf)).size, 6, 'five suits and the joker, six colours');
  await addBotAndStart(page);
  await say(page, 'Good luck, bot!');
  let checkedBlocked = false;
  let checkedColours = false;
  let docsShot = false;
  await playToEnd(page, {
    prefer: ['goOut', 'layDown'],
    onTurn: async (p) => {
      // At the draw step the hand is not playable: a click says why, and the suits keep
      // their colours whether a card is playable or not.
      const phase = (await p.$('[data-step="stock"].playable')) ? 'draw' : 'discard';
      const colours = await p.$$eval('.hand .card', (els) => els.map((el) => [el.className.match(/suit-(\w+)/)?.[1], getComputedStyle(el).color, el.classList.contains('playable'), el.classList.contains('wild'), getComputedStyle(el).boxShadow]));
      for (const [suit, colour, playable, wild, ring] of colours) {
        const expected = { H: 'rgb(192, 57, 43)', D: 'rgb(31, 95, 180)', S: 'rgb(31, 35, 40)', C: 'rgb(30, 122, 60)', T: 'rgb(138, 100, 0)', joker: 'rgb(122, 63, 176)' }[suit];
        assert.equal(colour, expected, `a ${suit} card is ${colour} (${playable ? 'playable' : 'not playable'})`);
        if (playable && wild) assert.match(ring, /rgb\(242, 182, 50\)/, 'a playable wild card has the playable ring');
      }
      if (phase === 'discard') checkedColours = true;
      if (phase === 'draw' && !checkedBlocked) {
        checkedBlocked = true;
        // (aria-disabled: not a move now, yet it answers a click with the reason)
        await p.click('.hand .card >> nth=0', { force: true });
        await p.waitForSelector('.blocked-note');
        assert.match(await p.textContent('.blocked-note'), /Draw first/);
        // A draw the server is slow to answer: past 300 ms the turn bar says "Sending…" and
        // the pile clicked stays marked, until the answer.
        await slowMove(p, '[data-step="stock"]');
        return true;
      }
      if (!docsShot && (await p.$('.round-summary'))) {
        // Round 2: the summary of round 1, a running clock and the chat, for the README.
        docsShot = true;
        assert.match(await p.textContent('.round-summary'), /Round 1 is over/);
        assert.ok(await p.$('[role="timer"]'));
        await shot(p, 'five-crowns', { docs: true });
      }
      return false;
    },
  });
  assert.ok(checkedBlocked && checkedColours);
  await checkResult(page, tableId);
  await checkLog(page, tableId);
  // Events read as sentences ("Bot 2 drew from the stock."); the round's points are in the summary.
  assert.match(await page.textContent('.log'), /(drew from the stock|took the .+ from the discard pile)\./);
  assert.match(await page.textContent('.log'), /Round 2 is over/);
  await plainWords(page);
  await shot(page, 'five-crowns-result', { docs: true });
  assertNoErrors(page);
});

browserTest('the turn clock counts down, and a timeout says it played a move for you', async () => {
  const page = await player();
  await createTable(page, 'five-crowns', 'Ann', { rounds: 1, turnSeconds: 3, timeoutsBeforeBot: 0 });
  await addBotAndStart(page);
  const timer = page.getByRole('timer', { name: 'Your time left' });
  await timer.waitFor();
  const first = await timer.textContent();
  await page.waitForFunction((was) => {
    const el = document.querySelector('.turn-status [role="timer"]');
    return el && el.textContent !== was;
  }, first);
  // The clock runs out: the server draws for Ann, and the page says so in words.
  const line = page.locator('.events li.clock-timeout').first();
  await line.waitFor({ timeout: 10_000 });
  assert.match(await line.textContent(), /Your time ran out: the server played a move for you/);
  await page.waitForSelector('.timeout-note');
  assertNoErrors(page);
});

browserTest('All Fives to 15 against a bot: leave and rejoin, the deal summary, a dropped connection', async () => {
  const page = await player();
  const tableId = await createTable(page, 'all-fives', 'Ann', { targetScore: 15, leaveGraceSeconds: 60 });
  await addBotAndStart(page);
  // Leave during play (asked first), then come back.
  await page.waitForSelector(READY);
  await page.click('[data-key="leave"]');
  assert.match(await page.textContent('dialog.confirm'), /come back within 1 minute/);
  await page.click('dialog.confirm [data-dialog="confirm"]');
  await page.waitForSelector('[data-key="rejoin"]');
  assert.match(await page.textContent('.seat.mine'), /left/);
  // Left, not online as well (the page is still open).
  assert.doesNotMatch(await page.textContent('.seat.mine'), /online/);
  assert.doesNotMatch(await page.textContent('.seats .online'), /Ann/);
  assert.ok(await page.$('.left-banner [role="timer"]'), 'a countdown to come back');
  await page.click('[data-key="rejoin"]');
  await page.waitForFunction(() => !document.querySelector('[data-key="rejoin"]'));
  await page.waitForSelector('.events li.seat-rejoined');
  let summary = false;
  await playToEnd(page, {
    dropAt: 1,
    onTurn: async (p) => {
      if (!summary && (await p.$('.round-summary'))) {
        summary = true;
        assert.match(await p.textContent('.round-summary'), /Deal 1 is over/);
        await shot(p, 'all-fives', { docs: true });
      }
      return false;
    },
  });
  if (!summary) {
    // The game ended with its first deal: the summary is on the finished table.
    assert.match(await page.textContent('.round-summary'), /Deal 1 is over/);
    await shot(page, 'all-fives', { docs: true });
  }
  await checkResult(page, tableId);
  await checkLog(page, tableId);
  assert.ok(await page.evaluate(() => window.tablestate.connects()) >= 2, 'the page reconnected');
  assert.ok(await page.$('.conn-live'), 'the live connection is back');
  await plainWords(page);
  assertNoErrors(page);
});

browserTest('Five by Five to a full board against a bot, at phone width: action cards in view, forfeit apart, undo', async () => {
  const page = await player(PHONE);
  // A shorter game where the server can prefill part of the board.
  await openForm(page, 'five-by-five', 'Ann');
  const options = { undo: true, ...((await page.$('#opt-prefilledSquares')) ? { prefilledSquares: 10 } : {}) };
  const tableId = await createTable(page, 'five-by-five', 'Ann', options);
  await addBotAndStart(page);
  const prefer = ['obj:', 'special:', 'action:R', 'action:Y', 'action:B', 'action:G', 'color:', 'sq:', 'action:', 'delta:', 'deck:', 'done'];
  let checkedLayout = false;
  let undone = false;
  await playToEnd(page, {
    prefer,
    shotAt: 6,
    shotName: 'five-by-five-phone',
    onTurn: async (p) => {
      if (checkedLayout) return false;
      checkedLayout = true;
      // At the start of a turn, scrolled to the top: the action cards are in view, and
      // forfeiting comes after them, set apart.
      await p.evaluate(() => window.scrollTo(0, 0));
      const boxes = await p.$$eval('.actions-hand .action-button', (els) => els.map((el) => el.getBoundingClientRect().bottom));
      assert.ok(boxes.length > 0);
      for (const bottom of boxes) assert.ok(bottom <= 844, `an action card is below the fold (${bottom}px)`);
      const order = await p.evaluate(() => {
        const forfeits = document.querySelector('.forfeits');
        const cards = document.querySelector('.actions-hand .playable');
        if (!forfeits || !cards) return null;
        return Boolean(cards.compareDocumentPosition(forfeits) & Node.DOCUMENT_POSITION_FOLLOWING);
      });
      if (order !== null) assert.ok(order, 'forfeiting comes after the action cards');
      const first = await p.$eval('.moves-area .playable, .choices .choice, .forfeits .choice', (el) => el.className);
      if (order !== null) assert.doesNotMatch(first, /forfeit/, 'a forfeit is not the first move offered');
      return false;
    },
    afterClick: async (p, key, info) => {
      // A rolled die just placed may be taken back: Undo, and the die waits again.
      if (undone || !key.startsWith('sq:') || !info.includes('rolled')) return;
      if (await p.$('.table-page.status-finished')) return;
      undone = true;
      const undo = p.getByRole('button', { name: 'Undo', exact: true });
      await undo.waitFor({ timeout: 5_000 });
      const before = await stateOf(p);
      await undo.click();
      await settled(p, before);
      await p.waitForSelector('.events li.move-undone');
      assert.match(await p.textContent('.game .info'), /rolled/);
    },
  });
  assert.ok(undone, 'a placed die was taken back');
  await noHorizontalScroll(page);
  await checkResult(page, tableId);
  await checkLog(page, tableId);
  // The same table on a desktop, as a spectator who loads it afterwards.
  const watcher = await player();
  await watcher.goto(`${BASE}/#/table/${tableId}`);
  await watcher.waitForSelector('.table-page.status-finished .board');
  await shot(watcher, 'five-by-five', { docs: true });
  assertNoErrors(page, watcher);
});

browserTest('two players and a spectator: a private table joined by code, chat, undo, a rematch, presence', async () => {
  const ann = await player();
  const bea = await player();
  const cy = await player();
  const tableId = await createTable(ann, 'five-crowns', 'Ann', { rounds: 1, undo: true }, { privately: true });
  // The host sees the join code, with a copy button; the table is not in the lobby.
  const code = (await ann.textContent('.join-code')).trim();
  assert.match(code, /^[\w-]{8}$/);
  await ann.click('[data-key="copy-code"]');
  assert.equal(await ann.evaluate(() => navigator.clipboard.readText()), code);
  await bea.goto(`${BASE}/`);
  await bea.waitForSelector('.open-box .conn-live');
  assert.equal(await bea.$(`a[data-table="${tableId}"]`), null, 'a private table is unlisted');
  assert.match(await ann.textContent('.open-table'), /Invite players with the join code/);
  // Bea has the address; the page asks for the code. A wrong one is called wrong; then she
  // types the right one.
  await bea.goto(`${BASE}/#/table/${tableId}`);
  await bea.getByRole('textbox', { name: 'Join code' }).waitFor();
  await bea.fill('#seat-name', 'Bea');
  await bea.fill('#join-code', `${code}x`);
  await bea.click('[data-key="take-seat"]');
  await bea.waitForSelector('#notice .notice');
  assert.match(await bea.textContent('#notice'), /join code is wrong/);
  await bea.click('#notice button');
  await takeSeat(bea, 'Bea', code);
  await ann.waitForFunction(() => document.querySelectorAll('.seat.kind-human').length === 2);
  // Every seat is taken: a spectator is not offered a seat, and nobody is invited.
  await cy.goto(`${BASE}/#/table/${tableId}`);
  await cy.waitForSelector('.table-page.status-open');
  assert.equal(await cy.$('[data-key="take-seat"]'), null);
  assert.match(await cy.textContent('.open-table'), /Every seat is taken/);
  for (const p of [ann, cy]) assert.doesNotMatch(await p.textContent('.open-table'), /Invite/);
  assert.equal(await ann.$('.join-code, [data-key="copy-invite"]'), null, 'no code to join a full table with');

  // Presence stays out of "What happened": Bea reloads twice; Ann and Cy see her come and
  // go in the seat list only.
  for (let i = 0; i < 2; i += 1) {
    await bea.reload();
    await bea.waitForSelector('.seat.mine');
  }
  await bea.waitForSelector('.conn-live');
  const { table: sofar } = await graphql('query($id: ID!) { table(id: $id) { events(last: 200) { cursor type } } }', { id: tableId });
  const presence = sofar.events.filter((e) => e.type === 'seat.away' || e.type === 'seat.connected').map((e) => e.cursor);
  assert.ok(presence.length >= 3, `presence events: ${presence.length}`);
  for (const p of [ann, cy]) {
    await p.waitForFunction((cursors) => {
      const shown = new Set([...document.querySelectorAll('.events li')].map((el) => el.dataset.cursor));
      return cursors.every((c) => shown.has(c));
    }, presence);
    assert.deepEqual(await p.$$eval('.events li.seat-away:not([hidden]), .events li.seat-connected:not([hidden])', (els) => els.map((el) => el.textContent)), []);
  }
  // Only an absence longer than a minute is told, once, when it ends.
  const absences = await ann.evaluate(async () => {
    const { describeAll } = await import('./js/words.js');
    const table = { seats: [{ name: 'Ann' }, { name: 'Bea' }], game: { houseRules: [] }, options: {} };
    const at = (s) => new Date(Date.UTC(2026, 0, 1, 12, 0, s)).toISOString();
    const events = [
      ['seat.away', 0], ['seat.connected', 4], ['seat.away', 10], ['seat.away', 20], ['seat.connected', 160],
    ].map(([type, s], i) => ({ cursor: String(i), version: 1, type, seat: 1, at: at(s), data: {} }));
    return describeAll(events, table, 0).filter((l) => !l.quiet).map((l) => l.text);
  });
  assert.deepEqual(absences, ['Bea is back, after 2 minutes away.']);

  // Chat: a seat's message reaches everyone; a spectator's reaches spectators only.
  for (const p of [ann, bea, cy]) await p.getByRole('region', { name: 'Chat' }).getByRole('textbox', { name: 'Chat message' }).waitFor();
  await say(ann, 'Good luck, Bea');
  for (const p of [bea, cy]) await p.waitForFunction(() => [...document.querySelectorAll('.chat .message .text')].some((el) => el.textContent === 'Good luck, Bea'));
  await say(cy, 'Go Ann!', 'Cy');
  await say(bea, 'Thanks!');
  await ann.waitForFunction(() => [...document.querySelectorAll('.chat .message .text')].some((el) => el.textContent === 'Thanks!'));
  await cy.waitForFunction(() => [...document.querySelectorAll('.chat .message .text')].some((el) => el.textContent === 'Thanks!'));
  assert.deepEqual(await chatTexts(ann), ['Good luck, Bea', 'Thanks!']);
  assert.deepEqual(await chatTexts(bea), ['Good luck, Bea', 'Thanks!']);
  assert.deepEqual(await chatTexts(cy), ['Good luck, Bea', 'Go Ann!', 'Thanks!']);
  assert.match(await cy.textContent('.chat .message.spectator'), /Cy \(watching\)/);

  await ann.click('[data-key="start"]');
  // Bea (left of the dealer) starts: she takes the top discard, then takes it back.
  await bea.waitForSelector(`${READY} [data-step="discard-pile"].playable`);
  let before = await stateOf(bea);
  await bea.click('[data-step="discard-pile"]');
  await settled(bea, before);
  const undo = bea.getByRole('button', { name: 'Undo', exact: true });
  await undo.waitFor();
  before = await stateOf(bea);
  await undo.click();
  await settled(bea, before);
  await bea.waitForSelector(`${READY} [data-step="stock"].playable`);
  await ann.waitForFunction(() => [...document.querySelectorAll('.events li')].some((el) => /Bea took back their last move/.test(el.textContent)));

  // Ann clicks; Bea plays with the keyboard. Each sees the other's moves live.
  const [annMoves, beaMoves] = await Promise.all([playToEnd(ann, { prefer: ['goOut'] }), playToEnd(bea, { prefer: ['goOut'], keyboard: true, shotAt: 1, shotName: 'two-windows-bea', docs: false })]);
  assert.ok(annMoves + beaMoves > 0);
  await checkResult(ann, tableId);
  await checkResult(bea, tableId);
  assert.equal(await ann.textContent('.result .seed'), await bea.textContent('.result .seed'));
  // The winner reads "You win", the other "Ann wins" (or "You and Ann win" at a tie).
  const { table: ended } = await graphql('query($id: ID!) { table(id: $id) { result { winners } } }', { id: tableId });
  for (const [p, me, other] of [[ann, 0, 'Bea'], [bea, 1, 'Ann']]) {
    const won = ended.result.winners.includes(me);
    const lost = ended.result.winners.includes(1 - me);
    const expected = won && lost ? `You and ${other} win` : won ? 'You win' : lost ? `${other} wins` : 'Nobody wins';
    assert.equal(await p.textContent('.result h3'), expected);
  }
  await checkLog(ann, tableId);
  await checkLog(bea, tableId);
  await shot(bea, 'two-windows-result');

  // Rematch: Ann asks; both seats arrive at the new table, each with a new token kept by
  // the page and never shown.
  await ann.getByRole('button', { name: 'Rematch', exact: true }).click();
  for (const p of [ann, bea]) {
    await p.waitForFunction((old) => !location.hash.includes(old) && document.querySelector('.table-page.status-open .seat.mine'), tableId, { timeout: 10_000 });
  }
  const next = tableIdOf(ann);
  assert.notEqual(next, tableId);
  assert.equal(tableIdOf(bea), next);
  assert.match(await ann.textContent('.seat.mine'), /Ann/);
  assert.match(await bea.textContent('.seat.mine'), /Bea/);
  const held = [...(await tokensOf(ann)), ...(await tokensOf(bea))];
  assert.ok(held.filter((t) => t.startsWith(`${next}.`)).length >= 2, 'both pages keep their new tokens');
  await cy.waitForSelector('.events li.table-rematch');
  for (const p of [ann, bea, cy]) await noTokenText(p, held);

  // Presence: Ann sees Bea online; Bea closes her tab; Ann sees her away.
  await ann.waitForSelector('.seat[data-seat="1"] .presence.on');
  await bea.close();
  await ann.waitForSelector('.seat[data-seat="1"] .presence.off', { timeout: 10_000 });
  assert.match(await ann.textContent('.online'), /Ann/);
  assert.doesNotMatch(await ann.textContent('.online'), /Bea/);
  await shot(ann, 'rematch');
  assertNoErrors(ann, cy);
});

browserTest('the host: asks before starting with empty seats, removes a seat, hands one over and cancels', async () => {
  const page = await player();
  // Alone at a 2-seat Five Crowns table: Start says it becomes the solo game, and waits.
  await createTable(page, 'five-crowns', 'Ann', { rounds: 1 });
  await page.click('[data-key="start"]');
  const dialog = page.locator('dialog.confirm');
  await dialog.waitFor();
  assert.match(await dialog.textContent(), /solo game/);
  await page.click('dialog.confirm [data-dialog="cancel"]');
  assert.ok(await page.$('.table-page.status-open'));
  // Three seats: the options changed while open; a bot in, out again (Remove), in again;
  // start with two, asked first.
  await createTable(page, 'five-crowns', 'Ann', { rounds: 1 }, { seats: 3 });
  await page.click('.options-editor summary');
  await page.fill('.options-editor #opt-rounds', '2');
  await page.click('[data-key="save-options"]');
  await page.waitForFunction(() => /2 rounds/.test(document.querySelector('.table-head .meta').textContent));
  await page.waitForSelector('.events li.options-changed');
  await page.click('[data-key="add-bot"]');
  await page.waitForSelector('.seat.kind-bot');
  await page.click('[data-key="kick:1"]');
  await page.waitForFunction(() => !document.querySelector('.seat.kind-bot'));
  // The second bot at the level picked: the seat says so, as the server has it.
  await page.selectOption('[data-key="bot-level"]', 'EASY');
  await page.click('[data-key="add-bot"]');
  await page.waitForSelector('.seat.kind-bot');
  assert.match(await page.textContent('.seat.kind-bot .seat-name'), /\(easy bot\)/);
  assert.equal(await page.inputValue('[data-key="bot-level"]'), 'EASY', 'the picked level stays picked');
  await page.click('[data-key="start"]');
  await dialog.waitFor();
  assert.match(await dialog.textContent(), /2 of 3 seats/);
  await page.click('dialog.confirm [data-dialog="confirm"]');
  await page.waitForSelector('.table-page.status-playing');
  // The seat left empty dropped out of the game: it leaves the seat list.
  assert.deepEqual(await page.$$eval('.seats .seat', (els) => els.map((el) => el.dataset.seat)), ['0', '1']);
  // The bot's seat goes to a new player, Dan: his link can be copied (it holds his key).
  await page.click('[data-key="replace:1"]');
  await page.fill('#replace-name', 'Dan');
  await page.click('form.replace button[type=submit]');
  await page.waitForSelector('[data-key="copy-seat:1"]');
  await page.waitForFunction(() => /Dan/.test(document.querySelector('.seat[data-seat="1"]').textContent));
  await page.click('[data-key="copy-seat:1"]');
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(link, /#\/table\/.+\?seat=1&claim=/);
  await noTokenText(page, await tokensOf(page));
  // Dan opens his link: he plays seat 2, and the key is gone from the address.
  const dan = await player();
  await dan.goto(link);
  await dan.waitForSelector('.seat.mine[data-seat="1"]');
  assert.doesNotMatch(dan.url(), /claim=/);
  // Dan copies his own seat's link (for his phone): the same key.
  await dan.click('[data-key="copy-my-seat"]');
  assert.equal(await dan.evaluate(() => navigator.clipboard.readText()), link);
  // The address without the key, in another browser: it says whose seat it is and how the
  // host hands it over, rather than quietly showing the table as a spectator's.
  const eve = await player();
  await eve.goto(dan.url());
  await eve.waitForSelector('.table-page.status-playing');
  const held = eve.locator('.held-elsewhere');
  await held.waitFor();
  assert.match(await held.textContent(), /Dan \(seat 2\) is held in another browser.*“Copy my seat link”.*“Hand over”.*stops working/s);
  assert.equal(await eve.$('.seat.mine'), null);
  // The host cancels the table: no result, the seed revealed.
  await page.click('[data-key="cancel-table"]');
  await page.click('dialog.confirm [data-dialog="confirm"]');
  await page.waitForSelector('.table-page.status-cancelled .result .seed');
  await dan.waitForSelector('.table-page.status-cancelled');
  assertNoErrors(page, dan);
});

browserTest('a table the server no longer has says so plainly and offers the lobby', async () => {
  const page = await player();
  await page.goto(`${BASE}/`);
  // As after a restart of a server that kept its tables in memory: this browser still
  // holds a seat's token for a table the server forgot.
  await page.evaluate(() => {
    const tables = { lostTable123: { gameId: 'five-crowns', host: 'lostTable123.host-secret-x', seats: { 0: { token: 'lostTable123.seat-secret-y', name: 'Ann' } }, at: Date.now() } };
    localStorage.setItem('tablestate.tables', JSON.stringify(tables));
    sessionStorage.setItem('tablestate.seat.lostTable123', '0');
  });
  await page.goto(`${BASE}/#/table/lostTable123?seat=0`);
  await page.waitForSelector('.gone');
  const text = await page.textContent('main');
  assert.match(text, /This table is gone/);
  assert.match(text, /restarted/);
  assert.doesNotMatch(text, /watching|Your turn/);
  assert.equal(await page.$('.notice'), null, 'no error code next to it');
  await page.click('.gone a[href="#/"]');
  await page.waitForSelector('.lobby');
  assert.equal(await page.$('a[href^="#/table/lostTable123"]'), null, 'the lost table is forgotten');
  page.errors = page.errors.filter((e) => !/401|Failed to load resource/.test(e));
  assertNoErrors(page);
});
