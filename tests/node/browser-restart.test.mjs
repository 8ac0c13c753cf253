// The server restarts under open pages (its memory store forgets every table): a player in
// the middle of a game and a spectator see the connection lost (no move can be clicked),
// then a plain "This table is gone" with the way back to the lobby, never a page that
// looks playable. The server is stopped and started by tests/web/test_browser_restart.py
// when asked through files in TABLESTATE_RESTART_DIR ("stop" / "stopped", "start" /
// "started").
//
//   TABLESTATE_URL=http://127.0.0.1:8000 TABLESTATE_RESTART_DIR=/some/dir node --test browser-restart.test.mjs

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';

const BASE = (process.env.TABLESTATE_URL || 'http://127.0.0.1:8000').replace(/\/$/, '');
const ARTIFACTS = process.env.TABLESTATE_ARTIFACTS || join(import.meta.dirname, '..', 'web', 'artifacts');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SIGNALS = process.env.TABLESTATE_RESTART_DIR;

// Ask the test that runs the server to do something, and wait until it is done.
async function ask(what, done) {
  writeFileSync(join(SIGNALS, what), '');
  for (let i = 0; i < 600 && !existsSync(join(SIGNALS, done)); i += 1) await sleep(100);
  assert.ok(existsSync(join(SIGNALS, done)), `the server was not ${done} in time`);
}

test('a restarted server: the open pages say the table is gone and offer the lobby', { skip: !SIGNALS && 'needs TABLESTATE_RESTART_DIR' }, async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'], headless: true });
  const pages = [];
  try {
    const open = async () => {
      const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
      page.errors = [];
      page.on('pageerror', (err) => page.errors.push(err.message));
      pages.push(page);
      return page;
    };
    const ann = await open();
    await ann.goto(`${BASE}/`);
    await ann.fill('#player-name', 'Ann');
    await ann.click('[data-game="five-crowns"]');
    await ann.fill('#opt-rounds', '1');
    await ann.click('form.create button[type=submit]');
    await ann.waitForSelector('.table-page.status-open .seat.mine');
    await ann.click('[data-key="add-bot"]');
    await ann.waitForSelector('.seat.kind-bot');
    await ann.click('[data-key="start"]');
    await ann.waitForSelector('.table-page.my-turn .moves-area .playable');
    const watcher = await open();
    await watcher.goto(ann.url().replace(/\?.*$/, ''));
    await watcher.waitForSelector('.table-page.status-playing .conn-live');

    // Down: the page says the connection is lost, and no move can be clicked meanwhile.
    await ask('stop', 'stopped');
    await ann.waitForSelector('.offline-note', { timeout: 10_000 });
    assert.equal(await ann.$('.moves-area .playable'), null, 'nothing is clickable while offline');
    // Up again, without the table: both pages say so plainly.
    await ask('start', 'started');
    for (const page of [ann, watcher]) {
      await page.waitForSelector('.gone', { timeout: 30_000 });
      const text = await page.textContent('main');
      assert.match(text, /This table is gone/);
      assert.doesNotMatch(text, /Your turn|watching/);
    }
    await ann.screenshot({ path: join(ARTIFACTS, 'table-gone.png'), fullPage: true });
    // A reload no longer holds the table's tokens: one plain message, no refusal next to it.
    await ann.reload();
    await ann.waitForSelector('.gone');
    assert.equal(await ann.$('.notice'), null);
    await ann.click('.gone a[href="#/"]');
    await ann.waitForSelector('.lobby');
    for (const page of pages) assert.deepEqual(page.errors, []);
  } finally {
    await browser.close();
  }
});
