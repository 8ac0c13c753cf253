// The page's generic view, in a real browser (Debian's chromium driven by Playwright), for
// games that bring no view module: Lucky Draw (the example plugin: cards, values, your own
// hand marked) and Grid Claim (a test board game: an ARIA grid played with the arrow keys,
// Enter and clicks; no chance, so no fair-shuffle part). And a bundled game, whose view is
// its plugin's own module, loaded through Game.viewModule. The server runs with both games
// installed (tests/web/test_generic_view.py).
//
//   TABLESTATE_URL=http://127.0.0.1:8000 node --test generic-view.test.mjs

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ARTIFACTS, READY, graphql, logTexts, moved, openTable, pageKit, start, versionOf } from './page-kit.mjs';

const { browserTest, player } = pageKit();

// A table from the lobby's form, the creator seated as host, a bot added, started.
async function startAgainstBot(page, gameId, options = {}) {
  const id = await openTable(page, gameId, { options });
  await page.click('[data-key="add-bot"]');
  await page.waitForSelector('.seat.kind-bot');
  await start(page);
  return id;
}

browserTest('Lucky Draw from its state type: your hand as cards, marked as yours, values labelled, a card played by a click', async () => {
  const page = await player();
  const tableId = await startAgainstBot(page, 'lucky-draw', { handSize: 3 });
  await page.waitForSelector(`${READY} .game.generic .playable`);
  assert.doesNotMatch(await page.textContent('.moves-area'), /no special view/);
  // Your hand: cards, marked as yours; the other hand is not on the page.
  const hand = page.locator('.game.generic [data-field="myHand"]');
  assert.equal(await hand.getAttribute('class'), 'field mine');
  assert.equal(await hand.locator('h3').textContent(), 'Your hand');
  const cards = await hand.locator('.card').evaluateAll((els) => els.map((el) => el.dataset.step));
  assert.equal(cards.length, 3);
  assert.ok(cards.every((k) => /^card:\d+[AB]$/.test(k)), cards.join());
  // Numbers as labelled values; the players as a table, your row marked.
  assert.equal(await page.textContent('[data-field="stockSize"] dt'), 'Stock size');
  assert.equal(await page.textContent('[data-field="stockSize"] dd'), '14');
  assert.equal(await page.textContent('[data-field="turn"] dd'), 'Ann (you)');
  assert.equal(await page.textContent('[data-field="played"]'), 'Playednone');
  const mine = page.locator('[data-field="players"] tr.mine');
  assert.equal(await mine.count(), 1);
  assert.match(await mine.textContent(), /^Ann \(you\)30$/);
  // Your legal cards are highlighted, the other move is a button.
  assert.deepEqual((await page.$$eval('.moves-area .playable', (els) => els.map((el) => el.dataset.step))).sort(), [...cards].sort());
  assert.deepEqual(await page.$$eval('.choices .choice', (els) => els.map((el) => el.textContent)), ['Draw']);
  await page.screenshot({ path: join(ARTIFACTS, 'generic-lucky-draw.png'), fullPage: true });
  // A click on a card plays it: it is in the played cards, out of your hand, in the log in words.
  const card = cards[0].slice(5);
  const before = await versionOf(page);
  await page.click(`.moves-area .playable[data-step="card:${card}"]`);
  await moved(page, before);
  await page.waitForSelector(`[data-field="played"] .card[aria-label^="${card.slice(0, -1)} of"]`);
  assert.equal(await hand.locator(`[data-step="card:${card}"]`).count(), 0);
  const data = await graphql('query($id: ID!) { table(id: $id) { state { ... on LuckyDrawState { played } } } }', { id: tableId });
  assert.equal(data.table.state.played[0], card);
  // No sentence of the plugin: the page says the event and its fields in words.
  await page.waitForFunction((c) => [...document.querySelectorAll('.events li')].some((el) => el.textContent === `You — card played: card ${c}, points ${parseInt(c, 10)}.`), card);
  const texts = await logTexts(page);
  assert.ok(!texts.some((t) => /\b(?:card|cards|turn|game)\.[a-z]+/.test(t)), texts.join('\n'));
  assert.deepEqual(page.errors, []);
});

