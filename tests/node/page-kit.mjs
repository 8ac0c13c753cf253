// What the browser tests of the page share: Chromium started once per file, a test that
// screenshots every page it opened when it fails, players, the GraphQL endpoint and the
// page's signs of a move made. A test file calls `pageKit()` once, at its top level.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';

export const BASE = (process.env.TABLESTATE_URL || 'http://127.0.0.1:8000').replace(/\/$/, '');
export const ARTIFACTS = process.env.TABLESTATE_ARTIFACTS || join(import.meta.dirname, '..', 'web', 'artifacts');
export const DOCS = process.env.TABLESTATE_DOCS_SCREENSHOTS || '';
export const READY = '.table-page.my-turn:not(.busy):not(.offline)';
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function pageKit() {
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

  // A player's page; its errors (page and console) in `page.errors`, the paths it asked
  // for in `page.requested`.
  async function player() {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.errors = [];
    page.requested = [];
    page.on('pageerror', (err) => page.errors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') page.errors.push(msg.text());
    });
    page.on('request', (req) => page.requested.push(new URL(req.url()).pathname));
    return page;
  }

  return { browserTest, player };
}

// The page as it is now, in the artifacts and, for the docs' screenshots, in DOCS.
export async function shot(page, name) {
  await page.waitForSelector('.conn-live', { timeout: 10_000 }).catch(() => {});
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  if (DOCS) await page.screenshot({ path: join(DOCS, `${name}.png`), fullPage: true });
}

export async function graphql(query, variables = {}) {
  const res = await fetch(`${BASE}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const body = await res.json();
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data;
}

// A table from the lobby's form (options filled in, seats chosen), the creator seated as
// host; its id.
export async function openTable(page, gameId, { seats = null, options = {} } = {}) {
  await page.goto(`${BASE}/`);
  await page.fill('#player-name', 'Ann');
  await page.click(`[data-game="${gameId}"]`);
  await page.waitForSelector('form.create');
  for (const [key, value] of Object.entries(options)) await page.fill(`#opt-${key}`, String(value));
  if (seats !== null) await page.selectOption('#seats', String(seats));
  await page.click('form.create button[type=submit]');
  await page.waitForSelector('.table-page.status-open .seat.mine');
  return /#\/table\/([^?]+)/.exec(page.url())[1];
}

// The host starts the game.
export async function start(page) {
  await page.click('[data-key="start"]');
  await page.waitForSelector('.table-page.status-playing, .table-page.status-finished');
}

export const versionOf = (page) => page.$eval('.table-page', (el) => el.dataset.version);

// After a move: the page shows a newer version and is not busy.
export async function moved(page, before) {
  await page.waitForFunction((was) => {
    const el = document.querySelector('.table-page');
    return el && !el.classList.contains('busy') && el.dataset.version !== was;
  }, before);
}

export const logTexts = (page) => page.$$eval('.events li:not([hidden])', (els) => els.map((el) => el.textContent));
