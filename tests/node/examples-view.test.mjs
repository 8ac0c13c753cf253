// The two example games on the page, in a real browser (Debian's chromium driven by
// Playwright), shown by the page's generic view from their state types, as a pip-installed
// game is: tic-tac-toe (examples/tic_tac_toe: a board as an ARIA grid, arrow keys and
// clicks, two players to a win, no chance so no fair-shuffle part) and liar's dice
// (examples/liars_dice: your dice shown and marked as yours, nobody else's, bids as
// buttons, played to the end against a bot, the fair-shuffle part). The server runs with
// every installed game (tests/web/test_examples_view.py). Screenshots go to
// TABLESTATE_ARTIFACTS (and, with TABLESTATE_DOCS_SCREENSHOTS set, the docs' ones).
//
//   TABLESTATE_URL=http://127.0.0.1:8000 node --test examples-view.test.mjs

import assert from 'node:assert/strict';
import { BASE, READY, graphql, logTexts, moved, openTable, pageKit, shot, start, versionOf } from './page-kit.mjs';

const { browserTest, player } = pageKit();

browserTest('tic-tac-toe: its board an ARIA grid, arrow keys move the focus, clicks mark cells, two players to a win, no fair-shuffle part', async () => {
  const ann = await player();
  const tableId = await openTable(ann, 'tic-tac-toe');
  const bob = await player();
  await bob.goto(`${BASE}/#/table/${tableId}`);
  await bob.fill('#seat-name', 'Bob');
  await bob.click('[data-key="take-seat"]');
  await bob.waitForSelector('.seat.mine');
  await ann.waitForSelector('[data-key="start"]:not([disabled])');
  await start(ann);
  await ann.waitForSelector(`${READY} [role="grid"] .playable`);
  assert.doesNotMatch(await ann.textContent('.moves-area'), /no special view/);
  // The board: three rows of three cells, one tab stop, the arrow keys move between them.
  const grid = ann.locator('[role="grid"]');
  assert.equal(await grid.getAttribute('aria-label'), 'Board');
  assert.equal(await grid.locator('[role="row"]').count(), 3);
  assert.equal(await grid.locator('[role="row"] > [role="gridcell"]').count(), 9);
  const tabStops = () => grid.locator('[data-cell]').evaluateAll((els) => els.filter((el) => el.tabIndex === 0).map((el) => el.dataset.cell));
  assert.deepEqual(await tabStops(), ['0:0']);
  const focused = () => ann.evaluate(() => document.activeElement?.dataset.cell ?? null);
  await grid.locator('[data-cell="0:0"]').focus();
  await ann.keyboard.press('ArrowRight');
  assert.equal(await focused(), '0:1');
  await ann.keyboard.press('ArrowDown');
  assert.equal(await focused(), '1:1');
  await ann.keyboard.press('ArrowLeft');
  assert.equal(await focused(), '1:0');
  await ann.keyboard.press('ArrowUp');
  assert.equal(await focused(), '0:0');
  assert.deepEqual(await tabStops(), ['0:0']);
  assert.match(await ann.getAttribute('[data-cell="0:0"]', 'aria-label'), /^Row 1, column 1: empty: Mark row 1, column 1$/);
  // Every move is a cell: no buttons beside the board.
  assert.equal(await ann.locator('.choices .choice').count(), 0);
  // Clicks, in turn: X (Ann) takes the top row, O (Bob) the middle.
  const board = async () => (await graphql('query($id: ID!) { table(id: $id) { state { ... on TicTacToeState { board } } } }', { id: tableId })).table.state.board;
  const plays = [[ann, '0:0'], [bob, '1:0'], [ann, '0:1'], [bob, '1:1']];
  for (const [page, cell] of plays) {
    await page.waitForSelector(`${READY} [data-cell="${cell}"].playable`);
    const was = await versionOf(page);
    await page.click(`[data-cell="${cell}"]`);
    await moved(page, was);
  }
  assert.deepEqual(await board(), [['X', 'X', ''], ['O', 'O', ''], ['', '', '']]);
  await ann.waitForSelector(`${READY} [data-cell="0:2"].playable`);
  // Cells taken are shown and cannot be played.
  assert.equal(await ann.textContent('[data-cell="1:1"]'), 'O');
  assert.equal(await ann.getAttribute('[data-cell="1:1"]', 'aria-disabled'), 'true');
  assert.equal(await ann.getAttribute('[data-cell="0:0"]', 'aria-disabled'), 'true');
  await ann.click('[data-cell="0:2"]');
  await ann.waitForSelector('.table-page.status-finished .result');
  assert.match(await ann.textContent('.result h3'), /^You win$/);
  await bob.waitForSelector('.table-page.status-finished .result');
  assert.match(await bob.textContent('.result h3'), /^Ann wins$/);
  assert.equal(await ann.textContent('[data-cell="0:2"]'), 'X');
  assert.equal(await ann.locator('.fair').count(), 0, 'no fair-shuffle part for a game without chance');
  assert.equal(await bob.locator('.fair').count(), 0);
  const texts = await logTexts(ann);
  assert.ok(!texts.some((t) => /\b(?:move|game)\.[a-z]+/.test(t)), texts.join('\n'));
  // a move in words, and no seed to speak of in a game without chance
  assert.ok(texts.includes('You — mark row 0, col 2.'), texts.join('\n'));
  assert.ok(!texts.some((t) => /seed/.test(t)), texts.join('\n'));
  await shot(ann, 'tic-tac-toe');
  assert.deepEqual(ann.errors, []);
  assert.deepEqual(bob.errors, []);
});

