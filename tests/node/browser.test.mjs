// The reference web client in a real browser: Debian's chromium, driven by Playwright
// (playwright-core: no browser download). It opens the page, creates tables, adds bots,
// plays a short game of each bundled game to the end by clicking what legalMoves offers,
// and has two windows on two seats of one table play each other. Screenshots go to
// TABLESTATE_ARTIFACTS (and, with TABLESTATE_DOCS_SCREENSHOTS set, the README's ones).
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
      const slug = name.replace(/\W+/g, '-').toLowerCase();
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
async function createTable(page, gameId, name, options = {}) {
  await openForm(page, gameId, name);
  for (const [key, value] of Object.entries(options)) await page.fill(`#opt-${key}`, String(value));
  await page.click('form.create button[type=submit]');
  await page.waitForSelector('.table-page.status-open .seat.mine');
  return /#\/table\/([^?]+)/.exec(page.url())[1];
}

async function addBotAndStart(page) {
  await page.click('[data-key="add-bot"]');
  await page.waitForSelector('.seat.kind-bot');
  await page.click('[data-key="start"]');
  await page.waitForSelector('.table-page.status-playing, .table-page.status-finished');
}

async function graphql(query, variables = {}) {
  const res = await fetch(`${BASE}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
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

const MOVABLE = '.table-page.my-turn:not(.busy) .moves-area .playable, .table-page.my-turn:not(.busy) .choices .choice';

// Play this page's seat to the end of the game: wait for a turn, click one of the legal
// steps the page highlights, repeat. `keyboard` plays with Tab-focus and Enter instead.
async function playToEnd(page, { prefer = [], keyboard = false, shotAt = null, shotName = '', docs = true, dropAt = null, maxClicks = 600 } = {}) {
  let clicks = 0;
  let misses = 0;
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
    if (clicks === dropAt) await page.evaluate(() => window.tablestate.drop());
    const keys = await page.$$eval('.moves-area .playable, .choices .choice:not(.cancel)', (els) =>
      els.map((el) => el.dataset.step ?? el.dataset.stepChoice),
    );
    if (!keys.length) continue;
    const key = choose(keys, prefer);
    const target = page.locator(`.moves-area .playable[data-step="${key}"], .choices [data-step-choice="${key}"]`).first();
    const before = await page.$eval('.table-page', (el) => `${el.dataset.version}/${el.dataset.picked}`);
    try {
      // The page re-renders on every event: a step read a moment ago may be gone; then
      // look again rather than wait for it.
      if (keyboard) {
        await target.focus({ timeout: 5_000 });
        await page.keyboard.press('Enter');
      } else {
        await target.click({ timeout: 5_000 });
      }
      await page.waitForFunction(
        (was) => {
          const el = document.querySelector('.table-page');
          if (document.querySelector('.notice')) return true;
          return el && !el.classList.contains('busy') && `${el.dataset.version}/${el.dataset.picked}` !== was;
        },
        before,
        { timeout: 10_000 },
      );
    } catch (err) {
      if (err.name !== 'TimeoutError') throw err;
      misses += 1;
      console.log(`a click on ${key} missed (${misses} in a row): ${err.message.split('\n')[0]}`);
      continue;
    }
    misses = 0;
    clicks += 1;
    assert.ok(clicks < maxClicks, `no end after ${clicks} clicks`);
  }
}

// The event log on the page is the tail of the table's events: in order, no gap, no
// duplicate, whatever the connection went through.
async function checkLog(page, tableId) {
  const shown = (await page.$$eval('.events li', (els) => els.map((el) => el.dataset.cursor))).reverse();
  assert.ok(shown.length > 0);
  const data = await graphql('query($id: ID!, $n: Int) { table(id: $id) { events(last: $n) { cursor } } }', { id: tableId, n: shown.length });
  assert.deepEqual(shown, data.table.events.map((e) => e.cursor));
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

function assertNoErrors(...pages) {
  for (const page of pages) assert.deepEqual(page.errors, []);
}

browserTest('the lobby lists the games, their options and house rules, at desktop and phone width', async () => {
  const page = await player();
  await openForm(page, 'all-fives', 'Ann');
  // House rules show their descriptions; a ticked rule disables those it conflicts with.
  await page.selectOption('#seats', '4');
  const partnerships = page.locator('input[value="all-fives/partnerships"]');
  await partnerships.check();
  assert.ok(await page.locator('input[value="all-fives/bunch-on-agreement"]').isDisabled());
  assert.match(await page.textContent('form.create .rules'), /conflicts with/);
  await shot(page, 'lobby', { docs: true });
  const phone = await player(PHONE);
  await openForm(phone, 'five-crowns', 'Ann');
  await noHorizontalScroll(phone);
  await shot(phone, 'lobby-phone');
  assertNoErrors(page, phone);
});

browserTest('Five Crowns, one round against a bot', async () => {
  const page = await player();
  const tableId = await createTable(page, 'five-crowns', 'Ann', { rounds: 1 });
  await addBotAndStart(page);
  await playToEnd(page, { prefer: ['goOut', 'layDown'], shotAt: 1, shotName: 'five-crowns' });
  await checkResult(page, tableId);
  await checkLog(page, tableId);
  await shot(page, 'five-crowns-result', { docs: true });
  assertNoErrors(page);
});

browserTest('All Fives to 15 against a bot, surviving a dropped connection', async () => {
  const page = await player();
  const tableId = await createTable(page, 'all-fives', 'Ann', { targetScore: 15 });
  await addBotAndStart(page);
  await playToEnd(page, { dropAt: 1, shotAt: 6, shotName: 'all-fives' });
  await checkResult(page, tableId);
  await checkLog(page, tableId);
  assert.ok(await page.evaluate(() => window.tablestate.connects()) >= 2, 'the page reconnected');
  assert.ok(await page.$('.conn-live'), 'the live connection is back');
  assertNoErrors(page);
});

browserTest('Five by Five to a full board against a bot, at phone width', async () => {
  const page = await player(PHONE);
  // A shorter game where the server can prefill part of the board.
  await openForm(page, 'five-by-five', 'Ann');
  const options = (await page.$('#opt-prefilledSquares')) ? { prefilledSquares: 10 } : {};
  const tableId = await createTable(page, 'five-by-five', 'Ann', options);
  await addBotAndStart(page);
  const prefer = ['obj:', 'special:', 'action:R', 'action:Y', 'action:B', 'action:G', 'color:', 'sq:', 'action:', 'delta:', 'deck:', 'done'];
  await playToEnd(page, { prefer, shotAt: 6, shotName: 'five-by-five-phone' });
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

browserTest('two windows on two seats of one table play each other', async () => {
  const ann = await player();
  const bea = await player();
  const tableId = await createTable(ann, 'five-crowns', 'Ann', { rounds: 1 });
  // Bea finds the table in the lobby and takes the other seat.
  await bea.goto(`${BASE}/`);
  await bea.click(`a[data-table="${tableId}"]`);
  await bea.fill('#seat-name', 'Bea');
  await bea.click('[data-key="take-seat"]');
  await bea.waitForSelector('.seat.mine');
  await ann.waitForFunction(() => document.querySelectorAll('.seat.kind-human').length === 2);
  // The host turns a house rule on at the open table; Bea sees it at once, unable to change it.
  const rule = '[data-key="rule:five-crowns/no-immediate-rediscard"]';
  await ann.check(rule);
  await bea.waitForFunction((sel) => document.querySelector(sel)?.checked, rule);
  assert.ok(await bea.isDisabled(rule));
  assert.match(await bea.textContent('.table-head .meta'), /No immediate re-discard/);
  await ann.click('[data-key="start"]');
  // Ann clicks; Bea plays with the keyboard. Each sees the other's moves live.
  const [annMoves, beaMoves] = await Promise.all([
    playToEnd(ann, { prefer: ['goOut'] }),
    playToEnd(bea, { prefer: ['goOut'], keyboard: true, shotAt: 1, shotName: 'two-windows-bea', docs: false }),
  ]);
  assert.ok(annMoves + beaMoves > 0);
  await checkResult(ann, tableId);
  await checkResult(bea, tableId);
  assert.equal(await ann.textContent('.result .seed'), await bea.textContent('.result .seed'));
  await checkLog(ann, tableId);
  await checkLog(bea, tableId);
  await shot(bea, 'two-windows-result');
  assertNoErrors(ann, bea);
});