browserTest('Grid Claim from its state type: the board is an ARIA grid, arrow keys move, Enter and a click mark, no fair-shuffle part', async () => {
  const page = await player();
  const tableId = await startAgainstBot(page, 'grid-claim');
  await page.waitForSelector(`${READY} [role="grid"] .playable`);
  const grid = page.locator('[role="grid"]');
  assert.equal(await grid.getAttribute('aria-label'), 'Board');
  assert.equal(await grid.locator('[role="row"]').count(), 3);
  assert.equal(await grid.locator('[role="row"] > [role="gridcell"]').count(), 9);
  // One tab stop in the grid: the first square you may mark.
  assert.deepEqual(await grid.locator('[data-cell]').evaluateAll((els) => els.filter((el) => el.tabIndex === 0).map((el) => el.dataset.cell)), ['0:0']);
  const focused = () => page.evaluate(() => document.activeElement?.dataset.cell ?? null);
  await grid.locator('[data-cell="0:0"]').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await focused(), '0:1');
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), '1:1');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowRight');
  assert.equal(await focused(), '1:1');
  assert.deepEqual(await grid.locator('[data-cell]').evaluateAll((els) => els.filter((el) => el.tabIndex === 0).map((el) => el.dataset.cell)), ['1:1']);
  assert.match(await page.getAttribute('[data-cell="1:1"]', 'aria-label'), /^Row 2, column 2: empty: Mark row 2, column 2$/);
  // Resigning is not a square: a button.
  assert.deepEqual(await page.$$eval('.choices .choice', (els) => els.map((el) => el.textContent)), ['Resign']);
  // Enter marks the focused square.
  let before = await versionOf(page);
  await page.keyboard.press('Enter');
  await moved(page, before);
  const board = async () => (await graphql('query($id: ID!) { table(id: $id) { state { ... on GridClaimState { board } } } }', { id: tableId })).table.state.board;
  assert.equal((await board())[1][1], 'X');
  // The plugin's sentence for the event.
  await page.waitForFunction(() => [...document.querySelectorAll('.events li')].some((el) => el.textContent === 'You put X on square 5'));
  // Then the bot; then a click marks a square. The bot's squares are taken, not playable.
  await page.waitForSelector(`${READY} [role="grid"] .playable`);
  assert.equal(await page.textContent('[data-cell="1:1"]'), 'X');
  await page.screenshot({ path: join(ARTIFACTS, 'generic-grid-claim.png'), fullPage: true });
  const taken = await grid.locator('[data-cell]').evaluateAll((els) => els.filter((el) => el.textContent === 'O').map((el) => el.dataset.cell));
  assert.equal(taken.length, 1);
  assert.equal(await page.locator(`[data-cell="${taken[0]}"]`).getAttribute('aria-disabled'), 'true');
  before = await versionOf(page);
  await page.click('[data-cell="2:2"]');
  await moved(page, before);
  assert.equal((await board())[2][2], 'X');
  // To the end by clicks: X fills five squares and wins.
  for (let i = 0; i < 10 && !(await page.$('.table-page.status-finished')); i += 1) {
    const cell = await page.waitForSelector(`.table-page.status-finished, ${READY} [role="grid"] .playable`);
    if (await page.$('.table-page.status-finished')) break;
    before = await versionOf(page);
    await cell.click();
    await moved(page, before);
  }
  await page.waitForSelector('.table-page.status-finished .result');
  assert.match(await page.textContent('.result h3'), /^You win$/);
  assert.equal(await page.locator('.fair').count(), 0, 'no fair-shuffle part for a game without chance');
  // An event with no sentence of its own, in words with its fields.
  assert.ok((await logTexts(page)).includes('Board filled: winners you.'), (await logTexts(page)).join('\n'));
  assert.deepEqual(page.errors, []);
});

browserTest('a bundled game is shown by its plugin’s own module, loaded through Game.viewModule', async () => {
  const { games } = await graphql('{ games { id viewModule usesChance } }');
  const crowns = games.find((g) => g.id === 'five-crowns');
  assert.equal(crowns.viewModule, '/games/five-crowns/view.js');
  assert.equal(crowns.usesChance, true);
  assert.equal(games.find((g) => g.id === 'lucky-draw').viewModule, null);
  const page = await player();
  await startAgainstBot(page, 'five-crowns', { rounds: 1 });
  await page.waitForSelector('.game.five-crowns .hand .card');
  assert.ok(page.requested.includes('/games/five-crowns/view.js'), page.requested.join('\n'));
  assert.ok(!page.requested.some((p) => p.startsWith('/js/games/five-crowns')));
  assert.deepEqual(page.errors, []);
});