browserTest('liar’s dice: your dice shown and marked as yours, nobody else’s, a bid by its button, played to the end, the fair-shuffle part', async () => {
  const page = await player();
  const tableId = await openTable(page, 'liars-dice', { seats: 2 });
  await page.click('[data-key="add-bot"]');
  await page.waitForSelector('.seat.kind-bot');
  await start(page);
  await page.waitForSelector(`${READY} .game.generic .choices .choice, ${READY} .choices .choice`);
  assert.doesNotMatch(await page.textContent('.moves-area'), /no special view/);
  // Your dice, marked as yours: five red dice, and no other die anywhere on the page.
  const mine = page.locator('.game.generic [data-field="myDice"]');
  assert.equal(await mine.getAttribute('class'), 'field mine');
  assert.equal(await mine.locator('h3').textContent(), 'Your dice');
  const dice = await mine.locator('.die').evaluateAll((els) => els.map((el) => el.getAttribute('aria-label')));
  assert.equal(dice.length, 5);
  assert.ok(dice.every((d) => /^red [1-6]$/.test(d)), dice.join());
  assert.equal(await page.locator('.die').count(), 5, 'only your own dice are on the page');
  const { width } = await mine.locator('.die').first().boundingBox();
  assert.ok(width < 64, `a die ${width}px wide: dice in a list are drawn at a die's size`);
  // The players: how many dice each holds, your row marked.
  const rows = page.locator('[data-field="players"] tbody tr');
  assert.equal(await rows.count(), 2);
  assert.match(await page.textContent('[data-field="players"] tr.mine'), /^Ann \(you\)5/);
  assert.equal(await page.locator('[data-field="players"] tr:not(.mine) .die').count(), 0);
  const spectator = await graphql('query($id: ID!) { table(id: $id) { state { ... on LiarsDiceState { myDice players { dice } } } } }', { id: tableId });
  assert.deepEqual(spectator.table.state, { myDice: null, players: [{ dice: 5 }, { dice: 5 }] });
  // Every bid is a button; no challenge before a bid. A click on one bids it.
  const choices = await page.$$eval('.choices .choice', (els) => els.map((el) => el.textContent));
  assert.equal(choices.length, 60);
  assert.ok(choices.includes('Bid: quantity 2, face 3') && !choices.includes('Challenge'), choices.join(' | '));
  const was = await versionOf(page);
  await page.click('.choices .choice:text-is("Bid: quantity 2, face 3")');
  await moved(page, was);
  await page.waitForFunction(() => [...document.querySelectorAll('.events li')].some((el) => el.textContent === 'You bid 2 dice showing 3'));
  assert.ok((await logTexts(page)).some((t) => /^New round: 10 dice in play; you rolled (?:R[1-6], ){4}R[1-6]$|^New round: 10 dice in play; you rolled (?:R[1-6], ){3}R[1-6] and R[1-6]$/.test(t)), (await logTexts(page)).join('\n'));
  // To the end: call every bid a lie, or open with the first bid offered. The page is
  // photographed at the first bid to call after a challenge: every die of the round before
  // is on show, beside the bid.
  let photographed = false;
  for (let i = 0; i < 60; i += 1) {
    await page.waitForSelector(`.table-page.status-finished, ${READY} .choices .choice`, { timeout: 30_000 });
    if (await page.$('.table-page.status-finished')) break;
    const challenge = page.locator('.choices .choice:text-is("Challenge")');
    const canCall = (await challenge.count()) === 1;
    if (!photographed && canCall && (await logTexts(page)).some((t) => / called liar on /.test(t))) {
      assert.equal(await page.locator('[data-field="players"] tbody tr').nth(1).locator('.die').count(), 5, 'the bot’s dice, shown at the challenge');
      assert.match(await page.textContent('[data-field="bid"]'), /^BidQuantity\d+Face[1-6]$/);
      await shot(page, 'liars-dice');
      photographed = true;
    }
    const before = await versionOf(page);
    await (canCall ? challenge.click() : page.locator('.choices .choice').first().click());
    await moved(page, before);
  }
  await page.waitForSelector('.table-page.status-finished .result');
  assert.ok(photographed);
  assert.match(await page.textContent('.result h3'), /^(?:You win|.+ wins)$/);
  // A game of chance: the fair-shuffle part, with the seed revealed and checked.
  assert.equal(await page.locator('.fair').count(), 1);
  assert.equal(await page.textContent('.fair h4'), 'Fair shuffle');
  await page.waitForSelector('.fair .seed-check:text-is(" ✓ matches the commitment")');
  const texts = await logTexts(page);
  assert.ok(!texts.some((t) => /\b(?:round|bid|game)\.[a-z]+/.test(t)), texts.join('\n'));
  assert.ok(texts.some((t) => /^(?:You|.+) called liar on \d+ dice showing [1-6]: \d+ found, so (?:you|.+) lost a die$/.test(t)), texts.join('\n'));
  assert.deepEqual(page.errors, []);
});
