// Play now on the page, in a real browser (Debian's chromium driven by Playwright): two
// players (two browser contexts, so two players' storage) press Play now on the same game
// with the same wish, both see the waiting view, and both end at the same table, started,
// each in a seat of their own that a reload keeps; one who presses Play now and then Cancel
// is back in the lobby; the form and the waiting view fit a phone; alone with bots allowed,
// the table starts with bots. Screenshots go to TABLESTATE_ARTIFACTS.
//
//   TABLESTATE_URL=http://127.0.0.1:8000 node --test quickplay.test.mjs

import assert from 'node:assert/strict';
import { BASE, pageKit, shot } from './page-kit.mjs';

const { browserTest, player } = pageKit();

// A bundled two-player game, wished for by two players only and without bots: the two
// tickets meet at once, and no other test's ticket can join them.
const GAME = 'all-fives';

// The lobby, the name typed, and Play now's form for `gameId`.
async function quickForm(page, name, gameId = GAME) {
  await page.goto(`${BASE}/`);
  await page.fill('#player-name', name);
  await page.click(`[data-play-now="${gameId}"]`);
  await page.waitForSelector('form.quick-play');
  assert.equal(await page.$eval('#qp-name', (el) => el.value), name, 'the form takes the name the page keeps');
  // Focus moved into the form, for a keyboard player.
  assert.ok(await page.evaluate(() => document.querySelector('form.quick-play').contains(document.activeElement)));
}

// Two players, no bots: a wish only another such ticket can meet.
async function wishForTwo(page) {
  await page.selectOption('#qp-min', '2');
  await page.selectOption('#qp-max', '2');
  await page.setChecked('#qp-bots', false);
  assert.equal(await page.$eval('#qp-after', (el) => el.disabled), true);
}

const tableIdOf = (page) => /#\/table\/([^?]+)/.exec(page.url())[1];
const mySeat = (page) => page.$eval('.seat.mine', (el) => Number(el.dataset.seat));

browserTest('two players who press Play now on the same game meet at one table', async () => {
  const ann = await player();
  const bea = await player();
  await quickForm(ann, 'Ann');
  await wishForTwo(ann);
  await ann.click('form.quick-play button[type=submit]');
  await ann.waitForSelector('.quick-wait');
  assert.equal(await ann.textContent('.quick-wait h2'), 'Looking for players…');
  await ann.waitForFunction(() => /Waiting for 0:0[1-9]/.test(document.querySelector('.quick-waited')?.textContent || ''));
  assert.equal(await ann.evaluate(() => document.activeElement?.textContent), 'Cancel', 'the focus is on Cancel');
  assert.match(ann.url(), /\/(#\/?)?$/, 'the address stays the lobby’s while waiting');
  await shot(ann, 'quickplay-waiting');

  await quickForm(bea, 'Bea');
  await wishForTwo(bea);
  await bea.click('form.quick-play button[type=submit]');

  // Both open the same table, started, each in a seat of their own.
  await ann.waitForSelector('.table-page.status-playing .seat.mine', { timeout: 15_000 });
  await bea.waitForSelector('.table-page.status-playing .seat.mine', { timeout: 15_000 });
  const table = tableIdOf(ann);
  assert.equal(tableIdOf(bea), table, 'both players are at the same table');
  const [seatA, seatB] = [await mySeat(ann), await mySeat(bea)];
  assert.notEqual(seatA, seatB, 'each has a seat of their own');
  assert.match(await ann.textContent(`.seat[data-seat="${seatA}"]`), /Ann/);
  assert.match(await bea.textContent(`.seat[data-seat="${seatB}"]`), /Bea/);

  // No token in the address; the seat is kept as joinTable's is, so a reload keeps it.
  for (const page of [ann, bea]) {
    assert.doesNotMatch(page.url(), /token|claim|ticket/i);
    const stored = await page.evaluate((id) => JSON.parse(localStorage.getItem('tablestate.tables'))[id], table);
    assert.equal(Object.keys(stored.seats).length, 1);
    assert.equal(stored.gameId, GAME);
  }
  await bea.reload();
  await bea.waitForSelector('.table-page.status-playing .seat.mine');
  assert.equal(await mySeat(bea), seatB, 'a reload keeps the seat');
  await shot(ann, 'quickplay-matched');

  for (const page of [ann, bea]) assert.deepEqual(page.errors, []);
});

browserTest('Play now, then Cancel: back in the lobby', async () => {
  const cy = await player();
  await quickForm(cy, 'Cy');
  await wishForTwo(cy);
  // House rules are offered as the create form offers them.
  assert.ok((await cy.$$('form.quick-play fieldset.rules input[type=checkbox]')).length > 0, 'the game’s house rules are offered');
  await shot(cy, 'quickplay-form');
  await cy.click('form.quick-play button[type=submit]');
  await cy.waitForSelector('.quick-wait');
  await cy.click('.quick-wait button:has-text("Cancel")');
  await cy.waitForSelector('.lobby [data-play-now]');
  await cy.waitForSelector('#notice .info-note');
  assert.match(await cy.textContent('#notice'), /cancelled/i);
  assert.equal(await cy.evaluate(() => document.activeElement?.dataset.playNow), GAME, 'the focus is back on Play now');
  assert.deepEqual(cy.errors, []);
});

browserTest('Play now on a phone: the form and the waiting view fit the screen', async () => {
  const dee = await player();
  await dee.setViewportSize({ width: 390, height: 844 });
  await quickForm(dee, 'Dee');
  await wishForTwo(dee);
  const fits = () => dee.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  assert.ok(await fits(), 'the form fits a phone');
  await shot(dee, 'quickplay-form-phone');
  await dee.click('form.quick-play button[type=submit]');
  await dee.waitForSelector('.quick-wait');
  assert.ok(await fits(), 'the waiting view fits a phone');
  await shot(dee, 'quickplay-waiting-phone');
  await dee.click('.quick-wait button:has-text("Cancel")');
  await dee.waitForSelector('.lobby [data-play-now]');
  assert.deepEqual(dee.errors, []);
});

browserTest('Play now alone, bots after 1 s: the table starts with a bot', async () => {
  const eve = await player();
  await quickForm(eve, 'Eve', 'five-by-five');
  await eve.selectOption('#qp-min', '2');
  await eve.selectOption('#qp-max', '2');
  await eve.fill('#qp-after', '1');
  await eve.click('form.quick-play button[type=submit]');
  await eve.waitForSelector('.quick-wait');
  assert.match(await eve.textContent('.quick-wish'), /bots fill the seats after 1 second/);
  await eve.waitForSelector('.table-page.status-playing .seat.mine', { timeout: 15_000 });
  assert.equal(await eve.$$eval('.seat.kind-bot', (els) => els.length) > 0, true, 'a bot took the other seat');
  assert.deepEqual(eve.errors, []);
});
